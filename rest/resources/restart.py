"""engine-rest: `POST /process-definition/{id}/restart`, Camunda's synchronous restart of ended
process instances (RestartProcessInstanceDto), answered 204.

The instances are named by `processInstanceIds` and/or a `historicProcessInstanceQuery` (the
history search's JSON query, run on ACT_HI_PROCINST). Their variables are read from the log by
the engine, not from these tables. Camunda's `startBeforeActivity`, `startAfterActivity` and
`startTransition` instructions; their `variables` are ignored, as Camunda's restart builder has
none. Refusals are Camunda's 400 InvalidRequestException.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core import commands as cmd
from flowledger.core.errors import Rejected
from flowledger.engine import Engine
from flowledger.projections.queries import history_instances as instances
from flowledger.projections.queries.declaration import find

from ..errors import invalid
from ..instructions import InstructionDto, start_instructions
from ..listing import refused_as_400
from .batch import BatchDto, batch_dto
from .history import PROCESS_INSTANCES, HistoricProcessInstanceQueryDto


class RestartProcessInstanceModificationInstructionDto(msgspec.Struct, rename="camel"):
    type: str | None = None
    activity_id: str | None = None
    transition_id: str | None = None


class RestartProcessInstanceDto(msgspec.Struct, rename="camel"):
    process_instance_ids: list[str] | None = None
    historic_process_instance_query: HistoricProcessInstanceQueryDto | None = None
    skip_custom_listeners: bool | None = None
    skip_io_mappings: bool | None = None
    initial_variables: bool | None = None
    without_business_key: bool | None = None
    instructions: list[RestartProcessInstanceModificationInstructionDto] | None = None


def _instructions(
    dtos: list[RestartProcessInstanceModificationInstructionDto] | None,
) -> list[cmd.StartInstruction]:
    """Camunda's instruction DTOs as start instructions, refused as Camunda refuses them."""
    return start_instructions(
        [
            InstructionDto(type=d.type, activity_id=d.activity_id, transition_id=d.transition_id)
            for d in dtos or ()
        ]
    )


def _instance_ids(engine: Engine, body: RestartProcessInstanceDto) -> list[str]:
    """The ids named, then the ones the historic query finds (in its order)."""
    ids = list(body.process_instance_ids or ())
    if any(not isinstance(i, str) or not i for i in ids):
        raise invalid("Process instance ids cannot be null")
    if body.historic_process_instance_query is not None:
        query = PROCESS_INSTANCES.from_body(body.historic_process_instance_query)
        with refused_as_400(), engine.reading() as conn:
            ids += [row.id for row in find(conn, instances.PROCESS_INSTANCES, query)]
    return ids


@post("/process-definition/{id:str}/restart", status_code=204, sync_to_thread=True)
def restart_process_instance(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[RestartProcessInstanceDto],
) -> None:
    instructions = _instructions(data.instructions)
    if not instructions:
        raise invalid("Restart instructions cannot be empty: instructions is empty")
    ids = _instance_ids(engine, data)
    if not ids:
        raise invalid("Process instance ids cannot be empty: processInstanceIds is empty")
    try:
        engine.runtime_service.restart_process_instances(
            id,
            ids,
            instructions,
            initial_variables=bool(data.initial_variables),
            skip_custom_listeners=bool(data.skip_custom_listeners),
            skip_io_mappings=bool(data.skip_io_mappings),
            without_business_key=bool(data.without_business_key),
        )
    except Rejected as exc:
        # Camunda's REST turns the restart's BadUserRequestException into this.
        raise invalid(str(exc)) from None


@post("/process-definition/{id:str}/restart-async", status_code=200, sync_to_thread=True)
def restart_process_instance_async_operation(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[RestartProcessInstanceDto],
) -> BatchDto:
    """A batch (`instance-restart`) whose jobs restart the instances as the synchronous form."""
    instructions = _instructions(data.instructions)
    if not instructions:
        raise invalid("Restart instructions cannot be empty: instructions is empty")
    ids = _instance_ids(engine, data)
    if not ids:
        raise invalid("Process instance ids cannot be empty: processInstanceIds is empty")
    batch = engine.runtime_service.restart_process_instances_async(
        id,
        ids,
        instructions,
        initial_variables=bool(data.initial_variables),
        skip_custom_listeners=bool(data.skip_custom_listeners),
        skip_io_mappings=bool(data.skip_io_mappings),
        without_business_key=bool(data.without_business_key),
    )
    return batch_dto(engine, batch.id)


routes: list[Any] = [restart_process_instance, restart_process_instance_async_operation]
