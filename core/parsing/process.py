"""One <process> into a `ProcessModel`: ids and nesting, sequence flows, then the activities, each
parsed by the element parser its tag maps to in `elements.ELEMENTS`.

Pure: reports every problem on the context; returns None when the process has any.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from lxml import etree

from .. import element_kinds as kinds
from ..limits import MAX_HISTORY_TTL_DAYS
from ..model import (
    Activity,
    ConditionalEventDefinition,
    EventSpec,
    Listener,
    MessageEventDefinition,
    ProcessModel,
    ReceiveTaskSpec,
    SequenceFlow,
    SignalEventDefinition,
    SubprocessSpec,
    TimerEventDefinition,
    UserTaskSpec,
)
from .compensation import is_compensation_boundary, link_compensation
from .context import BPMN, CAMUNDA_NAMESPACES, ParseContext, line, local, ns
from .elements import ELEMENTS, NOT_YET
from .escalations import check_escalations
from .io import read_input_output
from .jobs import read_async, read_job_settings
from .links import resolve_links
from .listeners import (
    EXECUTION_EVENTS,
    TAKE_EVENTS,
    extension_elements,
    read_listeners,
)
from .multi_instance import Loop, read_loop, rewire
from .personal_data import read_personal_data

# Elements that carry no execution semantics: documentation, diagrams, data, grouping.
_IGNORED = {
    "documentation",
    "extensionElements",
    "laneSet",
    "textAnnotation",
    "association",
    "dataObject",
    "dataObjectReference",
    "dataStoreReference",
    "group",
    "property",
    "ioSpecification",
    "incoming",
    "outgoing",
    "dataInputAssociation",
    "dataOutputAssociation",
    # children of a subProcess element that describe it, not its content (reported per activity)
    "multiInstanceLoopCharacteristics",
    "standardLoopCharacteristics",
}
# camunda: elements whose semantics the engine does not implement yet: refusing them is safer than
# running the model with missing side effects.
_UNSUPPORTED_EXTENSIONS = {
    "field": "field injection",
}


def _history_ttl(text: str | None) -> int | None:
    if text is None or not text.strip():
        return None
    text = text.strip()
    match = re.fullmatch(r"P(\d+)D", text)
    if match:
        return int(match.group(1))
    return int(text) if text.isdigit() else None


START_TYPES = kinds.types_of(*kinds.of_tag(kinds.START_EVENT_TAG))
# What an event-based gateway may lead to, besides a receive task with a message.
_GATEWAY_CATCHES = kinds.types_of(
    kinds.MESSAGE_CATCH_EVENT,
    kinds.SIGNAL_CATCH_EVENT,
    kinds.TIMER_CATCH_EVENT,
    kinds.CONDITIONAL_CATCH_EVENT,
)
# The start events of an event subprocess.
_TRIGGERED_STARTS = kinds.types_of(
    kinds.MESSAGE_START_EVENT,
    kinds.SIGNAL_START_EVENT,
    kinds.START_TIMER_EVENT,
    kinds.ERROR_START_EVENT,
    kinds.CONDITIONAL_START_EVENT,
    kinds.ESCALATION_START_EVENT,
    kinds.COMPENSATION_START_EVENT,
)
# Where a camunda:connector may stand.
_SERVICE_TAGS = (kinds.SERVICE_TASK.tag, kinds.SEND_TASK.tag, kinds.BUSINESS_RULE_TASK.tag)


def _no_connector(ctx: ParseContext, extensions: etree._Element) -> None:
    for child in extensions:
        if ns(child) in CAMUNDA_NAMESPACES and local(child) == "connector":
            ctx.problem(
                "a camunda:connector belongs on a service, send or business rule task", child
            )


def _no_call_mappings(ctx: ParseContext, extensions: etree._Element) -> None:
    for child in extensions:
        if ns(child) in CAMUNDA_NAMESPACES and local(child) in ("in", "out"):
            ctx.problem(f"camunda:{local(child)} belongs on a call activity", child)


def _no_task_listeners(ctx: ParseContext, extensions: etree._Element) -> None:
    for child in extensions:
        if ns(child) in CAMUNDA_NAMESPACES and local(child) == "taskListener":
            ctx.problem("a camunda:taskListener belongs on a user task", child)


class ProcessBuilder:
    def __init__(self, ctx: ParseContext, el: etree._Element, category: str | None) -> None:
        self.ctx = ctx
        self.category = category
        self.el = el
        self.process_id = el.get("id") or ""
        self.nodes: dict[str, tuple[etree._Element, str]] = {}  # id -> (element, scope id)
        self.flow_elements: dict[str, tuple[etree._Element, str]] = {}
        self.activities: dict[str, Activity] = {}
        self.flows: dict[str, SequenceFlow] = {}
        self.start_events: dict[str, str] = {}
        self.message_starts: dict[str, str] = {}
        self.signal_starts: dict[str, str] = {}
        self.refused: set[str] = set()  # ids of elements refused (reported) while collecting
        self.loops: dict[str, Loop] = {}  # multi-instance activities, rewired into bodies
        self.links: dict[str, str] = {}  # link throw event -> the catch event it continues at

    def build(self) -> ProcessModel | None:
        ctx = self.ctx
        if not self.process_id:
            ctx.problem("process without an id", self.el)
            return None
        before = len(ctx.problems)
        self._collect(self.el, self.process_id)
        self.links = resolve_links(ctx, self.nodes, self.flow_elements, self.refused)
        self._build_flows()
        self._build_activities()
        self._check_event_gateways()
        check_escalations(ctx, self.activities, self.nodes, self.el)
        rewire(self.activities, self.flows, self.loops)
        link_compensation(ctx, self.el, self.process_id, self.nodes, self.activities)
        if len(ctx.problems) > before:
            return None
        ttl_text = ctx.camunda(self.el, "historyTimeToLive")
        history_ttl = _history_ttl(ttl_text)
        if history_ttl is not None and history_ttl > MAX_HISTORY_TTL_DAYS:
            ctx.problem(
                f"camunda:historyTimeToLive {ttl_text!r} is more than {MAX_HISTORY_TTL_DAYS:,} "
                "days",
                self.el,
            )
            return None
        startable = (ctx.camunda(self.el, "isStartableInTasklist") or "true").lower() != "false"
        personal_data = read_personal_data(ctx, self.el, extension_elements(self.el))
        if len(ctx.problems) > before:
            return None
        return ProcessModel(
            id=self.process_id,
            name=self.el.get("name"),
            activities=MappingProxyType(self.activities),
            flows=MappingProxyType(self.flows),
            start_events=MappingProxyType(self.start_events),
            message_starts=MappingProxyType(self.message_starts),
            signal_starts=MappingProxyType(self.signal_starts),
            version_tag=ctx.camunda(self.el, "versionTag"),
            history_ttl=history_ttl,
            startable=startable,
            category=self.category,
            job_priority=ctx.expression(
                ctx.camunda(self.el, "jobPriority"), self.el, "camunda:jobPriority"
            ),
            listeners=read_listeners(
                ctx, extension_elements(self.el), "executionListener", EXECUTION_EVENTS
            ),
            personal_data=personal_data,
        )

    # -- pass 1: ids and nesting ----------------------------------------------------------

    def _collect(self, scope_el: etree._Element, scope_id: str) -> None:
        ctx = self.ctx
        generated = 0
        for el in scope_el:
            if not isinstance(el.tag, str):
                continue
            namespace, name = ns(el), local(el)
            if namespace != BPMN:
                if namespace not in CAMUNDA_NAMESPACES:
                    continue
                if name in _UNSUPPORTED_EXTENSIONS:
                    ctx.problem(f"camunda:{name} is not supported yet", el, scope_id)
                continue
            if name in _IGNORED:
                if name == "extensionElements":
                    self._check_extensions(el, scope_id)
                continue
            element_id = el.get("id")
            if name == "sequenceFlow":
                if not element_id:
                    generated += 1
                    element_id = f"{scope_id}#flow{generated}"
                self._register(self.flow_elements, element_id, el, scope_id)
                continue
            if not element_id:
                ctx.problem(f"<{name}> without an id", el)
                continue
            kind = ELEMENTS.get(name)
            if kind is None:
                if name in NOT_YET:
                    ctx.problem(f"<{name}>: {NOT_YET[name]} are not supported yet", el)
                else:
                    ctx.problem(f"unsupported element <{name}>", el)
                self.refused.add(element_id)  # reported once: flows to it add nothing
                continue
            self._register(self.nodes, element_id, el, scope_id)
            if kind.container:
                self._collect(el, element_id)

    def _register(
        self,
        into: dict[str, tuple[etree._Element, str]],
        element_id: str,
        el: etree._Element,
        scope_id: str,
    ) -> None:
        if (
            element_id in self.nodes
            or element_id in self.flow_elements
            or element_id == self.process_id
        ):
            self.ctx.problem(f"duplicate id '{element_id}'", el, element_id)
            return
        into[element_id] = (el, scope_id)

    def _check_extensions(self, ext: etree._Element, element_id: str | None) -> None:
        for child in ext:
            if not isinstance(child.tag, str) or ns(child) not in CAMUNDA_NAMESPACES:
                continue
            name = local(child)
            if name in _UNSUPPORTED_EXTENSIONS:
                what = _UNSUPPORTED_EXTENSIONS[name] or f"camunda:{name}"
                self.ctx.problem(
                    f"{what} (camunda:{name}) are not supported yet", child, element_id
                )

    # -- pass 2: sequence flows -----------------------------------------------------------

    def _build_flows(self) -> None:
        ctx = self.ctx
        for flow_id, (el, scope_id) in self.flow_elements.items():
            source, target = el.get("sourceRef"), el.get("targetRef")
            # a flow into a link throw event leads to its catch event (core.parsing.links)
            target = self.links.get(target or "", target)
            ok = True
            for role, ref in (("source", source), ("target", target)):
                if not ref:
                    ctx.problem(f"sequence flow '{flow_id}' has no {role}Ref", el, flow_id)
                    ok = False
                elif ref in self.refused:
                    ok = False
                elif ref not in self.nodes:
                    ctx.problem(
                        f"sequence flow '{flow_id}' "
                        f"{'comes from' if role == 'source' else 'leads to'} '{ref}', "
                        "which does not exist",
                        el,
                        flow_id,
                    )
                    ok = False
                elif self.nodes[ref][1] != scope_id:
                    ctx.problem(
                        f"sequence flow '{flow_id}' crosses a subprocess boundary to '{ref}'",
                        el,
                        flow_id,
                    )
                    ok = False
            if not ok or source is None or target is None:
                continue
            condition = None
            for child in el:
                if ns(child) == BPMN and local(child) == "conditionExpression":
                    language = child.get("language")
                    if language and language.lower() not in ("juel", "el"):
                        ctx.problem(
                            f"condition language '{language}' is not supported (only JUEL "
                            "expressions)",
                            child,
                            flow_id,
                        )
                        continue
                    if ctx.camunda(child, "resource"):
                        ctx.problem(
                            "external condition resources are not supported", child, flow_id
                        )
                        continue
                    condition = ctx.expression(
                        child.text, child, f"the condition of '{flow_id}'", flow_id
                    )
            self.flows[flow_id] = SequenceFlow(
                id=flow_id,
                source=source,
                target=target,
                condition=condition,
                name=el.get("name"),
                line=line(el),
                listeners=read_listeners(
                    ctx, extension_elements(el), "executionListener", TAKE_EVENTS, "take"
                ),
            )

    # -- pass 3: activities ---------------------------------------------------------------

    def _build_activities(self) -> None:
        incoming: dict[str, list[str]] = {n: [] for n in self.nodes}
        outgoing: dict[str, list[str]] = {n: [] for n in self.nodes}
        for flow in self.flows.values():
            outgoing[flow.source].append(flow.id)
            incoming[flow.target].append(flow.id)
        boundaries: dict[str, list[str]] = {n: [] for n in self.nodes}
        for node_id, (el, _scope) in self.nodes.items():
            if ELEMENTS[local(el)].attached:
                attached = el.get("attachedToRef")
                if attached in self.refused:
                    continue
                if not attached or attached not in self.nodes:
                    self.ctx.problem(
                        f"boundary event is attached to '{attached}', which does not exist", el
                    )
                elif not is_compensation_boundary(el):
                    boundaries[attached].append(node_id)
        for node_id, (el, scope_id) in self.nodes.items():
            self.activities[node_id] = self._activity(
                el,
                node_id,
                scope_id,
                tuple(incoming[node_id]),
                tuple(outgoing[node_id]),
                tuple(boundaries[node_id]),
            )
        for scope_id in [
            self.process_id,
            *(n for n, (e, _s) in self.nodes.items() if ELEMENTS[local(e)].container),
        ]:
            self._start_of(scope_id)

    def _check_event_gateways(self) -> None:
        """Camunda's rules: an event-based gateway leads by unconditional flows to message,
        signal or timer catch events (or receive tasks with a message) that no other flow
        enters."""
        for gateway in self.activities.values():
            if gateway.type != kinds.EVENT_BASED_GATEWAY.type:
                continue
            el = self.nodes[gateway.id][0]
            # Camunda's BpmnParse counts no flows: one event after the gateway deploys (it
            # waits for that event alone). With none, nothing could ever end the wait.
            if not gateway.outgoing:
                self.ctx.problem(
                    "an event-based gateway needs an outgoing sequence flow to a catch event", el
                )
            for flow_id in gateway.outgoing:
                flow = self.flows[flow_id]
                target = self.activities.get(flow.target)
                if flow.condition is not None:
                    self.ctx.problem(
                        f"sequence flow '{flow_id}' leaves an event-based gateway: it cannot "
                        "have a condition",
                        self.flow_elements[flow_id][0],
                        flow_id,
                    )
                if target is None:
                    continue
                waits = target.type in _GATEWAY_CATCHES or (
                    target.type == kinds.RECEIVE_TASK.type
                    and isinstance(target.spec, ReceiveTaskSpec)
                    and target.spec.message is not None
                )
                if not waits:
                    self.ctx.problem(
                        f"event-based gateway '{gateway.id}' leads to '{target.id}', a "
                        f"{target.type}: it can only lead to message, signal or timer "
                        "intermediate catch events, conditional ones, and receive tasks with a "
                        "message",
                        el,
                    )
                elif len(target.incoming) != 1:
                    self.ctx.problem(
                        f"'{target.id}' follows event-based gateway '{gateway.id}' and may have "
                        "no other incoming sequence flow",
                        self.nodes[target.id][0],
                        target.id,
                    )

    def _start_of(self, scope_id: str) -> None:
        """A scope starts at its one none start event; a process may instead have one timer
        start event (Camunda allows one none-or-timer start: the timer's is the initial one),
        and any number of message start events besides (one alone is the initial one too)."""
        in_scope = [a for a in self.activities.values() if a.scope_id == scope_id]
        if scope_id in self.activities and self._event_subprocess(scope_id, in_scope):
            return
        for start in in_scope:
            spec = start.spec
            if start.type == kinds.ERROR_START_EVENT.type:
                self.ctx.problem(
                    "an error start event is only allowed in an event subprocess",
                    self.nodes[start.id][0],
                    start.id,
                )
            elif (
                isinstance(spec, EventSpec)
                and start.type in START_TYPES
                and not spec.cancel_activity
            ):
                self.ctx.problem(
                    "only the start event of an event subprocess can be non-interrupting "
                    '(isInterrupting="false")',
                    self.nodes[start.id][0],
                    start.id,
                )
        nones = [a.id for a in in_scope if a.type == kinds.START_EVENT.type]
        timers = [a for a in in_scope if a.type == kinds.START_TIMER_EVENT.type]
        named = kinds.types_of(
            kinds.MESSAGE_START_EVENT, kinds.SIGNAL_START_EVENT, kinds.CONDITIONAL_START_EVENT
        )
        messages = [a for a in in_scope if a.type in named]
        el = self.el if scope_id == self.process_id else self.nodes[scope_id][0]
        kind = "process" if scope_id == self.process_id else "subprocess"
        if (timers or messages) and kind == "subprocess":
            # (A conditional one too: Camunda's "conditionalEventDefinition is not allowed on
            # start event within a subprocess".)
            for start in (*timers, *messages):
                self.ctx.problem(
                    "a timer, message, signal or conditional start event in an embedded "
                    "subprocess is not allowed (only event subprocesses start on one)",
                    self.nodes[start.id][0],
                    start.id,
                )
            return
        for timer in timers:
            spec = timer.spec
            assert isinstance(spec, EventSpec) and isinstance(spec.definition, TimerEventDefinition)
            if spec.definition.invalid is not None:
                # Camunda creates a process's start timer at deployment, where it fails.
                self.ctx.problem(spec.definition.invalid, self.nodes[timer.id][0], timer.id)
            elif spec.definition.expression is not None:
                self.ctx.problem(
                    "the timer of a start event must be a literal value: no variables exist "
                    "before the instance does",
                    self.nodes[timer.id][0],
                    timer.id,
                )
        conditionals = [a for a in messages if a.type == kinds.CONDITIONAL_START_EVENT.type]
        self._message_starts([a for a in messages if a not in conditionals])
        self._conditional_starts(conditionals)
        starts = nones + [t.id for t in timers]
        if not starts and len(messages) == 1:
            starts = [messages[0].id]
        if not starts and not messages:
            self.ctx.problem(f"{kind} '{scope_id}' has no none start event", el, scope_id)
        elif len(starts) > 1:
            self.ctx.problem(
                f"{kind} '{scope_id}' has more than one none or timer start event: "
                f"{', '.join(starts)}",
                el,
                scope_id,
            )
        elif starts:
            self.start_events[scope_id] = starts[0]

    def _event_subprocess(self, scope_id: str, in_scope: list[Activity]) -> bool:
        """An event subprocess starts at its one start event with a message, signal, timer or
        error, and no flow enters or leaves it. False: `scope_id` is no event subprocess."""
        esp = self.activities[scope_id]
        spec = esp.spec
        if not (isinstance(spec, SubprocessSpec) and spec.triggered_by_event):
            return False
        el = self.nodes[scope_id][0]
        if esp.incoming or esp.outgoing:
            self.ctx.problem("an event subprocess cannot have sequence flows in or out", el)
        starts = [a for a in in_scope if a.type in START_TYPES]
        if len(starts) != 1 or starts[0].type not in _TRIGGERED_STARTS:
            self.ctx.problem(
                "an event subprocess needs exactly one start event, with a message, signal, "
                "timer or error event definition (or compensation)",
                el,
            )
            return True
        start = starts[0]
        start_spec = start.spec
        assert isinstance(start_spec, EventSpec)
        if start.type == kinds.ERROR_START_EVENT.type and not start_spec.cancel_activity:
            self.ctx.problem(
                "an error event subprocess always interrupts its scope: its start event cannot "
                'be isInterrupting="false"',
                self.nodes[start.id][0],
                start.id,
            )
        self.start_events[scope_id] = start.id
        return True

    def _conditional_starts(self, starts: list[Activity]) -> None:
        """Conditional start events of a process: no two with the same condition (Camunda's
        rule: an evaluation would start the process twice for one request)."""
        seen: dict[str, str] = {}
        for start in starts:
            spec = start.spec
            assert isinstance(spec, EventSpec)
            definition = spec.definition
            assert isinstance(definition, ConditionalEventDefinition)
            source = definition.condition.source
            if source in seen:
                self.ctx.problem(
                    f"conditional start events '{seen[source]}' and '{start.id}' have the same "
                    f"condition '{source}': a process cannot have two",
                    self.nodes[start.id][0],
                    start.id,
                )
            seen.setdefault(source, start.id)

    def _message_starts(self, starts: list[Activity]) -> None:
        """Message and signal start events: each a literal name (no variables exist yet), no
        two of one kind with the same name (a message must say which start it means)."""
        for start in starts:
            spec = start.spec
            assert isinstance(spec, EventSpec)
            definition = spec.definition
            assert isinstance(definition, MessageEventDefinition | SignalEventDefinition)
            what = "message" if isinstance(definition, MessageEventDefinition) else "signal"
            known = self.message_starts if what == "message" else self.signal_starts
            el = self.nodes[start.id][0]
            if definition.name_expression is not None:
                self.ctx.problem(
                    f"the {what} of a start event must have a literal name: no variables exist "
                    "before the instance does",
                    el,
                    start.id,
                )
            elif definition.name in known:
                self.ctx.problem(
                    f"{what} start events '{known[definition.name]}' and '{start.id}' wait for "
                    f"the same {what} '{definition.name}'",
                    el,
                    start.id,
                )
            elif definition.name:
                known[definition.name] = start.id

    def _activity(
        self,
        el: etree._Element,
        node_id: str,
        scope_id: str,
        incoming: tuple[str, ...],
        outgoing: tuple[str, ...],
        boundaries: tuple[str, ...],
    ) -> Activity:
        """What every flow node shares; the element's own settings come from its parser."""
        ctx = self.ctx
        async_before, async_after = read_async(ctx, el)
        io = None
        listeners: tuple[Listener, ...] = ()
        for child in el:
            if ns(child) == BPMN and local(child) == "extensionElements":
                self._check_extensions(child, node_id)
                io = read_input_output(ctx, child, el)
                listeners = read_listeners(ctx, child, "executionListener", EXECUTION_EVENTS)
                if local(el) != kinds.USER_TASK.tag:
                    _no_task_listeners(ctx, child)
                if local(el) != kinds.CALL_ACTIVITY.tag:
                    _no_call_mappings(ctx, child)
                if local(el) not in _SERVICE_TAGS:
                    _no_connector(ctx, child)
        default_flow = el.get("default")
        if default_flow is not None and default_flow not in outgoing:
            ctx.problem(f"default flow '{default_flow}' is not an outgoing flow of '{node_id}'", el)
        kind = ELEMENTS[local(el)]
        parsed = kind.parse(ctx, el)
        loop = read_loop(ctx, el, node_id)
        if loop is not None:
            self.loops[node_id] = loop
        return Activity(
            id=node_id,
            type=parsed.type,
            name=el.get("name"),
            scope_id=scope_id,
            incoming=incoming,
            outgoing=outgoing,
            default_flow=default_flow,
            # local variables need an execution of their own: a mapped activity is a scope
            # so is a user task with timeout listeners (Camunda's parseTimeoutTaskListener)
            is_scope=kind.container
            or bool(boundaries)
            or io is not None
            or (isinstance(parsed.spec, UserTaskSpec) and bool(parsed.spec.timeout_listeners)),
            boundary_events=boundaries,
            line=line(el),
            spec=parsed.spec,
            async_before=async_before,
            async_after=async_after,
            jobs=read_job_settings(ctx, el),
            io=io,
            listeners=listeners,
            for_compensation=(el.get("isForCompensation") or "").strip().lower() == "true",
        )
