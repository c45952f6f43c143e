"""The fluent form of a process instance modification, as Camunda's
ProcessInstanceModificationBuilder: instructions gathered in order, run as one command."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from flowledger.core import commands as cmd

if TYPE_CHECKING:
    from flowledger.engine.services.runtime import RuntimeService


class InstanceModification:
    """`runtime_service.create_process_instance_modification(id)`; `set_variable` and
    `set_variable_local` apply to the start instruction given last, as Camunda's do."""

    def __init__(self, runtime: RuntimeService, process_instance_id: str) -> None:
        self._runtime = runtime
        self._id = process_instance_id
        self._instructions: list[cmd.ModificationInstruction] = []

    def start_before_activity(
        self, activity_id: str, ancestor_activity_instance_id: str | None = None
    ) -> InstanceModification:
        return self._add(
            cmd.StartBeforeActivity(
                activity_id=activity_id,
                ancestor_activity_instance_id=ancestor_activity_instance_id,
            )
        )

    def start_after_activity(
        self, activity_id: str, ancestor_activity_instance_id: str | None = None
    ) -> InstanceModification:
        return self._add(
            cmd.StartAfterActivity(
                activity_id=activity_id,
                ancestor_activity_instance_id=ancestor_activity_instance_id,
            )
        )

    def start_transition(
        self, transition_id: str, ancestor_activity_instance_id: str | None = None
    ) -> InstanceModification:
        return self._add(
            cmd.StartTransition(
                transition_id=transition_id,
                ancestor_activity_instance_id=ancestor_activity_instance_id,
            )
        )

    def cancel_activity_instance(self, activity_instance_id: str) -> InstanceModification:
        return self._add(cmd.CancelActivityInstance(activity_instance_id=activity_instance_id))

    def cancel_transition_instance(self, transition_instance_id: str) -> InstanceModification:
        return self._add(
            cmd.CancelTransitionInstance(transition_instance_id=transition_instance_id)
        )

    def cancel_all_for_activity(
        self, activity_id: str, *, active_instances_only: bool = False
    ) -> InstanceModification:
        return self._add(
            cmd.CancelAllForActivity(
                activity_id=activity_id,
                cancel_current_active_activity_instances_only=active_instances_only,
            )
        )

    def set_variable(self, name: str, value: Any) -> InstanceModification:
        return self._with_variables({name: value}, local=False)

    def set_variable_local(self, name: str, value: Any) -> InstanceModification:
        return self._with_variables({name: value}, local=True)

    def set_variables(self, variables: Mapping[str, Any]) -> InstanceModification:
        return self._with_variables(variables, local=False)

    def execute(
        self,
        *,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        annotation: str | None = None,
        actor: str | None = None,
    ) -> None:
        self._runtime.modify_process_instance(
            self._id,
            self._instructions,
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
            annotation=annotation,
            actor=actor,
        )

    def _add(self, instruction: cmd.ModificationInstruction) -> InstanceModification:
        self._instructions.append(instruction)
        return self

    def _with_variables(self, values: Mapping[str, Any], *, local: bool) -> InstanceModification:
        last = self._instructions[-1] if self._instructions else None
        if not isinstance(
            last, cmd.StartBeforeActivity | cmd.StartAfterActivity | cmd.StartTransition
        ):
            raise ValueError(
                "a variable goes with a start instruction: start_before_activity, "
                "start_after_activity or start_transition first"
            )
        field = "local_variables" if local else "variables"
        merged = {**getattr(last, field), **values}
        self._instructions[-1] = msgspec.structs.replace(last, **{field: merged})
        return self
