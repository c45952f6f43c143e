"""Process instance modification: an operator moves tokens by hand (Camunda's
ProcessInstanceModificationBuilder), and the start instructions a restart begins with.

Each instruction runs to its wait states before the next, as Camunda's do. Cancelling takes the
enclosing scope along when the cancelled instance was all it held (the instance itself is kept
until the last instruction: what later instructions start may reuse it); an instance left with
nothing running ends, externally terminated. Starting creates the missing flow scopes between the
closest existing one (or the named ancestor's) and the target.

Decide-side: every change is an emitted event, after a `ProcessInstanceModified` that records the
instructions, the annotation and the skip flags, so the trail says who moved what and why.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import commands as cmd
from . import element_kinds as kinds
from . import events as ev
from .behaviors.event_subprocesses import arm, fire
from .behaviors.io import map_inputs
from .behaviors.jobs import drop_jobs
from .behaviors.listeners import notify
from .behaviors.multi_instance import ACTIVE, COMPLETED, INSTANCES, LOOP_COUNTER
from .errors import NotFound, Rejected
from .flow import Flow
from .limits import MAX_TEXT, check_text, check_variable_count
from .model import Activity, EventSpec, MultiInstanceSpec, ProcessModel, SequenceFlow
from .scope import find_local, set_variable, set_variable_local
from .session import InstanceSession
from .state import InstanceState
from .variables import from_stored

# Camunda's: an instance a modification left with nothing running is cancelled with no reason;
# the tasks it cancels on the way are deleted as deleting an instance deletes them.
CANCEL_REASON = "deleted"


def describe(instruction: cmd.ModificationInstruction) -> str:
    """An instruction as Camunda's `describe()` words it (its errors start with it too)."""
    match instruction:
        case cmd.StartBeforeActivity():
            text = f"Start before activity '{instruction.activity_id}'"
        case cmd.StartAfterActivity():
            text = f"Start after activity '{instruction.activity_id}'"
        case cmd.StartTransition():
            text = f"Start transition '{instruction.transition_id}'"
        case cmd.CancelActivityInstance():
            return f"Cancel activity instance '{instruction.activity_instance_id}'"
        case cmd.CancelTransitionInstance():
            return f"Cancel transition instance '{instruction.transition_instance_id}'"
        case cmd.CancelAllForActivity():
            return f"Cancel all instances of activity '{instruction.activity_id}'"
    ancestor = instruction.ancestor_activity_instance_id
    if ancestor is not None:
        text += f" with ancestor activity instance '{ancestor}'"
    return text


def ended_early(instructions: Sequence[cmd.ModificationInstruction], n: int) -> Rejected:
    """Instruction `n` finds the instance ended by the one before it. Camunda keeps the instance
    until its last instruction (preserveScope); here the command is refused, not half done."""
    return _failure(
        instructions[n],
        f"the instance ended with instruction {n} of {len(instructions)} "
        f"({describe(instructions[n - 1])})",
    )


def _failure(instruction: cmd.ModificationInstruction, reason: str) -> Rejected:
    return Rejected(f"Cannot perform instruction: {describe(instruction)}; {reason}")


def modify(
    session: InstanceSession,
    instructions: Sequence[cmd.ModificationInstruction],
    *,
    skip_custom_listeners: bool,
    skip_io_mappings: bool,
    annotation: str | None,
    together: int = 0,
    first_of_many: bool = False,
) -> None:
    """Run the instructions on the session's instance, in order, in this one command;
    `together`: the number of instances the command modifies, when it modifies many
    (`first_of_many`: this is the first of them)."""
    state = session.state
    if state.ended:
        raise NotFound("Process instance", state.id, "it has already ended")
    if state.suspended:
        raise Rejected(
            f"Process instance '{state.id}' is suspended: activate it before modifying it"
        )
    if not instructions:
        raise Rejected("A modification needs at least one instruction")
    check_text("annotation", annotation, MAX_TEXT)
    check_variable_count(
        *(
            values
            for i in instructions
            if isinstance(i, cmd.StartInstruction)
            for values in (i.variables, i.local_variables)
        )
    )
    session.skip_custom_listeners = skip_custom_listeners
    session.skip_io_mappings = skip_io_mappings
    session.emit(
        ev.ProcessInstanceModified(
            instructions=[describe(i) for i in instructions],
            time=session.ctx.now,
            annotation=annotation,
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
            together=together,
            first_of_many=first_of_many,
        )
    )
    flow = Flow(session)
    # cancelCurrentActiveActivityInstances: only what ran when the modification began
    flow_started_with = _nodes(session.state)
    for n, instruction in enumerate(instructions):
        if session.state.ended:
            raise ended_early(instructions, n)
        if isinstance(instruction, cmd.StartInstruction):
            instantiate(flow, instruction)
        else:
            _cancel(flow, instruction, flow_started_with)
        flow.run()
    if not session.state.ended and flow.runs_nothing(session.state.id):
        flow.cancel_tree(state.id, CANCEL_REASON)
        session.emit(
            ev.ProcessInstanceTerminated(reason=None, externally=True, time=session.ctx.now)
        )


