"""engine-rest: suspending and activating process instances and process definitions
(`PUT /process-instance/{id}/suspended`, `PUT /process-definition/{id}/suspended`,
`PUT /process-definition/key/{key}/suspended`).

A definition's `includeProcessInstances` suspends (activates) its running instances too; a
delayed `executionDate` is refused (this engine suspends at once).
`PUT /process-instance/suspended` takes `processInstanceIds` or a definition (id or key); its
`processInstanceQuery` and `historicProcessInstanceQuery` are refused.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.engine import Engine

from ..errors import invalid
from .job import SuspensionStateDto


class ProcessInstanceSuspensionStateDto(msgspec.Struct, rename="camel"):
    suspended: bool | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_definition_tenant_id: str | None = None
    process_definition_without_tenant_id: bool | None = None
    process_instance_ids: list[str] | None = None
    process_instance_query: dict[str, Any] | None = None
    historic_process_instance_query: dict[str, Any] | None = None


class ProcessDefinitionSuspensionStateDto(msgspec.Struct, rename="camel"):
    suspended: bool | None = None
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    include_process_instances: bool | None = None
    execution_date: str | None = None


def _suspended(value: bool | None) -> bool:
    if value is None:
        raise invalid("suspended is required: true suspends, false activates")
    return value


@put("/process-instance/{id:str}/suspended", status_code=204, sync_to_thread=True)
def set_instance_suspended(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[SuspensionStateDto | None] = None,
) -> None:
    if _suspended((data or SuspensionStateDto()).suspended):
        engine.runtime_service.suspend_process_instance(id)
    else:
        engine.runtime_service.activate_process_instance(id)


@put("/process-instance/suspended", status_code=204, sync_to_thread=True)
def set_instances_suspended(
    engine: NamedDependency[Engine], data: JSONBody[ProcessInstanceSuspensionStateDto]
) -> None:
    if data.process_instance_query is not None or data.historic_process_instance_query is not None:
        raise invalid(
            "processInstanceQuery and historicProcessInstanceQuery are not supported: name the "
            "instances (processInstanceIds) or their definition"
        )
    if data.process_definition_tenant_id is not None or data.process_definition_without_tenant_id:
        raise invalid("Tenants are not supported: this engine has none")
    engine.runtime_service.set_process_instances_suspended(
        _suspended(data.suspended),
        process_instance_ids=data.process_instance_ids or [],
        definition_id=data.process_definition_id,
        key=data.process_definition_key,
    )


def _definition(
    engine: Engine,
    data: ProcessDefinitionSuspensionStateDto | None,
    *,
    definition_id: str | None = None,
    key: str | None = None,
) -> None:
    body = data or ProcessDefinitionSuspensionStateDto()
    if body.execution_date:
        raise invalid("executionDate is not supported: suspension takes effect at once")
    include = bool(body.include_process_instances)
    if _suspended(body.suspended):
        engine.repository_service.suspend_process_definition(
            definition_id, key=key, include_instances=include
        )
    else:
        engine.repository_service.activate_process_definition(
            definition_id, key=key, include_instances=include
        )


@put("/process-definition/{id:str}/suspended", status_code=204, sync_to_thread=True)
def set_definition_suspended(
    engine: NamedDependency[Engine],
    id: FromPath[str],
    data: JSONBody[ProcessDefinitionSuspensionStateDto | None] = None,
) -> None:
    _definition(engine, data, definition_id=id)


@put("/process-definition/key/{key:str}/suspended", status_code=204, sync_to_thread=True)
def set_definition_suspended_by_key(
    engine: NamedDependency[Engine],
    key: FromPath[str],
    data: JSONBody[ProcessDefinitionSuspensionStateDto | None] = None,
) -> None:
    _definition(engine, data, key=key)


routes: list[Any] = [
    set_instances_suspended,
    set_instance_suspended,
    set_definition_suspended,
    set_definition_suspended_by_key,
]
