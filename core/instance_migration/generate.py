"""Camunda's `mapEqualActivities()`: the instructions mapping each activity of the source to the
activity of the target with the same id, scope by scope (DefaultMigrationInstructionGenerator
with DefaultMigrationActivityMatcher).

Pure: reads the two models. What it generates passes Camunda's validators by construction:
generation drops every instruction they refuse, and descends only into mapped scopes.
"""

from __future__ import annotations

from collections import defaultdict

from ..model import Activity, ProcessModel
from . import activities as view
from .plan import MigrationInstruction
from .plan_validation import (
    ALL_VALIDATORS,
    GENERATION_VALIDATORS,
    CheckedInstruction,
    CheckedInstructions,
)

__all__ = ["map_equal_activities"]


class _Scopes:
    """A model's activities by flow scope and by event scope (Camunda's ScopeImpl.getActivities
    and getEventActivities), found once per generation, in the model's order."""

    def __init__(self, model: ProcessModel) -> None:
        self.flow: defaultdict[str, list[Activity]] = defaultdict(list)
        self.events: defaultdict[str, list[Activity]] = defaultdict(list)
        for activity in model.activities.values():
            self.flow[view.flow_scope(model, activity)].append(activity)
            event_scope = view.event_scope(model, activity)
            if event_scope is not None:
                self.events[event_scope].append(activity)


class _Generation:
    def __init__(
        self, source: ProcessModel, target: ProcessModel, update_event_triggers: bool
    ) -> None:
        self.source = source
        self.target = target
        self.update_event_triggers = update_event_triggers
        self.source_scopes = _Scopes(source)
        self.target_scopes = _Scopes(target)
        self.instructions = CheckedInstructions(source, target)

    def matching(
        self, sources: list[Activity], targets: list[Activity]
    ) -> list[CheckedInstruction]:
        """An instruction for each source activity not mapped yet and each target activity of
        the same id, both of which migration may map at all."""
        found = []
        for source in sources:
            if self.instructions.by_source(source.id):
                continue
            if not view.can_be_mapped(self.source, source):
                continue
            for target in targets:
                if target.id == source.id and view.can_be_mapped(self.target, target):
                    # a conditional event always re-evaluates its condition in the target
                    update = view.is_conditional_event(self.source, source) or (
                        self.update_event_triggers
                        and view.defines_persistent_event_trigger(self.source, source)
                    )
                    found.append(CheckedInstruction(source, target, update))
        return found

    def scope(self, source_scope: str, target_scope: str) -> None:
        """Map the activities of the scope, then of its events; drop what the validators
        refuse; then descend into each flow activity that stayed mapped."""
        flow = self.matching(
            self.source_scopes.flow[source_scope], self.target_scopes.flow[target_scope]
        )
        self.instructions.add_all(flow)
        events = self.matching(
            self.source_scopes.events[source_scope], self.target_scopes.events[target_scope]
        )
        self.instructions.add_all(events)
        self.instructions.filter(GENERATION_VALIDATORS)
        for instruction in flow:
            if instruction in self.instructions:
                self.scope(instruction.source.id, instruction.target.id)


def map_equal_activities(
    source: ProcessModel, target: ProcessModel, *, update_event_triggers: bool = False
) -> list[MigrationInstruction]:
    """The instructions Camunda's `mapEqualActivities()` generates, outer scopes first and in
    each scope in the model's order (Camunda's own order is a hash set's). With
    `update_event_triggers`, every mapped event with a persistent trigger takes the target's;
    a conditional event always does."""
    generation = _Generation(source, target, update_event_triggers)
    generation.scope(view.PROCESS, view.PROCESS)
    generation.instructions.filter(ALL_VALIDATORS)
    return [instruction.as_instruction() for instruction in generation.instructions]
