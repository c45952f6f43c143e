"""Element parsers of events: the event elements (start, end, intermediate throw and catch,
boundary) and, apart from them, the event definitions they may carry (error, terminate, timer,
message, signal, conditional).

Which event carries which definition, as which Camunda activity type, is the table of element
kinds' (`core.element_kinds`); here is how each definition is read (`EVENT_DEFINITIONS`) and how
problems name each event element (`EVENT_KINDS`). A new definition is its kinds in that table
plus its reader here. Pure: reports unsupported combinations on the context.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from lxml import etree

from .. import element_kinds as kinds
from ..expressions import compile_expression
from ..model import (
    CancelEventDefinition,
    CompensateEventDefinition,
    ConditionalEventDefinition,
    ErrorEventDefinition,
    EventDefinition,
    EventSpec,
    MessageEventDefinition,
    ServiceTaskSpec,
    SignalEventDefinition,
    TerminateEventDefinition,
    TimerEventDefinition,
)
from .conditionals import read_conditional
from .context import BPMN, CAMUNDA_NAMESPACES, ParseContext, ParsedElement, local, ns
from .escalations import read_definition as read_escalation_definition
from .forms import read_form
from .links import read_definition as read_link_definition
from .listeners import extension_elements
from .messages import read_message, read_signal
from .tasks import service_spec
from .timers import read_timer


@dataclass(frozen=True, slots=True)
class EventKind:
    """One BPMN event element, whatever definition it carries."""

    tag: str
    plural: str  # how problems name it: "end events"
    article: str  # "a " where the problem reads "with a <definition>"
    catching: bool  # waits for its trigger (start, catch, boundary) rather than throwing
    none_type: str | None  # Camunda's activity type without a definition; None: one is required


def _event_kind(tag: str, plural: str, article: str, catching: bool) -> EventKind:
    none = kinds.none_event(tag)
    return EventKind(tag, plural, article, catching, none.type if none else None)


EVENT_KINDS: Mapping[str, EventKind] = {
    kind.tag: kind
    for kind in (
        _event_kind(kinds.START_EVENT_TAG, "start events", "a ", True),
        _event_kind(kinds.END_EVENT_TAG, "end events", "a ", False),
        _event_kind(kinds.THROW_EVENT_TAG, "intermediate throw events", "a ", False),
        _event_kind(kinds.CATCH_EVENT_TAG, "intermediate catch events", "a ", True),
        _event_kind(kinds.BOUNDARY_EVENT_TAG, "boundary events", "", True),
    )
}

DefinitionReader = Callable[[ParseContext, etree._Element, EventKind], EventDefinition]


@dataclass(frozen=True, slots=True)
class DefinitionKind:
    """One event definition: how to read it, and on which event elements it runs as what type
    (from the table of element kinds)."""

    parse: DefinitionReader
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


def _message(ctx: ParseContext, el: etree._Element, kind: EventKind) -> EventDefinition:
    if not kind.catching:
        # Camunda's BpmnParse reads no messageRef on a throw or end event (it sends as a service
        # task does, or passes through): none, or one naming no <message>, deploys.
        ref = (el.get("messageRef") or "").strip()
        return MessageEventDefinition(
            ctx.messages.get(ref, ctx.messages.get(ref.rpartition(":")[2], ""))
        )
    return read_message(ctx, el) or MessageEventDefinition("")


def _escalation(ctx: ParseContext, el: etree._Element, kind: EventKind) -> EventDefinition:
    return read_escalation_definition(ctx, el, kind.catching)


def _link(ctx: ParseContext, el: etree._Element, _kind: EventKind) -> EventDefinition:
    return read_link_definition(ctx, el)


def _signal(ctx: ParseContext, el: etree._Element, kind: EventKind) -> EventDefinition:
    definition = read_signal(ctx, el) or SignalEventDefinition("")
    if not kind.catching and (ctx.camunda(el, "async") or "").strip().lower() == "true":
        # the catching intermediate events receive it in jobs (core.signal_jobs)
        return replace(definition, asynchronous=True)
    return definition


def _compensate(ctx: ParseContext, el: etree._Element, kind: EventKind) -> EventDefinition:
    event = el.getparent()
    event_id = event.get("id") if event is not None else None
    if kind.catching:
        # Camunda's warnings (validateCatchCompensateEventDefinition): both are ignored here.
        for attribute in ("activityRef", "waitForCompletion"):
            if el.get(attribute) is not None:
                ctx.warning(
                    f"attribute '{attribute}' is not supported on a catching compensation "
                    "event: it is ignored",
                    el,
                    event_id,
                )
        return CompensateEventDefinition()
    ref = (el.get("activityRef") or "").strip() or None
    wait = (el.get("waitForCompletion") or "true").strip().lower() != "false"
    if not wait:
        ctx.warning(
            'waitForCompletion="false" is not supported: the compensation event waits for '
            "its handlers all the same (as in Camunda)",
            el,
            event_id,
        )
    return CompensateEventDefinition(activity_ref=ref, wait_for_completion=wait)


def _cancel(_ctx: ParseContext, _el: etree._Element, _kind: EventKind) -> EventDefinition:
    return CancelEventDefinition()


def _conditional(ctx: ParseContext, el: etree._Element, _kind: EventKind) -> EventDefinition:
    # A broken condition is reported; the placeholder never runs (the deployment fails).
    return read_conditional(ctx, el) or ConditionalEventDefinition(compile_expression("${false}"))


# How each event definition is read; where it may appear, the table of element kinds says.
_READERS: Mapping[str, DefinitionReader] = {
    kinds.ERROR: _error,
    kinds.TERMINATE: _terminate,
    kinds.MESSAGE: _message,
    kinds.SIGNAL: _signal,
    kinds.TIMER: _timer,
    kinds.CONDITIONAL: _conditional,
    kinds.ESCALATION: _escalation,
    kinds.LINK: _link,
    kinds.COMPENSATE: _compensate,
    kinds.CANCEL: _cancel,
}
EVENT_DEFINITIONS: Mapping[str, DefinitionKind] = {
    definition: DefinitionKind(read, kinds.carrying(definition))
    for definition, read in _READERS.items()
}


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
        if tag == kinds.THROW_EVENT_TAG:
            # Camunda types a message throw event that sends nothing as a none throw event
            # (BpmnParse.parseIntermediateThrowEvent), in its history too.
            return ParsedElement(kinds.NONE_THROW_EVENT.type, EventSpec(None))
    spec = EventSpec(definition)
    if tag == kinds.START_EVENT_TAG:
        # Only an event subprocess's start event may be non-interrupting (the process checks).
        interrupting = (el.get("isInterrupting") or "true").strip().lower() != "false"
        initiator = (ctx.camunda(el, "initiator") or "").strip() or None
        spec = EventSpec(
            definition,
            cancel_activity=interrupting,
            initiator=initiator,
            form=read_form(ctx, el, start=True),
        )
    if tag == kinds.BOUNDARY_EVENT_TAG:
        cancel = (el.get("cancelActivity") or "true").lower() != "false"
        spec = EventSpec(
            definition, attached_to=el.get("attachedToRef") or "", cancel_activity=cancel
        )
    return ParsedElement(activity_type or tag, spec)


def check_timers(ctx: ParseContext, event: etree._Element) -> None:
    """The timer definitions of `event`, each as Camunda would read it."""
    for definition in event:
        if ns(definition) == BPMN and local(definition) == kinds.TIMER:
            check_timer(ctx, definition)


def check_timer(ctx: ParseContext, definition: etree._Element) -> None:
    read_timer(ctx, definition)


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
