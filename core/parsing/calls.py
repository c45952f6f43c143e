"""Call activities: `calledElement` with its binding (latest, deployment, version, versionTag),
and the `camunda:in` / `camunda:out` variable mappings, read as Camunda reads them.

Pure: reports what cannot run (no called element, an unknown binding, a mapping without source
or target, mapping classes) on the context.
"""

from __future__ import annotations

from lxml import etree

from ..model import CallActivitySpec, VariableMapping
from .context import CAMUNDA_NAMESPACES, ParseContext, ParsedElement, local, ns
from .listeners import extension_elements

BINDINGS = ("latest", "deployment", "version", "versionTag")


def parse_call_activity(ctx: ParseContext, el: etree._Element) -> ParsedElement:
    node_id = el.get("id") or ""
    called = (el.get("calledElement") or "").strip()
    if not called:
        ctx.problem("a call activity needs a calledElement (the key of the process it calls)", el)
        return ParsedElement("callActivity")
    expression = ctx.expression(called, el, f"calledElement of '{node_id}'")
    binding = (ctx.camunda(el, "calledElementBinding") or "latest").strip()
    if binding not in BINDINGS:
        ctx.problem(
            f"camunda:calledElementBinding '{binding}' is not one of {', '.join(BINDINGS)}", el
        )
        return ParsedElement("callActivity")
    version = ctx.expression(
        ctx.camunda(el, "calledElementVersion"), el, f"camunda:calledElementVersion of '{node_id}'"
    )
    version_tag = ctx.expression(
        ctx.camunda(el, "calledElementVersionTag"),
        el,
        f"camunda:calledElementVersionTag of '{node_id}'",
    )
    if binding == "version" and version is None:
        ctx.problem('calledElementBinding="version" needs a camunda:calledElementVersion', el)
    if binding == "versionTag" and version_tag is None:
        ctx.problem('calledElementBinding="versionTag" needs a camunda:calledElementVersionTag', el)
    for attribute in ("variableMappingClass", "variableMappingDelegateExpression", "caseRef"):
        if ctx.camunda(el, attribute) or el.get(attribute):
            ctx.problem(f"camunda:{attribute} on a call activity is not supported", el)
    extensions = extension_elements(el)
    inputs = tuple(_mappings(ctx, extensions, "in"))
    outputs = tuple(_mappings(ctx, extensions, "out"))
    if expression is None:
        return ParsedElement("callActivity")
    spec = CallActivitySpec(expression, binding, version, version_tag, inputs, outputs)
    return ParsedElement("callActivity", spec)


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
