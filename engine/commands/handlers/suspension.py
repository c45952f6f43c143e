"""Handlers of suspension: a process instance (decided on the instance), and a process
definition, by id or by key (every version), with or without its running instances.

A definition's suspension is an event of its deployment's stream; each instance suspended with
it is a stream of the same command.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core import decide, views
from flowledger.core import events as ev
from flowledger.core.errors import InvalidValue, NotFound, Rejected
from flowledger.core.limits import MAX_LIST_FILTER
from flowledger.core.session import InstanceSession
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.on_instance import decided_on
from flowledger.engine.commands.handlers.start_timers import append_to_deployment
from flowledger.engine.commands.unit_of_work import UnitOfWork


def _instance(unit: UnitOfWork, command: cmd.SetProcessInstanceSuspended) -> InstanceSession:
    return unit.instance(command.process_instance_id)


def _definitions(
    unit: UnitOfWork, definition_id: str | None, key: str | None
) -> list[views.ProcessDefinition]:
    if definition_id is not None:
        found = lookups.process_definition(unit.conn, definition_id)
        if found is None:
            raise NotFound("Process definition", definition_id)
        return [found]
    definitions = lookups.process_definitions(unit.conn, key=key)
    if not definitions:
        raise NotFound("Process definition with key", key or "")
    return definitions


def set_definition_suspended(unit: UnitOfWork, command: cmd.SetProcessDefinitionSuspended) -> None:
    if (command.definition_id is None) == (command.key is None):
        raise Rejected("Name either a process definition id or a process definition key")
    definitions = _definitions(unit, command.definition_id, command.key)
    now = unit.ctx.now
    for definition in definitions:
        if definition.suspended != command.suspended:
            kind = (
                ev.ProcessDefinitionSuspended
                if command.suspended
                else ev.ProcessDefinitionActivated
            )
            event: ev.Event = kind(
                definition_id=definition.id,
                time=now,
                include_instances=command.include_instances,
                key=definition.key,
                deployment_id=definition.deployment_id,
            )
            append_to_deployment(unit, definition.deployment_id, [event])
    if not command.include_instances:
        return
    running = lookups.running_process_instances(unit.conn, [d.id for d in definitions])
    for instance_id, _definition in running:
        session = unit.instance(instance_id)
        if command.suspended:
            decide.suspend_instance(session)
        else:
            decide.activate_instance(session)


def set_instances_suspended(unit: UnitOfWork, command: cmd.SetProcessInstancesSuspended) -> None:
    chosen = [
        bool(command.process_instance_ids),
        command.definition_id is not None,
        command.key is not None,
    ]
    if chosen.count(True) != 1:
        raise Rejected(
            "Name exactly one of: process instance ids, a process definition id, a process "
            "definition key"
        )
    if len(command.process_instance_ids) > MAX_LIST_FILTER:
        raise InvalidValue(
            f"processInstanceIds may name at most {MAX_LIST_FILTER} instances in one command",
            "processInstanceIds",
            MAX_LIST_FILTER,
        )
    if command.process_instance_ids:
        instance_ids = list(command.process_instance_ids)
    else:
        definitions = _definitions(unit, command.definition_id, command.key)
        running = lookups.running_process_instances(unit.conn, [d.id for d in definitions])
        instance_ids = [instance_id for instance_id, _definition in running]
    for instance_id in instance_ids:
        session = unit.instance(instance_id)
        if command.suspended:
            decide.suspend_instance(session)
        else:
            decide.activate_instance(session)


HANDLERS = (
    decided_on(cmd.SetProcessInstanceSuspended, _instance),
    Handler(cmd.SetProcessDefinitionSuspended, set_definition_suspended),
    Handler(cmd.SetProcessInstancesSuspended, set_instances_suspended),
)
