"""engine-rest: the condition resource (`POST /condition`): evaluate the conditional start
events with the given variables and start an instance at each whose condition holds; the answer
lists the started instances (Camunda's ConditionRestService).

`variableEvents` play no part here. This engine has no tenants: `tenantId` finds no conditional
start event, `withoutTenantId` finds them all; both at once are Camunda's 400.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from flowledger.engine import Engine

from ..dto import build
from ..errors import invalid
from ..variables import VariableValueDto, check_decoded_size, wire_variables
from .process_instance import ProcessInstanceDto


class EvaluationConditionDto(msgspec.Struct, rename="camel"):
    variables: dict[str, VariableValueDto] | None = None
    business_key: str | None = None
    tenant_id: str | None = None
    without_tenant_id: bool | None = None
    process_definition_id: str | None = None


@post("/condition", status_code=200, sync_to_thread=True)
def evaluate_condition(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    data: JSONBody[EvaluationConditionDto],
) -> list[ProcessInstanceDto]:
    if data.tenant_id is not None and data.without_tenant_id:
        raise invalid(
            "Parameter 'tenantId' cannot be used together with parameter 'withoutTenantId'."
        )
    check_decoded_size(request, data.variables)
    started = engine.runtime_service.evaluate_conditions(
        wire_variables(data.variables),
        business_key=data.business_key,
        process_definition_id=data.process_definition_id,
        tenant_id=data.tenant_id,
        without_tenant_id=bool(data.without_tenant_id),
    )
    # As Camunda's ProcessInstanceDto.fromProcessInstance: no links on these.
    return [
        build(
            ProcessInstanceDto,
            links=[],
            id=instance.id,
            definition_id=instance.definition_id,
            business_key=instance.business_key,
            case_instance_id=None,
            ended=instance.ended,
            suspended=False,
            tenant_id=None,
        )
        for instance in started
    ]


routes: list[Any] = [evaluate_condition]
