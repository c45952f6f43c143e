"""engine-rest: the message resource (`POST /message`, correlate a message), and delivering a
message to one execution's subscription
(`POST /execution/{id}/messageSubscriptions/{messageName}/trigger`).

A message reaches the catch events waiting for its name (intermediate catch, receive task,
boundary) that the business key, process instance and correlation keys match, and, when it
names no instance and no keys, the message start events of its name (each starts an instance):
one, or with `all` every one; no match, or several without `all`, is Camunda's 400. Tenants
(`tenantId`, `withoutTenantId`) are refused: this engine has none.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core import MismatchingMessageCorrelation, NotFound, views
from flowledger.engine import Engine

from ..dto import build, self_link
from ..errors import invalid, not_found
from ..variables import (
    VariableValueDto,
    check_decoded_size,
    instance_variables_after,
    variables_dto,
    wire_variables,
)
from .execution import ExecutionTriggerDto
from .process_definition import rest_base
from .process_instance import ProcessInstanceDto


class CorrelationMessageDto(msgspec.Struct, rename="camel"):
    message_name: str | None = None
    business_key: str | None = None
    tenant_id: str | None = None
    without_tenant_id: bool | None = None
    process_instance_id: str | None = None
    correlation_keys: dict[str, VariableValueDto] | None = None
    local_correlation_keys: dict[str, VariableValueDto] | None = None
    process_variables: dict[str, VariableValueDto] | None = None
    process_variables_local: dict[str, VariableValueDto] | None = None
    all: bool | None = None
    result_enabled: bool | None = None
    variables_in_result_enabled: bool | None = None


class CorrelatedExecutionDto(msgspec.Struct, rename="camel"):
    id: str
    process_instance_id: str
    ended: bool
    tenant_id: str | None = None


class MessageCorrelationResultDto(msgspec.Struct, rename="camel", omit_defaults=True):
    result_type: str
    execution: CorrelatedExecutionDto | None
    process_instance: ProcessInstanceDto | None
    variables: dict[str, VariableValueDto] | None = None


@post("/message", status_code=200, sync_to_thread=True)
def deliver_message(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    data: JSONBody[CorrelationMessageDto],
) -> Response[list[MessageCorrelationResultDto]] | Response[None]:
    name = data.message_name
    if not name:
        raise invalid("No message name supplied")
    if data.tenant_id is not None or data.without_tenant_id:
        raise invalid("Tenants are not supported: this engine has none")
    check_decoded_size(
        request,
        data.correlation_keys,
        data.local_correlation_keys,
        data.process_variables,
        data.process_variables_local,
    )
    try:
        results = engine.runtime_service.correlate_message(
            name,
            business_key=data.business_key,
            process_instance_id=data.process_instance_id,
            correlation_keys=wire_variables(data.correlation_keys),
            local_correlation_keys=wire_variables(data.local_correlation_keys),
            variables=wire_variables(data.process_variables),
            variables_local=wire_variables(data.process_variables_local),
            all=bool(data.all),
        )
    except MismatchingMessageCorrelation as exc:
        raise invalid(f"Cannot correlate message '{name}': {exc}") from None
    if not data.result_enabled:
        return Response(content=None, status_code=204)
    with_variables = bool(data.variables_in_result_enabled)
    base = rest_base(request)
    answer = [_result(engine, base, result, with_variables) for result in results]
    return Response(content=answer, status_code=200)


def _result(
    engine: Engine, base: str, result: views.MessageCorrelationResult, with_variables: bool
) -> MessageCorrelationResultDto:
    """Where the message went: a waiting execution, or the instance a start event began."""
    ended = result.process_instance_ended
    instance_id = result.process_instance_id
    execution = None
    instance = None
    if result.execution_id is None:
        instance = build(
            ProcessInstanceDto,
            links=self_link(base, f"/process-instance/{instance_id}"),
            id=instance_id,
            definition_id=result.definition_id,
            business_key=result.business_key,
            case_instance_id=None,
            ended=ended,
            suspended=False,
            tenant_id=None,
        )
    else:
        execution = CorrelatedExecutionDto(
            id=result.execution_id, process_instance_id=instance_id, ended=ended
        )
    variables = None
    if with_variables:
        try:
            values = engine.runtime_service.get_variable_values(result.execution_id or instance_id)
        except NotFound:  # the execution went on and ended: the instance's, as they are now
            values = instance_variables_after(engine, instance_id, running=not ended)
        variables = variables_dto(values)
    return MessageCorrelationResultDto(
        result_type=result.result_type,
        execution=execution,
        process_instance=instance,
        variables=variables,
    )


@post(
    "/execution/{id:str}/messageSubscriptions/{messageName:str}/trigger",
    status_code=204,
    sync_to_thread=True,
)
def trigger_message_subscription(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    id: FromPath[str],
    messageName: FromPath[str],  # Camunda's name for the path parameter
    data: JSONBody[ExecutionTriggerDto | None] = None,
) -> None:
    dtos = (data or ExecutionTriggerDto()).variables
    check_decoded_size(request, dtos)
    try:
        engine.runtime_service.message_event_received(messageName, id, wire_variables(dtos))
    except NotFound:
        raise not_found(f"Execution with id {id} does not exist") from None


routes: list[Any] = [deliver_message, trigger_message_subscription]
