"""engine-rest: the deployment resource.

`POST /deployment/create` (multipart: reserved text parts plus one part per resource file),
`GET /deployment` (+ `/count`), one deployment, its resources and their bytes, and
`DELETE /deployment/{id}`. This engine has no tenants and activates definitions on deployment:
a `tenant-id` or a `deployment-activation-time` in the future is refused with a 400.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any, TypeVar
from urllib.parse import quote

import anyio.to_thread
import msgspec
from litestar import Request, Response, delete, get, post
from litestar.datastructures import UploadFile
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core import Rejected, views
from flowledger.core.errors import ModelProblem
from flowledger.engine import Engine
from flowledger.projections.queries import definitions as repository

from ..dto import FIRST, Added, LinkDto, build, derived, self_link, to_dto
from ..errors import RestError, invalid, not_found
from ..formats import format_date, parse_bool, parse_date
from ..listing import list_routes, searched
from .decision_definition import DecisionDefinitionDto, decision_definition_dto
from .decision_requirements_definition import DecisionRequirementsDefinitionDto, requirements_dto
from .process_definition import ProcessDefinitionDto, definition_dto, rest_base

AnyRequest = Request[Any, Any, Any]
D = TypeVar("D")

RESERVED_PARTS = frozenset(
    {
        "deployment-name",
        "deployment-source",
        "enable-duplicate-filtering",
        "deploy-changed-only",
        "deployment-activation-time",
        "tenant-id",
    }
)

# What Camunda answers a resource's bytes as, by file extension.
MEDIA_TYPES = {
    "bpmn": "application/xml",
    "cmmn": "application/xml",
    "dmn": "application/xml",
    "xml": "application/xml",
    "json": "application/json",
    "png": "image/png",
    "svg": "image/svg+xml",
    "html": "text/html",
    "txt": "text/plain",
    "js": "application/javascript",
    "groovy": "text/plain",
    "py": "text/plain",
}


# -- DTOs ---------------------------------------------------------------------------------------


@derived(repository.DeploymentRow, add=(Added("links", list[LinkDto], [], after=FIRST),))
class DeploymentDto(msgspec.Struct):
    """Camunda's DeploymentDto."""


class DeploymentWithDefinitionsDto(DeploymentDto, rename="camel", kw_only=True):
    # Each map is null when the deployment made no such definition, as Camunda answers.
    deployed_process_definitions: dict[str, ProcessDefinitionDto] | None
    # This engine deploys no CMMN: always null.
    deployed_case_definitions: dict[str, Any] | None = None
    deployed_decision_definitions: dict[str, DecisionDefinitionDto] | None = None
    deployed_decision_requirements_definitions: (
        dict[str, DecisionRequirementsDefinitionDto] | None
    ) = None


@derived(repository.ResourceRow)
class DeploymentResourceDto(msgspec.Struct):
    """Camunda's DeploymentResourceDto."""


# -- create ---------------------------------------------------------------------------------------


@dataclass
class DeploymentForm:
    """A multipart deployment request, read and checked."""

    name: str | None = None
    source: str | None = None
    duplicate_filtering: bool = False
    changed_only: bool = False
    activation_time: datetime | None = None
    resources: list[tuple[str, bytes]] = field(default_factory=list)


async def _text(value: str | UploadFile) -> str:
    if isinstance(value, str):
        return value
    return (await value.read()).decode("utf-8", errors="replace")


async def _resource(part: str, value: str | UploadFile) -> tuple[str, bytes]:
    if not isinstance(value, UploadFile) or not value.filename:
        raise invalid(
            f"No file name found in the deployment resource described by form parameter '{part}'."
        )
    return value.filename, await value.read()


def _reserved(form: DeploymentForm, part: str, text: str) -> None:
    if part == "deployment-name":
        form.name = text
    elif part == "deployment-source":
        form.source = text
    elif part == "enable-duplicate-filtering":
        form.duplicate_filtering = parse_bool(text)
    elif part == "deploy-changed-only":
        form.changed_only = parse_bool(text)
    elif part == "deployment-activation-time" and text.strip():
        form.activation_time = parse_date(text, part)
    elif part == "tenant-id" and text.strip():
        raise invalid(f"Cannot deploy for tenant '{text}': this engine has no tenants")


