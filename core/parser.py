"""BPMN 2.0 XML (with camunda: extensions) into immutable `ProcessModel`s.

Pure: no I/O beyond the bytes handed in. lxml is hardened: no DTDs, no entities, no network, a size
limit. Every problem names the resource, the element id and the line, and all are reported at once.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from types import CodeType, MappingProxyType

from lxml import etree

from .errors import ModelError, ModelProblem
from .expressions import Expression, ExpressionSyntaxError, compile_expression
from .model import (
    Activity,
    BoundarySpec,
    ErrorSpec,
    ParsedResource,
    ProcessModel,
    ScriptTaskSpec,
    SequenceFlow,
    ServiceTaskSpec,
    Spec,
    UserTaskSpec,
)

BPMN = "http://www.omg.org/spec/BPMN/20100524/MODEL"
CAMUNDA_NAMESPACES = ("http://camunda.org/schema/1.0/bpmn", "http://activiti.org/bpmn")
XSI = "http://www.w3.org/2001/XMLSchema-instance"
MAX_RESOURCE_BYTES = 10 * 1024 * 1024

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
_TASK_TYPES = {
    "task": "task",
    "manualTask": "manualTask",
    "userTask": "userTask",
    "serviceTask": "serviceTask",
    "sendTask": "sendTask",
    "businessRuleTask": "businessRuleTask",
    "scriptTask": "scriptTask",
    "receiveTask": "receiveTask",
}
_GATEWAYS = {
    "exclusiveGateway": "exclusiveGateway",
    "parallelGateway": "parallelGateway",
    "inclusiveGateway": "inclusiveGateway",
}
_NOT_YET = {
    "intermediateCatchEvent": "intermediate catch events (timer, message, signal, conditional, "
    "link)",
    "eventBasedGateway": "event-based gateways",
    "complexGateway": "complex gateways",
    "callActivity": "call activities",
    "transaction": "transaction subprocesses",
    "adHocSubProcess": "ad-hoc subprocesses",
}
# camunda: attributes/elements whose semantics the engine does not implement yet: refusing them is
# safer than running the model with different transaction boundaries or missing side effects.
_UNSUPPORTED_ATTRIBUTES = {
    "asyncBefore": "asynchronous continuations (camunda:asyncBefore)",
    "async": "asynchronous continuations (camunda:async)",
    "asyncAfter": "asynchronous continuations (camunda:asyncAfter)",
    "exclusive": None,
    "jobPriority": None,
}
_UNSUPPORTED_EXTENSIONS = {
    "executionListener": "execution listeners",
    "taskListener": "task listeners",
    "inputOutput": "input/output mappings",
    "field": "field injection",
    "connector": "connectors",
    "failedJobRetryTimeCycle": None,
    "in": "call activity variable mappings",
    "out": "call activity variable mappings",
}


def _local(el: etree._Element) -> str:
    tag = el.tag
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def _line(el: etree._Element | None) -> int | None:
    line = getattr(el, "sourceline", None)
    return line if isinstance(line, int) else None


def _ns(el: etree._Element) -> str | None:
    tag = el.tag
    return etree.QName(tag).namespace if isinstance(tag, str) else None


@dataclass
class _Ctx:
    resource: str
    allow_scripts: bool
    problems: list[ModelProblem] = field(default_factory=list)
    errors: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)

    def problem(
        self, message: str, el: etree._Element | None = None, element_id: str | None = None
    ) -> None:
        line = _line(el)
        node = el
        while element_id is None and node is not None:
            # a condition or documentation has no id: name the element it belongs to
            element_id = node.get("id")
            node = node.getparent()
        self.problems.append(ModelProblem(message, self.resource, element_id, line))

    def camunda(self, el: etree._Element, name: str) -> str | None:
        for ns in CAMUNDA_NAMESPACES:
            value = el.get(f"{{{ns}}}{name}")
            if value is not None:
                return value
        return None

    def expression(
        self, text: str | None, el: etree._Element, what: str, element_id: str | None = None
    ) -> Expression | None:
        if text is None or not text.strip():
            return None
        try:
            return compile_expression(text.strip())
        except ExpressionSyntaxError as exc:
            self.problem(f"invalid expression in {what}: {exc}", el, element_id)
            return None


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def parse_bpmn(source: bytes, resource_name: str, *, allow_scripts: bool = False) -> ParsedResource:
    """Parse one BPMN resource; raises ModelError listing every problem found."""
    ctx = _Ctx(resource_name, allow_scripts)
    if len(source) > MAX_RESOURCE_BYTES:
        raise ModelError(
            [ModelProblem(f"resource is larger than {MAX_RESOURCE_BYTES} bytes", resource_name)]
        )
    root_start = re.search(rb"<[A-Za-z_]", source)
    if b"<!DOCTYPE" in source[: root_start.start() if root_start else len(source)]:
        # Refused before libxml2 sees it: no entity is ever declared, let alone expanded.
        raise ModelError(
            [ModelProblem("DOCTYPE declarations are not allowed in BPMN resources", resource_name)]
        )
    try:
        root = etree.fromstring(source, _parser())
    except etree.XMLSyntaxError as exc:
        line = exc.lineno if isinstance(exc.lineno, int) else None
        raise ModelError(
            [ModelProblem(f"malformed XML: {exc.msg}", resource_name, None, line)]
        ) from None
    docinfo = root.getroottree().docinfo
    if getattr(docinfo, "doctype", None) or getattr(docinfo, "internalDTD", None) is not None:
        # Entity expansion is off anyway; refusing DTDs outright closes the whole attack class.
        raise ModelError(
            [ModelProblem("DOCTYPE declarations are not allowed in BPMN resources", resource_name)]
        )
    if _ns(root) != BPMN or _local(root) != "definitions":
        raise ModelError(
            [
                ModelProblem(
                    "not a BPMN 2.0 document: the root element must be "
                    f"{{{BPMN}}}definitions, found {root.tag}",
                    resource_name,
                    None,
                    _line(root),
                )
            ]
        )
    for el in root:
        if _ns(el) == BPMN and _local(el) == "error" and el.get("id"):
            ctx.errors[el.get("id", "")] = (el.get("errorCode"), ctx.camunda(el, "errorMessage"))
    processes: list[ProcessModel] = []
    for el in root:
        if _ns(el) == BPMN and _local(el) == "process":
            if (el.get("isExecutable") or "true").strip().lower() == "false":
                continue
            model = _ProcessBuilder(ctx, el, root.get("targetNamespace")).build()
            if model is not None:
                processes.append(model)
    if not ctx.problems and not processes:
        ctx.problem("the resource contains no executable process", root)
    if ctx.problems:
        raise ModelError(ctx.problems)
    return ParsedResource(resource_name, tuple(processes))


def _split_list(text: str) -> list[str]:
    """Split a camunda comma list, keeping commas inside ${...} expressions."""
    parts: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts if p.strip()]


def _history_ttl(text: str | None) -> int | None:
    if text is None or not text.strip():
        return None
    text = text.strip()
    match = re.fullmatch(r"P(\d+)D", text)
    if match:
        return int(match.group(1))
    return int(text) if text.isdigit() else None


class _ProcessBuilder:
    def __init__(self, ctx: _Ctx, el: etree._Element, category: str | None) -> None:
        self.ctx = ctx
        self.category = category
        self.el = el
        self.process_id = el.get("id") or ""
        self.nodes: dict[str, tuple[etree._Element, str]] = {}  # id -> (element, scope id)
        self.flow_elements: dict[str, tuple[etree._Element, str]] = {}
        self.activities: dict[str, Activity] = {}
        self.flows: dict[str, SequenceFlow] = {}
        self.start_events: dict[str, str] = {}

    def build(self) -> ProcessModel | None:
        ctx = self.ctx
        if not self.process_id:
            ctx.problem("process without an id", self.el)
            return None
        before = len(ctx.problems)
        self._collect(self.el, self.process_id)
        self._build_flows()
        self._build_activities()
        if len(ctx.problems) > before:
            return None
        ttl_text = ctx.camunda(self.el, "historyTimeToLive")
        startable = (ctx.camunda(self.el, "isStartableInTasklist") or "true").lower() != "false"
        return ProcessModel(
            id=self.process_id,
            name=self.el.get("name"),
            activities=MappingProxyType(self.activities),
            flows=MappingProxyType(self.flows),
            start_events=MappingProxyType(self.start_events),
            version_tag=ctx.camunda(self.el, "versionTag"),
            history_ttl=_history_ttl(ttl_text),
            startable=startable,
            category=self.category,
        )

    # -- pass 1: ids and nesting ----------------------------------------------------------

    def _collect(self, scope_el: etree._Element, scope_id: str) -> None:
        ctx = self.ctx
        generated = 0
        for el in scope_el:
            if not isinstance(el.tag, str):
                continue
            ns, name = _ns(el), _local(el)
            if ns != BPMN:
                if ns not in CAMUNDA_NAMESPACES:
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
            if name == "subProcess" and (el.get("triggeredByEvent") or "").lower() == "true":
                ctx.problem("event subprocesses are not supported yet", el)
                continue
            if name in _NOT_YET:
                ctx.problem(f"<{name}>: {_NOT_YET[name]} are not supported yet", el)
                continue
            known = (
                name in _TASK_TYPES
                or name in _GATEWAYS
                or name
                in (
                    "startEvent",
                    "endEvent",
                    "boundaryEvent",
                    "subProcess",
                    "intermediateThrowEvent",
                )
            )
            if not known:
                ctx.problem(f"unsupported element <{name}>", el)
                continue
            self._register(self.nodes, element_id, el, scope_id)
            if name == "subProcess":
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
            if not isinstance(child.tag, str) or _ns(child) not in CAMUNDA_NAMESPACES:
                continue
            name = _local(child)
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
            ok = True
            for role, ref in (("source", source), ("target", target)):
                if not ref:
                    ctx.problem(f"sequence flow '{flow_id}' has no {role}Ref", el, flow_id)
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
                if _ns(child) == BPMN and _local(child) == "conditionExpression":
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
                line=_line(el),
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
            if _local(el) == "boundaryEvent":
                attached = el.get("attachedToRef")
                if not attached or attached not in self.nodes:
                    self.ctx.problem(
                        f"boundary event is attached to '{attached}', which does not exist", el
                    )
                else:
                    boundaries[attached].append(node_id)
        for node_id, (el, scope_id) in self.nodes.items():
            built = self._activity(
                el,
                node_id,
                scope_id,
                tuple(incoming[node_id]),
                tuple(outgoing[node_id]),
                tuple(boundaries[node_id]),
            )
            if built is not None:
                self.activities[node_id] = built
        for scope_id in [
            self.process_id,
            *(n for n, (e, _s) in self.nodes.items() if _local(e) == "subProcess"),
        ]:
            starts = [
                a.id
                for a in self.activities.values()
                if a.scope_id == scope_id and a.type == "startEvent"
            ]
            el = self.el if scope_id == self.process_id else self.nodes[scope_id][0]
            kind = "process" if scope_id == self.process_id else "subprocess"
            if not starts:
                self.ctx.problem(f"{kind} '{scope_id}' has no none start event", el, scope_id)
            elif len(starts) > 1:
                self.ctx.problem(
                    f"{kind} '{scope_id}' has more than one none start event: {', '.join(starts)}",
                    el,
                    scope_id,
                )
            else:
                self.start_events[scope_id] = starts[0]

    def _activity(
        self,
        el: etree._Element,
        node_id: str,
        scope_id: str,
        incoming: tuple[str, ...],
        outgoing: tuple[str, ...],
        boundaries: tuple[str, ...],
    ) -> Activity | None:
        ctx = self.ctx
        name = _local(el)
        for attr, what in _UNSUPPORTED_ATTRIBUTES.items():
            value = ctx.camunda(el, attr)
            if what and value is not None and value.strip().lower() not in ("false", ""):
                ctx.problem(f"{what} are not supported yet", el)
        for child in el:
            if _ns(child) == BPMN and _local(child) == "extensionElements":
                self._check_extensions(child, node_id)
            if _ns(child) == BPMN and _local(child) in (
                "multiInstanceLoopCharacteristics",
                "standardLoopCharacteristics",
            ):
                ctx.problem("multi-instance and loop activities are not supported yet", el)
        default_flow = el.get("default")
        if default_flow is not None and default_flow not in outgoing:
            ctx.problem(f"default flow '{default_flow}' is not an outgoing flow of '{node_id}'", el)
        spec: Spec = None
        act_type: str
        definitions = [
            _local(c) for c in el if _ns(c) == BPMN and _local(c).endswith("EventDefinition")
        ]
        if name == "startEvent":
            if definitions:
                ctx.problem(f"start events with a {definitions[0]} are not supported yet", el)
            act_type = "startEvent"
        elif name == "endEvent":
            if not definitions:
                act_type = "noneEndEvent"
            elif definitions == ["terminateEventDefinition"]:
                act_type = "terminateEndEvent"
            elif definitions == ["errorEventDefinition"]:
                act_type = "errorEndEvent"
                spec = self._error_spec(el, for_catch=False)
            else:
                ctx.problem(f"end events with a {definitions[0]} are not supported yet", el)
                act_type = "noneEndEvent"
        elif name == "intermediateThrowEvent":
            if definitions:
                ctx.problem(
                    f"intermediate throw events with a {definitions[0]} are not supported yet", el
                )
            act_type = "intermediateNoneThrowEvent"
        elif name == "boundaryEvent":
            if definitions != ["errorEventDefinition"]:
                what = definitions[0] if definitions else "no event definition"
                ctx.problem(f"boundary events with {what} are not supported yet", el)
            act_type = "boundaryError"
            cancel = (el.get("cancelActivity") or "true").lower() != "false"
            spec = BoundarySpec(
                attached_to=el.get("attachedToRef") or "",
                cancel_activity=cancel,
                error=self._error_spec(el, for_catch=True)
                if "errorEventDefinition" in definitions
                else ErrorSpec(),
            )
        elif name == "subProcess":
            act_type = "subProcess"
        elif name in _GATEWAYS:
            act_type = _GATEWAYS[name]
        else:
            act_type = _TASK_TYPES[name]
            spec = self._task_spec(el, name)
        return Activity(
            id=node_id,
            type=act_type,
            name=el.get("name"),
            scope_id=scope_id,
            incoming=incoming,
            outgoing=outgoing,
            default_flow=default_flow,
            is_scope=name == "subProcess" or bool(boundaries),
            boundary_events=boundaries,
            line=_line(el),
            spec=spec,
        )

    def _error_spec(self, el: etree._Element, *, for_catch: bool) -> ErrorSpec:
        ctx = self.ctx
        definition = next(c for c in el if _ns(c) == BPMN and _local(c) == "errorEventDefinition")
        ref = definition.get("errorRef")
        code: str | None = None
        message: str | None = None
        if ref:
            if ref in ctx.errors:
                code, message = ctx.errors[ref]
            else:
                code = ref  # Camunda treats an unresolved errorRef as the error code itself
        return ErrorSpec(
            error_code=code,
            error_message=message,
            code_variable=ctx.camunda(definition, "errorCodeVariable") if for_catch else None,
            message_variable=ctx.camunda(definition, "errorMessageVariable") if for_catch else None,
        )

    def _task_spec(self, el: etree._Element, name: str) -> Spec:
        ctx = self.ctx
        if name == "userTask":
            return self._user_task(el)
        if name in ("serviceTask", "sendTask", "businessRuleTask"):
            return self._service_task(el, name)
        if name == "scriptTask":
            return self._script_task(el)
        if name == "receiveTask" and el.get("messageRef"):
            ctx.problem(
                "receive tasks with a messageRef (message correlation) are not supported yet", el
            )
        return None

    def _user_task(self, el: etree._Element) -> UserTaskSpec:
        ctx = self.ctx
        node_id = el.get("id") or ""

        def expr(attr: str) -> Expression | None:
            return ctx.expression(ctx.camunda(el, attr), el, f"camunda:{attr} of '{node_id}'")

        def exprs(text: str | None, what: str) -> tuple[Expression, ...]:
            if not text:
                return ()
            out = []
            for part in _split_list(text):
                compiled = ctx.expression(part, el, f"{what} of '{node_id}'")
                if compiled is not None:
                    out.append(compiled)
            return tuple(out)

        assignee = expr("assignee")
        users = list(exprs(ctx.camunda(el, "candidateUsers"), "camunda:candidateUsers"))
        groups = list(exprs(ctx.camunda(el, "candidateGroups"), "camunda:candidateGroups"))
        description = None
        for child in el:
            if _ns(child) != BPMN:
                continue
            local = _local(child)
            if local == "documentation" and child.text:
                description = ctx.expression(child.text, child, f"documentation of '{node_id}'")
            if local in ("humanPerformer", "potentialOwner"):
                formal = child.find(f".//{{{BPMN}}}formalExpression")
                text = formal.text if formal is not None else None
                for part in _split_list(text or ""):
                    match = re.fullmatch(r"(user|group)\((.*)\)", part)
                    target, value = (match.group(1), match.group(2)) if match else ("user", part)
                    if local == "humanPerformer":
                        assignee = ctx.expression(value, child, f"humanPerformer of '{node_id}'")
                        continue
                    compiled = ctx.expression(value, child, f"potentialOwner of '{node_id}'")
                    if compiled is not None:
                        (groups if target == "group" else users).append(compiled)
        raw_name = el.get("name")
        dynamic_name = raw_name and ("${" in raw_name or "#{" in raw_name)
        return UserTaskSpec(
            name=ctx.expression(raw_name, el, f"the name of '{node_id}'") if dynamic_name else None,
            assignee=assignee,
            candidate_users=tuple(users),
            candidate_groups=tuple(groups),
            due_date=expr("dueDate"),
            follow_up_date=expr("followUpDate"),
            priority=expr("priority"),
            form_key=expr("formKey"),
            description=description,
        )

    def _service_task(self, el: etree._Element, name: str) -> ServiceTaskSpec | None:
        ctx = self.ctx
        node_id = el.get("id") or ""
        result_variable = ctx.camunda(el, "resultVariable") or ctx.camunda(el, "resultVariableName")
        if (ctx.camunda(el, "type") or "").lower() == "external":
            topic_text = ctx.camunda(el, "topic")
            if not topic_text:
                ctx.problem("external tasks need a camunda:topic", el)
                return None
            return ServiceTaskSpec(
                implementation="external",
                topic=ctx.expression(topic_text, el, f"camunda:topic of '{node_id}'"),
                task_priority=ctx.expression(
                    ctx.camunda(el, "taskPriority"), el, f"camunda:taskPriority of '{node_id}'"
                ),
            )
        if ctx.camunda(el, "type"):
            ctx.problem(f"camunda:type '{ctx.camunda(el, 'type')}' is not supported", el)
            return None
        if ctx.camunda(el, "decisionRef"):
            ctx.problem(
                "business rule tasks with camunda:decisionRef (DMN) are not supported yet", el
            )
            return None
        delegate = ctx.camunda(el, "delegateExpression")
        expression = ctx.camunda(el, "expression")
        class_name = ctx.camunda(el, "class")
        chosen = [
            a
            for a, v in (
                ("delegateExpression", delegate),
                ("expression", expression),
                ("class", class_name),
            )
            if v
        ]
        if len(chosen) != 1:
            ctx.problem(
                f"a {name} needs exactly one of camunda:class, camunda:delegateExpression, "
                'camunda:expression or camunda:type="external"'
                + (f" (found {', '.join(chosen)})" if chosen else ""),
                el,
            )
            return None
        if chosen[0] == "class":
            return ServiceTaskSpec(implementation="class", class_name=(class_name or "").strip())
        if chosen[0] == "delegateExpression" and result_variable:
            ctx.problem("camunda:resultVariable cannot be used with camunda:delegateExpression", el)
        compiled = ctx.expression(delegate or expression, el, f"camunda:{chosen[0]} of '{node_id}'")
        return ServiceTaskSpec(
            implementation=chosen[0], expression=compiled, result_variable=result_variable
        )

    def _script_task(self, el: etree._Element) -> ScriptTaskSpec | None:
        ctx = self.ctx
        node_id = el.get("id") or ""
        script_format = (el.get("scriptFormat") or "").strip().lower()
        result_variable = ctx.camunda(el, "resultVariable")
        if ctx.camunda(el, "resource"):
            ctx.problem("scripts loaded from camunda:resource are not supported", el)
            return None
        script_el = next((c for c in el if _ns(c) == BPMN and _local(c) == "script"), None)
        text = script_el.text if script_el is not None and script_el.text else ""
        if script_format == "juel":
            compiled = ctx.expression(text, el, f"the script of '{node_id}'")
            if compiled is None and not text.strip():
                ctx.problem("script task without a script", el)
            return ScriptTaskSpec("juel", expression=compiled, result_variable=result_variable)
        if script_format == "python":
            if not ctx.allow_scripts:
                ctx.problem(
                    "scriptFormat 'python' runs only on an engine created with "
                    "allow_scripts=True (scripts are off by default)",
                    el,
                )
                return None
            code, result_code = self._python(text, el)
            return ScriptTaskSpec(
                "python", code=code, result_code=result_code, result_variable=result_variable
            )
        ctx.problem(
            f"scriptFormat '{script_format or '(none)'}' is not supported: use 'juel' "
            "(or 'python' on an engine with allow_scripts=True)",
            el,
        )
        return None

    def _python(self, text: str, el: etree._Element) -> tuple[CodeType | None, CodeType | None]:
        import textwrap

        source = textwrap.dedent(text)
        label = f"<{self.ctx.resource}:{el.get('id')}>"
        try:
            tree = ast.parse(source, label, "exec")
        except SyntaxError as exc:
            self.ctx.problem(
                f"python script does not compile: {exc.msg} (script line {exc.lineno})", el
            )
            return None, None
        result_code = None
        last = tree.body[-1] if tree.body else None
        if isinstance(last, ast.Expr):
            tree.body.pop()
            result_code = compile(ast.Expression(last.value), label, "eval")
        return compile(tree, label, "exec"), result_code
