"""What every element parser shares: namespaces, element helpers and the resource's context.

Pure: problems (resource, element id, line) are collected, not raised, to report all at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from lxml import etree

from ..errors import ModelProblem
from ..expressions import Expression, ExpressionSyntaxError, compile_expression
from ..model import Spec

BPMN = "http://www.omg.org/spec/BPMN/20100524/MODEL"
CAMUNDA_NAMESPACES = ("http://camunda.org/schema/1.0/bpmn", "http://activiti.org/bpmn")


def local(el: etree._Element) -> str:
    tag = el.tag
    return etree.QName(tag).localname if isinstance(tag, str) else ""


def line(el: etree._Element | None) -> int | None:
    number = getattr(el, "sourceline", None)
    return number if isinstance(number, int) else None


def ns(el: etree._Element) -> str | None:
    tag = el.tag
    return etree.QName(tag).namespace if isinstance(tag, str) else None


def split_list(text: str) -> list[str]:
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


class ParsedElement(NamedTuple):
    """An element parser's answer: Camunda's activity type and the element's settings."""

    type: str
    spec: Spec = None


@dataclass
class ParseContext:
    resource: str
    allow_scripts: bool
    problems: list[ModelProblem] = field(default_factory=list)
    # What deploys but will fail when it runs, as in Camunda (a timer literal that does not parse)
    warnings: list[ModelProblem] = field(default_factory=list)
    # <error> elements of the document: id -> (errorCode, camunda:errorMessage)
    errors: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)
    # <message> elements of the document: id -> name
    messages: dict[str, str] = field(default_factory=dict)
    # <signal> elements of the document: id -> name
    signals: dict[str, str] = field(default_factory=dict)
    # <escalation> elements of the document: id -> escalationCode (None: the escalation has none)
    escalations: dict[str, str | None] = field(default_factory=dict)
    # The connectors the engine runs (camunda:connectorId); None: not checked.
    connectors: frozenset[str] | None = None

    def problem(
        self, message: str, el: etree._Element | None = None, element_id: str | None = None
    ) -> None:
        node = el
        while element_id is None and node is not None:
            # a condition or documentation has no id: name the element it belongs to
            element_id = node.get("id")
            node = node.getparent()
        self.problems.append(ModelProblem(message, self.resource, element_id, line(el)))

    def warning(self, message: str, el: etree._Element | None, element_id: str | None) -> None:
        self.warnings.append(ModelProblem(message, self.resource, element_id, line(el)))

    def camunda(self, el: etree._Element, name: str) -> str | None:
        for namespace in CAMUNDA_NAMESPACES:
            value = el.get(f"{{{namespace}}}{name}")
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
