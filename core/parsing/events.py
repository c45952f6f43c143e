"""Element parsers of events: the event kinds (start, end, intermediate throw, boundary) and, apart
from them, the event definitions they may carry (error, terminate, timer, message, signal).

A definition lists the event kinds it may appear on with Camunda's activity type for each; a new
definition (timer, message, signal) is one more entry in `EVENT_DEFINITIONS`, no kind changes.
Pure: reports unsupported combinations on the context.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lxml import etree

from ..model import (
    ErrorEventDefinition,
    EventDefinition,
    EventSpec,
    MessageEventDefinition,
    ServiceTaskSpec,
    SignalEventDefinition,
    TerminateEventDefinition,
    TimerEventDefinition,
)
from ..timers import KINDS as TIMER_KINDS
from ..timers import TimerError, parse_timer
from .context import BPMN, CAMUNDA_NAMESPACES, ParseContext, ParsedElement, local, ns
from .listeners import extension_elements
from .messages import read_message, read_signal
from .tasks import service_spec


@dataclass(frozen=True, slots=True)
class EventKind:
    """One BPMN event element, whatever definition it carries."""

    plural: str  # how problems name it: "end events"
    article: str  # "a " where the problem reads "with a <definition>"
    catching: bool  # waits for its trigger (start, catch, boundary) rather than throwing
    none_type: str | None  # Camunda's activity type without a definition; None: one is required
    attached: bool = False  # sits on another activity (attachedToRef)


EVENT_KINDS: Mapping[str, EventKind] = {
    "startEvent": EventKind("start events", "a ", True, "startEvent"),
    "endEvent": EventKind("end events", "a ", False, "noneEndEvent"),
    "intermediateThrowEvent": EventKind(
        "intermediate throw events", "a ", False, "intermediateNoneThrowEvent"
    ),
    "intermediateCatchEvent": EventKind("intermediate catch events", "a ", True, None),
    "boundaryEvent": EventKind("boundary events", "", True, None, attached=True),
}


@dataclass(frozen=True, slots=True)
class DefinitionKind:
    """One event definition: how to read it, and on which event kinds it runs as what type."""

    parse: Callable[[ParseContext, etree._Element, EventKind], EventDefinition]
    activity_types: Mapping[str, str]  # event tag -> Camunda's activity type


def _error(ctx: ParseContext, el: etree._Element, kind: EventKind) -> EventDefinition:
    ref = el.get("errorRef")
    code: str | None = None
    message: str | None = None
    if ref:
        if ref in ctx.errors:
            code, message = ctx.errors[ref]
        else:
            code = ref  # Camunda treats an unresolved errorRef as the error code itself
    return ErrorEventDefinition(
        error_code=code,
        error_message=message,
        code_variable=ctx.camunda(el, "errorCodeVariable") if kind.catching else None,
        message_variable=ctx.camunda(el, "errorMessageVariable") if kind.catching else None,
    )


def _timer(ctx: ParseContext, el: etree._Element, _kind: EventKind) -> EventDefinition:
    return read_timer(ctx, el) or TimerEventDefinition("timeDuration", "")


def _terminate(_ctx: ParseContext, _el: etree._Element, _kind: EventKind) -> EventDefinition:
    return TerminateEventDefinition()


def _message(ctx: ParseContext, el: etree._Element, _kind: EventKind) -> EventDefinition:
    return read_message(ctx, el) or MessageEventDefinition("")


def _signal(ctx: ParseContext, el: etree._Element, kind: EventKind) -> EventDefinition:
    if not kind.catching and (ctx.camunda(el, "async") or "").strip().lower() == "true":
        ctx.problem("asynchronous signal throws (camunda:async) are not supported yet", el)
    return read_signal(ctx, el) or SignalEventDefinition("")


EVENT_DEFINITIONS: Mapping[str, DefinitionKind] = {
    "errorEventDefinition": DefinitionKind(
        _error,
        {
            "startEvent": "errorStartEvent",
            "endEvent": "errorEndEvent",
            "boundaryEvent": "boundaryError",
        },
    ),
    "terminateEventDefinition": DefinitionKind(_terminate, {"endEvent": "terminateEndEvent"}),
    "messageEventDefinition": DefinitionKind(
        _message,
        {
            "startEvent": "messageStartEvent",
            "intermediateCatchEvent": "intermediateMessageCatch",
            "boundaryEvent": "boundaryMessage",
            "intermediateThrowEvent": "intermediateMessageThrowEvent",
            "endEvent": "messageEndEvent",
        },
    ),
    "signalEventDefinition": DefinitionKind(
        _signal,
        {
            "startEvent": "signalStartEvent",
            "intermediateCatchEvent": "intermediateSignalCatch",
            "boundaryEvent": "boundarySignal",
            "intermediateThrowEvent": "intermediateSignalThrow",
            "endEvent": "signalEndEvent",
        },
    ),
    "timerEventDefinition": DefinitionKind(
        _timer,
        {
            "startEvent": "startTimerEvent",
            "intermediateCatchEvent": "intermediateTimer",
            "boundaryEvent": "boundaryTimer",
        },
    ),
}


def event_activity_types(tag: str) -> tuple[str, ...]:
    """Every activity type an event of this kind may get: none, or one per definition."""
    none_type = EVENT_KINDS[tag].none_type
    carried = [d.activity_types[tag] for d in EVENT_DEFINITIONS.values() if tag in d.activity_types]
    return (*([none_type] if none_type else []), *carried)


def parse_event(ctx: ParseContext, el: etree._Element) -> ParsedElement:
    """Any event kind: its type follows from the kind and the (one) definition it carries."""
    tag = local(el)
    kind = EVENT_KINDS[tag]
    definitions = [c for c in el if ns(c) == BPMN and local(c).endswith("EventDefinition")]
    activity_type = kind.none_type
    definition: EventDefinition | None = None
    supported = EVENT_DEFINITIONS.get(local(definitions[0])) if len(definitions) == 1 else None
    if supported is not None and tag in supported.activity_types:
        activity_type = supported.activity_types[tag]
        definition = supported.parse(ctx, definitions[0], kind)
    else:
        if definitions or activity_type is None:
            what = local(definitions[0]) if definitions else "no event definition"
            ctx.problem(f"{kind.plural} with {kind.article}{what} are not supported yet", el)
        check_timers(ctx, el)  # a refused timer's value is still worth naming
    if isinstance(definition, MessageEventDefinition) and not kind.catching:
        # A message throw or end event works like a service task: its messageEventDefinition
        # holds the delegate, expression or external topic (none: it does nothing).
        service = throw_service(ctx, definitions[0], el)
        if service is not None:
            return ParsedElement(activity_type or tag, service)
    spec = EventSpec(definition)
    if tag == "startEvent":
        # Only an event subprocess's start event may be non-interrupting (the process checks).
        interrupting = (el.get("isInterrupting") or "true").strip().lower() != "false"
        initiator = (ctx.camunda(el, "initiator") or "").strip() or None
        spec = EventSpec(definition, cancel_activity=interrupting, initiator=initiator)
    if kind.attached:
        cancel = (el.get("cancelActivity") or "true").lower() != "false"
        spec = EventSpec(
            definition, attached_to=el.get("attachedToRef") or "", cancel_activity=cancel
        )
    return ParsedElement(activity_type or tag, spec)


def check_timers(ctx: ParseContext, event: etree._Element) -> None:
    """The timer definitions of `event`, each as Camunda would read it."""
    for definition in event:
        if ns(definition) == BPMN and local(definition) == "timerEventDefinition":
            check_timer(ctx, definition)


def check_timer(ctx: ParseContext, definition: etree._Element) -> None:
    read_timer(ctx, definition)


def read_timer(ctx: ParseContext, definition: etree._Element) -> TimerEventDefinition | None:
    """A timer's value as Camunda would read it: exactly one of timeDate, timeDuration and
    timeCycle, and a literal value (an expression is read when the timer starts) that parses,
    so that a typo is refused at deployment, naming the value, not when the timer is due."""
    # Named by its event, the element a modeler clicks on, not by the definition inside it.
    event = definition.getparent()
    event_id = event.get("id") if event is not None else None
    definition_id = definition.get("id")
    of = f" (timerEventDefinition '{definition_id}')" if definition_id else ""
    values = [c for c in definition if ns(c) == BPMN and local(c) in TIMER_KINDS]
    if len(values) != 1:
        ctx.problem(
            f"a timerEventDefinition{of} needs exactly one of timeDate, timeDuration and "
            f"timeCycle (found {len(values)})",
            definition,
            event_id,
        )
        return None
    kind, text = local(values[0]), (values[0].text or "").strip()
    if "${" in text or "#{" in text:
        expression = ctx.expression(text, values[0], f"the {kind}{of}", event_id)
        return None if expression is None else TimerEventDefinition(kind, text, None, expression)
    try:
        return TimerEventDefinition(kind, text, parse_timer(kind, text))
    except TimerError as exc:
        ctx.problem(f"{exc}{of}", values[0], event_id)
        return None


_IMPLEMENTATIONS = ("class", "delegateExpression", "expression", "type")


def throw_service(
    ctx: ParseContext, definition: etree._Element, event: etree._Element
) -> ServiceTaskSpec | None:
    """How a message throw event sends its message, read as a service task's settings (its
    messageEventDefinition's implementation attributes, or a connector in its extensions)."""
    extensions = extension_elements(definition)
    connector = extensions is not None and any(
        ns(c) in CAMUNDA_NAMESPACES and local(c) == "connector" for c in extensions
    )
    if not connector and not any(ctx.camunda(definition, name) for name in _IMPLEMENTATIONS):
        return None
    return service_spec(ctx, definition, "message throw event", event.get("id") or "")
