"""BPMN 2.0 XML (with camunda: extensions) into immutable `ProcessModel`s.

Pure: no I/O beyond the bytes handed in. lxml is hardened: no DTDs, no entities, no network, a size
limit. Every problem names the resource, the element id and the line, and all are reported at once.
The elements themselves are parsed in `core.parsing`, one module per family, through a tag table.
"""

from __future__ import annotations

import re

from lxml import etree

from .errors import ModelError, ModelProblem
from .model import ParsedResource, ProcessModel
from .parsing.context import BPMN, ParseContext, line, local, ns
from .parsing.process import ProcessBuilder

MAX_RESOURCE_BYTES = 10 * 1024 * 1024


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


def _refuse(message: str, resource_name: str, at_line: int | None = None) -> ModelError:
    return ModelError([ModelProblem(message, resource_name, None, at_line)])


def parse_bpmn(source: bytes, resource_name: str, *, allow_scripts: bool = False) -> ParsedResource:
    """Parse one BPMN resource; raises ModelError listing every problem found."""
    ctx = ParseContext(resource_name, allow_scripts)
    if len(source) > MAX_RESOURCE_BYTES:
        raise _refuse(f"resource is larger than {MAX_RESOURCE_BYTES} bytes", resource_name)
    root_start = re.search(rb"<[A-Za-z_]", source)
    if b"<!DOCTYPE" in source[: root_start.start() if root_start else len(source)]:
        # Refused before libxml2 sees it: no entity is ever declared, let alone expanded.
        raise _refuse("DOCTYPE declarations are not allowed in BPMN resources", resource_name)
    try:
        root = etree.fromstring(source, _parser())
    except etree.XMLSyntaxError as exc:
        at_line = exc.lineno if isinstance(exc.lineno, int) else None
        raise _refuse(f"malformed XML: {exc.msg}", resource_name, at_line) from None
    docinfo = root.getroottree().docinfo
    if getattr(docinfo, "doctype", None) or getattr(docinfo, "internalDTD", None) is not None:
        # Entity expansion is off anyway; refusing DTDs outright closes the whole attack class.
        raise _refuse("DOCTYPE declarations are not allowed in BPMN resources", resource_name)
    if ns(root) != BPMN or local(root) != "definitions":
        raise _refuse(
            "not a BPMN 2.0 document: the root element must be "
            f"{{{BPMN}}}definitions, found {root.tag}",
            resource_name,
            line(root),
        )
    for el in root:
        if ns(el) == BPMN and local(el) == "error" and el.get("id"):
            ctx.errors[el.get("id", "")] = (el.get("errorCode"), ctx.camunda(el, "errorMessage"))
        if ns(el) == BPMN and local(el) == "message" and el.get("id"):
            ctx.messages[el.get("id", "")] = (el.get("name") or "").strip()
        if ns(el) == BPMN and local(el) == "signal" and el.get("id"):
            ctx.signals[el.get("id", "")] = (el.get("name") or "").strip()
    processes: list[ProcessModel] = []
    ignored: list[str] = []
    for el in root:
        if ns(el) == BPMN and local(el) == "process":
            # Camunda (BpmnParse.parseProcessDefinitions): in a new deployment a process is
            # executable only when it says so; the others are kept as resources, not deployed.
            if (el.get("isExecutable") or "").strip().lower() != "true":
                ignored.append(el.get("id") or "")
                continue
            model = ProcessBuilder(ctx, el, root.get("targetNamespace")).build()
            if model is not None:
                processes.append(model)
    if ctx.problems:
        raise ModelError(ctx.problems)
    return ParsedResource(resource_name, tuple(processes), tuple(ignored))