# -- starting ---------------------------------------------------------------------------------


def start_by_instructions(flow: Flow, instructions: Sequence[cmd.StartInstruction]) -> None:
    """A new instance starts where the instructions say, not at its start event (Camunda's
    StartProcessInstanceAtActivitiesCmd): its event subprocesses wait and its start listeners
    run, then each instruction runs to its wait states in turn."""
    state = flow.session.state
    arm(flow, state.id, flow.model.id)
    start = state.start_activity_id
    notify(flow.session, flow.model.listeners, "start", state.id, flow.model.id, at_activity=start)
    # No run before the first instruction: its conditional events are evaluated once tokens rest.
    for n, instruction in enumerate(instructions):
        if flow.session.state.ended:
            raise ended_early(instructions, n)
        instantiate(flow, instruction)
        flow.run()


def first_activity(model: ProcessModel, instruction: cmd.StartInstruction) -> str:
    """The activity the instruction's token enters first: Camunda's start activity of an
    instance started by instructions (ACT_HI_PROCINST.START_ACT_ID_)."""
    if isinstance(instruction, cmd.StartTransition):
        flow = model.flows.get(instruction.transition_id)
        if flow is None:
            raise _failure(instruction, _missing(model, instruction.transition_id))
        return flow.target
    activity = model.activities.get(instruction.activity_id)
    if activity is None:
        raise _failure(instruction, _missing(model, instruction.activity_id))
    if isinstance(instruction, cmd.StartAfterActivity) and len(activity.outgoing) == 1:
        return model.flows[activity.outgoing[0]].target
    return activity.id  # (no single flow after it: `instantiate` refuses it, naming it)


def instantiate(flow: Flow, instruction: cmd.StartInstruction) -> None:
    """Put a token where the instruction says, its missing flow scopes created; the caller runs
    the flow on."""
    model = flow.model
    via: SequenceFlow | None = None
    target: Activity | None = None
    match instruction:
        case cmd.StartTransition():
            via = model.flows.get(instruction.transition_id)
            if via is None:
                raise _failure(instruction, _missing(model, instruction.transition_id))
            flow_scope = model.activities[via.source].scope_id
        case cmd.StartAfterActivity():
            source = model.activities.get(instruction.activity_id)
            if source is None:
                raise _failure(instruction, _missing(model, instruction.activity_id))
            if len(source.outgoing) != 1:
                many = "more than one outgoing sequence flow" if source.outgoing else None
                raise _failure(
                    instruction,
                    f"activity has {many or 'no outgoing sequence flow to take'}",
                )
            via = model.flows[source.outgoing[0]]
            flow_scope = source.scope_id
        case cmd.StartBeforeActivity():
            target = model.activities.get(instruction.activity_id)
            if target is None:
                raise _failure(instruction, _missing(model, instruction.activity_id))
            flow_scope = target.scope_id
    element = target.id if target is not None else via.id if via is not None else ""
    scope_execution, stack = _ancestor(flow, instruction, flow_scope, element)
    esp = _event_subprocess_started(model, target, stack)
    if esp is not None:
        # Starting an event subprocess (or its start event) is its event occurring: an
        # interrupting one takes the scope over, as when its event arrives.
        fire(flow, scope_execution, model.activities[model.start_events[esp]])
        _set_variables(flow, scope_execution, instruction)
        return
    if isinstance(instruction, cmd.StartBeforeActivity) and target is not None:
        _interrupt_attached(flow, instruction, target)
        scope_execution = flow.resolve(scope_execution)
    token = _token_in(flow, instruction, scope_execution, flow_scope if not stack else None)
    for scope in stack:
        token = _open_scope(flow, token, model.activities[scope])
    _set_variables(flow, token, instruction)
    if via is not None:
        flow.take(token, via)
    else:
        assert target is not None
        flow.enter_later(token, target.id)


