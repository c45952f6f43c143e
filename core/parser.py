"""BPMN 2.0 XML (with camunda: extensions) into immutable `ProcessModel`s.

Pure: no I/O beyond the bytes handed in. lxml is hardened: no DTDs, no entities, no network, a size
limit. Every problem names the resource, the element id and the line, and all are reported at once.
The elements themselves are parsed in `core.parsing`, one module per family, through a tag table.
"""

from __future__ import annotations

from .errors import ModelError
from .model import ParsedResource, ProcessModel
from .parsing.context import BPMN, ParseContext, line, local, ns
from .parsing.process import ProcessBuilder
from .parsing.xml import read_document, refuse


def parse_bpmn(source: bytes, resource_name: str, *, allow_scripts: bool = False) -> ParsedResource:
    """Parse one BPMN resource; raises ModelError listing every problem found."""
    ctx = ParseContext(resource_name, allow_scripts)
    root = read_document(source, resource_name, "BPMN")
    if ns(root) != BPMN or local(root) != "definitions":
        raise refuse(
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
