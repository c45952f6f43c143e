"""Deployments: which resources are BPMN or DMN, parsing them, numbering definition versions per
key (process definitions, decision definitions and decision requirements definitions each their
own).

Pure: the engine hands in what the repository tables say (latest versions, the previous deployment)
and records the outcome in a DeploymentCreated event.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from . import events as ev
from .behaviors.jobs import job_declarations
from .commands import ResourceInput
from .dmn import DecisionRequirements, parse_dmn
from .errors import ModelError, ModelProblem
from .model import EventSpec, ParsedResource, ProcessModel
from .parser import parse_bpmn

BPMN_SUFFIXES = (".bpmn", ".bpmn20.xml", ".bpmn2")
DMN_SUFFIXES = (".dmn", ".dmn11.xml")  # Camunda's


def is_bpmn(name: str) -> bool:
    return name.lower().endswith(BPMN_SUFFIXES)


def is_dmn(name: str) -> bool:
    return name.lower().endswith(DMN_SUFFIXES)


@dataclass
class ParsedDeployment:
    """The models of a deployment's resources by resource name: BPMN and DMN."""

    processes: dict[str, ParsedResource] = field(default_factory=dict)
    decisions: dict[str, DecisionRequirements] = field(default_factory=dict)

    @property
    def warnings(self) -> list[ModelProblem]:
        """What deploys but will fail when it runs, of every BPMN resource in order."""
        return [w for result in self.processes.values() for w in result.warnings]


def parse_resources(
    resources: Sequence[ResourceInput],
    *,
    allow_scripts: bool,
    connectors: frozenset[str] | None = None,
) -> ParsedDeployment:
    """Parse every BPMN and DMN resource; collect all problems of all resources into one
    ModelError (nothing is deployed when there is one)."""
    seen: set[str] = set()
    problems: list[ModelProblem] = []
    parsed = ParsedDeployment()
    process_keys: dict[str, str] = {}
    decision_keys: dict[str, str] = {}
    for resource in resources:
        if resource.name in seen:
            problems.append(
                ModelProblem("the deployment contains two resources with this name", resource.name)
            )
            continue
        seen.add(resource.name)
        try:
            if is_bpmn(resource.name):
                result = parse_bpmn(
                    resource.data, resource.name, allow_scripts=allow_scripts, connectors=connectors
                )
                ids = [p.id for p in result.processes]
                problems += _duplicates("process", ids, process_keys, resource.name)
                parsed.processes[resource.name] = result
            elif is_dmn(resource.name):
                requirements = parse_dmn(resource.data, resource.name)
                ids = [d.id for d in requirements.decisions]
                problems += _duplicates("decision", ids, decision_keys, resource.name)
                parsed.decisions[resource.name] = requirements
        except ModelError as exc:
            problems.extend(exc.problems)
    if problems:
        raise ModelError(problems)
    if not resources:
        raise ModelError([ModelProblem("a deployment needs at least one resource")])
    return parsed


def _duplicates(
    kind: str, keys: Sequence[str], seen: dict[str, str], resource: str
) -> list[ModelProblem]:
    """Keys defined by an earlier resource of the same deployment (each key is versioned once
    per deployment, as Camunda refuses it)."""
    problems = [
        ModelProblem(f"{kind} key '{key}' is also defined in '{seen[key]}'", resource, key)
        for key in keys
        if key in seen
    ]
    seen.update(dict.fromkeys(keys, resource))
    return problems


def unchanged(resources: Sequence[ResourceInput], previous: Mapping[str, bytes]) -> bool:
    """Duplicate filtering: byte-identical to the previous deployment of the same name."""
    return {r.name: r.data for r in resources} == dict(previous)


def changed_only(
    resources: Sequence[ResourceInput], previous: Mapping[str, bytes]
) -> list[ResourceInput]:
    return [r for r in resources if previous.get(r.name) != r.data]


def definition_id(key: str, version: int, generated: str) -> str:
    candidate = f"{key}:{version}:{generated}"
    return candidate if len(candidate) <= 64 else generated


@dataclass(frozen=True)
class LatestVersions:
    """The highest version deployed so far per key, of each kind of definition."""

    processes: Mapping[str, int] = field(default_factory=dict)
    decisions: Mapping[str, int] = field(default_factory=dict)
    requirements: Mapping[str, int] = field(default_factory=dict)