def _missing(model: ProcessModel, element_id: str) -> str:
    return f"Element '{element_id}' does not exist in process '{model.id}'"


def _flow_scopes(model: ProcessModel, scope_id: str) -> list[str]:
    """The flow scope and the ones enclosing it, innermost first, the process last."""
    chain = [scope_id]
    while chain[-1] != model.id:
        chain.append(model.activities[chain[-1]].scope_id)
    return chain


def _scope_executions(state: InstanceState, model: ProcessModel, scope_id: str) -> list[str]:
    if scope_id == model.id:
        return [state.id]
    return sorted(
        e.id
        for e in state.executions.values()
        if e.is_scope and e.scope_activity_id == scope_id and e.scope_activity_instance_id
    )


def _ancestor(
    flow: Flow, instruction: cmd.StartInstruction, flow_scope: str, element: str
) -> tuple[str, list[str]]:
    """The scope execution the new token goes into, and the flow scopes to create inside it
    (outermost first) down to the target's."""
    state, model = flow.session.state, flow.model
    chain = _flow_scopes(model, flow_scope)
    ancestor = instruction.ancestor_activity_instance_id
    if ancestor is None:
        for depth, scope in enumerate(chain):
            found = _scope_executions(state, model, scope)
            if not found:
                continue
            if len(found) > 1:
                raise _failure(
                    instruction,
                    f"Ancestor activity execution is ambiguous for activity '{scope}': it runs "
                    f"{len(found)} times; name the one to start in with "
                    "ancestorActivityInstanceId",
                )
            return found[0], list(reversed(chain[:depth]))
        raise AssertionError("the process instance is always a scope execution")
    if ancestor == state.id:
        return state.id, list(reversed(chain[:-1]))
    if ancestor not in state.activity_instances:
        raise _failure(instruction, f"Ancestor activity instance '{ancestor}' does not exist")
    scope_activity = state.activity_instances[ancestor].activity_id
    owners = [e.id for e in state.executions.values() if e.scope_activity_instance_id == ancestor]
    if scope_activity not in chain or not owners:
        raise _failure(
            instruction,
            f"Scope execution for '{ancestor}' cannot be found in parent hierarchy of flow "
            f"element '{element}'",
        )
    return owners[0], list(reversed(chain[: chain.index(scope_activity)]))


def _token_in(
    flow: Flow, instruction: cmd.StartInstruction, scope_execution: str, flow_scope: str | None
) -> str:
    """The execution the new token runs on: the scope's own when nothing runs in it any more,
    else a new concurrent one beside what runs there."""
    body = flow.model.activities.get(flow_scope or "")
    if body is not None and isinstance(body.spec, MultiInstanceSpec):
        return _new_inner_instance(flow, instruction, scope_execution, body)
    return flow.concurrent_beside(scope_execution)


def _new_inner_instance(
    flow: Flow, instruction: cmd.StartInstruction, body_execution: str, body: Activity
) -> str:
    """One more instance of a running parallel multi-instance body (Camunda's
    createInnerInstance): counted in nrOfInstances and nrOfActiveInstances."""
    spec = body.spec
    assert isinstance(spec, MultiInstanceSpec)
    if spec.sequential:
        raise _failure(
            instruction,
            f"Concurrent instantiation not possible for activities in scope {body.id}",
        )
    session = flow.session
    total = _count(flow, body_execution, INSTANCES)
    token = flow.concurrent_beside(body_execution)
    set_variable_local(session, body_execution, INSTANCES, total + 1)
    set_variable_local(session, body_execution, ACTIVE, _count(flow, body_execution, ACTIVE) + 1)
    set_variable_local(session, token, LOOP_COUNTER, total)
    return token


