"""Handler of RestartProcessInstances: a new instance for each ended one, all in one command.

Reads what the domain cannot: the definition, and each ended instance's variables from its
stream in the log (never from history tables, so a restart works at every history level).
The new instances' events are the domain's (core.restart).
"""

from __future__ import annotations

from functools import partial

from flowledger.core import commands as cmd
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.limits import MAX_INSTANCES_PER_COMMAND
from flowledger.core.restart import initial_variables, last_variables, restart_instance
from flowledger.core.variables import StoredValue
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.guards import still_deployed
from flowledger.engine.commands.unit_of_work import UnitOfWork


def _ended(unit: UnitOfWork, instance_id: str, definition_id: str) -> str | None:
    """The ended instance's business key; the instance refused as Camunda refuses it: unknown (or
    its history deleted), still running, or of another definition."""
    try:
        state = unit.instance(instance_id, ended_ok=True).state
    except NotFound:
        state = None
    if state is None or state.history_deleted:
        raise Rejected(f"Historic process instance '{instance_id}' cannot be found")
    if not state.ended:
        raise Rejected(
            f"Historic process instance '{instance_id}' cannot be restarted. "
            "It is not completed or terminated."
        )
    if state.definition_id != definition_id:
        raise Rejected(
            f"Historic process instance '{instance_id}' cannot be restarted. Its process "
            f"definition '{state.definition_id}' does not match given process definition "
            f"'{definition_id}'"
        )
    return state.business_key


def _variables(unit: UnitOfWork, instance_id: str, initial: bool) -> dict[str, StoredValue]:
    commits = unit.repository.stream(unit.conn, instance_id)
    if initial:
        return initial_variables(commits[0][1]) if commits else {}
    return last_variables(event for _commit, events in commits for event in events)


def restart(unit: UnitOfWork, command: cmd.RestartProcessInstances) -> list[str]:
    """Camunda's RestartProcessInstancesCmd, synchronously: the ids of the new instances, in
    the order of the (deduplicated) ids asked for."""
    if not command.instructions:
        raise Rejected("Restart instructions cannot be empty")
    # Camunda collects the ids in a set: one named twice is restarted once.
    ids = list(dict.fromkeys(command.process_instance_ids))
    if not ids:
        raise Rejected("Process instance ids cannot be empty")
    if len(ids) > MAX_INSTANCES_PER_COMMAND:
        raise Rejected(
            f"{len(ids)} process instances in one restart; at most "
            f"{MAX_INSTANCES_PER_COMMAND} are restarted at once"
        )
    conn = unit.conn
    definition = lookups.process_definition(conn, command.definition_id)
    if definition is None:
        raise NotFound("Process definition", command.definition_id)
    if definition.suspended:
        raise Rejected(f"Process definition '{definition.id}' is suspended")
    model = unit.repository.model(conn, definition.id)
    unit.guards.append(partial(still_deployed, definition.id))
    # Every instance checked before any is restarted: a refusal names the first bad one.
    business_keys = {i: _ended(unit, i, definition.id) for i in ids}
    restarted: list[str] = []
    for n, old_id in enumerate(ids):
        session = unit.begin_instance(
            model,
            partial(
                restart_instance,
                model=model,
                definition_id=definition.id,
                definition_version=definition.version,
                deployment_id=definition.deployment_id,
                business_key=None if command.without_business_key else business_keys[old_id],
                variables=_variables(unit, old_id, command.initial_variables),
                instructions=command.instructions,
                restarted_from=old_id,
                restarted_count=len(ids),
                first_restarted=n == 0,
                skip_custom_listeners=command.skip_custom_listeners,
                skip_io_mappings=command.skip_io_mappings,
            ),
        )
        restarted.append(session.state.id)
    return restarted


HANDLERS = (Handler(cmd.RestartProcessInstances, restart, result=list[str]),)
