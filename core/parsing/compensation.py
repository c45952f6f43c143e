"""Compensation and transactions in a parsed process: which activity compensates which (the
association of a compensation boundary event, a compensation event subprocess), and Camunda's
rules for compensation throws, cancel end events and cancel boundary events.

Runs after the activities are built and multi-instance activities rewired into their bodies.
Pure: reports every problem on the context, naming the element; rewrites activities in place.
"""

from __future__ import annotations

from dataclasses import replace

from lxml import etree

from .. import element_kinds as kinds
from ..model import Activity, CompensateEventDefinition, EventSpec, MultiInstanceSpec
from .context import BPMN, ParseContext, local, ns

_THROWS = kinds.types_of(kinds.COMPENSATION_THROW_EVENT, kinds.COMPENSATION_END_EVENT)
_CONTAINERS = kinds.types_of(kinds.SUB_PROCESS, kinds.TRANSACTION)


def link_compensation(
    ctx: ParseContext,
    process: etree._Element,
    process_id: str,
    nodes: dict[str, tuple[etree._Element, str]],
    activities: dict[str, Activity],
) -> None:
    """Give each compensated activity its handler, mark handlers, check throws and cancels."""
    associations = _associations(process)
    _boundary_handlers(ctx, nodes, activities, associations)
    _event_subprocess_handlers(ctx, process_id, nodes, activities)
    for activity in list(activities.values()):
        if activity.for_compensation and (activity.incoming or activity.outgoing):
            ctx.problem(
                f"compensation handler '{activity.id}' (isForCompensation) cannot have "
                "sequence flows in or out: it runs only when its activity is compensated",
                nodes[activity.id][0] if activity.id in nodes else None,
                activity.id,
            )
    for activity in activities.values():
        if activity.type in _THROWS:
            _check_activity_ref(ctx, process_id, nodes, activities, activity)
    _check_cancels(ctx, nodes, activities)


def _associations(process: etree._Element) -> dict[str, list[str]]:
    """sourceRef -> the targetRefs of the associations from it, anywhere in the process."""
    found: dict[str, list[str]] = {}
    for el in process.iter(f"{{{BPMN}}}association"):
        source, target = el.get("sourceRef"), el.get("targetRef")
        if source and target:
            found.setdefault(source, []).append(target)
    return found


def _boundary_handlers(
    ctx: ParseContext,
    nodes: dict[str, tuple[etree._Element, str]],
    activities: dict[str, Activity],
    associations: dict[str, list[str]],
) -> None:
    seen_hosts: set[str] = set()
    for boundary in [a for a in activities.values() if a.type == kinds.BOUNDARY_COMPENSATION.type]:
        el = nodes[boundary.id][0]
        host_id = el.get("attachedToRef") or ""
        host = activities.get(host_id)
        if host is None:
            continue  # reported with the boundary event's attachment
        if host_id in seen_hosts:
            ctx.problem(
                f"'{host_id}' has more than one compensation boundary event (Camunda allows one)",
                el,
                boundary.id,
            )
            continue
        seen_hosts.add(host_id)
        targets = [t for t in associations.get(boundary.id, []) if t in activities]
        if len(targets) != 1:
            ctx.problem(
                f"compensation boundary event '{boundary.id}' needs exactly one association to "
                f'its compensation handler, an activity with isForCompensation="true" '
                f"(found {len(targets)})",
                el,
                boundary.id,
            )
            continue
        handler = activities[targets[0]]
        if not handler.for_compensation:
            ctx.problem(
                f"compensation boundary event '{boundary.id}' must be associated with an "
                f"activity with isForCompensation=\"true\"; '{handler.id}' is not one",
                el,
                boundary.id,
            )
            continue
        activities[host_id] = replace(host, compensation_handler=handler.id)
        body = activities.get(host.scope_id)
        if body is not None and isinstance(body.spec, MultiInstanceSpec):
            # Camunda parses the handler of a multi-instance activity into its body: it runs in
            # the body's (retained) scope, once per completed instance.
            activities[handler.id] = replace(handler, scope_id=body.id)


def _event_subprocess_handlers(
    ctx: ParseContext,
    process_id: str,
    nodes: dict[str, tuple[etree._Element, str]],
    activities: dict[str, Activity],
) -> None:
    for start in [a for a in activities.values() if a.type == kinds.COMPENSATION_START_EVENT.type]:
        el = nodes[start.id][0]
        esp = activities.get(start.scope_id)
        if esp is None or not _is_event_subprocess(esp):
            ctx.problem(
                "a compensation start event is only allowed in an event subprocess", el, start.id
            )
            continue
        if esp.scope_id == process_id:
            ctx.problem(
                "an event subprocess with a compensation start event is only supported inside "
                "an embedded subprocess (Camunda does not compensate across a call)",
                el,
                start.id,
            )
            continue
        scope = activities[esp.scope_id]
        if scope.compensation_handler is not None:
            ctx.problem(
                f"'{scope.id}' already has a compensation handler "
                f"('{scope.compensation_handler}'): a compensation boundary event and a "
                "compensation event subprocess, or two of them, are not supported on one scope",
                el,
                start.id,
            )
            continue
        activities[esp.id] = replace(esp, for_compensation=True)
        activities[scope.id] = replace(scope, compensation_handler=esp.id)


