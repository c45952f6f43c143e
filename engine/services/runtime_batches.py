"""The RuntimeService's verbs that answer with a batch and share its making (Camunda's
executeAsync of modification and restart); RuntimeService inherits them. No decisions here:
the batch's jobs run the synchronous commands (engine/commands/handlers/batch_operations.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flowledger.core import commands as cmd
from flowledger.core.batches import instructions as batch_instructions
from flowledger.core.batches.model import (
    CORRELATE_MESSAGE,
    INSTANCE_MODIFICATION,
    INSTANCE_RESTART,
    SET_VARIABLES,
)
from flowledger.core.errors import NotFound, Rejected
from flowledger.engine.services.base import Service
from flowledger.engine.services.management import ManagementService
from flowledger.projections.queries import reads
from flowledger.projections.queries.batches import Batch
from flowledger.projections.queries.declaration import find
from flowledger.projections.queries.runtime import PROCESS_INSTANCES, ProcessInstanceQuery


class RuntimeBatches(Service):
    def _batch(
        self,
        batch_type: str,
        targets: list[str],
        parameters: dict[str, Any],
        command_id: str | None,
        actor: str | None,
        variables: Mapping[str, Any] | None = None,
    ) -> Batch:
        management = ManagementService(self._parts, self._caller)
        return management.create_batch(
            batch_type,
            targets,
            parameters,
            command_id=command_id,
            actor=actor,
            variables=variables,
        )

    def _instance_targets(
        self,
        ids: Sequence[str] | None,
        query: ProcessInstanceQuery | None,
        empty: str = "processInstanceIds is empty",
    ) -> list[str]:
        """The ids given, then those the query finds (Camunda's BatchElementConfiguration);
        neither: Camunda's BadUserRequest."""
        if ids is None and query is None:
            raise Rejected("Either processInstanceIds or processInstanceQuery has to be set")
        targets = list(ids or ())
        if query is not None:
            with self._parts.db.read() as conn:
                targets += [row.id for row in find(conn, PROCESS_INSTANCES, query)]
        if not targets:
            raise Rejected(empty)
        return targets

    def set_variables_async(
        self,
        process_instance_ids: Sequence[str] | None = None,
        process_instance_query: ProcessInstanceQuery | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """runtimeService.setVariablesAsync: a batch setting `variables` on each instance named
        or found now (its root scope, as `set_variables` on the instance). The values are
        checked, stored once with the batch (ACT_RU_VARIABLE, BATCH_ID_) and go with it."""
        if variables is None:
            raise Rejected("variables is null")
        if not variables:
            raise Rejected("variables is empty")
        if process_instance_ids is None and process_instance_query is None:
            raise Rejected("No process instances found.")
        targets = self._instance_targets(process_instance_ids, process_instance_query)
        parameters = {"variableNames": list(variables)}
        return self._batch(SET_VARIABLES, targets, parameters, command_id, actor, variables)

    def correlate_message_async(
        self,
        message_name: str,
        process_instance_ids: Sequence[str] | None = None,
        process_instance_query: ProcessInstanceQuery | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """createMessageCorrelationAsync(name)…correlateAllAsync(): a batch correlating the
        message to every waiting execution of each instance named or found now, with
        `variables` (set on the instance as a correlation's are); an instance nothing of which
        waits for the message is passed over."""
        if not message_name:
            raise Rejected("messageName is null")
        if process_instance_ids is None and process_instance_query is None:
            raise Rejected("No process instances found.")
        targets = self._instance_targets(
            process_instance_ids, process_instance_query, "Process instance ids cannot be empty"
        )
        parameters = {"messageName": message_name, "variableNames": list(variables or {})}
        return self._batch(CORRELATE_MESSAGE, targets, parameters, command_id, actor, variables)

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
    """Instructions as a batch's parameters keep them: plain JSON, their variables stored as
    an instance stores them (typed values keep their types)."""
    if not instructions:
        raise Rejected("Modification instructions cannot be empty")
    return {
        "instructions": batch_instructions.recorded(instructions),
        batch_instructions.STORED: True,
        "skipCustomListeners": skip_custom_listeners,
        "skipIoMappings": skip_io_mappings,
    }
