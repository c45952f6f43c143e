"""Call activities: `calledElement` with its binding (latest, deployment, version, versionTag),
the `camunda:in` / `camunda:out` variable mappings and a delegate variable mapping
(`camunda:variableMappingClass` / `variableMappingDelegateExpression`), read as Camunda reads
them.

Pure: reports what cannot run (no called element, a CMMN `camunda:caseRef`, an unknown binding,
a mapping without source or target) on the context.
"""

from __future__ import annotations

from lxml import etree

from .. import element_kinds as kinds
from ..expressions import Expression
from ..model import CallActivitySpec, VariableMapping
from .context import CAMUNDA_NAMESPACES, ParseContext, ParsedElement, local, ns
from .listeners import extension_elements

BINDINGS = ("latest", "deployment", "version", "versionTag")


def parse_call_activity(ctx: ParseContext, el: etree._Element) -> ParsedElement:
    node_id = el.get("id") or ""
    case_ref = ctx.camunda(el, "caseRef") or el.get("caseRef")
    if case_ref is not None:
        # Camunda calls a CMMN case here; flowledger runs BPMN and DMN only.
        ctx.problem(
            f"camunda:caseRef '{case_ref}' calls a CMMN case: CMMN is not supported (flowledger "
            "runs BPMN processes and DMN decisions); call a process with calledElement instead",
            el,
        )
        return ParsedElement(kinds.CALL_ACTIVITY.type)
    called = (el.get("calledElement") or "").strip()
    if not called:
        ctx.problem("a call activity needs a calledElement (the key of the process it calls)", el)
        return ParsedElement(kinds.CALL_ACTIVITY.type)
    expression = ctx.expression(called, el, f"calledElement of '{node_id}'")
    bound = read_binding(ctx, el, "calledElement", node_id)
    if bound is None:
        return ParsedElement(kinds.CALL_ACTIVITY.type)
    binding, version, version_tag = bound
    mapping_class = (ctx.camunda(el, "variableMappingClass") or "").strip() or None
    mapping_expression = ctx.expression(
        ctx.camunda(el, "variableMappingDelegateExpression"),
        el,
        f"camunda:variableMappingDelegateExpression of '{node_id}'",
    )
    if mapping_class is not None and mapping_expression is not None:
        ctx.problem(
            "a call activity has camunda:variableMappingClass or "
            "camunda:variableMappingDelegateExpression, not both",
            el,
        )
    extensions = extension_elements(el)
    inputs = tuple(_mappings(ctx, extensions, "in"))
    outputs = tuple(_mappings(ctx, extensions, "out"))
    if expression is None:
        return ParsedElement(kinds.CALL_ACTIVITY.type)
    spec = CallActivitySpec(
        expression,
        binding,
        version,
        version_tag,
        inputs,
        outputs,
        variable_mapping_class=mapping_class,
        variable_mapping_expression=mapping_expression,
    )
    return ParsedElement(kinds.CALL_ACTIVITY.type, spec)


def read_binding(
    ctx: ParseContext, el: etree._Element, prefix: str, node_id: str
) -> tuple[str, Expression | None, Expression | None] | None:
    """Which version of a definition `el` names, from `camunda:{prefix}Binding` (latest,
    deployment, version, versionTag), `{prefix}Version` and `{prefix}VersionTag` (expressions
    allowed): call activities' calledElement and business rule tasks' decisionRef alike. None,
    with the problem reported, for an unknown binding."""
    binding = (ctx.camunda(el, f"{prefix}Binding") or "latest").strip()
    if binding not in BINDINGS:
        ctx.problem(f"camunda:{prefix}Binding '{binding}' is not one of {', '.join(BINDINGS)}", el)
        return None
    version = ctx.expression(
        ctx.camunda(el, f"{prefix}Version"), el, f"camunda:{prefix}Version of '{node_id}'"
    )
    version_tag = ctx.expression(
        ctx.camunda(el, f"{prefix}VersionTag"), el, f"camunda:{prefix}VersionTag of '{node_id}'"
    )
    if binding == "version" and version is None:
        ctx.problem(f'{prefix}Binding="version" needs a camunda:{prefix}Version', el)
    if binding == "versionTag" and version_tag is None:
        ctx.problem(f'{prefix}Binding="versionTag" needs a camunda:{prefix}VersionTag', el)
    return binding, version, version_tag


def _mappings(
    ctx: ParseContext, extensions: etree._Element | None, tag: str
) -> list[VariableMapping]:
    found: list[VariableMapping] = []
    if extensions is None:
        return found
    for el in extensions:
        if ns(el) not in CAMUNDA_NAMESPACES or local(el) != tag:
            continue
        is_local = (el.get("local") or "").strip().lower() == "true"
        if tag == "in" and el.get("businessKey") is not None:
            key = ctx.expression(el.get("businessKey"), el, "the camunda:in businessKey")
            found.append(VariableMapping(business_key=key))
            continue
        if (el.get("variables") or "").strip() == "all":
            found.append(VariableMapping(all=True, local=is_local))
            continue
        source = el.get("source")
        source_expression = el.get("sourceExpression")
        target = el.get("target")
        if (source is None) == (source_expression is None) or not target:
            ctx.problem(
                f"a camunda:{tag} needs a target and exactly one of source and sourceExpression "
                '(or variables="all")',
                el,
            )
            continue
        found.append(
            VariableMapping(
                source=source,
                source_expression=ctx.expression(source_expression, el, f"a camunda:{tag}"),
                target=target,
                local=is_local,
            )
        )
    return found