async def _read_form(parts: Iterable[tuple[str, str | UploadFile]]) -> DeploymentForm:
    form = DeploymentForm()
    seen: set[str] = set()
    for part, value in parts:
        if part in RESERVED_PARTS:
            # As Camunda: the first part of a reserved name counts.
            if part not in seen:
                seen.add(part)
                _reserved(form, part, await _text(value))
            continue
        form.resources.append(await _resource(part, value))
    if not form.resources:
        raise invalid("No deployment resources contained in the form upload.")
    return form


def _check_activation(engine: Engine, form: DeploymentForm) -> None:
    if form.activation_time is not None and form.activation_time > engine.clock.now():
        raise invalid(
            "deployment-activation-time in the future is not supported: this engine activates "
            "process definitions when they are deployed"
        )


def _deploy(engine: Engine, form: DeploymentForm) -> tuple[views.Deployment, bool]:
    """Deploy; also whether the answer is an earlier deployment (duplicate filtering found
    nothing new), which Camunda answers without deployed definitions."""
    earlier: set[str] = set()
    if (form.duplicate_filtering or form.changed_only) and form.name is not None:
        with engine.reading() as conn:
            earlier = repository.deployment_ids_named(conn, form.name)
    deployment = engine.deploy(
        form.resources,
        form.name,
        deployment_source=form.source,
        duplicate_filtering=form.duplicate_filtering,
        deploy_changed_only=form.changed_only,
    )
    return deployment, deployment.id in earlier


def _deployed(definitions: dict[str, D], existing: bool) -> dict[str, D] | None:
    """A `deployed...Definitions` map (id → DTO): null when there are none, or when the answer
    is an earlier deployment (Camunda lists only what this request deployed)."""
    return definitions if definitions and not existing else None


def _created_dto(
    request: AnyRequest, deployment: views.Deployment, existing: bool
) -> DeploymentWithDefinitionsDto:
    return build(
        DeploymentWithDefinitionsDto,
        links=self_link(rest_base(request), f"/deployment/{deployment.id}"),
        id=deployment.id,
        name=deployment.name,
        source=deployment.source,
        deployment_time=format_date(deployment.deployment_time),
        tenant_id=None,
        deployed_process_definitions=_deployed(
            {d.id: definition_dto(d) for d in deployment.process_definitions}, existing
        ),
        deployed_decision_definitions=_deployed(
            {d.id: decision_definition_dto(d) for d in deployment.decision_definitions}, existing
        ),
        deployed_decision_requirements_definitions=_deployed(
            {d.id: requirements_dto(d) for d in deployment.decision_requirements_definitions},
            existing,
        ),
    )


def warning_header(warnings: list[views.DeploymentWarning]) -> dict[str, str]:
    """What deployed but will fail when it runs (a timer literal that is no ISO 8601 value), as
    an HTTP `Warning` header (code 199, one quoted text per warning): Camunda's answer has no
    field for it, and its body stays exactly Camunda's."""
    if not warnings:
        return {}
    texts = []
    for warning in warnings:
        text = str(
            ModelProblem(warning.message, warning.resource, warning.element_id, warning.line)
        )
        # a header holds printable ASCII: escape quotes, spell out anything else
        text = text.replace("\\", "\\\\").replace('"', '\\"')
        texts.append(f'199 flowledger "{text.encode("ascii", "backslashreplace").decode()}"')
    return {"Warning": ", ".join(texts)}


