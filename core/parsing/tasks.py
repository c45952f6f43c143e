"""Element parsers of the task family: user, service-like (service, send, business rule), script
and receive tasks, and the tasks without settings (task, manual task).

Pure: compiles expressions and python scripts once, at deploy; reports problems on the context.
"""

from __future__ import annotations

import re

from lxml import etree

from .. import element_kinds as kinds
from ..expressions import Expression
from ..model import (
    MAP_DECISION_RESULTS,
    ConnectorSpec,
    DecisionTaskSpec,
    ReceiveTaskSpec,
    ScriptTaskSpec,
    ServiceTaskSpec,
    UserTaskSpec,
)
from .calls import read_binding
from .context import BPMN, CAMUNDA_NAMESPACES, ParseContext, ParsedElement, local, ns, split_list
from .forms import read_form
from .io import parameters
from .listeners import TASK_EVENTS, extension_elements, read_listeners
from .messages import read_message
from .scripts import python_code


def parse_user_task(ctx: ParseContext, el: etree._Element) -> ParsedElement:
    node_id = el.get("id") or ""

    def expr(attr: str) -> Expression | None:
        return ctx.expression(ctx.camunda(el, attr), el, f"camunda:{attr} of '{node_id}'")

    def exprs(text: str | None, what: str) -> tuple[Expression, ...]:
        if not text:
            return ()
        out = []
        for part in split_list(text):
            compiled = ctx.expression(part, el, f"{what} of '{node_id}'")
            if compiled is not None:
                out.append(compiled)
        return tuple(out)

    assignee = expr("assignee")
    users = list(exprs(ctx.camunda(el, "candidateUsers"), "camunda:candidateUsers"))
    groups = list(exprs(ctx.camunda(el, "candidateGroups"), "camunda:candidateGroups"))
    description = None
    for child in el:
        if ns(child) != BPMN:
            continue
        tag = local(child)
        if tag == "documentation" and child.text:
            description = ctx.expression(child.text, child, f"documentation of '{node_id}'")
        if tag in ("humanPerformer", "potentialOwner"):
            formal = child.find(f".//{{{BPMN}}}formalExpression")
            text = formal.text if formal is not None else None
            for part in split_list(text or ""):
                match = re.fullmatch(r"(user|group)\((.*)\)", part)
                target, value = (match.group(1), match.group(2)) if match else ("user", part)
                if tag == "humanPerformer":
                    assignee = ctx.expression(value, child, f"humanPerformer of '{node_id}'")
                    continue
                compiled = ctx.expression(value, child, f"potentialOwner of '{node_id}'")
                if compiled is not None:
                    (groups if target == "group" else users).append(compiled)
    raw_name = el.get("name")
    dynamic_name = raw_name and ("${" in raw_name or "#{" in raw_name)
    spec = UserTaskSpec(
        name=ctx.expression(raw_name, el, f"the name of '{node_id}'") if dynamic_name else None,
        assignee=assignee,
        candidate_users=tuple(users),
        candidate_groups=tuple(groups),
        due_date=expr("dueDate"),
        follow_up_date=expr("followUpDate"),
        priority=expr("priority"),
        form_key=expr("formKey"),
        description=description,
        task_listeners=read_listeners(ctx, extension_elements(el), "taskListener", TASK_EVENTS),
        form=read_form(ctx, el),
    )
    return ParsedElement(kinds.USER_TASK.type, spec)


def parse_service_task(ctx: ParseContext, el: etree._Element) -> ParsedElement:
    """Service, send and business rule tasks: a delegate, an expression or an external task; a
    business rule task may evaluate a decision instead."""
    tag = local(el)
    (kind,) = kinds.of_tag(tag)
    if kind == kinds.BUSINESS_RULE_TASK and ctx.camunda(el, "decisionRef") is not None:
        node_id = el.get("id") or ""
        result_variable = ctx.camunda(el, "resultVariable")
        return ParsedElement(kind.type, decision_spec(ctx, el, node_id, result_variable))
    return ParsedElement(kind.type, service_spec(ctx, el, tag))


def decision_spec(
    ctx: ParseContext, el: etree._Element, node_id: str, result_variable: str | None
) -> DecisionTaskSpec | None:
    """A business rule task's decision: its reference, binding and result mapping, as Camunda
    reads them; what cannot run is reported on the context."""
    ref = (ctx.camunda(el, "decisionRef") or "").strip()
    if not ref:
        ctx.problem("camunda:decisionRef is empty: it needs the key of a decision", el)
        return None
    bound = read_binding(ctx, el, "decisionRef", node_id)
    if bound is None:
        return None
    binding, version, version_tag = bound
    mapping = (ctx.camunda(el, "mapDecisionResult") or "resultList").strip()
    if mapping not in MAP_DECISION_RESULTS:
        ctx.problem(
            f"camunda:mapDecisionResult '{mapping}' is not one of "
            f"{', '.join(MAP_DECISION_RESULTS)}",
            el,
        )
        return None
    tenant_id = ctx.expression(
        ctx.camunda(el, "decisionRefTenantId"), el, f"camunda:decisionRefTenantId of '{node_id}'"
    )
    compiled = ctx.expression(ref, el, f"camunda:decisionRef of '{node_id}'")
    if compiled is None:
        return None
    return DecisionTaskSpec(
        decision_ref=compiled,
        binding=binding,
        version=version,
        version_tag=version_tag,
        result_variable=result_variable,
        map_decision_result=mapping,
        tenant_id=tenant_id,
    )


