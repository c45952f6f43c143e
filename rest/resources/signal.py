"""engine-rest: the signal resource (`POST /signal`): broadcast a signal to every catch and
boundary event waiting for it and to the signal start events of its name, or, with
`executionId`, deliver it to that execution's subscription. Tenants are refused (this engine has
none).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from flowledger.core import NotFound
from flowledger.engine import Engine

from ..errors import invalid, not_found
from ..variables import VariableValueDto, check_decoded_size, wire_variables


class SignalDto(msgspec.Struct, rename="camel"):
    name: str | None = None
    execution_id: str | None = None
    variables: dict[str, VariableValueDto] | None = None
    tenant_id: str | None = None
    without_tenant_id: bool | None = None


@post("/signal", status_code=204, sync_to_thread=True)
def throw_signal(
    engine: NamedDependency[Engine],
    request: Request[Any, Any, Any],
    data: JSONBody[SignalDto],
) -> None:
    if not data.name:
        raise invalid("No signal name given")
    if data.tenant_id is not None or data.without_tenant_id:
        raise invalid("Tenants are not supported: this engine has none")
    check_decoded_size(request, data.variables)
    try:
        engine.runtime_service.signal(
            data.name, wire_variables(data.variables), execution_id=data.execution_id
        )
    except NotFound:
        raise not_found(f"Execution with id {data.execution_id} does not exist") from None


routes: list[Any] = [throw_signal]
