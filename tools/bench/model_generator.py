"""The benchmark's BPMN graphs, built in code and rendered as XML for flowledger or for the peer.

One graph, two dialects: Camunda (JUEL conditions, `camunda:delegateExpression="${counter}"`
service tasks, `camunda:collection` multi-instance) and SpiffWorkflow (Python conditions, script
tasks, BPMN data-input multi-instance). Pure: builds bytes, reads and writes no files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from lxml import etree

BPMN_NS = "http://www.omg.org/spec/BPMN/20100524/MODEL"
CAMUNDA_NS = "http://camunda.org/schema/1.0/bpmn"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
TARGET_NS = "http://flowledger.dev/bench"

Dialect = Literal["camunda", "peer"]
NodeKind = Literal[
    "start", "end", "service", "user", "exclusive", "parallel", "compensation_end", "conditional"
]

DELEGATE_NAME = "counter"  # the no-op delegate flowledger registers: `${counter}`
COUNT_VARIABLE = "count"  # the variable it increments (a variable named `counter` would shadow it)
PEER_SCRIPT = f"{COUNT_VARIABLE} = {COUNT_VARIABLE} + 1"

_TAGS: dict[NodeKind, str] = {
    "start": "startEvent",
    "end": "endEvent",
    "service": "serviceTask",
    "user": "userTask",
    "exclusive": "exclusiveGateway",
    "parallel": "parallelGateway",
    "compensation_end": "endEvent",  # with a compensateEventDefinition: undo what completed
    "conditional": "intermediateCatchEvent",  # with a conditionalEventDefinition: wait for it
}


@dataclass(frozen=True)
class Comparison:
    """A condition both dialects can say: `${amount > 100}` (JUEL) or `amount > 100` (Python)."""

    variable: str
    operator: Literal[">", ">=", "<", "<=", "=="]
    literal: int

    def render(self, dialect: Dialect) -> str:
        text = f"{self.variable} {self.operator} {self.literal}"
        return "${" + text + "}" if dialect == "camunda" else text


@dataclass(frozen=True)
class MultiInstance:
    """Parallel multi-instance over the list variable `collection`, one `element` per instance."""

    collection: str
    element: str


@dataclass(frozen=True)
class Node:
    id: str
    kind: NodeKind
    name: str | None = None
    multi_instance: MultiInstance | None = None
    default_flow: str | None = None
    compensated_by: str | None = None  # the handler a compensation boundary event leads to
    for_compensation: bool = False  # a compensation handler: reached only by compensation
    condition: Comparison | None = None  # what a conditional catch waits for


@dataclass(frozen=True)
class Flow:
    id: str
    source: str
    target: str
    condition: Comparison | None = None


@dataclass
class ProcessGraph:
    """A process as nodes and sequence flows, plus how many flow nodes one instance executes."""

    process_id: str
    name: str
    nodes: list[Node] = field(default_factory=list)
    flows: list[Flow] = field(default_factory=list)
    activities_per_instance: int = 0

    def node(self, node: Node) -> str:
        self.nodes.append(node)
        return node.id

    def flow(
        self,
        source: str,
        target: str,
        condition: Comparison | None = None,
        flow_id: str | None = None,
    ) -> str:
        flow_id = flow_id or f"flow{len(self.flows) + 1}"
        self.flows.append(Flow(flow_id, source, target, condition))
        return flow_id


# -- the workload graphs ------------------------------------------------------------------------


def linear(tasks: int) -> ProcessGraph:
    """start → `tasks` service tasks → end."""
    if tasks < 1:
        raise ValueError(f"a linear model needs at least one task, not {tasks}")
    graph = ProcessGraph(f"linear{tasks}", f"Linear, {tasks} service tasks")
    previous = graph.node(Node("start", "start"))
    for i in range(1, tasks + 1):
        task = graph.node(Node(f"task{i}", "service", f"Task {i}"))
        graph.flow(previous, task)
        previous = task
    graph.flow(previous, graph.node(Node("end", "end")))
    graph.activities_per_instance = tasks + 2
    return graph


def usertask_gateway() -> ProcessGraph:
    """start → user task → XOR on `amount > 100` → one of two service tasks → merge → end."""
    graph = ProcessGraph("usertask_gateway", "User task, then an exclusive gateway")
    start = graph.node(Node("start", "start"))
    review = graph.node(Node("review", "user", "Review amount"))
    split = graph.node(Node("split", "exclusive", "Amount over 100?", default_flow="to_small"))
    large = graph.node(Node("large", "service", "Handle large amount"))
    small = graph.node(Node("small", "service", "Handle small amount"))
    merge = graph.node(Node("merge", "exclusive"))
    end = graph.node(Node("end", "end"))
    graph.flow(start, review)
    graph.flow(review, split)
    graph.flow(split, large, Comparison("amount", ">", 100), flow_id="to_large")
    graph.flow(split, small, flow_id="to_small")
    graph.flow(large, merge)
    graph.flow(small, merge)
    graph.flow(merge, end)
    graph.activities_per_instance = 6
    return graph


def parallel(branches: int = 4, depth: int = 2) -> ProcessGraph:
    """start → fork → `branches` x `depth` service tasks → join → end."""
    graph = ProcessGraph("parallel", f"Parallel, {branches} branches x {depth} service tasks")
    start = graph.node(Node("start", "start"))
    fork = graph.node(Node("fork", "parallel"))
    join = graph.node(Node("join", "parallel"))
    graph.flow(start, fork)
    for b in range(1, branches + 1):
        previous = fork
        for d in range(1, depth + 1):
            task = graph.node(Node(f"branch{b}_task{d}", "service", f"Branch {b} task {d}"))
            graph.flow(previous, task)
            previous = task
        graph.flow(previous, join)
    graph.flow(join, graph.node(Node("end", "end")))
    graph.activities_per_instance = branches * depth + 4
    return graph


def multi_instance(items: int) -> ProcessGraph:
    """start → one parallel multi-instance service task over an `items`-element list → end.

    Camunda counts the multi-instance body and every inner instance as activities: items + 3.
    """
    graph = ProcessGraph(f"mi{items}", f"Parallel multi-instance over {items} items")
    start = graph.node(Node("start", "start"))
    task = graph.node(
        Node("each", "service", "Handle item", multi_instance=MultiInstance("items", "item"))
    )
    graph.flow(start, task)
    graph.flow(task, graph.node(Node("end", "end")))
    graph.activities_per_instance = items + 3
    return graph


def saga(steps: int = 5) -> ProcessGraph:
    """start → `steps` service tasks, each with a compensation handler → compensation end: every
    instance books `steps` things and undoes all of them, the last first."""
    graph = ProcessGraph(f"saga{steps}", f"Saga of {steps} steps, undone at the end")
    previous = graph.node(Node("start", "start"))
    for i in range(1, steps + 1):
        undo = graph.node(Node(f"undo{i}", "service", f"Undo step {i}", for_compensation=True))
        step = graph.node(Node(f"step{i}", "service", f"Step {i}", compensated_by=undo))
        graph.flow(previous, step)
        previous = step
    graph.flow(previous, graph.node(Node("undo_all", "compensation_end", "Undo all")))
    graph.activities_per_instance = 2 * steps + 2
    return graph


def conditional_wait(variable: str, threshold: int, *, control: bool = False) -> ProcessGraph:
    """start → conditional catch on `variable >= threshold` → service task → end; as the
    `control`, a user task waits there instead (nothing to re-evaluate as variables change)."""
    if control:
        graph = ProcessGraph("conditional_control", "Waits at a user task")
        wait_node = Node("ready", "user", "Ready?")
    else:
        graph = ProcessGraph("conditional_wait", f"Waits until {variable} >= {threshold}")
        wait_node = Node(
            "ready", "conditional", "Ready?", condition=Comparison(variable, ">=", threshold)
        )
    start = graph.node(Node("start", "start"))
    wait = graph.node(wait_node)
    task = graph.node(Node("work", "service", "Work"))
    graph.flow(start, wait)
    graph.flow(wait, task)
    graph.flow(task, graph.node(Node("end", "end")))
    graph.activities_per_instance = 4
    return graph


STUCK_TASK = "stuck"


def stuck_task(process_id: str, version: int = 1) -> ProcessGraph:
    """start → user task `stuck` → service task → end: the instance an operator repairs (or, as
    the control, whose task is completed); a later `version` renames its service task."""
    graph = ProcessGraph(process_id, "Waits at a user task an operator may move past")
    start = graph.node(Node("start", "start"))
    stuck = graph.node(Node(STUCK_TASK, "user", "Stuck?"))
    task = graph.node(Node("work", "service", "Work" if version == 1 else f"Work v{version}"))
    graph.flow(start, stuck)
    graph.flow(stuck, task)
    graph.flow(task, graph.node(Node("end", "end")))
    graph.activities_per_instance = 4
    return graph


# -- rendering ----------------------------------------------------------------------------------


def render(graph: ProcessGraph, dialect: Dialect) -> bytes:
    """The graph as a BPMN 2.0 document in the given dialect (UTF-8 XML bytes)."""
    nsmap = {None: BPMN_NS, "camunda": CAMUNDA_NS, "xsi": XSI_NS}
    definitions = etree.Element(
        _q(BPMN_NS, "definitions"),
        nsmap=nsmap,  # type: ignore[arg-type]  # lxml-stubs reject the default (None) prefix
        id=f"{graph.process_id}_definitions",
        targetNamespace=TARGET_NS,
    )
    process = etree.SubElement(
        definitions,
        _q(BPMN_NS, "process"),
        id=graph.process_id,
        name=graph.name,
        isExecutable="true",
    )
    if dialect == "camunda":
        process.set(_q(CAMUNDA_NS, "historyTimeToLive"), "P30D")
    for node in graph.nodes:
        _render_node(process, node, dialect)
    for flow in graph.flows:
        element = etree.SubElement(
            process, _q(BPMN_NS, "sequenceFlow"), id=flow.id, sourceRef=flow.source
        )
        element.set("targetRef", flow.target)
        if flow.condition is not None:
            condition = etree.SubElement(element, _q(BPMN_NS, "conditionExpression"))
            condition.set(_q(XSI_NS, "type"), "tFormalExpression")
            condition.text = flow.condition.render(dialect)
    etree.indent(definitions, space="  ")
    return etree.tostring(definitions, xml_declaration=True, encoding="UTF-8") + b"\n"


def _render_node(process: etree._Element, node: Node, dialect: Dialect) -> None:
    tag = _TAGS[node.kind]
    if node.kind == "service" and dialect == "peer":
        tag = "scriptTask"  # SpiffWorkflow runs no service-task code; a script task does the work
    element = etree.SubElement(process, _q(BPMN_NS, tag), id=node.id)
    if node.name is not None:
        element.set("name", node.name)
    if node.default_flow is not None:
        element.set("default", node.default_flow)
    if node.kind == "service" and dialect == "camunda":
        element.set(_q(CAMUNDA_NS, "delegateExpression"), "${" + DELEGATE_NAME + "}")
    if node.kind == "service" and dialect == "peer":
        element.set("scriptFormat", "python")
    if node.multi_instance is not None:
        _render_multi_instance(element, node.multi_instance, dialect)
    if node.kind == "service" and dialect == "peer":
        etree.SubElement(element, _q(BPMN_NS, "script")).text = PEER_SCRIPT
    if node.for_compensation:
        element.set("isForCompensation", "true")
    if node.kind == "compensation_end":
        etree.SubElement(element, _q(BPMN_NS, "compensateEventDefinition"))
    if node.kind == "conditional":
        assert node.condition is not None, f"conditional event {node.id} has no condition"
        definition = etree.SubElement(element, _q(BPMN_NS, "conditionalEventDefinition"))
        condition = etree.SubElement(definition, _q(BPMN_NS, "condition"))
        condition.set(_q(XSI_NS, "type"), "tFormalExpression")
        condition.text = node.condition.render(dialect)
    if node.compensated_by is not None:
        _render_compensation(process, node)


def _render_compensation(process: etree._Element, node: Node) -> None:
    """A compensation boundary event on `node`, associated with its handler (no sequence flow:
    compensation reaches a handler only through the association)."""
    boundary_id = f"{node.id}_compensation"
    boundary = etree.SubElement(
        process, _q(BPMN_NS, "boundaryEvent"), id=boundary_id, attachedToRef=node.id
    )
    etree.SubElement(boundary, _q(BPMN_NS, "compensateEventDefinition"))
    association = etree.SubElement(
        process, _q(BPMN_NS, "association"), id=f"{node.id}_to_handler", sourceRef=boundary_id
    )
    association.set("targetRef", str(node.compensated_by))


def _render_multi_instance(element: etree._Element, mi: MultiInstance, dialect: Dialect) -> None:
    loop = etree.SubElement(element, _q(BPMN_NS, "multiInstanceLoopCharacteristics"))
    if dialect == "camunda":
        loop.set(_q(CAMUNDA_NS, "collection"), "${" + mi.collection + "}")
        loop.set(_q(CAMUNDA_NS, "elementVariable"), mi.element)
        return
    # SpiffWorkflow reads the standard BPMN data input form on script tasks.
    etree.SubElement(loop, _q(BPMN_NS, "loopDataInputRef")).text = mi.collection
    etree.SubElement(loop, _q(BPMN_NS, "inputDataItem"), id=mi.element, name=mi.element)


def _q(namespace: str, tag: str) -> str:
    return f"{{{namespace}}}{tag}"