def service_spec(
    ctx: ParseContext, el: etree._Element, tag: str, node_id: str | None = None
) -> ServiceTaskSpec | None:
    """How a service-like element works, from `el`'s camunda attributes (a task's own, or a
    message throw event's messageEventDefinition's); `node_id` names the element."""
    node_id = node_id or el.get("id") or ""
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
    if ctx.camunda(el, "decisionRef") is not None:
        ctx.problem(f"camunda:decisionRef belongs on a businessRuleTask, not a {tag}", el)
        return None
    connector = _connector(ctx, el)
    if connector is not None:
        return connector
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
            f"a {tag} needs exactly one of camunda:class, camunda:delegateExpression, "
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


CONNECTORS = ("http-connector",)


def _connector(ctx: ParseContext, el: etree._Element) -> ServiceTaskSpec | None:
    """`camunda:connector` in the element's extension elements, as a service task's work."""
    extensions = extension_elements(el)
    found = [
        c
        for c in (extensions if extensions is not None else [])
        if ns(c) in CAMUNDA_NAMESPACES and local(c) == "connector"
    ]
    if not found:
        return None
    connector = found[0]
    ids = [c for c in connector if ns(c) in CAMUNDA_NAMESPACES and local(c) == "connectorId"]
    connector_id = (ids[0].text or "").strip() if ids else ""
    if connector_id not in CONNECTORS:
        ctx.problem(
            f"camunda:connector '{connector_id or '(no connectorId)'}' is not supported: only "
            f"{', '.join(CONNECTORS)} runs",
            connector,
        )
        return ServiceTaskSpec(implementation="connector")
    if ctx.connectors is not None and connector_id not in ctx.connectors:
        ctx.problem(
            f"camunda:connector '{connector_id}' is not enabled on this engine: outbound calls "
            "are off by default. Enable it with `flowledger serve --connector http --http-allow "
            "HOST[:PORT]` (Python: Engine(outbound=OutboundPolicy(connectors={'http'}, "
            "http_allow=['HOST'])))",
            connector,
        )
    mappings = [c for c in connector if ns(c) in CAMUNDA_NAMESPACES and local(c) == "inputOutput"]
    inputs = tuple(parameters(ctx, mappings[0], "inputParameter")) if mappings else ()
    outputs = tuple(parameters(ctx, mappings[0], "outputParameter")) if mappings else ()
    if not any(p.name == "url" for p in inputs):
        ctx.problem("an http-connector needs an input parameter 'url'", connector)
    spec = ConnectorSpec(connector_id, inputs, outputs)
    return ServiceTaskSpec(implementation="connector", connector=spec)


def parse_script_task(ctx: ParseContext, el: etree._Element) -> ParsedElement:
    return ParsedElement(kinds.SCRIPT_TASK.type, _script_spec(ctx, el))


def _script_spec(ctx: ParseContext, el: etree._Element) -> ScriptTaskSpec | None:
    node_id = el.get("id") or ""
    # Camunda's default scripting language (ScriptingEngines.DEFAULT_SCRIPTING_LANGUAGE)
    script_format = (el.get("scriptFormat") or "juel").strip().lower()
    result_variable = ctx.camunda(el, "resultVariable")
    if ctx.camunda(el, "resource"):
        ctx.problem("scripts loaded from camunda:resource are not supported", el)
        return None
    script_el = next((c for c in el if ns(c) == BPMN and local(c) == "script"), None)
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
        code, result_code = python_code(ctx, text, el)
        return ScriptTaskSpec(
            "python", code=code, result_code=result_code, result_variable=result_variable
        )
    ctx.problem(
        f"scriptFormat '{script_format or '(none)'}' is not supported: use 'juel' "
        "(or 'python' on an engine with allow_scripts=True)",
        el,
    )
    return None


def parse_receive_task(ctx: ParseContext, el: etree._Element) -> ParsedElement:
    """A receive task waits for its message (messageRef) or, with none, for a trigger."""
    if not el.get("messageRef"):
        return ParsedElement(kinds.RECEIVE_TASK.type, ReceiveTaskSpec())
    return ParsedElement(kinds.RECEIVE_TASK.type, ReceiveTaskSpec(read_message(ctx, el)))
