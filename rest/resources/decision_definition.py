"""engine-rest: the decision-definition resource.

`GET /decision-definition` (+ `/count`), one definition by id or by key (its latest version),
its DMN XML, its diagram, and evaluating it (Camunda's decisionService). No deployment here
carries a decision diagram image: `/diagram` answers 204 for a definition that exists, as
Camunda does for one without. This engine has no tenants: the `/key/{key}/tenant-id/{tenant-id}`
variants answer 404 as Camunda does for an unknown tenant.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core import ProcessEngineError, views
from flowledger.engine import Engine
from flowledger.projections.queries import decision_reads as decision_queries
from flowledger.projections.queries import decisions

from ..dto import Added, derived, to_dto
from ..errors import RestError, not_found
from ..listing import AnyRequest, list_routes, searched
from ..variables import VariableValueDto, check_decoded_size, engine_variables, value_dto
from .definitions import no_tenant, resource_text

# -- DTOs ---------------------------------------------------------------------------------------


@derived(
    views.DecisionDefinition,
    rename={"resource_name": "resource"},
    add=(Added("tenant_id", str | None, after="deployment_id"),),
)
class DecisionDefinitionDto(msgspec.Struct):
    """Camunda's DecisionDefinitionDto, derived from the definitions search's row."""


class DecisionDefinitionDiagramDto(msgspec.Struct, rename="camel"):
    """Camunda's answer for a definition's XML: `{id, dmnXml}`."""

    id: str
    dmn_xml: str


class EvaluateDecisionDto(msgspec.Struct):
    variables: dict[str, VariableValueDto] | None = None


# One map per rule the result is made of: output name → typed value.
DecisionResultDto = list[dict[str, VariableValueDto]]


def decision_definition_dto(definition: views.DecisionDefinition) -> DecisionDefinitionDto:
    return to_dto(DecisionDefinitionDto, definition)


# -- lookups --------------------------------------------------------------------------------------


def _by_id(engine: Engine, definition_id: str) -> views.DecisionDefinition:
    with engine.reading() as conn:
        found = decision_queries.decision_definition(conn, definition_id)
    if found is None:
        raise not_found(f"No matching decision definition with id {definition_id}")
    return found


def _by_key(engine: Engine, key: str) -> views.DecisionDefinition:
    with engine.reading() as conn:
        found = decision_queries.latest_decision_definition(conn, key)
    if found is None:
        raise not_found(f"No matching decision definition with key: {key} and no tenant-id")
    return found


def _no_tenant(key: str, request: AnyRequest) -> Exception:
    return no_tenant("decision definition", key, request)


def _xml(engine: Engine, definition: views.DecisionDefinition) -> DecisionDefinitionDiagramDto:
    missing = f"No DMN resource found for decision definition {definition.id}"
    text = resource_text(
        engine, definition.deployment_id, definition.resource_name, missing=missing
    )
    return DecisionDefinitionDiagramDto(definition.id, text)


# -- list and count -------------------------------------------------------------------------------

DEFINITIONS = searched(
    decisions.DECISION_DEFINITIONS,
    path="/decision-definition",
    body=None,
    result=DecisionDefinitionDto,
    dates=("deployedAfter", "deployedAt"),
)


# -- one definition -------------------------------------------------------------------------------


@get("/decision-definition/{id:str}", sync_to_thread=True)
def get_decision_definition(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> DecisionDefinitionDto:
    return decision_definition_dto(_by_id(engine, id))


@get("/decision-definition/key/{key:str}", sync_to_thread=True)
def get_decision_definition_by_key(
    engine: NamedDependency[Engine], key: FromPath[str]
) -> DecisionDefinitionDto:
    return decision_definition_dto(_by_key(engine, key))


@get("/decision-definition/key/{key:str}/tenant-id/{tenant-id:str}", sync_to_thread=False)
def get_decision_definition_by_tenant(
    request: AnyRequest, key: FromPath[str]
) -> DecisionDefinitionDto:
    raise _no_tenant(key, request)


@get("/decision-definition/{id:str}/xml", sync_to_thread=True)
def get_decision_xml(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> DecisionDefinitionDiagramDto:
    return _xml(engine, _by_id(engine, id))


@get("/decision-definition/key/{key:str}/xml", sync_to_thread=True)
def get_decision_xml_by_key(
    engine: NamedDependency[Engine], key: FromPath[str]
) -> DecisionDefinitionDiagramDto:
    return _xml(engine, _by_key(engine, key))


@get("/decision-definition/key/{key:str}/tenant-id/{tenant-id:str}/xml", sync_to_thread=False)
def get_decision_xml_by_tenant(
    request: AnyRequest, key: FromPath[str]
) -> DecisionDefinitionDiagramDto:
    raise _no_tenant(key, request)


@get("/decision-definition/{id:str}/diagram", status_code=204, sync_to_thread=True)
def get_decision_diagram(engine: NamedDependency[Engine], id: FromPath[str]) -> None:
    _by_id(engine, id)


@get("/decision-definition/key/{key:str}/diagram", status_code=204, sync_to_thread=True)
def get_decision_diagram_by_key(engine: NamedDependency[Engine], key: FromPath[str]) -> None:
    _by_key(engine, key)


@get(
    "/decision-definition/key/{key:str}/tenant-id/{tenant-id:str}/diagram",
    status_code=204,
    sync_to_thread=False,
)
def get_decision_diagram_by_tenant(request: AnyRequest, key: FromPath[str]) -> None:
    raise _no_tenant(key, request)


# -- evaluate -------------------------------------------------------------------------------------


def _evaluate(
    engine: Engine,
    request: AnyRequest,
    definition: views.DecisionDefinition,
    body: EvaluateDecisionDto | None,
) -> DecisionResultDto:
    variables = (body or EvaluateDecisionDto()).variables
    check_decoded_size(request, variables)
    try:
        # The version looked up is the one evaluated, even if a newer one is deployed meanwhile.
        result = engine.evaluate_decision(
            definition_id=definition.id, variables=engine_variables(variables)
        )
    except ProcessEngineError as exc:
        # Camunda's DecisionDefinitionResource wraps a failed evaluation (a violated hit
        # policy, an expression that fails) in a RestException, a 500 naming the definition.
        raise RestError(
            500, "RestException", f"Cannot evaluate decision {definition.id}: {exc}"
        ) from None
    return [{name: value_dto(value) for name, value in row.items()} for row in result.entries]


@post("/decision-definition/{id:str}/evaluate", status_code=200, sync_to_thread=True)
def evaluate_by_id(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[EvaluateDecisionDto | None] = None,
) -> DecisionResultDto:
    return _evaluate(engine, request, _by_id(engine, id), data)


@post("/decision-definition/key/{key:str}/evaluate", status_code=200, sync_to_thread=True)
def evaluate_by_key(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    key: FromPath[str],
    data: JSONBody[EvaluateDecisionDto | None] = None,
) -> DecisionResultDto:
    return _evaluate(engine, request, _by_key(engine, key), data)


@post(
    "/decision-definition/key/{key:str}/tenant-id/{tenant-id:str}/evaluate",
    status_code=200,
    sync_to_thread=False,
)
def evaluate_by_tenant(
    request: AnyRequest, key: FromPath[str], data: JSONBody[EvaluateDecisionDto | None] = None
) -> DecisionResultDto:
    raise _no_tenant(key, request)


routes: list[Any] = [
    *list_routes(
        DEFINITIONS, get_list="list_decision_definitions", get_count="count_decision_definitions"
    ),
    get_decision_definition,
    get_decision_definition_by_key,
    get_decision_definition_by_tenant,
    get_decision_xml,
    get_decision_xml_by_key,
    get_decision_xml_by_tenant,
    get_decision_diagram,
    get_decision_diagram_by_key,
    get_decision_diagram_by_tenant,
    evaluate_by_id,
    evaluate_by_key,
    evaluate_by_tenant,
]
