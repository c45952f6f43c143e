"""BPMN 2.0 XML (with camunda: extensions) into immutable `ProcessModel`s.

Pure: no I/O beyond the bytes handed in. lxml is hardened: no DTDs, no entities, no network, a size
limit. Every problem names the resource, the element id and the line, and all are reported at once.
The elements themselves are parsed in `core.parsing`, one module per family, through a tag table.
"""

from __future__ import annotations

from .errors import ModelError, ModelProblem
from .model import ParsedResource, ProcessModel
from .parsing.context import BPMN, ParseContext, line, local, ns
from .parsing.escalations import read_escalation
from .parsing.process import ProcessBuilder
from .parsing.xml import read_document, refuse


def parse_bpmn(
    source: bytes,
    resource_name: str,
    *,
    allow_scripts: bool = False,
    connectors: frozenset[str] | None = None,
) -> ParsedResource:
    """Parse one BPMN resource; raises ModelError listing every problem found.

    `connectors`: the camunda:connectorIds the engine runs, refusing a model that needs another
    (None: not checked, as when a stored deployment is read again)."""
    ctx = ParseContext(resource_name, allow_scripts, connectors=connectors)
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
        if ns(el) == BPMN and local(el) == "escalation":
            read_escalation(ctx, el)
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
                _check_columns(ctx, model, line(el))
                processes.append(model)
    if ctx.problems:
        raise ModelError(ctx.problems)
    return ParsedResource(resource_name, tuple(processes), tuple(ignored), tuple(ctx.warnings))


# What the repository and instance tables hold (ACT_RE_PROCDEF.KEY_/NAME_/CATEGORY_ 255,
# VERSION_TAG_ 64; ACT_ID_ and ACT_NAME_ 255): a longer text is refused at deploy, on every
# database alike, instead of failing on PostgreSQL and MariaDB (and being kept whole by SQLite)
# when a row is written.
_KEY, _TAG = 255, 64


def _check_columns(ctx: ParseContext, model: ProcessModel, process_line: int | None) -> None:
    def fits(what: str, value: str | None, limit: int, element: str, at: int | None) -> None:
        if value is not None and len(value) > limit:
            ctx.problems.append(
                ModelProblem(
                    f"{what} may hold at most {limit} characters: '{value[:32]}…' has {len(value)}",
                    ctx.resource,
                    element[:64],
                    at,
                )
            )

    fits("a process id", model.id, _KEY, model.id, process_line)
    fits("a process name", model.name, _KEY, model.id, process_line)
    fits("camunda:versionTag", model.version_tag, _TAG, model.id, process_line)
    fits("the targetNamespace (the definition's category)", model.category, _KEY, model.id, None)
    for activity in model.activities.values():
        fits("an activity id", activity.id, _KEY, activity.id, activity.line)
        fits("an activity name", activity.name, _KEY, activity.id, activity.line)
