"""Handlers of the process instance commands: start, delete, delete history, trigger.

Start and history deletion read the database beyond the instance (its definition, its
deployment); delete and trigger find the instance and let the domain's `decide_on` read them.
"""

from __future__ import annotations

from functools import partial

from flowledger.core import commands as cmd
from flowledger.core import decide, views
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.session import InstanceSession
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.guards import still_deployed
from flowledger.engine.commands.handlers.on_instance import decided_on
from flowledger.engine.commands.unit_of_work import UnitOfWork


def start(unit: UnitOfWork, command: cmd.StartProcessInstance) -> views.ProcessInstance:
    conn = unit.conn
    if command.definition_id is not None:
        definition = lookups.process_definition(conn, command.definition_id)
        if definition is None:
            raise NotFound("Process definition", command.definition_id)
    else:
        key = command.key
        assert key is not None  # the facade refuses a start that names neither
        definition = lookups.latest_process_definition(conn, key)
        if definition is None:
            raise NotFound("Process definition with key", key, "nothing deployed yet")
    if definition.suspended:
        raise Rejected(f"Process definition '{definition.id}' is suspended")
    model = unit.repository.model(conn, definition.id)
    unit.guards.append(partial(still_deployed, definition.id))
    session = unit.start_instance(
        model,
        definition_id=definition.id,
        definition_version=definition.version,
        deployment_id=definition.deployment_id,
        business_key=command.business_key,
        variables=command.variables,
        instructions=command.instructions,
        skip_custom_listeners=command.skip_custom_listeners,
        skip_io_mappings=command.skip_io_mappings,
    )
    return views.ProcessInstance(
        id=session.state.id,
        definition_id=definition.id,
        definition_key=definition.key,
        business_key=command.business_key,
        ended=session.state.ended,
    )


def _instance(unit: UnitOfWork, command: cmd.DeleteProcessInstance) -> InstanceSession:
    return unit.instance(command.process_instance_id)


def delete_history(unit: UnitOfWork, command: cmd.DeleteHistoricProcessInstance) -> None:
    instance_id = command.process_instance_id
    try:
        session = unit.instance(instance_id, ended_ok=True)
    except NotFound:
        raise NotFound("Historic process instance", instance_id) from None
    state = session.state
    gone = state.ended and unit.repository.deleted_with_cascade(unit.conn, state.deployment_id)
    decide.delete_history(session, deleted_with_deployment=gone, cleanup=command.cleanup)


def _execution_owner(unit: UnitOfWork, command: cmd.Trigger) -> InstanceSession:
    return unit.instance_owning("Execution", command.execution_id)


HANDLERS = (
    Handler(cmd.StartProcessInstance, start, result=views.ProcessInstance),
    decided_on(cmd.DeleteProcessInstance, _instance),
    Handler(cmd.DeleteHistoricProcessInstance, delete_history),
    decided_on(cmd.Trigger, _execution_owner),
)
