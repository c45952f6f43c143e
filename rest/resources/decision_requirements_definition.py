"""engine-rest: the decision-requirements-definition resource (a DRG: the decisions of one DMN
resource that require one another).

`GET /decision-requirements-definition` (+ `/count`), one definition by id or by key (its latest
version), its DMN XML and its diagram, which no deployment here carries: `/diagram` answers 204
for a definition that exists, as Camunda does for one without. Reads only.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core import views
from flowledger.engine import Engine
from flowledger.projections.queries import decisions
from flowledger.projections.queries.declaration import first

from ..dto import Added, derived, to_dto
from ..errors import not_found
from ..listing import list_routes, searched
from .definitions import resource_text

# -- DTOs ---------------------------------------------------------------------------------------


@derived(
    views.DecisionRequirementsDefinition,
    rename={"resource_name": "resource"},
    add=(Added("tenant_id", str | None),),
)
class DecisionRequirementsDefinitionDto(msgspec.Struct):
    """Camunda's DecisionRequirementsDefinitionDto, derived from the search's row."""


class DecisionRequirementsDefinitionXmlDto(msgspec.Struct, rename="camel"):
    """Camunda's answer for a definition's XML: `{id, dmnXml}`."""

    id: str
    dmn_xml: str


def requirements_dto(
    definition: views.DecisionRequirementsDefinition,
) -> DecisionRequirementsDefinitionDto:
    return to_dto(DecisionRequirementsDefinitionDto, definition)


# -- lookups --------------------------------------------------------------------------------------

Query = decisions.DecisionRequirementsDefinitionQuery


def _by_id(engine: Engine, definition_id: str) -> views.DecisionRequirementsDefinition:
    query = Query(decision_requirements_definition_id=definition_id)
    with engine.reading() as conn:
        found = first(conn, decisions.DECISION_REQUIREMENTS, query)
    if found is None:
        raise not_found(f"No matching decision requirements definition with id {definition_id}")
    return found


def _by_key(engine: Engine, key: str) -> views.DecisionRequirementsDefinition:
    query = Query(key=key, latest_version=True)
    with engine.reading() as conn:
        found = first(conn, decisions.DECISION_REQUIREMENTS, query)
    if found is None:
        raise not_found(
            f"No matching decision requirements definition with key: {key} and no tenant-id"
        )
    return found


def _xml(
    engine: Engine, definition: views.DecisionRequirementsDefinition
) -> DecisionRequirementsDefinitionXmlDto:
    missing = f"No DMN resource found for decision requirements definition {definition.id}"
    text = resource_text(
        engine, definition.deployment_id, definition.resource_name, missing=missing
    )
    return DecisionRequirementsDefinitionXmlDto(definition.id, text)


# -- list and count -------------------------------------------------------------------------------

DEFINITIONS = searched(
    decisions.DECISION_REQUIREMENTS,
    path="/decision-requirements-definition",
    body=None,
    result=DecisionRequirementsDefinitionDto,
)


# -- one definition -------------------------------------------------------------------------------


@get("/decision-requirements-definition/{id:str}", sync_to_thread=True)
def get_requirements_definition(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> DecisionRequirementsDefinitionDto:
    return requirements_dto(_by_id(engine, id))


@get("/decision-requirements-definition/key/{key:str}", sync_to_thread=True)
def get_requirements_definition_by_key(
    engine: NamedDependency[Engine], key: FromPath[str]
) -> DecisionRequirementsDefinitionDto:
    return requirements_dto(_by_key(engine, key))


@get("/decision-requirements-definition/{id:str}/xml", sync_to_thread=True)
def get_requirements_xml(
    engine: NamedDependency[Engine], id: FromPath[str]
) -> DecisionRequirementsDefinitionXmlDto:
    return _xml(engine, _by_id(engine, id))


@get("/decision-requirements-definition/key/{key:str}/xml", sync_to_thread=True)
def get_requirements_xml_by_key(
    engine: NamedDependency[Engine], key: FromPath[str]
) -> DecisionRequirementsDefinitionXmlDto:
    return _xml(engine, _by_key(engine, key))


@get("/decision-requirements-definition/{id:str}/diagram", status_code=204, sync_to_thread=True)
def get_requirements_diagram(engine: NamedDependency[Engine], id: FromPath[str]) -> None:
    _by_id(engine, id)


@get(
    "/decision-requirements-definition/key/{key:str}/diagram",
    status_code=204,
    sync_to_thread=True,
)
def get_requirements_diagram_by_key(engine: NamedDependency[Engine], key: FromPath[str]) -> None:
    _by_key(engine, key)


routes: list[Any] = [
    *list_routes(
        DEFINITIONS,
        get_list="list_decision_requirements_definitions",
        get_count="count_decision_requirements_definitions",
    ),
    get_requirements_definition,
    get_requirements_definition_by_key,
    get_requirements_xml,
    get_requirements_xml_by_key,
    get_requirements_diagram,
    get_requirements_diagram_by_key,
]
