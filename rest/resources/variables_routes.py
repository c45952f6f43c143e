"""The variable endpoints of a resource, made once: `GET|POST .../variables` (all of them, or
Camunda's `{modifications, deletions}`), `GET|PUT|DELETE .../variables/{varName}` and
`GET .../variables/{varName}/data` (a Bytes value's bytes).

A resource says how to read, write and remove the variables of one of its entities with a
`VariableScope`: `ExecutionVariables` for process instances and executions (here), the task's
own in `task.py`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from litestar import Request, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath, JSONBody

from flowledger.core import NotFound
from flowledger.core.variables import StoredValue
from flowledger.engine import Engine

from ..errors import not_found
from ..listing import named
from ..params import flag
from ..variables import (
    PatchVariablesDto,
    VariableValueDto,
    binary_response,
    check_decoded_size,
    value_dto,
    variables_dto,
    wire_variables,
)

AnyRequest = Request[Any, Any, Any]


class VariableScope(ABC):
    """The variables of one kind of entity, addressed by the entity's id."""

    # Names the variable in the 404 for an unknown name ("task variable with name x ...").
    kind: str
    # PUT without a body: a 400 (the task resource), or a null value.
    put_body_required: bool = False

    @abstractmethod
    def values(self, engine: Engine, entity_id: str) -> dict[str, StoredValue]:
        """The variables, 404 for an unknown entity."""

    @abstractmethod
    def set(self, engine: Engine, entity_id: str, values: dict[str, Any]) -> None: ...

    @abstractmethod
    def remove(self, engine: Engine, entity_id: str, names: list[str]) -> None: ...

    @abstractmethod
    def require(self, engine: Engine, entity_id: str) -> None:
        """404 when the entity does not exist (a patch that changes nothing still checks)."""

    def engine_values(
        self, dtos: Mapping[str, VariableValueDto] | None, parameter: str
    ) -> dict[str, Any]:
        """Wire values (the body's `parameter`) as the engine takes them, refusing what the
        database cannot hold."""
        return wire_variables(dtos)

    def deletions(self, names: list[str] | None) -> list[str]:
        """The names to delete; by default the engine answers for names it cannot hold."""
        return names or []

    def value(self, engine: Engine, entity_id: str, name: str) -> StoredValue:
        stored = self.values(engine, entity_id).get(name)
        if stored is None:
            raise not_found(f"{self.kind} with name {name} does not exist")
        return stored

    def patch(
        self, engine: Engine, request: AnyRequest, entity_id: str, body: PatchVariablesDto
    ) -> None:
        """Modifications first, then deletions (Camunda's order: a name in both ends up
        deleted); the engine has no single command for both. Every value is checked before
        anything is written."""
        check_decoded_size(request, body.modifications)
        values = self.engine_values(body.modifications, "modifications")
        deletions = self.deletions(body.deletions)
        if values:
            self.set(engine, entity_id, values)
        if deletions:
            self.remove(engine, entity_id, deletions)
        if not values and not deletions:
            self.require(engine, entity_id)


class ExecutionVariables(VariableScope):
    """The variables of a process instance or an execution (`local`: its own scope only);
    the engine's NotFound becomes the resource's 404 `missing(id)`."""

    def __init__(self, kind: str, missing: Callable[[str], Exception], *, local: bool) -> None:
        self.kind = kind
        self.missing = missing
        self.local = local

    @contextmanager
    def _known(self, entity_id: str) -> Iterator[None]:
        try:
            yield
        except NotFound:
            raise self.missing(entity_id) from None

    def values(self, engine: Engine, entity_id: str) -> dict[str, StoredValue]:
        with self._known(entity_id):
            return engine.runtime_service.get_variable_values(entity_id, local=self.local)

    def set(self, engine: Engine, entity_id: str, values: dict[str, Any]) -> None:
        with self._known(entity_id):
            engine.runtime_service.set_variables(entity_id, values, local=self.local)

    def remove(self, engine: Engine, entity_id: str, names: list[str]) -> None:
        with self._known(entity_id):
            engine.runtime_service.remove_variables(entity_id, names, local=self.local)

    def require(self, engine: Engine, entity_id: str) -> None:
        with self._known(entity_id):
            engine.runtime_service.get_variable_values(entity_id, local=True)


def variable_routes(
    path: str, scope: VariableScope, noun: str, **options: Any
) -> list[HTTPRouteHandler]:
    """The six handlers under `path` (`/execution/{id:str}/localVariables`), named after `noun`
    (`local_variable`: `get_local_variables`, `put_local_variable`, ...: the OpenAPI
    operationIds); `options` go to every route decorator."""
    options = {"sync_to_thread": True, **options}
    one = f"{path}/{{varName:str}}"

    def get_all(
        engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
    ) -> dict[str, VariableValueDto]:
        deserialize = flag(request.query_params, "deserializeValues")
        return variables_dto(scope.values(engine, id), deserialize=deserialize)

    def modify(
        engine: NamedDependency[Engine],
        request: AnyRequest,
        id: FromPath[str],
        data: JSONBody[PatchVariablesDto | None] = None,
    ) -> None:
        scope.patch(engine, request, id, data or PatchVariablesDto())

    def get_one(
        engine: NamedDependency[Engine],
        request: AnyRequest,
        id: FromPath[str],
        varName: FromPath[str],
    ) -> VariableValueDto:
        deserialize = flag(request.query_params, "deserializeValue")
        return value_dto(scope.value(engine, id, varName), deserialize=deserialize)

    def put_or_null(
        engine: NamedDependency[Engine],
        id: FromPath[str],
        varName: FromPath[str],
        data: JSONBody[VariableValueDto | None] = None,
    ) -> None:
        values = scope.engine_values({varName: data or VariableValueDto()}, "value")
        scope.set(engine, id, values)

    def put_required(
        engine: NamedDependency[Engine],
        id: FromPath[str],
        varName: FromPath[str],
        data: JSONBody[VariableValueDto],
    ) -> None:
        scope.set(engine, id, scope.engine_values({varName: data}, "value"))

    def remove(engine: NamedDependency[Engine], id: FromPath[str], varName: FromPath[str]) -> None:
        scope.remove(engine, id, [varName])

    def data(
        engine: NamedDependency[Engine], id: FromPath[str], varName: FromPath[str]
    ) -> Response[bytes]:
        stored = scope.value(engine, id, varName)
        return binary_response(
            stored, f"Value of variable with id {varName} is not a binary value."
        )

    put_one = put_required if scope.put_body_required else put_or_null
    return [
        get(path, **options)(named(get_all, f"get_{noun}s")),
        post(path, status_code=204, **options)(named(modify, f"modify_{noun}s")),
        get(one, **options)(named(get_one, f"get_{noun}")),
        put(one, status_code=204, **options)(named(put_one, f"put_{noun}")),
        delete(one, status_code=204, **options)(named(remove, f"delete_{noun}")),
        get(f"{one}/data", **options)(named(data, f"get_{noun}_data")),
    ]
