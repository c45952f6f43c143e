"""Flow scopes as a migration walks them: where an activity's instances hang in the target, and
which of an instance's ancestors move.

Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model import Activity, EventSpec, ProcessModel

if TYPE_CHECKING:
    from .instance_validation import MigratingInstance


def flow_scope(model: ProcessModel, activity: Activity) -> str:
    """The activity whose instance is the parent of the activity's instances: its flow scope,
    or for a boundary-attached event the scope of its host."""
    spec = activity.spec
    if isinstance(spec, EventSpec) and spec.attached_to is not None:
        return model.activities[spec.attached_to].scope_id
    return activity.scope_id


def nearest_moving(instance: MigratingInstance, root: str, ai_id: str) -> str:
    """The nearest ancestor activity instance that moves (the instance itself at the top)."""
    parent = instance.activity_instances[ai_id].parent_id
    while parent != root:
        found = instance.activity_instances[parent]
        if found.instruction is not None:
            return parent
        parent = found.parent_id
    return root


def emerging_chain(target: ProcessModel, activity: Activity, above: str) -> list[str] | None:
    """The flow scopes between `above` (a target activity id, or the process id) and the
    activity, outermost first: those the move creates. None: `above` does not enclose it."""
    chain: list[str] = []
    scope = flow_scope(target, activity)
    while scope != above:
        if scope == target.id:
            return None
        chain.append(scope)
        scope = flow_scope(target, target.activities[scope])
    chain.reverse()
    return chain