@post("/deployment/create", status_code=200)
async def create_deployment(
    engine: NamedDependency[Engine], request: AnyRequest
) -> Response[DeploymentWithDefinitionsDto]:
    try:
        received = await request.form()
    except UnicodeDecodeError:
        raise invalid(
            "A form part without a file name is not UTF-8 text: send resources as files "
            "(with a file name)"
        ) from None
    try:
        form = await _read_form(received.multi_items())
    finally:
        for value in received.values():
            if isinstance(value, UploadFile):
                await value.close()
    _check_activation(engine, form)
    # The engine call blocks (database, parsing): off the event loop.
    deployment, existing = await anyio.to_thread.run_sync(partial(_deploy, engine, form))
    return Response(
        _created_dto(request, deployment, existing),
        headers=warning_header([] if existing else deployment.warnings),
    )


# -- list and count -------------------------------------------------------------------------------

DEPLOYMENTS = searched(
    repository.DEPLOYMENTS,
    path="/deployment",
    body=None,
    result=DeploymentDto,
    dates=("after", "before"),
)


# -- one deployment and its resources -------------------------------------------------------------


def _existing(engine: Engine, deployment_id: str) -> repository.DeploymentRow:
    with engine.reading() as conn:
        found = repository.deployment(conn, deployment_id)
    if found is None:
        raise not_found(f"Deployment with id '{deployment_id}' does not exist")
    return found


@get("/deployment/{id:str}", sync_to_thread=True)
def get_deployment(engine: NamedDependency[Engine], id: FromPath[str]) -> DeploymentDto:
    return to_dto(DeploymentDto, _existing(engine, id))


@get("/deployment/{id:str}/resources", sync_to_thread=True)
def get_resources(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> list[DeploymentResourceDto]:
    _existing(engine, id)
    with engine.reading() as conn:
        found = repository.deployment_resources(conn, id)
    return [to_dto(DeploymentResourceDto, r) for r in found]


def _missing_resource(deployment_id: str, resource_id: str) -> Exception:
    return not_found(
        f"Deployment resource with resource id '{resource_id}' for deployment id "
        f"'{deployment_id}' does not exist."
    )


def _resource_row(engine: Engine, deployment_id: str, resource_id: str) -> repository.ResourceRow:
    with engine.reading() as conn:
        found = repository.deployment_resource(conn, deployment_id, resource_id)
    if found is None:
        raise _missing_resource(deployment_id, resource_id)
    return found


@get("/deployment/{id:str}/resources/{resourceId:str}", sync_to_thread=True)
def get_resource(
    engine: NamedDependency[Engine], id: FromPath[str], resourceId: FromPath[str]
) -> DeploymentResourceDto:
    return to_dto(DeploymentResourceDto, _resource_row(engine, id, resourceId))


def _attachment(name: str) -> str:
    # Resource names are any text; the RFC 5987 form carries them through a latin-1 header.
    plain = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in name)
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name, safe='')}"


def _media_type(name: str) -> str:
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return MEDIA_TYPES.get(extension, "application/octet-stream")


@get("/deployment/{id:str}/resources/{resourceId:str}/data", sync_to_thread=True)
def get_resource_data(
    engine: NamedDependency[Engine], id: FromPath[str], resourceId: FromPath[str]
) -> Response[bytes]:
    found = _resource_row(engine, id, resourceId)
    with engine.reading() as conn:
        data = repository.resource_bytes(conn, id, resourceId)
    if data is None:
        raise _missing_resource(id, resourceId)
    return Response(
        data,
        media_type=_media_type(found.name),
        headers={"Content-Disposition": _attachment(found.name)},
    )


# -- delete ---------------------------------------------------------------------------------------


@delete("/deployment/{id:str}", status_code=204, sync_to_thread=True)
def delete_deployment(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> None:
    cascade = parse_bool(request.query_params.get("cascade"))
    try:
        engine.repository_service.delete_deployment(id, cascade=cascade)
    except Rejected as exc:
        # Running instances without cascade: Camunda's ProcessEngineException, a 500.
        raise RestError(500, "ProcessEngineException", str(exc)) from None


routes: list[Any] = [
    create_deployment,
    *list_routes(DEPLOYMENTS, get_list="list_deployments", get_count="count_deployments"),
    get_deployment,
    get_resources,
    get_resource,
    get_resource_data,
    delete_deployment,
]
