"""Multi-instance activities: `multiInstanceLoopCharacteristics` read as Camunda reads them, and
the model rewired as Camunda builds it: the activity `X` moves into a body, `X#multiInstanceBody`,
which takes its place in the flow (its sequence flows, boundary events, asynchronous
continuations) and runs `X` once per item.

Pure: reports what cannot run (neither a cardinality nor a collection, a standard loop) on the
context.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lxml import etree

from .. import element_kinds as kinds
from ..model import Activity, EventSpec, MultiInstanceSpec, SequenceFlow
from .context import BPMN, ParseContext, local, ns

BODY_TYPE = kinds.MULTI_INSTANCE_BODY.type  # the one activity type no element parses to
BODY_SUFFIX = f"#{BODY_TYPE}"


@dataclass(frozen=True, slots=True)
class Loop:
    """What the loop characteristics say, before the rewiring."""

    spec: MultiInstanceSpec
    async_before: bool
    async_after: bool


def read_loop(ctx: ParseContext, el: etree._Element, node_id: str) -> Loop | None:
    """The multi-instance characteristics of `el`, if it has them."""
    for child in el:
        if ns(child) != BPMN:
            continue
        if local(child) == "standardLoopCharacteristics":
            ctx.problem("standard loops (standardLoopCharacteristics) are not supported", child)
            return None
        if local(child) == "multiInstanceLoopCharacteristics":
            return _multi_instance(ctx, child, node_id)
    return None


def _text(el: etree._Element, tag: str) -> tuple[str | None, etree._Element | None]:
    for child in el:
        if ns(child) == BPMN and local(child) == tag:
            return (child.text or "").strip() or None, child
    return None, None


def _multi_instance(ctx: ParseContext, el: etree._Element, node_id: str) -> Loop | None:
    sequential = (el.get("isSequential") or "false").strip().lower() == "true"
    cardinality_text, cardinality_el = _text(el, "loopCardinality")
    condition_text, condition_el = _text(el, "completionCondition")
    collection_text = (ctx.camunda(el, "collection") or "").strip() or None
    element_variable = (ctx.camunda(el, "elementVariable") or "").strip() or None
    # BPMN's own spelling of the same: loopDataInputRef (the collection variable) and
    # inputDataItem (the element variable)
    data_input, _ = _text(el, "loopDataInputRef")
    collection_text = collection_text or data_input
    for child in el:
        if ns(child) == BPMN and local(child) == "inputDataItem" and child.get("name"):
            element_variable = element_variable or (child.get("name") or "").strip() or None
    if cardinality_text is None and collection_text is None:
        ctx.problem(
            f"multi-instance activity '{node_id}' needs a loopCardinality or a camunda:collection",
            el,
        )
        return None
    cardinality = None
    if cardinality_text is not None:
        cardinality = ctx.expression(
            _as_expression(cardinality_text),
            el if cardinality_el is None else cardinality_el,
            "the loopCardinality",
        )
    collection = None
    if collection_text is not None:
        # A plain name is the variable holding the collection (Camunda reads it so too).
        collection = ctx.expression(_as_expression(collection_text), el, "camunda:collection")
    where = el if condition_el is None else condition_el
    condition = ctx.expression(condition_text, where, "the completionCondition")
    spec = MultiInstanceSpec(
        inner=node_id,
        sequential=sequential,
        cardinality=cardinality,
        collection=collection,
        element_variable=element_variable,
        completion_condition=condition,
    )
    flag = {"true": True, "false": False}
    before = flag.get((ctx.camunda(el, "asyncBefore") or "false").strip().lower(), False)
    after = flag.get((ctx.camunda(el, "asyncAfter") or "false").strip().lower(), False)
    return Loop(spec, before, after)


def _as_expression(text: str) -> str:
    return text if "${" in text or "#{" in text else "${" + text + "}"


def rewire(
    activities: dict[str, Activity],
    flows: dict[str, SequenceFlow],
    loops: dict[str, Loop],
) -> None:
    """Put each multi-instance activity into its body (in place)."""
    for node_id, loop in loops.items():
        inner = activities[node_id]
        body_id = node_id + BODY_SUFFIX
        body = Activity(
            id=body_id,
            type=BODY_TYPE,
            name=inner.name,
            scope_id=inner.scope_id,
            incoming=inner.incoming,
            outgoing=inner.outgoing,
            default_flow=inner.default_flow,
            is_scope=True,
            boundary_events=inner.boundary_events,
            line=inner.line,
            spec=loop.spec,
            async_before=inner.async_before,
            async_after=inner.async_after,
            jobs=inner.jobs,
        )
        activities[body_id] = body
        activities[node_id] = replace(
            inner,
            scope_id=body_id,
            incoming=(),
            outgoing=(),
            default_flow=None,
            boundary_events=(),
            # a scope for what it is (a subprocess, its mappings), not for boundary events
            is_scope=inner.is_scope and (not inner.boundary_events or _keeps_scope(inner)),
            async_before=loop.async_before,
            async_after=loop.async_after,
        )
        for flow_id, flow in list(flows.items()):
            if flow.target == node_id:
                flows[flow_id] = replace(flow, target=body_id)
            if flow.source == node_id:
                flows[flow_id] = replace(flows[flow_id], source=body_id)
        for boundary_id in inner.boundary_events:
            boundary = activities[boundary_id]
            if isinstance(boundary.spec, EventSpec):
                activities[boundary_id] = replace(
                    boundary, spec=replace(boundary.spec, attached_to=body_id)
                )


# Activities that hold flow elements of their own: a scope whatever sits on them.
_CONTAINERS = kinds.types_of(*(kind for kind in kinds.KINDS if kind.container))


def _keeps_scope(activity: Activity) -> bool:
    return activity.io is not None or activity.type in _CONTAINERS
