"""Restarting an ended instance (Camunda's runtimeService.restartProcessInstances): a new
instance of the same definition, started by instructions rather than at its start event.

Pure: the caller reads the ended instance (its business key, its variables from the log) and
hands them in; this decides the new instance's events. It reads no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from . import commands as cmd
from . import events as ev
from .errors import Rejected
from .evolve import evolve
from .flow import Flow
from .instance_start import announce_start
from .limits import check_variable_count
from .model import ProcessModel
from .modification import first_activity, start_by_instructions
from .session import InstanceSession
from .state import InstanceState
from .variables import StoredValue

_ENDS = (ev.ProcessInstanceCompleted, ev.ProcessInstanceTerminated)


def last_variables(events: Iterable[ev.Event]) -> dict[str, StoredValue]:
    """The process instance's own variables as they were when it ended (Camunda's historic
    variable instances of the instance's execution): its stream folded up to its end, which
    clears them from the state. Works at every history level: it reads the log only."""
    state: InstanceState | None = None
    for event in events:
        if isinstance(event, _ENDS):
            break
        state = evolve(state, event)
    if state is None:
        return {}
    return {
        v.name: v.value
        for v in state.variables.values()
        if v.execution_id == state.id and v.task_id is None
    }


def initial_variables(first_commit: Iterable[ev.Event]) -> dict[str, StoredValue]:
    """The variables the instance was started with (Camunda's initial historic details): those
    created on the process instance while it started, before its first activity completed (the
    start event, with its listeners and output mappings); for an instance started by
    instructions, the ones set before its first activity started. Their first values."""
    instance_id: str | None = None
    by_instructions = False
    created: dict[str, tuple[str, StoredValue]] = {}
    for event in first_commit:
        if isinstance(event, ev.ProcessInstanceStarted):
            instance_id = event.process_instance_id
            by_instructions = event.restarted_from is not None
        elif isinstance(event, ev.ActivityCompleted) or (
            by_instructions and isinstance(event, ev.ActivityStarted)
        ):
            break
        elif (
            isinstance(event, ev.VariableSet)
            and event.execution_id == instance_id
            and event.task_id is None
            and event.variable_id not in created
        ):
            created[event.variable_id] = (event.name, event.value)
    return dict(created.values())


def restart_instance(
    session: InstanceSession,
    model: ProcessModel,
    *,
    definition_id: str,
    definition_version: int,
    deployment_id: str,
    business_key: str | None,
    variables: Mapping[str, StoredValue],
    instructions: Sequence[cmd.StartInstruction],
    restarted_from: str,
    restarted_count: int,
    first_restarted: bool,
    skip_custom_listeners: bool = False,
    skip_io_mappings: bool = False,
) -> str:
    """Start a new instance of the definition where the instructions say, with `variables` on
    the process instance (as recorded: their types kept); returns its id.

    As Camunda's StartProcessInstanceAtActivitiesCmd: the instance's start listeners run and its
    event subprocesses wait, then each instruction runs to its wait states in turn; no start
    event runs. `first_restarted`: the first instance of its restart call (the call's
    operation-log entry is written with it)."""
    if not instructions:
        raise Rejected("Restart instructions cannot be empty")
    check_variable_count(variables)
    instance_id = announce_start(
        session,
        model,
        definition_id=definition_id,
        definition_version=definition_version,
        deployment_id=deployment_id,
        business_key=business_key,
        start_activity_id=first_activity(model, instructions[0]),
        restarted_from=restarted_from,
        restarted_count=restarted_count,
        first_restarted=first_restarted,
    )
    ctx = session.ctx
    for name, value in variables.items():
        # As recorded, not re-inferred: a Short stays a Short, a date keeps its milliseconds.
        session.emit(
            ev.VariableSet(
                variable_id=ctx.new_id(),
                name=name,
                execution_id=instance_id,
                value=value,
                time=ctx.now,
                detail_id=ctx.new_id(),
            )
        )
    # There before the process, as a start's variables: no conditional event sees them change.
    session.variable_changes.clear()
    session.skip_custom_listeners = skip_custom_listeners
    session.skip_io_mappings = skip_io_mappings
    start_by_instructions(Flow(session), instructions)
    return instance_id
