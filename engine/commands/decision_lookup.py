"""Finding a deployed decision: by definition id, by the latest version of a key, or by a
business rule task's binding (Camunda's decisionRefBinding: latest, deployment, version,
versionTag). Reads the repository tables; the parsed decisions come from the repository's cache.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flowledger.core import views
from flowledger.core.decisions import DecisionRef, DeployedDecision
from flowledger.core.errors import NotFound, ProcessEngineError
from flowledger.engine import lookups
from flowledger.engine.commands.bindings import bound, which

if TYPE_CHECKING:  # the unit of work hands itself in (it wires the lookup into its context)
    from flowledger.engine.commands.unit_of_work import UnitOfWork


def by_id_or_key(unit: UnitOfWork, definition_id: str | None, key: str | None) -> DeployedDecision:
    """The decision definition `definition_id`, or the latest version of `key`."""
    found: views.DecisionDefinition | None
    if definition_id is not None:
        found = lookups.decision_definition(unit.conn, definition_id)
        if found is None:
            raise NotFound("Decision definition", definition_id)
    else:
        assert key is not None
        found = lookups.latest_decision_definition(unit.conn, key)
        if found is None:
            raise NotFound("Decision definition", key, "no decision with this key is deployed")
    return unit.repository.decision(unit.conn, found)


def by_reference(unit: UnitOfWork, ref: DecisionRef, activity_id: str) -> DeployedDecision:
    """The definition a business rule task's decisionRef and binding name."""
    found: views.DecisionDefinition | None
    if ref.binding == "latest":
        found = lookups.latest_decision_definition(unit.conn, ref.key)
    else:
        found = bound(
            lookups.decision_definitions(unit.conn, key=ref.key),
            ref.binding,
            version=ref.version,
            version_tag=ref.version_tag,
            deployment_id=ref.deployment_id,
        )
    if found is None:
        raise ProcessEngineError(
            f"business rule task '{activity_id}' evaluates the decision '{ref.key}', but no "
            "decision definition with that key is deployed"
            + which(ref.binding, ref.version, ref.version_tag, "the instance's")
        )
    return unit.repository.decision(unit.conn, found)
