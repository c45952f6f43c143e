"""Deployments: which resources are BPMN, parsing them, numbering definition versions per key.

Pure: the engine hands in what the repository tables say (latest versions, the previous deployment)
and records the outcome in a DeploymentCreated event.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from . import events as ev
from .behaviors.jobs import job_declarations
from .commands import ResourceInput
from .errors import ModelError, ModelProblem
from .model import ParsedResource, ProcessModel
from .parser import parse_bpmn

BPMN_SUFFIXES = (".bpmn", ".bpmn20.xml", ".bpmn2")


def is_bpmn(name: str) -> bool:
    return name.lower().endswith(BPMN_SUFFIXES)


def parse_resources(
    resources: Sequence[ResourceInput], *, allow_scripts: bool
) -> dict[str, ParsedResource]:
    """Parse every BPMN resource; collect all problems of all resources into one ModelError."""
    seen: set[str] = set()
    problems: list[ModelProblem] = []
    parsed: dict[str, ParsedResource] = {}
    keys: dict[str, str] = {}
    for resource in resources:
        if resource.name in seen:
            problems.append(
                ModelProblem("the deployment contains two resources with this name", resource.name)
            )
            continue
        seen.add(resource.name)
        if not is_bpmn(resource.name):
            continue
        try:
            result = parse_bpmn(resource.data, resource.name, allow_scripts=allow_scripts)
        except ModelError as exc:
            problems.extend(exc.problems)
            continue
        for process in result.processes:
            if process.id in keys:
                problems.append(
                    ModelProblem(
                        f"process key '{process.id}' is also defined in '{keys[process.id]}'",
                        resource.name,
                        process.id,
                    )
                )
            keys[process.id] = resource.name
        parsed[resource.name] = result
    if problems:
        raise ModelError(problems)
    if not parsed and not resources:
        raise ModelError([ModelProblem("a deployment needs at least one resource")])
    return parsed


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


def deployment_created(
    resources: Sequence[ResourceInput],
    parsed: Mapping[str, ParsedResource],
    *,
    name: str | None,
    source: str | None,
    now: datetime,
    new_id: Callable[[], str],
    latest_versions: Mapping[str, int],
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
    for resource_name, result in parsed.items():
        for process in result.processes:
            version = latest_versions.get(process.id, 0) + 1
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
                    job_definitions=job_declarations(new_definition, process),
                )
            )
    return ev.DeploymentCreated(
        deployment_id=deployment_id,
        name=name,
        source=source,
        time=now,
        resources=deployed_resources,
        process_definitions=definitions,
        duplicate_filtering=duplicate_filtering,
        deploy_changed_only=duplicate_filtering and deploy_changed_only,
    )


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
