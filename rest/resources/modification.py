"""engine-rest: process instance modification — one instance
(`POST /process-instance/{id}/modification`) or many of one definition
(`POST /modification/execute`).

The `-async` forms (`/process-instance/{id}/modification-async`, `/modification/executeAsync`)
answer with a batch (`instance-modification`) whose jobs do the same. The modification is
recorded as the operator's own events (`ProcessInstanceModified` first, then what it did), the
caller as the commit's actor.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core import NotFound
from flowledger.core.batches.model import MAX_BATCH_TARGETS
from flowledger.core.limits import MAX_INSTANCES_PER_COMMAND
from flowledger.engine import Engine

from ..errors import invalid
from ..instructions import InstructionDto, instructions
from ..selection import matching_instances
from ..variables import check_decoded_size
from .batch import BatchDto, batch_dto

AnyRequest = Request[Any, Any, Any]


class ProcessInstanceModificationDto(msgspec.Struct, rename="camel"):
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False
    instructions: list[InstructionDto] | None = None
    annotation: str | None = None


class ModificationDto(msgspec.Struct, rename="camel"):
    """Camunda's ModificationDto: the instructions for many instances of one definition."""

    process_definition_id: str | None = None
    instructions: list[InstructionDto] | None = None
    process_instance_ids: list[str] | None = None
    process_instance_query: dict[str, Any] | None = None
    historic_process_instance_query: dict[str, Any] | None = None
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False
    annotation: str | None = None


def _sizes(request: AnyRequest, dtos: list[InstructionDto] | None) -> None:
    check_decoded_size(request, *(dto.variables for dto in dtos or ()))


@post("/process-instance/{id:str}/modification", status_code=204, sync_to_thread=True)
def modify_instance(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[ProcessInstanceModificationDto],
) -> None:
    if not data.instructions:
        return  # Camunda's: nothing to do
    _sizes(request, data.instructions)
    steps = instructions(data.instructions)
    try:
        engine.runtime_service.modify_process_instance(
            id,
            steps,
            skip_custom_listeners=data.skip_custom_listeners,
            skip_io_mappings=data.skip_io_mappings,
            annotation=data.annotation,
        )
    except NotFound as exc:
        # Camunda answers a modification of an instance it cannot find with a 400
        raise invalid(str(exc)) from None


@post("/modification/execute", status_code=204, sync_to_thread=True)
def modify_instances(
    engine: NamedDependency[Engine], request: AnyRequest, data: JSONBody[ModificationDto]
) -> None:
    if data.process_definition_id is None:
        raise invalid("Process definition id is null")
    if not data.instructions:
        raise invalid("Modification instructions cannot be empty")
    ids = list(data.process_instance_ids or [])
    if data.process_instance_query is not None:
        ids += matching_instances(
            engine, data.process_instance_query, MAX_INSTANCES_PER_COMMAND + 1
        )
    if data.historic_process_instance_query is not None:
        raise invalid(
            "historicProcessInstanceQuery is not supported here: name the instances "
            "(processInstanceIds) or select them with processInstanceQuery"
        )
    if not ids:
        raise invalid("Process instance ids is empty")
    _sizes(request, data.instructions)
    steps = instructions(data.instructions)
    try:
        engine.runtime_service.modify_process_instances(
            data.process_definition_id,
            ids,
            steps,
            skip_custom_listeners=data.skip_custom_listeners,
            skip_io_mappings=data.skip_io_mappings,
            annotation=data.annotation,
        )
    except NotFound as exc:
        raise invalid(str(exc)) from None


@post("/process-instance/{id:str}/modification-async", status_code=200, sync_to_thread=True)
def modify_process_instance_async_operation(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[ProcessInstanceModificationDto],
) -> BatchDto:
    """A batch of the one instance (Camunda's executeAsync); its job modifies it."""
    if not data.instructions:
        raise invalid("Modification instructions cannot be empty")
    _sizes(request, data.instructions)
    try:
        batch = engine.runtime_service.modify_process_instance_async(
            id,
            instructions(data.instructions),
            skip_custom_listeners=data.skip_custom_listeners,
            skip_io_mappings=data.skip_io_mappings,
            annotation=data.annotation,
        )
    except NotFound as exc:
        raise invalid(str(exc)) from None
    return batch_dto(engine, batch.id)


@post("/modification/executeAsync", status_code=200, sync_to_thread=True)
def modify_instances_async(
    engine: NamedDependency[Engine], request: AnyRequest, data: JSONBody[ModificationDto]
) -> BatchDto:
    """A batch modifying the instances (any number, up to a batch's bound) by its jobs."""
    if data.process_definition_id is None:
        raise invalid("Process definition id is null")
    if not data.instructions:
        raise invalid("Modification instructions cannot be empty")
    ids = list(data.process_instance_ids or [])
    if data.process_instance_query is not None:
        ids += matching_instances(engine, data.process_instance_query, MAX_BATCH_TARGETS + 1)
    if data.historic_process_instance_query is not None:
        raise invalid(
            "historicProcessInstanceQuery is not supported here: name the instances "
            "(processInstanceIds) or select them with processInstanceQuery"
        )
    if not ids:
        raise invalid("Process instance ids is empty")
    _sizes(request, data.instructions)
    batch = engine.runtime_service.modify_process_instances_async(
        data.process_definition_id,
        ids,
        instructions(data.instructions),
        skip_custom_listeners=data.skip_custom_listeners,
        skip_io_mappings=data.skip_io_mappings,
        annotation=data.annotation,
    )
    return batch_dto(engine, batch.id)


routes: list[Any] = [
    modify_instance,
    modify_instances,
    modify_process_instance_async_operation,
    modify_instances_async,
]
