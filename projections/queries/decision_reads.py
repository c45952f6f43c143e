"""The engine's reads of deployed decisions and their history, as `core.views` Structs: a
decision definition by id, key or binding, and historic decision instances with their inputs and
outputs.

Reads only. The latest versions per key a deployment numbers from are a command's lookup
(`engine.commands.lookups`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import msgspec
from sqlalchemy import Select, bindparam, select
from sqlalchemy.engine import Connection

from flowledger.core import views
from flowledger.eventlog.fastsql import PreparedCache

from ..tables import ACT_RE_DECISION_DEF
from . import decisions as search
from .declaration import find
from .filters import Sorting

_dd = ACT_RE_DECISION_DEF
_BY_VERSION: Sorting = [("key", False), ("version", False)]


# The lookups every evaluation makes, compiled once (see eventlog.fastsql): a search builds its
# statement per call, which cost an evaluation of a 100-rule table a sixth of its time.
_prepared = PreparedCache()


def _first(conn: Connection, name: str, build: Callable[[], Select[Any]], **params: Any) -> Any:
    row = _prepared.get(conn.dialect, name, build).first(conn, params)
    return None if row is None else search.decision_definition_row(row)


def decision_definition(conn: Connection, definition_id: str) -> views.DecisionDefinition | None:
    """The decision definition `definition_id` (ACT_RE_DECISION_DEF), or None."""
    return cast(
        views.DecisionDefinition | None,
        _first(
            conn,
            "decision-definition",
            lambda: select(_dd).where(_dd.c.ID_ == bindparam("id")),
            id=definition_id,
        ),
    )


def decision_definitions(
    conn: Connection, *, key: str | None = None, deployment_id: str | None = None
) -> list[views.DecisionDefinition]:
    """The decision definitions (ACT_RE_DECISION_DEF, joined to ACT_RE_DEPLOYMENT) of a key or a
    deployment, by key and version."""
    query = search.DecisionDefinitionQuery(key=key, deployment_id=deployment_id)
    return find(conn, search.DECISION_DEFINITIONS, query, _BY_VERSION)


def latest_decision_definition(conn: Connection, key: str) -> views.DecisionDefinition | None:
    """The highest version of the decision definitions of `key` (ACT_RE_DECISION_DEF), or None."""
    return cast(
        views.DecisionDefinition | None,
        _first(
            conn,
            "latest-decision-definition",
            lambda: (
                select(_dd)
                .where(_dd.c.KEY_ == bindparam("key"))
                .order_by(_dd.c.VERSION_.desc())
                .limit(1)
            ),
            key=key,
        ),
    )


def requirements_definitions(
    conn: Connection, *, deployment_id: str
) -> list[views.DecisionRequirementsDefinition]:
    query = search.DecisionRequirementsDefinitionQuery(deployment_id=deployment_id)
    return find(conn, search.DECISION_REQUIREMENTS, query, _BY_VERSION)


def historic_decision_instances(
    conn: Connection,
    query: search.HistoricDecisionInstanceQuery,
    *,
    include_inputs: bool = False,
    include_outputs: bool = False,
    sorting: Sorting = (),
    first: int = 0,
    maximum: int | None = None,
) -> list[views.HistoricDecisionInstance]:
    """Historic decision instances, with their inputs and outputs when asked for."""
    found = find(conn, search.HISTORIC_DECISION_INSTANCES, query, sorting, first, maximum)
    ids = [d.id for d in found]
    inputs = search.decision_inputs(conn, ids) if include_inputs else None
    outputs = search.decision_outputs(conn, ids) if include_outputs else None
    if inputs is None and outputs is None:
        return found
    return [
        msgspec.structs.replace(
            d,
            inputs=None if inputs is None else inputs.get(d.id, []),
            outputs=None if outputs is None else outputs.get(d.id, []),
        )
        for d in found
    ]
