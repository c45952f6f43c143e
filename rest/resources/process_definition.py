"""engine-rest: the process-definition resource.

`GET /process-definition` (+ `/count`), one definition by id or by key (its latest version),
its BPMN XML, starting an instance, and the running-instance statistics per definition and per
activity. This engine has no tenants: every definition belongs to no tenant, so the
`/key/{key}/tenant-id/{tenant-id}` variants answer 404 as Camunda does for an unknown tenant.
Statistics count failed jobs (out of retries) with `failedJobs=true` and open incidents by type
with `incidents=true` or `incidentsForType`; every incident here is its own root cause, so
`rootIncidents=true` counts them all too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core import views
from flowledger.engine import Engine
from flowledger.projections.queries import definitions as repository
from flowledger.projections.queries import reads as queries

from ..dto import Added, build, derived, self_link, to_dto
from ..errors import invalid, not_found
from ..formats import parse_bool
from ..instructions import InstructionDto, start_instructions
from ..listing import list_routes, searched
from ..paths import BASE_PATH
from ..variables import (
    VariableValueDto,
    check_decoded_size,
    engine_variables,
    instance_variables_after,
    variables_dto,
)
from .definitions import no_tenant, resource_text
from .process_instance import ProcessInstanceDto

AnyRequest = Request[Any, Any, Any]


# -- DTOs ---------------------------------------------------------------------------------------


@derived(
    views.ProcessDefinition,
    rename={"resource_name": "resource"},
    # Description and diagram are not in ACT_RE_PROCDEF (Camunda reads them from the parsed
    # model only), and no definition here has a tenant.
    add=(
        Added("description", str | None, after="category"),
        Added("diagram", str | None, after="resource"),
        Added("tenant_id", str | None),
    ),
)
class ProcessDefinitionDto(msgspec.Struct):
    """Camunda's ProcessDefinitionDto, derived from the definitions search's row."""


class ProcessDefinitionDiagramDto(msgspec.Struct, rename="camel"):
    id: str
    bpmn20_xml: str


class StartProcessInstanceDto(msgspec.Struct, rename="camel"):
    variables: dict[str, VariableValueDto] | None = None
    business_key: str | None = None
    case_instance_id: str | None = None
    start_instructions: list[InstructionDto] | None = None
    skip_custom_listeners: bool | None = None
    skip_io_mappings: bool | None = None
    with_variables_in_return: bool | None = None


class ProcessInstanceWithVariablesDto(ProcessInstanceDto, rename="camel", kw_only=True):
    variables: dict[str, VariableValueDto]


class IncidentStatisticsResultDto(msgspec.Struct, rename="camel"):
    incident_type: str
    incident_count: int


class ProcessDefinitionStatisticsResultDto(msgspec.Struct, rename="camel"):
    id: str
    instances: int
    failed_jobs: int
    definition: ProcessDefinitionDto
    incidents: list[IncidentStatisticsResultDto]


class ActivityStatisticsResultDto(msgspec.Struct, rename="camel"):
    id: str
    instances: int
    failed_jobs: int
    incidents: list[IncidentStatisticsResultDto]


def definition_dto(definition: views.ProcessDefinition) -> ProcessDefinitionDto:
    return to_dto(ProcessDefinitionDto, definition)


def rest_base(request: AnyRequest) -> str:
    """The engine-rest base URL of this request, for `links`."""
    return f"{str(request.base_url).rstrip('/')}{BASE_PATH}"


# -- lookups --------------------------------------------------------------------------------------


def _by_id(engine: Engine, definition_id: str) -> views.ProcessDefinition:
    with engine.reading() as conn:
        found = queries.process_definition(conn, definition_id)
    if found is None:
        raise not_found(f"No matching definition with id {definition_id}")
    return found


def _by_key(engine: Engine, key: str) -> views.ProcessDefinition:
    with engine.reading() as conn:
        found = queries.latest_process_definition(conn, key)
    if found is None:
        raise not_found(f"No matching process definition with key: {key} and no tenant-id")
    return found


def _no_tenant(key: str, request: AnyRequest) -> Exception:
    return no_tenant("process definition", key, request)


def _xml(engine: Engine, definition: views.ProcessDefinition) -> ProcessDefinitionDiagramDto:
    missing = f"No BPMN resource found for process definition {definition.id}"
    text = resource_text(
        engine, definition.deployment_id, definition.resource_name, missing=missing
    )
    return ProcessDefinitionDiagramDto(definition.id, text)


# -- list and count -------------------------------------------------------------------------------

DEFINITIONS = searched(
    repository.DEFINITIONS,
    path="/process-definition",
    body=None,
    result=ProcessDefinitionDto,
    dates=("deployedAfter", "deployedAt"),
)


# -- one definition -------------------------------------------------------------------------------


@get("/process-definition/{id:str}", sync_to_thread=True)
def get_definition(engine: NamedDependency[Engine], id: FromPath[str]) -> ProcessDefinitionDto:
    return definition_dto(_by_id(engine, id))


@get("/process-definition/key/{key:str}", sync_to_thread=True)
def get_definition_by_key(
    engine: NamedDependency[Engine], key: FromPath[str]
) -> ProcessDefinitionDto:
    return definition_dto(_by_key(engine, key))


@get("/process-definition/key/{key:str}/tenant-id/{tenant-id:str}", sync_to_thread=False)
def get_definition_by_tenant(request: AnyRequest, key: FromPath[str]) -> ProcessDefinitionDto:
    raise _no_tenant(key, request)


@get("/process-definition/{id:str}/xml", sync_to_thread=True)
def get_xml(engine: NamedDependency[Engine], id: FromPath[str]) -> ProcessDefinitionDiagramDto:
    return _xml(engine, _by_id(engine, id))


@get("/process-definition/key/{key:str}/xml", sync_to_thread=True)
def get_xml_by_key(
    engine: NamedDependency[Engine], key: FromPath[str]
) -> ProcessDefinitionDiagramDto:
    return _xml(engine, _by_key(engine, key))


@get("/process-definition/key/{key:str}/tenant-id/{tenant-id:str}/xml", sync_to_thread=False)
def get_xml_by_tenant(request: AnyRequest, key: FromPath[str]) -> ProcessDefinitionDiagramDto:
    raise _no_tenant(key, request)


# -- start ----------------------------------------------------------------------------------------

StartResult = ProcessInstanceDto | ProcessInstanceWithVariablesDto


def _check_start(body: StartProcessInstanceDto) -> None:
    if body.case_instance_id is not None:
        raise invalid("caseInstanceId is not supported: this engine has no case instances")


def _start(
    engine: Engine,
    request: AnyRequest,
    body: StartProcessInstanceDto | None,
    *,
    definition_id: str | None = None,
    key: str | None = None,
) -> StartResult:
    body = body or StartProcessInstanceDto()
    _check_start(body)
    check_decoded_size(
        request, body.variables, *(i.variables for i in body.start_instructions or ())
    )
    instance = engine.runtime_service.start_process_instance(
        key,
        engine_variables(body.variables),
        body.business_key,
        definition_id=definition_id,
        start_instructions=start_instructions(body.start_instructions),
        skip_custom_listeners=bool(body.skip_custom_listeners),
        skip_io_mappings=bool(body.skip_io_mappings),
    )
    fields: dict[str, Any] = {
        "links": self_link(rest_base(request), f"/process-instance/{instance.id}"),
        "id": instance.id,
        "definition_id": instance.definition_id,
        "business_key": instance.business_key,
        "case_instance_id": None,
        "ended": instance.ended,
        "suspended": instance.suspended,
        "tenant_id": None,
    }
    if not body.with_variables_in_return:
        return build(ProcessInstanceDto, **fields)
    variables = variables_dto(
        instance_variables_after(engine, instance.id, running=not instance.ended)
    )
    return build(ProcessInstanceWithVariablesDto, **fields, variables=variables)


@post("/process-definition/{id:str}/start", status_code=200, sync_to_thread=True)
def start_by_id(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[StartProcessInstanceDto | None] = None,
) -> StartResult:
    _by_id(engine, id)
    return _start(engine, request, data, definition_id=id)


@post("/process-definition/key/{key:str}/start", status_code=200, sync_to_thread=True)
def start_by_key(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    key: FromPath[str],
    data: JSONBody[StartProcessInstanceDto | None] = None,
) -> StartResult:
    definition = _by_key(engine, key)
    # The version looked up is the one started, even if a newer one is deployed meanwhile.
    return _start(engine, request, data, definition_id=definition.id)


@post(
    "/process-definition/key/{key:str}/tenant-id/{tenant-id:str}/start",
    status_code=200,
    sync_to_thread=False,
)
def start_by_tenant(
    request: AnyRequest, key: FromPath[str], data: JSONBody[StartProcessInstanceDto | None] = None
) -> StartResult:
    raise _no_tenant(key, request)


# -- statistics -----------------------------------------------------------------------------------


class _Counted(msgspec.Struct, frozen=True):
    """What the statistics parameters ask to count beside the instances."""

    failed_jobs: bool
    incidents: bool
    incident_type: str | None


def _check_statistics_params(params: Mapping[str, str]) -> _Counted:
    """Camunda allows one way of counting incidents at a time."""
    chosen = [
        name
        for name, is_set in (
            ("incidents", parse_bool(params.get("incidents"))),
            ("incidentsForType", params.get("incidentsForType") is not None),
            ("rootIncidents", parse_bool(params.get("rootIncidents"))),
        )
        if is_set
    ]
    if len(chosen) > 1:
        raise invalid(
            "Only one of the query parameters incidents, incidentsForType and rootIncidents "
            f"can be set, not {' and '.join(chosen)}"
        )
    return _Counted(
        failed_jobs=bool(parse_bool(params.get("failedJobs"))),
        incidents=bool(chosen),
        incident_type=params.get("incidentsForType"),
    )


def _incident_dtos(
    counted: _Counted, counts: Mapping[str, list[tuple[str, int]]], owner: str
) -> list[IncidentStatisticsResultDto]:
    if not counted.incidents:
        return []
    return [IncidentStatisticsResultDto(kind, n) for kind, n in counts.get(owner, [])]


@get("/process-definition/statistics", sync_to_thread=True)
def definition_statistics(
    engine: NamedDependency[Engine], request: AnyRequest
) -> list[ProcessDefinitionStatisticsResultDto]:
    counted = _check_statistics_params(request.query_params)
    with engine.reading() as conn:
        rows = repository.definition_statistics(conn)
        failed = repository.failed_jobs(conn) if counted.failed_jobs else {}
        incidents = repository.incident_counts(conn, None, counted.incident_type)
    return [
        ProcessDefinitionStatisticsResultDto(
            d.id,
            instances,
            failed.get(d.id, 0),
            definition_dto(d),
            _incident_dtos(counted, incidents, d.id),
        )
        for d, instances in rows
    ]


def _activity_statistics(
    engine: Engine, request: AnyRequest, definition: views.ProcessDefinition
) -> list[ActivityStatisticsResultDto]:
    counted = _check_statistics_params(request.query_params)
    with engine.reading() as conn:
        instances = dict(repository.activity_statistics(conn, definition.id))
        failed = repository.failed_jobs(conn, definition.id) if counted.failed_jobs else {}
        incidents = repository.incident_counts(conn, definition.id, counted.incident_type)
    # An activity with a failed job or an incident but no token (a timer of an activity that
    # is a scope) is listed too, as Camunda lists it.
    shown = set(instances) | set(failed)
    if counted.incidents:
        shown |= set(incidents)
    return [
        ActivityStatisticsResultDto(
            a,
            instances.get(a, 0),
            failed.get(a, 0),
            _incident_dtos(counted, incidents, a),
        )
        for a in sorted(shown)
    ]


@get("/process-definition/{id:str}/statistics", sync_to_thread=True)
def activity_statistics(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> list[ActivityStatisticsResultDto]:
    return _activity_statistics(engine, request, _by_id(engine, id))


@get("/process-definition/key/{key:str}/statistics", sync_to_thread=True)
def activity_statistics_by_key(
    engine: NamedDependency[Engine], request: AnyRequest, key: FromPath[str]
) -> list[ActivityStatisticsResultDto]:
    return _activity_statistics(engine, request, _by_key(engine, key))


routes: list[Any] = [
    *list_routes(DEFINITIONS, get_list="list_definitions", get_count="count_definitions"),
    definition_statistics,
    get_definition,
    get_definition_by_key,
    get_definition_by_tenant,
    get_xml,
    get_xml_by_key,
    get_xml_by_tenant,
    start_by_id,
    start_by_key,
    start_by_tenant,
    activity_statistics,
    activity_statistics_by_key,
]