def deployment_created(
    resources: Sequence[ResourceInput],
    parsed: ParsedDeployment,
    *,
    name: str | None,
    source: str | None,
    now: datetime,
    new_id: Callable[[], str],
    latest: LatestVersions,
    duplicate_filtering: bool = False,
    deploy_changed_only: bool = False,
) -> ev.DeploymentCreated:
    deployment_id = new_id()
    deployed_resources = []
    for resource in resources:
        try:
            text: str | None = resource.data.decode("utf-8")
            data: bytes | None = None
        except UnicodeDecodeError:
            text, data = None, resource.data
        deployed_resources.append(
            ev.DeployedResource(
                id=new_id(),
                name=resource.name,
                sha256=hashlib.sha256(resource.data).hexdigest(),
                text=text,
                data=data,
            )
        )
    definitions = []
    for resource_name, result in parsed.processes.items():
        for process in result.processes:
            version = latest.processes.get(process.id, 0) + 1
            new_definition = definition_id(process.id, version, new_id())
            definitions.append(
                ev.DeployedProcessDefinition(
                    id=new_definition,
                    key=process.id,
                    version=version,
                    resource_name=resource_name,
                    name=process.name,
                    version_tag=process.version_tag,
                    history_ttl=process.history_ttl,
                    category=process.category,
                    startable=process.startable,
                    has_start_form_key=_has_start_form_key(process),
                    job_definitions=job_declarations(new_definition, process),
                )
            )
    requirements, decisions = _decision_definitions(parsed.decisions, latest, new_id)
    return ev.DeploymentCreated(
        deployment_id=deployment_id,
        name=name,
        source=source,
        time=now,
        resources=deployed_resources,
        process_definitions=definitions,
        duplicate_filtering=duplicate_filtering,
        deploy_changed_only=duplicate_filtering and deploy_changed_only,
        decision_definitions=decisions,
        decision_requirements=requirements,
        warnings=[
            ev.DeploymentWarning(w.message, w.resource, w.element_id, w.line)
            for w in parsed.warnings
        ],
    )


def _decision_definitions(
    parsed: Mapping[str, DecisionRequirements],
    latest: LatestVersions,
    new_id: Callable[[], str],
) -> tuple[list[ev.DeployedDecisionRequirements], list[ev.DeployedDecisionDefinition]]:
    """A decision definition per decision; a decision requirements definition per resource
    whose DRG has more than one decision (Camunda persists no DRD for a lone decision)."""
    requirements: list[ev.DeployedDecisionRequirements] = []
    decisions: list[ev.DeployedDecisionDefinition] = []
    for resource_name, drg in parsed.items():
        drd: ev.DeployedDecisionRequirements | None = None
        if len(drg.decisions) > 1:
            version = latest.requirements.get(drg.id, 0) + 1
            drd = ev.DeployedDecisionRequirements(
                id=definition_id(drg.id, version, new_id()),
                key=drg.id,
                version=version,
                resource_name=resource_name,
                name=drg.name,
                category=drg.namespace,
            )
            requirements.append(drd)
        for decision in drg.decisions:
            version = latest.decisions.get(decision.id, 0) + 1
            decisions.append(
                ev.DeployedDecisionDefinition(
                    id=definition_id(decision.id, version, new_id()),
                    key=decision.id,
                    version=version,
                    resource_name=resource_name,
                    name=decision.name,
                    version_tag=decision.version_tag,
                    history_ttl=decision.history_time_to_live,
                    category=drg.namespace,
                    requirements_id=drd.id if drd else None,
                    requirements_key=drd.key if drd else None,
                )
            )
    return requirements, decisions


def decisions_from_deployment(
    event: ev.DeploymentCreated, definition: str
) -> tuple[DecisionRequirements, ev.DeployedDecisionDefinition]:
    """Re-parse the DMN resource a deployed decision definition came from."""
    meta = next(d for d in event.decision_definitions if d.id == definition)
    resource = next(r for r in event.resources if r.name == meta.resource_name)
    data = resource.data if resource.data is not None else (resource.text or "").encode()
    return parse_dmn(data, resource.name), meta


def model_from_deployment(
    event: ev.DeploymentCreated, definition: str, *, allow_scripts: bool
) -> tuple[ProcessModel, ev.DeployedProcessDefinition]:
    """Re-parse the resource a deployed definition came from (models are cached by the engine)."""
    meta = next(d for d in event.process_definitions if d.id == definition)
    resource = next(r for r in event.resources if r.name == meta.resource_name)
    data = resource.data if resource.data is not None else (resource.text or "").encode()
    parsed = parse_bpmn(data, resource.name, allow_scripts=allow_scripts)
    model = next(p for p in parsed.processes if p.id == meta.key)
    return model, meta


def _has_start_form_key(process: ProcessModel) -> bool:
    """ACT_RE_PROCDEF.HAS_START_FORM_KEY_: the process's start event names a `camunda:formKey`
    (a generated `camunda:formData` form alone is no key, as in Camunda)."""
    start = process.activities.get(process.start_events.get(process.id, ""))
    spec = start.spec if start is not None else None
    form = spec.form if isinstance(spec, EventSpec) else None
    return form is not None and form.key is not None