def _is_event_subprocess(activity: Activity) -> bool:
    spec = activity.spec
    return getattr(spec, "triggered_by_event", False) is True


def compensable(activities: dict[str, Activity], activity: Activity) -> bool:
    """Whether completing `activity` leaves something to compensate: a handler of its own, or
    (a subprocess, a transaction, a multi-instance body) compensable activities inside."""
    if activity.compensation_handler is not None:
        return True
    if isinstance(activity.spec, MultiInstanceSpec):
        inner = activities.get(activity.spec.inner)
        return inner is not None and compensable(activities, inner)
    if activity.type in _CONTAINERS:
        return any(
            compensable(activities, a)
            for a in activities.values()
            if a.scope_id == activity.id and not a.for_compensation
        )
    return False


def _check_activity_ref(
    ctx: ParseContext,
    process_id: str,
    nodes: dict[str, tuple[etree._Element, str]],
    activities: dict[str, Activity],
    throw: Activity,
) -> None:
    """Camunda: activityRef names an activity of the throw's scope (from an event subprocess,
    of the scope around it). Beyond Camunda, which accepts and does nothing: it must be
    compensable, or the throw could never compensate anything."""
    spec = throw.spec
    assert isinstance(spec, EventSpec) and isinstance(spec.definition, CompensateEventDefinition)
    ref = spec.definition.activity_ref
    if ref is None:
        return
    el = nodes[throw.id][0]
    scopes = [throw.scope_id]
    scope = activities.get(throw.scope_id)
    if scope is not None and _is_event_subprocess(scope):
        scopes.append(scope.scope_id)
    target = activities.get(ref)
    if target is not None and isinstance(activities.get(target.scope_id), Activity):
        body = activities[target.scope_id]
        if isinstance(body.spec, MultiInstanceSpec) and body.spec.inner == ref:
            target = body  # a multi-instance activity is compensated as its body
    if target is None or target.scope_id not in scopes or target.for_compensation:
        where = scopes[-1] if scopes[-1] != process_id else f"process '{process_id}'"
        ctx.problem(
            f"the compensation throw '{throw.id}' names activityRef '{ref}': no activity with "
            f"that id in the scope of {where!s}",
            el,
            throw.id,
        )
        return
    if not compensable(activities, target):
        ctx.problem(
            f"the compensation throw '{throw.id}' names activityRef '{ref}', which is not "
            "compensable: it has no compensation boundary event or compensation handler (nor "
            "compensable activities inside)",
            el,
            throw.id,
        )


def _check_cancels(
    ctx: ParseContext,
    nodes: dict[str, tuple[etree._Element, str]],
    activities: dict[str, Activity],
) -> None:
    """Cancel end events only inside a transaction, which then has its one cancel boundary
    event; a cancel boundary event only on a transaction."""
    boundaries: dict[str, list[str]] = {}
    for boundary in [a for a in activities.values() if a.type == kinds.BOUNDARY_CANCEL.type]:
        el = nodes[boundary.id][0]
        host = activities.get(el.get("attachedToRef") or "")
        if host is None:
            continue
        if host.type != kinds.TRANSACTION.type:
            ctx.problem(
                "a boundary event with a cancelEventDefinition is only supported on a "
                f"transaction subprocess; '{host.id}' is a {host.type}",
                el,
                boundary.id,
            )
            continue
        boundaries.setdefault(host.id, []).append(boundary.id)
        if len(boundaries[host.id]) > 1:
            ctx.problem(
                f"transaction '{host.id}' has more than one cancel boundary event",
                el,
                boundary.id,
            )
    for end in [a for a in activities.values() if a.type == kinds.CANCEL_END_EVENT.type]:
        el = nodes[end.id][0]
        scope = activities.get(end.scope_id)
        if scope is None or scope.type != kinds.TRANSACTION.type:
            ctx.problem(
                "an end event with a cancelEventDefinition is only supported inside a "
                "transaction subprocess",
                el,
                end.id,
            )
        elif scope.id not in boundaries:
            ctx.problem(
                f"cancel end event '{end.id}' is in transaction '{scope.id}', which has no "
                "cancel boundary event to leave by",
                el,
                end.id,
            )


def is_compensation_boundary(el: etree._Element) -> bool:
    """A boundary event with a compensateEventDefinition: it does not make its activity a
    scope (it never interrupts it; it marks its handler)."""
    return any(
        isinstance(c.tag, str) and ns(c) == BPMN and local(c) == kinds.COMPENSATE for c in el
    )
