"""The RuntimeService's verbs that answer with a batch and share its making (Camunda's
executeAsync of modification and restart); RuntimeService inherits them. No decisions here:
the batch's jobs run the synchronous commands (engine/commands/handlers/batch_operations.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from flowledger.core import commands as cmd
from flowledger.core.batches.model import INSTANCE_MODIFICATION, INSTANCE_RESTART
from flowledger.core.errors import NotFound, Rejected
from flowledger.engine.services.base import Service
from flowledger.engine.services.management import ManagementService
from flowledger.projections.queries import reads
from flowledger.projections.queries.batches import Batch


class RuntimeBatches(Service):
    def _batch(
        self,
        batch_type: str,
        targets: list[str],
        parameters: dict[str, Any],
        command_id: str | None,
        actor: str | None,
    ) -> Batch:
        management = ManagementService(self._parts, self._caller)
        return management.create_batch(
            batch_type, targets, parameters, command_id=command_id, actor=actor
        )

    def modify_process_instances_async(
        self,
        definition_id: str,
        process_instance_ids: Sequence[str],
        instructions: Sequence[cmd.ModificationInstruction],
        *,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        annotation: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """createModification(definitionId)…executeAsync(): a batch modifying its jobs'
        instances as `modify_process_instances` does."""
        parameters = {
            "processDefinitionId": definition_id,
            **_recorded(instructions, skip_custom_listeners, skip_io_mappings),
            "annotation": annotation,
        }
        targets = list(process_instance_ids)
        if not targets:
            raise Rejected("Process instance ids is empty")
        return self._batch(INSTANCE_MODIFICATION, targets, parameters, command_id, actor)

    def modify_process_instance_async(
        self,
        process_instance_id: str,
        instructions: Sequence[cmd.ModificationInstruction],
        *,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        annotation: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """createProcessInstanceModification(id)…executeAsync(): a batch of the one instance,
        modified as `modify_process_instance` does."""
        parameters = {
            "oneInstance": True,
            **_recorded(instructions, skip_custom_listeners, skip_io_mappings),
            "annotation": annotation,
        }
        with self._parts.db.read() as conn:
            instance = reads.process_instance(conn, process_instance_id)
        if instance is None:
            raise NotFound("Process instance", process_instance_id)
        parameters["processDefinitionId"] = instance.definition_id
        return self._batch(
            INSTANCE_MODIFICATION, [process_instance_id], parameters, command_id, actor
        )

    def restart_process_instances_async(
        self,
        definition_id: str,
        process_instance_ids: Sequence[str],
        instructions: Sequence[cmd.StartInstruction],
        *,
        initial_variables: bool = False,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        without_business_key: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """restartProcessInstances(definitionId)…executeAsync(): a batch restarting its jobs'
        instances as `restart_process_instances` does."""
        if not instructions:
            raise Rejected("Restart instructions cannot be empty")
        targets = list(process_instance_ids)
        if not targets:
            raise Rejected("Process instance ids cannot be empty")
        parameters = {
            "processDefinitionId": definition_id,
            **_recorded(instructions, skip_custom_listeners, skip_io_mappings),
            "initialVariables": initial_variables,
            "withoutBusinessKey": without_business_key,
        }
        return self._batch(INSTANCE_RESTART, targets, parameters, command_id, actor)


def _recorded(
    instructions: Sequence[cmd.ModificationInstruction],
    skip_custom_listeners: bool,
    skip_io_mappings: bool,
) -> dict[str, Any]:
    """Instructions as a batch's parameters keep them (plain JSON); one whose variables would not
    read back the same (a typed value) is refused rather than changed."""
    if not instructions:
        raise Rejected("Modification instructions cannot be empty")
    recorded = msgspec.to_builtins(list(instructions))
    if msgspec.convert(recorded, list[cmd.ModificationInstruction]) != list(instructions):
        raise Rejected(
            "The variables of an asynchronous modification's instructions must be plain JSON "
            "values (typed values are not supported yet)"
        )
    return {
        "instructions": recorded,
        "skipCustomListeners": skip_custom_listeners,
        "skipIoMappings": skip_io_mappings,
    }
