"""Escalations in a BPMN document: the `<escalation>` root elements, the escalationEventDefinition
of throw, end, boundary and start events, and the rules Camunda's parser applies to where an
escalation may be caught.

Pure: reports problems on the context, naming the element; raises nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from lxml import etree

from .. import element_kinds as kinds
from ..model import Activity, EscalationEventDefinition, EventDefinition, EventSpec, SubprocessSpec
from .context import ParseContext

CODE_VARIABLE = "escalationCodeVariable"

# What an escalation boundary event may sit on (Camunda's BpmnParse.parseBoundaryEvents).
_CATCHING_HOSTS = kinds.types_of(kinds.SUB_PROCESS, kinds.CALL_ACTIVITY, kinds.USER_TASK)


def read_escalation(ctx: ParseContext, el: etree._Element) -> None:
    """An `<escalation>` root element: its id and code (an empty code is no code)."""
    escalation_id = el.get("id")
    if not escalation_id:
        ctx.problem("an escalation must have an id", el)
        return
    code = (el.get("escalationCode") or "").strip()
    ctx.escalations[escalation_id] = code or None


def read_definition(ctx: ParseContext, el: etree._Element, catching: bool) -> EventDefinition:
    """An escalationEventDefinition. A throw names an escalation with a code; a catch names one
    (its code is what it catches) or none (it catches every escalation), and may store the
    code it caught in `camunda:escalationCodeVariable`."""
    event = el.getparent()
    event_id = event.get("id") if event is not None else None
    ref = el.get("escalationRef")
    code: str | None = None
    if ref is not None and ref not in ctx.escalations:
        ctx.problem(f"could not find the escalation with id '{ref}'", el, event_id)
    elif ref is not None:
        code = ctx.escalations[ref]
    variable = ctx.camunda(el, CODE_VARIABLE)
    if catching:
        return EscalationEventDefinition(code, (variable or "").strip() or None)
    if ref is None:
        ctx.problem(
            "a throwing escalationEventDefinition needs an escalationRef naming the escalation "
            "it raises",
            el,
            event_id,
        )
    elif ref in ctx.escalations and code is None:
        ctx.problem(f"the escalation '{ref}' this event throws has no escalationCode", el, event_id)
    if variable is not None:
        ctx.problem(
            "camunda:escalationCodeVariable belongs on an event that catches escalations (a "
            "boundary event or an event subprocess's start event), not on one that throws them",
            el,
            event_id,
        )
    return EscalationEventDefinition(code)


def escalation_of(activity: Activity) -> EscalationEventDefinition | None:
    spec = activity.spec
    if isinstance(spec, EventSpec) and isinstance(spec.definition, EscalationEventDefinition):
        return spec.definition
    return None


def check_escalations(
    ctx: ParseContext,
    activities: Mapping[str, Activity],
    nodes: Mapping[str, tuple[etree._Element, str]],
    process: etree._Element,
) -> None:
    """Camunda's rules for catching escalations: a boundary event only on a subprocess, a call
    activity or a user task; an escalation start event only in an event subprocess; and per
    scope at most one catch for a code, a catch-all alone (which catch wins would be a guess
    otherwise). `camunda:escalationCodeVariable` anywhere else is a mistake worth naming."""
    boundaries: dict[str, list[Activity]] = {}
    subprocesses: dict[str, list[Activity]] = {}
    for activity in activities.values():
        definition = escalation_of(activity)
        if definition is None:
            continue
        el = nodes[activity.id][0]
        if activity.type == kinds.BOUNDARY_ESCALATION.type:
            assert isinstance(activity.spec, EventSpec)
            host = activities.get(activity.spec.attached_to or "")
            if host is None:
                continue  # reported as a dangling attachedToRef
            if host.type not in _CATCHING_HOSTS or _is_event_subprocess(host):
                ctx.problem(
                    f"escalation boundary event '{activity.id}' is attached to '{host.id}', a "
                    f"{host.type}: it can only be attached to a subprocess, a call activity or "
                    "a user task",
                    el,
                    activity.id,
                )
            boundaries.setdefault(host.id, []).append(activity)
        elif activity.type == kinds.ESCALATION_START_EVENT.type:
            esp = activities.get(activity.scope_id)
            if esp is None or not _is_event_subprocess(esp):
                ctx.problem(
                    "an escalation start event is only allowed in an event subprocess",
                    el,
                    activity.id,
                )
                continue
            subprocesses.setdefault(esp.scope_id, []).append(activity)
    for catches in boundaries.values():
        _one_catch_per_code(ctx, catches, nodes, "escalation boundary events")
    for catches in subprocesses.values():
        _one_catch_per_code(ctx, catches, nodes, "escalation event subprocesses")
    _no_stray_code_variables(ctx, process)


def _is_event_subprocess(activity: Activity) -> bool:
    return isinstance(activity.spec, SubprocessSpec) and activity.spec.triggered_by_event


def _one_catch_per_code(
    ctx: ParseContext,
    catches: list[Activity],
    nodes: Mapping[str, tuple[etree._Element, str]],
    what: str,
) -> None:
    seen: list[Activity] = []
    for catch in catches:
        code = _code(catch)
        for earlier in seen:
            other = _code(earlier)
            if code is None or other is None:
                reason = (
                    "one of them catches every escalation (it has no escalation code)"
                    if code is not None or other is not None
                    else "both catch every escalation (neither has an escalation code)"
                )
            elif code == other:
                reason = f"both catch the escalation code '{code}'"
            else:
                continue
            ctx.problem(
                f"{what} '{earlier.id}' and '{catch.id}' wait on the same scope and {reason}",
                nodes[catch.id][0],
                catch.id,
            )
            break
        seen.append(catch)


def _code(catch: Activity) -> str | None:
    definition = escalation_of(catch)
    return definition.escalation_code if definition else None


def _no_stray_code_variables(ctx: ParseContext, process: etree._Element) -> None:
    """camunda:escalationCodeVariable does nothing but on a catching escalationEventDefinition;
    the throwing ones report it as they are read."""
    for el in process.iter():
        if not isinstance(el.tag, str) or ctx.camunda(el, CODE_VARIABLE) is None:
            continue
        if etree.QName(el.tag).localname == kinds.ESCALATION:
            continue
        ctx.problem(
            "camunda:escalationCodeVariable belongs on the escalationEventDefinition of an "
            "event that catches escalations (a boundary event or an event subprocess's start "
            "event)",
            el,
        )