def _count(flow: Flow, execution_id: str, name: str) -> int:
    var = find_local(flow.session, execution_id, name)
    value = None if var is None else from_stored(var.value)
    return value if isinstance(value, int) else 0


def _open_scope(flow: Flow, token: str, scope: Activity) -> str:
    """Start a flow scope on the token without starting what is in it (Camunda's
    executeActivities): its instance, input mappings, start listeners, boundary events and
    event subprocesses. Returns the execution its content runs on."""
    execution = flow.open_instance(token, scope, None)
    map_inputs(flow, execution, scope)
    if scope.listeners:
        notify(flow.session, scope.listeners, "start", execution, scope.id)
    flow.wait_at_boundaries(execution, scope)
    if isinstance(scope.spec, MultiInstanceSpec):
        # A body started for one inner instance counts that one (Camunda's initializeScope).
        session = flow.session
        set_variable_local(session, execution, INSTANCES, 1)
        set_variable_local(session, execution, ACTIVE, 1)
        set_variable_local(session, execution, COMPLETED, 0)
        if scope.spec.sequential:
            set_variable_local(session, execution, LOOP_COUNTER, 0)
            return execution
        inner = flow.new_id()
        flow.emit(
            ev.ExecutionCreated(
                execution_id=inner, parent_id=execution, is_scope=False, is_concurrent=True
            )
        )
        set_variable_local(session, inner, LOOP_COUNTER, 0)
        return inner
    arm(flow, execution, scope.id)
    return execution


def _event_subprocess_started(
    model: ProcessModel, target: Activity | None, stack: list[str]
) -> str | None:
    """The event subprocess the instruction starts as its event would (it, or its start event,
    in a scope that runs), if it does: Camunda's start behaviour of its initial activity."""
    if target is None:
        return None
    if not stack and model.is_event_subprocess(target.id):
        return target.id
    scope = target.scope_id
    at_start = model.is_event_subprocess(scope) and model.start_events.get(scope) == target.id
    return scope if at_start and stack == [scope] else None


def _interrupt_attached(
    flow: Flow, instruction: cmd.StartBeforeActivity, boundary: Activity
) -> None:
    """Starting an interrupting boundary event cancels the activity it sits on, when that runs
    once (Camunda's CANCEL_EVENT_SCOPE); else the event starts beside it."""
    spec = boundary.spec
    if not isinstance(spec, EventSpec) or not spec.attached_to or not spec.cancel_activity:
        return
    state = flow.session.state
    running = [
        ai.id for ai in state.activity_instances.values() if ai.activity_id == spec.attached_to
    ]
    if len(running) > 1:
        raise _failure(instruction, f"Executions for activity '{spec.attached_to}' ambiguous")
    if running:
        _cancel_node(flow, running[0])


def _set_variables(flow: Flow, token: str, instruction: cmd.StartInstruction) -> None:
    session = flow.session
    for name, value in instruction.variables.items():
        set_variable(session, token, name, value)
    for name, value in instruction.local_variables.items():
        set_variable_local(session, token, name, value)


# -- cancelling -------------------------------------------------------------------------------


def _cancel(
    flow: Flow,
    instruction: cmd.CancelActivityInstance
    | cmd.CancelTransitionInstance
    | cmd.CancelAllForActivity,
    started_with: frozenset[str],
) -> None:
    state = flow.session.state
    match instruction:
        case cmd.CancelActivityInstance():
            node = instruction.activity_instance_id
            if node != state.id and node not in state.activity_instances:
                raise _failure(instruction, f"Activity instance '{node}' does not exist")
            _cancel_topmost(flow, node)
        case cmd.CancelTransitionInstance():
            node = instruction.transition_instance_id
            if node not in _transition_instances(state):
                raise _failure(instruction, f"Transition instance '{node}' does not exist")
            _cancel_topmost(flow, node)
        case cmd.CancelAllForActivity():
            activity_id = instruction.activity_id
            if activity_id not in flow.model.activities:
                raise _failure(instruction, _missing(flow.model, activity_id))
            nodes = sorted(
                ai.id for ai in state.activity_instances.values() if ai.activity_id == activity_id
            )
            nodes += [t for t, at in _transition_instances(state).items() if at == activity_id]
            if instruction.cancel_current_active_activity_instances_only:
                nodes = [node for node in nodes if node in started_with]
            for node in nodes:
                # An earlier one may have taken this one along (a scope it was the last of).
                current = flow.session.state
                if node in current.activity_instances or node in _transition_instances(current):
                    _cancel_topmost(flow, node)


