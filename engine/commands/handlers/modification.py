"""Handlers of process instance modification: one instance (the domain decides it), or the same
instructions on many instances of one definition in one command."""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.limits import MAX_INSTANCES_PER_COMMAND
from flowledger.core.modification import modify
from flowledger.core.session import InstanceSession
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.on_instance import decided_on
from flowledger.engine.commands.unit_of_work import UnitOfWork


def _instance(unit: UnitOfWork, command: cmd.ModifyProcessInstance) -> InstanceSession:
    return unit.instance(command.process_instance_id)


def modify_many(unit: UnitOfWork, command: cmd.ModifyProcessInstances) -> None:
    """Camunda's createModification(definitionId): every instance must be a running instance of
    the definition; cancellations name activities, not activity instances (they differ per
    instance)."""
    if lookups.process_definition(unit.conn, command.definition_id) is None:
        raise NotFound("Process definition", command.definition_id)
    if not command.process_instance_ids:
        raise Rejected("Process instance ids is empty: name the instances to modify")
    if len(command.process_instance_ids) > MAX_INSTANCES_PER_COMMAND:
        raise Rejected(
            f"{len(command.process_instance_ids)} process instances in one modification; "
            f"at most {MAX_INSTANCES_PER_COMMAND} are modified at once"
        )
    for instruction in command.instructions:
        if isinstance(instruction, cmd.CancelActivityInstance | cmd.CancelTransitionInstance):
            raise Rejected(
                "A modification of many instances cancels by activity id (type cancel with "
                "activityId), not by activity or transition instance"
            )
        if isinstance(instruction, cmd.StartInstruction) and (
            instruction.ancestor_activity_instance_id is not None
        ):
            raise Rejected("A modification of many instances names no ancestor activity instance")
    instance_ids = list(dict.fromkeys(command.process_instance_ids))
    for n, instance_id in enumerate(instance_ids):
        session = unit.instance(instance_id)
        if session.state.definition_id != command.definition_id:
            raise Rejected(
                f"Process instance '{instance_id}' is an instance of "
                f"'{session.state.definition_id}', not of '{command.definition_id}'"
            )
        modify(
            session,
            command.instructions,
            skip_custom_listeners=command.skip_custom_listeners,
            skip_io_mappings=command.skip_io_mappings,
            annotation=command.annotation,
            together=len(instance_ids),
            first_of_many=n == 0,
        )


HANDLERS = (
    decided_on(cmd.ModifyProcessInstance, _instance),
    Handler(cmd.ModifyProcessInstances, modify_many),
)
