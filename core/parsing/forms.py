"""Reads `camunda:formData` (and a start event's `camunda:formKey`) of a user task or start
event into `core.forms.FormDefinition`, refusing what Camunda's engine could not run here.

Pure: a custom field type or validator (a Java class) and a constraint whose config cannot be
read are problems on the context, named by element, field and constraint.
"""

from __future__ import annotations

from lxml import etree

from ..forms import (
    DEFAULT_DATE_PATTERN,
    FORM_TYPES,
    VALIDATORS,
    Constraint,
    EnumValue,
    FormDefinition,
    FormField,
    config_problem,
    strftime_pattern,
)
from .context import CAMUNDA_NAMESPACES, ParseContext, local, ns
from .listeners import extension_elements


def _children(el: etree._Element | None, tag: str) -> list[etree._Element]:
    if el is None:
        return []
    return [c for c in el if ns(c) in CAMUNDA_NAMESPACES and local(c) == tag]


def read_form(
    ctx: ParseContext, el: etree._Element, *, start: bool = False
) -> FormDefinition | None:
    """The element's form: its `camunda:formData` fields, and with `start` its formKey; None
    when it has neither."""
    node_id = el.get("id") or ""
    key = ((ctx.camunda(el, "formKey") or "").strip() or None) if start else None
    data = _children(extension_elements(el), "formData")
    if not data:
        return FormDefinition(key=key) if key is not None else None
    fields = tuple(
        f
        for f in (_field(ctx, field_el, node_id) for field_el in _children(data[0], "formField"))
        if f is not None
    )
    return FormDefinition(fields=fields, key=key)


def _field(ctx: ParseContext, el: etree._Element, node_id: str) -> FormField | None:
    field_id = (el.get("id") or "").strip()
    if not field_id:
        ctx.problem(f"a camunda:formField of '{node_id}' needs a non-empty id", el, node_id)
        return None
    named = f"form field '{field_id}' of '{node_id}'"
    kind = (el.get("type") or "").strip()
    if not kind:
        ctx.problem(f"{named} needs a type (one of {', '.join(FORM_TYPES)})", el, node_id)
        return None
    if kind not in FORM_TYPES:
        ctx.problem(
            f"{named} has the custom type '{kind}': only {', '.join(FORM_TYPES)} are supported "
            "(custom form types are Java classes)",
            el,
            node_id,
        )
        return None
    pattern = (el.get("datePattern") or "").strip()
    if kind == "date" and pattern and strftime_pattern(pattern) is None:
        ctx.problem(
            f"{named}: datePattern '{pattern}' uses letters flowledger does not read (use "
            "yyyy, yy, MM, dd, HH, mm, ss and literal text)",
            el,
            node_id,
        )
    values = tuple(
        EnumValue((v.get("id") or "").strip(), v.get("name")) for v in _children(el, "value")
    )
    if kind == "enum" and any(not v.id for v in values):
        ctx.problem(f"{named}: every camunda:value needs an id", el, node_id)
    constraints = _constraints(ctx, el, named, node_id)
    return FormField(
        id=field_id,
        type=kind,
        label=ctx.expression(el.get("label"), el, f"the label of {named}", node_id),
        default_value=ctx.expression(
            el.get("defaultValue"), el, f"the defaultValue of {named}", node_id
        ),
        values=values,
        date_pattern=pattern or DEFAULT_DATE_PATTERN,
        constraints=constraints,
    )


def _constraints(
    ctx: ParseContext, el: etree._Element, named: str, node_id: str
) -> tuple[Constraint, ...]:
    found: list[Constraint] = []
    for validation in _children(el, "validation"):
        for item in _children(validation, "constraint"):
            name = (item.get("name") or "").strip()
            constraint = Constraint(name, item.get("config"))
            if name not in VALIDATORS:
                what = "a custom validator" if name == "validator" else f"validator '{name}'"
                ctx.problem(
                    f"{named}: {what} is not supported (the validators are "
                    f"{', '.join(VALIDATORS)})",
                    item,
                    node_id,
                )
                continue
            problem = config_problem(constraint)
            if problem is not None:
                ctx.problem(f"{named}: {problem}", item, node_id)
                continue
            found.append(constraint)
    return tuple(found)