def _nodes(state: InstanceState) -> frozenset[str]:
    """The activity and transition instances running now."""
    return frozenset(state.activity_instances) | frozenset(_transition_instances(state))


def _transition_instances(state: InstanceState) -> dict[str, str]:
    """Tokens waiting for an asynchronous continuation (their execution ids) -> the activity."""
    return {
        job.execution_id: job.activity_id
        for job in state.jobs.values()
        if job.activity_instance_id is None and job.execution_id in state.executions
    }


def _children(state: InstanceState, parent_ai: str) -> list[str]:
    """The activity and transition instances directly inside an activity instance."""
    children = [ai.id for ai in state.activity_instances.values() if ai.parent_id == parent_ai]
    for execution_id in _transition_instances(state):
        execution = state.executions[execution_id]
        scope = execution
        if execution.is_concurrent and execution.parent_id is not None:
            scope = state.executions[execution.parent_id]
        if (scope.scope_activity_instance_id or state.id) == parent_ai:
            children.append(execution_id)
    return children


def _parent_of(state: InstanceState, node: str) -> str:
    if node in state.activity_instances:
        return state.activity_instances[node].parent_id
    execution = state.executions[node]
    scope = execution
    if execution.is_concurrent and execution.parent_id is not None:
        scope = state.executions[execution.parent_id]
    return scope.scope_activity_instance_id or state.id


def _cancel_topmost(flow: Flow, node: str) -> None:
    """Cancel the activity (or transition) instance, and each enclosing scope it was all that
    ran in (Camunda's topmost cancellable execution). The process instance itself is emptied,
    not ended: a later instruction may start in it."""
    state = flow.session.state
    if node == state.id:
        flow.cancel_contents(state.id, CANCEL_REASON)
        return
    parent = _parent_of(state, node)
    while parent != state.id and len(_children(state, parent)) <= 1:
        node, parent = parent, _parent_of(state, parent)
    if parent == state.id and len(_children(state, state.id)) <= 1:
        flow.cancel_contents(state.id, CANCEL_REASON)
        return
    _cancel_node(flow, node)


def _cancel_node(flow: Flow, node: str) -> None:
    """Cancel one activity or transition instance that runs beside others in its scope."""
    state = flow.session.state
    parent_ai = _parent_of(state, node)
    execution = _execution_of(state, node)
    parent = state.executions[execution].parent_id
    if node in state.activity_instances:
        flow.cancel_tree(execution, CANCEL_REASON)
    else:
        drop_jobs(flow, lambda job: job.execution_id == execution)
        flow.emit(ev.ExecutionRemoved(execution_id=execution))
    if parent is None:
        return
    holder = flow.session.state.executions[parent]
    if holder.is_concurrent and not holder.children and holder.parent_id is not None:
        # The scope ran on a concurrent execution of its own: that one goes too.
        scope = holder.parent_id
        flow.emit(ev.ExecutionRemoved(execution_id=holder.id))
        parent = scope
    _uncount_inner_instance(flow, parent_ai, parent)
    flow.try_prune(parent)


def _execution_of(state: InstanceState, node: str) -> str:
    """The execution an activity instance owns (a scope's own), or the waiting token."""
    if node not in state.activity_instances:
        return node
    for execution in state.executions.values():
        if execution.scope_activity_instance_id == node:
            return execution.id
    return state.activity_instances[node].execution_id


def _uncount_inner_instance(flow: Flow, parent_ai: str, scope_execution: str) -> None:
    """A cancelled inner instance of a parallel multi-instance body is one fewer (Camunda's
    destroyInnerInstance)."""
    state = flow.session.state
    ai = state.activity_instances.get(parent_ai)
    if ai is None or ai.activity_type != kinds.MULTI_INSTANCE_BODY.type:
        return
    session = flow.session
    set_variable_local(
        session, scope_execution, INSTANCES, _count(flow, scope_execution, INSTANCES) - 1
    )
    set_variable_local(session, scope_execution, ACTIVE, _count(flow, scope_execution, ACTIVE) - 1)
