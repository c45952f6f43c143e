"""A process's personal data declaration: `personalData` and `personalDataSubject` among the
process's `camunda:properties`.

Pure: reports a malformed declaration on the context, naming the process and the property.
"""

from __future__ import annotations

from lxml import etree

from ..personal_data import PROPERTY, SUBJECT_PROPERTY, PersonalData, parse_patterns
from .context import CAMUNDA_NAMESPACES, ParseContext, local, ns


def _properties(extensions: etree._Element | None) -> list[etree._Element]:
    if extensions is None:
        return []
    found: list[etree._Element] = []
    for group in extensions:
        if ns(group) in CAMUNDA_NAMESPACES and local(group) == "properties":
            found.extend(
                el for el in group if ns(el) in CAMUNDA_NAMESPACES and local(el) == "property"
            )
    return found


def read_personal_data(
    ctx: ParseContext, process: etree._Element, extensions: etree._Element | None
) -> PersonalData | None:
    """The declaration, or None when the process declares no personal data."""
    patterns: tuple[str, ...] | None = None
    subject: str | None = None
    for prop in _properties(extensions):
        name, value = prop.get("name"), prop.get("value") or ""
        if name == PROPERTY:
            parsed = parse_patterns(value)
            if isinstance(parsed, str):
                ctx.problem(f"camunda:property {PROPERTY} {parsed}", prop)
                continue
            patterns = parsed
        elif name == SUBJECT_PROPERTY:
            subject = value.strip() or None
            if subject is None:
                ctx.problem(f"camunda:property {SUBJECT_PROPERTY} names no variable", prop)
    if patterns is None:
        if subject is not None:
            ctx.problem(
                f"camunda:property {SUBJECT_PROPERTY} without {PROPERTY}: no variable is personal",
                process,
            )
        return None
    return PersonalData(patterns, subject)
