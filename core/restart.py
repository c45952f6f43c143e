"""Restarting an ended instance (Camunda's runtimeService.restartProcessInstances): a new
instance of the same definition, started by instructions rather than at its start event.

Pure: the caller reads the ended instance (its business key, its variables from the log) and
hands them in; this decides the new instance's events. It reads no database.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta

from . import commands as cmd
from . import events as ev
from .behaviors.event_subprocesses import arm as arm_event_subprocesses
from .behaviors.listeners import notify
from .errors import Rejected
from .evolve import evolve
from .flow import Flow
from .limits import MAX_BUSINESS_KEY, check_text, check_variable_count
from .model import ProcessModel
from .modification import ended_early, instantiate
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


def first_activity(
    model: ProcessModel, definition_id: str, instruction: cmd.StartInstruction
) -> str:
    """The activity the instruction's token enters first: Camunda's start activity of an
    instance started by instructions (ACT_HI_PROCINST.START_ACT_ID_)."""
    if isinstance(instruction, cmd.StartTransition):
        flow = model.flows.get(instruction.transition_id)
        if flow is None:
            raise Rejected(
                f"Element '{instruction.transition_id}' does not exist in process {definition_id}"
            )
        return flow.target
    activity = model.activities.get(instruction.activity_id)
    if activity is None:
        raise Rejected(
            f"Element '{instruction.activity_id}' does not exist in process {definition_id}"
        )
    if isinstance(instruction, cmd.StartAfterActivity) and len(activity.outgoing) == 1:
        return model.flows[activity.outgoing[0]].target
    # (more or fewer than one flow after it: `instantiate` refuses it, naming the activity)
    return activity.id


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
    check_text("businessKey", business_key, MAX_BUSINESS_KEY)
    check_variable_count(variables)
    start = first_activity(model, definition_id, instructions[0])
    ctx = session.ctx
    instance_id = ctx.new_id()
    ttl = model.history_ttl if model.history_ttl is not None else ctx.history_ttl_days
    removal_time = None
    if ctx.removal_time_strategy == "start" and ttl is not None:
        removal_time = ctx.now + timedelta(days=ttl)
    session.emit(
        ev.ProcessInstanceStarted(
            process_instance_id=instance_id,
            definition_id=definition_id,
            definition_key=model.id,
            definition_version=definition_version,
            deployment_id=deployment_id,
            business_key=business_key,
            start_activity_id=start,
            time=ctx.now,
            start_user_id=ctx.actor,
            history_ttl_days=ttl,
            removal_time=removal_time,
            restarted_from=restarted_from,
            restarted_count=restarted_count,
            first_restarted=first_restarted,
        )
    )
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
    flow = Flow(session)
    arm_event_subprocesses(flow, instance_id, model.id)
    # the process's start listeners (none when skipped: `notify` reads the session's flag)
    notify(session, model.listeners, "start", instance_id, model.id, at_activity=start)
    flow.run()
    for n, instruction in enumerate(instructions):
        if session.state.ended:
            raise ended_early(instructions, n)
        instantiate(flow, instruction)
        flow.run()
    return instance_id
