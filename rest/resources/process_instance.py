"""engine-rest: the process-instance resource.

`GET|POST /process-instance` (+ `/count`), one running instance, deleting it, its variables
(`/variables`, one by name, its binary `/data`) and its activity instance tree.

DELETE honours `skipCustomListeners` (the cancelled activities' end listeners do not run) and
`skipIoMappings`; `skipSubprocesses` is accepted and not honoured (called instances are deleted
with their caller). No tenants. The activity instance tree shows tokens waiting for an
asynchronous continuation as transition instances, and incidents where they occurred.
`POST /{id}/modification` is in `modification.py`.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, delete, get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core import NotFound, views
from flowledger.engine import Engine
from flowledger.projections.queries import runtime

from ..dto import FIRST, Added, LinkDto, derived, to_dto
from ..errors import not_found
from ..listing import list_routes, searched
from ..params import SortingDto, flag
from .variables_routes import ExecutionVariables, variable_routes

AnyRequest = Request[Any, Any, Any]


# -- DTOs ---------------------------------------------------------------------------------------


@derived(
    runtime.ProcessInstanceRow,
    omit=("definition_key",),
    add=(
        # Camunda adds links only to the answer of a start; a running instance is never ended.
        Added("links", list[LinkDto], [], after=FIRST),
        Added("ended", bool, False, after="case_instance_id"),
    ),
)
class ProcessInstanceDto(msgspec.Struct):
    """Camunda's ProcessInstanceDto."""


class ProcessInstanceQueryDto(runtime.ProcessInstanceQuery, rename="camel"):
    sorting: list[SortingDto] | SortingDto | None = None
    or_queries: list[dict[str, Any]] | None = None


class ActivityInstanceIncidentDto(msgspec.Struct, rename="camel"):
    id: str
    parent_activity_instance_id: str


class _InstanceNodeDto(msgspec.Struct, rename="camel"):
    """The fields an activity instance and a transition instance start with."""

    id: str
    parent_activity_instance_id: str | None
    activity_id: str
    activity_name: str | None
    activity_type: str
    process_instance_id: str
    process_definition_id: str


class TransitionInstanceDto(_InstanceNodeDto, rename="camel"):
    execution_id: str
    incident_ids: list[str]
    incidents: list[ActivityInstanceIncidentDto]


class ActivityInstanceDto(_InstanceNodeDto, rename="camel"):
    child_activity_instances: list[ActivityInstanceDto]
    child_transition_instances: list[TransitionInstanceDto]
    execution_ids: list[str]
    incident_ids: list[str]
    incidents: list[ActivityInstanceIncidentDto]


# -- list and count -------------------------------------------------------------------------------

INSTANCES = searched(
    runtime.PROCESS_INSTANCES,
    path="/process-instance",
    body=ProcessInstanceQueryDto,
    result=ProcessInstanceDto,
    conditions={"variables": "variables"},
    parse_conditions=runtime.conditions_from_text,
    or_queries_refused="orQueries are not supported: send one query per request",
)


# -- one instance ---------------------------------------------------------------------------------


def _missing(instance_id: str) -> Exception:
    return not_found(f"Process instance with id {instance_id} does not exist")


VARIABLES = ExecutionVariables("process instance variable", _missing, local=False)


@get("/process-instance/{id:str}", sync_to_thread=True)
def get_instance(engine: NamedDependency[Engine], id: FromPath[str]) -> ProcessInstanceDto:
    with engine.reading() as conn:
        row = runtime.process_instance(conn, id)
    if row is None:
        raise _missing(id)
    return to_dto(ProcessInstanceDto, row)


@delete("/process-instance/{id:str}", status_code=204, sync_to_thread=True)
def delete_instance(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> None:
    params = request.query_params
    try:
        engine.runtime_service.delete_process_instance(
            id,
            skip_custom_listeners=flag(params, "skipCustomListeners", default=False),
            skip_io_mappings=flag(params, "skipIoMappings", default=False),
        )
    except NotFound:
        if flag(request.query_params, "failIfNotExists"):
            raise _missing(id) from None


def _tree_dto(
    node: views.ActivityInstanceNode, instance_id: str, definition_id: str
) -> ActivityInstanceDto:
    return ActivityInstanceDto(
        id=node.id,
        parent_activity_instance_id=node.parent_activity_instance_id,
        activity_id=node.activity_id,
        activity_name=node.activity_name,
        activity_type=node.activity_type,
        process_instance_id=instance_id,
        process_definition_id=definition_id,
        child_activity_instances=[
            _tree_dto(child, instance_id, definition_id) for child in node.child_activity_instances
        ],
        child_transition_instances=[
            _transition_dto(t, instance_id, definition_id) for t in node.child_transition_instances
        ],
        execution_ids=list(node.execution_ids),
        incident_ids=list(node.incident_ids),
        incidents=_incidents(node.incident_ids, node.id),
    )


def _incidents(incident_ids: list[str], owner: str) -> list[ActivityInstanceIncidentDto]:
    return [
        ActivityInstanceIncidentDto(id=i, parent_activity_instance_id=owner) for i in incident_ids
    ]


def _transition_dto(
    node: views.TransitionInstanceNode, instance_id: str, definition_id: str
) -> TransitionInstanceDto:
    return TransitionInstanceDto(
        id=node.id,
        parent_activity_instance_id=node.parent_activity_instance_id,
        activity_id=node.activity_id,
        activity_name=node.activity_name,
        activity_type=node.activity_type,
        process_instance_id=instance_id,
        process_definition_id=definition_id,
        execution_id=node.execution_id,
        incident_ids=list(node.incident_ids),
        incidents=_incidents(node.incident_ids, node.id),
    )


@get("/process-instance/{id:str}/activity-instances", sync_to_thread=True)
def activity_instances(engine: NamedDependency[Engine], id: FromPath[str]) -> ActivityInstanceDto:
    try:
        root = engine.runtime_service.activity_instance_tree(id)
    except NotFound:
        raise _missing(id) from None
    # The root stands for the process definition: its activity id is the definition's id.
    return _tree_dto(root, root.id, root.activity_id)


routes: list[Any] = [
    *list_routes(
        INSTANCES,
        get_list="list_instances",
        post_list="query_instances",
        get_count="count_instances",
        post_count="query_instance_count",
    ),
    get_instance,
    delete_instance,
    activity_instances,
    *variable_routes("/process-instance/{id:str}/variables", VARIABLES, "variable"),
]
