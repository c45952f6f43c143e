"""Moving tokens through a process: entering and leaving activities, forks, joins, ends, cancels.

The engine's equivalent of Camunda's PVM atomic operations, run from an explicit agenda so a
1,000-iteration loop never deepens the Python stack. What an element does is its behaviour's
(`core.behaviors`), asked through its lifecycle; nothing here names an element type.
Decide-side: every change is an emitted event.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Set
from functools import partial
from typing import Any

from . import element_kinds as kinds
from . import events as ev
from .behaviors import behavior_for, compensation
from .behaviors.base import refuse_trigger
from .behaviors.conditionals import dispatch as dispatch_conditions
from .behaviors.conditionals import enter_activity as enter_conditional_boundaries
from .behaviors.conditionals import evaluate_entered_scope
from .behaviors.event_subprocesses import arm as arm_event_subprocesses
from .behaviors.io import map_inputs, map_outputs
from .behaviors.jobs import (
    AFTER_END,
    AFTER_TAKE,
    BEFORE,
    PROCESS_START,
    continue_async,
    drop_jobs,
    schedule_boundary_timers,
)
from .behaviors.listeners import notify
from .behaviors.multi_instance import MultiInstanceBody
from .behaviors.subscriptions import drop_subscriptions, subscribe_boundary_events
from .errors import ProcessEngineError
from .model import Activity, ProcessModel, SequenceFlow
from .scope import evaluate, find_local, local_variables, visible_variables
from .session import CallEnded, InstanceSession
from .state import EventSubscription, Execution, Job


class Flow:
    """Runs one command's token movements until every token rests at a wait state."""

    def __init__(self, session: InstanceSession) -> None:
        self.session = session
        self.model: ProcessModel = session.model
        self._agenda: deque[Callable[[], None]] = deque()
        # Where a token is heading while its `enter` waits on the agenda (inclusive joins ask).
        self._in_transit: dict[str, str] = {}
        # Executions folded into their scope while work for them was still queued.
        self._replaced_by: dict[str, str] = {}
        # (execution, catch event) pairs whose event already occurred: entering passes through
        # (the event after an event-based gateway that fired).
        self._occurred: set[tuple[str, str]] = set()
        # Conditional events are being evaluated: what they cause does not evaluate them again
        # until it is done (Camunda dispatches the delayed variable events the same way).
        self._dispatching = False

    # -- plumbing ---------------------------------------------------------------------------

    @property
    def executions(self) -> dict[str, Execution]:
        return self.session.state.executions

    def emit(self, event: ev.Event) -> None:
        self.session.emit(event)

    def new_id(self) -> str:
        return self.session.ctx.new_id()

    def resolve(self, execution_id: str) -> str:
        while execution_id in self._replaced_by:
            execution_id = self._replaced_by[execution_id]
        return execution_id

    def run(self) -> None:
        agenda = self._agenda
        while True:
            while agenda:
                agenda.popleft()()
            # The tokens rest: the conditional events evaluate what the command changed
            # (core.behaviors.conditionals); what they start runs on, until nothing occurs.
            if not self._settle_conditions():
                return

    def _settle_conditions(self) -> bool:
        """Evaluate the conditional events of scopes just entered and of the command's variable
        changes. True: something occurred, its work is on the agenda."""
        session = self.session
        if self._dispatching or not (session.variable_changes or session.entered_scopes):
            return False
        self._dispatching = True
        try:
            while session.entered_scopes:
                execution_id, activity_instance_id = session.entered_scopes.pop(0)
                evaluate_entered_scope(self, execution_id, activity_instance_id)
            dispatch_conditions(self)
        finally:
            self._dispatching = False
        return bool(self._agenda or session.variable_changes or session.entered_scopes)

    def execution(self, execution_id: str) -> Execution:
        return self.executions[execution_id]

    def activity_of(self, execution_id: str) -> Activity:
        activity_id = self.executions[execution_id].activity_id
        if activity_id is None:
            raise ProcessEngineError(f"execution {execution_id} is not at an activity")
        return self.model.activities[activity_id]

    def flow_scope_execution(self, execution_id: str) -> Execution:
        """The scope execution the activities of this token's flow scope belong to."""
        e = self.executions[execution_id]
        return self.executions[e.parent_id] if e.is_concurrent and e.parent_id else e

    # -- entering ---------------------------------------------------------------------------

    def start(self) -> None:
        """Start the process at the start event it was started at (the instance was just
        created); its event subprocesses wait from now on."""
        state = self.session.state
        arm_event_subprocesses(self, state.id, self.model.id)
        start = state.start_activity_id or self.model.start_events[self.model.id]
        listeners = self.model.listeners
        notify(self.session, listeners, "start", state.id, self.model.id, at_activity=start)
        self.enter(state.id, start, None)
        self.run()

    def take(self, execution_id: str, flow: SequenceFlow) -> None:
        if flow.listeners:
            notify(
                self.session, flow.listeners, "take", execution_id, flow.id, at_activity=flow.source
            )
        self._in_transit[execution_id] = flow.target
        self._agenda.append(lambda: self.enter(execution_id, flow.target, flow.id))

    def enter(
        self, execution_id: str, activity_id: str, via: str | None, *, resumed: bool = False
    ) -> None:
        """The token arrives at the activity; `resumed`: its asyncBefore job is running."""
        execution_id = self.resolve(execution_id)
        self._in_transit.pop(execution_id, None)
        if execution_id not in self.executions:
            return  # cancelled while the token was on its way
        activity = self.model.activities[activity_id]
        occurred = (execution_id, activity_id) in self._occurred
        self._occurred.discard((execution_id, activity_id))
        if activity.async_before and not resumed and not occurred:
            state = self.session.state
            # the instance's own start (a boundary event, too, is entered by no flow)
            starting = (
                via is None
                and execution_id == state.id
                and activity_id
                == (state.start_activity_id or self.model.start_events.get(self.model.id))
            )
            continue_async(self, execution_id, activity, PROCESS_START if starting else BEFORE)
            return
        token = self.open_instance(execution_id, activity, via)
        if occurred:
            self.leave(token)
            return
        map_inputs(self, token, activity)
        if activity.listeners:
            notify(self.session, activity.listeners, "start", token, activity.id)
        if self.session.variable_changes and not self._dispatching:
            # Camunda dispatches here too (ActivityStart), before the activity's own boundary
            # events wait: they are evaluated once, as it starts, just below.
            moved = self._dispatch_conditions_at(token)
            if moved is None:
                return  # a conditional event cancelled the activity as it started
            token = moved
        if self.wait_at_boundaries(token, activity):
            return  # an interrupting conditional boundary event occurred at once
        behavior_for(activity).execute(self, token, activity)

    def open_instance(self, execution_id: str, activity: Activity, via: str | None) -> str:
        """Start an activity instance of `activity` for the token (a scope activity on an
        execution of its own, created here); returns the execution the instance runs on."""
        parent_ai = self.flow_scope_execution(execution_id).scope_activity_instance_id or ""
        token = execution_id
        if activity.is_scope:
            token = self.new_id()
            self.emit(
                ev.ExecutionCreated(
                    execution_id=token, parent_id=execution_id, is_scope=True, is_concurrent=False
                )
            )
        generated = self.new_id()
        instance_id = f"{activity.id}:{generated}"
        self.emit(
            ev.ActivityStarted(
                # Camunda's form, unless it would not fit the 64-character id columns
                activity_instance_id=instance_id if len(instance_id) <= 64 else generated,
                activity_id=activity.id,
                activity_type=activity.type,
                activity_name=activity.name,
                execution_id=token,
                parent_activity_instance_id=parent_ai,
                time=self.session.ctx.now,
                flow_id=via,
            )
        )
        return token

    def wait_at_boundaries(self, token: str, activity: Activity) -> bool:
        """The activity's boundary events wait from now on. True: an interrupting conditional
        one held at once (the activity is cancelled)."""
        ai_id = self.executions[token].activity_instance_id
        if not activity.boundary_events or ai_id is None:
            return False
        schedule_boundary_timers(self, token, activity, ai_id)
        subscribe_boundary_events(self, token, activity, ai_id)
        return enter_conditional_boundaries(self, token, activity, ai_id)

    def enter_later(self, execution_id: str, activity_id: str) -> None:
        self._agenda.append(lambda: self.enter(execution_id, activity_id, None))

    # -- leaving ----------------------------------------------------------------------------

    def select_outgoing(self, execution_id: str, activity: Activity) -> list[SequenceFlow]:
        """Camunda's default outgoing behaviour: all true or unconditional flows, else default."""
        chosen: list[SequenceFlow] = []
        for flow_id in activity.outgoing:
            if flow_id == activity.default_flow:
                continue
            flow = self.model.flows[flow_id]
            if flow.condition is None or self.condition(execution_id, flow):
                chosen.append(flow)
        if chosen:
            return chosen
        if activity.default_flow is not None:
            return [self.model.flows[activity.default_flow]]
        if activity.outgoing:
            raise ProcessEngineError(
                f"No conditional sequence flow leaving '{activity.id}' could be selected "
                "and there is no default flow"
            )
        return []

    def condition(self, execution_id: str, flow: SequenceFlow) -> bool:
        assert flow.condition is not None
        value = evaluate(
            self.session, flow.condition, execution_id, element_id=flow.id, what="the condition"
        )
        if not isinstance(value, bool):
            raise ProcessEngineError(
                f"The condition of sequence flow '{flow.id}' ({flow.condition.source}) "
                f"evaluated to {value!r}, not to a boolean"
            )
        return value

    def leave(self, execution_id: str) -> None:
        """The token's activity is done: its behaviour leaves it (usually by its outgoing flows)."""
        if self.session.variable_changes and not self._dispatching:
            left = self._dispatch_conditions_at(execution_id)
            if left is None:
                return  # a conditional event cancelled the activity
            execution_id = left
        activity = self.activity_of(execution_id)
        behavior_for(activity).leave(self, execution_id, activity)

    def _dispatch_conditions_at(self, execution_id: str) -> str | None:
        """Camunda dispatches the variable changes as an activity starts and before it is left:
        the conditional events they make true occur first. The execution the activity instance
        is on afterwards (a non-interrupting event may have moved it), or None: it was
        cancelled."""
        ai = self.executions[execution_id].activity_instance_id
        self._dispatching = True
        try:
            dispatch_conditions(self)
        finally:
            self._dispatching = False
        if ai is None:
            execution_id = self.resolve(execution_id)
            return execution_id if execution_id in self.executions else None
        instance = self.session.state.activity_instances.get(ai)
        return None if instance is None else instance.execution_id

    def event_occurred(self, execution_id: str, event: Activity) -> None:
        """The message, signal or timer the catch event `event` waits for arrived: the event
        goes on; after an event-based gateway, the gateway ends (its other subscriptions and
        timers with it) and the token passes through the event that occurred."""
        current = self.activity_of(execution_id)
        if current.id == event.id:
            self.leave(execution_id)
            return
        to_event = [self.model.flows[f] for f in current.outgoing]
        chosen = [f for f in to_event if f.target == event.id]
        if not chosen:
            raise ProcessEngineError(
                f"'{event.id}' occurred, but execution {execution_id} waits at '{current.id}'"
            )
        self._occurred.add((execution_id, event.id))
        self.complete(execution_id, current, chosen[:1])

    def trigger(self, execution_id: str, variables: Mapping[str, Any]) -> None:
        """Signal the activity an execution waits in; refused unless its behaviour accepts it."""
        execution = self.executions[execution_id]
        activity = self.model.activities.get(execution.activity_id or "")
        if activity is None or execution.activity_instance_id is None:
            raise refuse_trigger(execution)
        behavior_for(activity).trigger(self, execution_id, activity, variables)

    def complete(
        self,
        execution_id: str,
        activity: Activity,
        flows: list[SequenceFlow],
        activity_instance_id: str | None = None,
    ) -> None:
        """Complete the activity instance, destroy the activity's scope, continue along `flows`."""
        execution = self.executions[execution_id]
        ai = activity_instance_id or execution.activity_instance_id
        propagating = execution_id
        if activity.is_scope and execution.is_scope and execution.parent_id is not None:
            propagating = execution.parent_id
        ends_scope = not flows and not self.executions[propagating].is_concurrent
        if activity.io is not None:
            map_outputs(self, execution_id, activity)
        if activity.listeners:
            notify(self.session, activity.listeners, "end", execution_id, activity.id)
        if ai is not None:
            retained = compensation.retained_before_completion(self, activity, ai)
            drop_jobs(self, lambda job: job.activity_instance_id == ai)
            drop_subscriptions(self, lambda sub: sub.activity_instance_id == ai)
            self.emit(
                ev.ActivityCompleted(
                    activity_instance_id=ai,
                    time=self.session.ctx.now,
                    completes_scope=ends_scope and behavior_for(activity).completes_scope,
                )
            )
            compensation.subscribe_completed(self, execution_id, activity, ai, retained)
        if propagating != execution_id:
            self.emit(ev.ExecutionRemoved(execution_id=execution_id))
        if activity.async_after:
            self._continue_after(propagating, activity, flows)
        elif not flows:
            self.end(propagating, activity)
        elif len(flows) == 1:
            self.take(propagating, flows[0])
        else:
            self.fork(propagating, flows)

    def _continue_after(
        self, execution_id: str, activity: Activity, flows: list[SequenceFlow]
    ) -> None:
        """asyncAfter: the activity ended; a job per chosen flow continues from here (Camunda
        forks first, so each concurrent token waits for its own job), or one ends the path."""
        if not flows:
            continue_async(self, execution_id, activity, AFTER_END)
            return
        targets = (
            [(execution_id, flows[0])]
            if len(flows) == 1
            else self._fork_targets(execution_id, flows)
        )
        for target, flow in targets:
            continue_async(self, target, activity, AFTER_TAKE + flow.id)

    def resume_after(self, execution_id: str, configuration: str) -> None:
        """Run an asyncAfter job: take the flow it names, or end the path."""
        activity = self.activity_of(execution_id)
        if configuration == AFTER_END:
            self.end(execution_id, activity)
            return
        flow_id = configuration.removeprefix(AFTER_TAKE)
        if flow_id not in self.model.flows:
            raise ProcessEngineError(
                f"the continuation of '{activity.id}' names the flow '{flow_id}', which the "
                "deployed model does not have"
            )
        self.take(execution_id, self.model.flows[flow_id])

    def fork(self, execution_id: str, flows: list[SequenceFlow]) -> None:
        for target, flow in self._fork_targets(execution_id, flows):
            self.take(target, flow)

    def _fork_targets(
        self, execution_id: str, flows: list[SequenceFlow]
    ) -> list[tuple[str, SequenceFlow]]:
        """One concurrent execution per flow, the first taking the forking token's place."""
        execution = self.executions[execution_id]
        if execution.is_concurrent:
            assert execution.parent_id is not None
            scope_id, first = execution.parent_id, execution_id
        else:
            # A compacted scope forks: a concurrent execution takes its place (tree expansion).
            scope_id, first = execution_id, self.new_id()
            self.emit(
                ev.ExecutionCreated(
                    execution_id=first,
                    parent_id=scope_id,
                    is_scope=False,
                    is_concurrent=True,
                    replaces=execution_id,
                )
            )
        targets = [(first, flows[0])]
        for flow in flows[1:]:
            concurrent = self.new_id()
            self.emit(
                ev.ExecutionCreated(
                    execution_id=concurrent, parent_id=scope_id, is_scope=False, is_concurrent=True
                )
            )
            targets.append((concurrent, flow))
        return targets

    def end(self, execution_id: str, activity: Activity) -> None:
        """A token reached the end of a path: an end event, or an activity with no outgoing flow."""
        if compensation.is_compensating(self, execution_id):
            compensation.path_ended(self, execution_id)  # a compensation handler ended
            return
        execution = self.executions[execution_id]
        body = self.model.activities.get(activity.scope_id)
        if (
            execution.is_concurrent
            and body is not None
            and body.type == kinds.MULTI_INSTANCE_BODY.type
        ):
            behavior = behavior_for(body)
            assert isinstance(behavior, MultiInstanceBody)
            behavior.instance_ended(self, execution_id, body)
            return
        if execution.is_concurrent:
            assert execution.parent_id is not None
            parent = execution.parent_id
            self.emit(ev.ExecutionRemoved(execution_id=execution_id))
            self.try_prune(parent)
            return
        self.complete_scope(execution_id, activity.scope_id, activity.id)

    def complete_scope(self, scope_execution_id: str, scope_id: str, end_activity_id: str) -> None:
        """The last token of a scope ended: the process or the subprocess completes."""
        if scope_id == self.model.id:
            self._end_call(end_activity_id)
            notify(
                self.session,
                self.model.listeners,
                "end",
                scope_execution_id,
                scope_id,
                at_activity=end_activity_id,
            )
            self.emit(
                ev.ProcessInstanceCompleted(
                    end_activity_id=end_activity_id, time=self.session.ctx.now
                )
            )
            self._agenda.clear()
            return
        scope_activity = self.model.activities[scope_id]
        behavior_for(scope_activity).leave(self, scope_execution_id, scope_activity)

    def _end_call(self, end_activity_id: str) -> None:
        """A called instance completes: its caller goes on with its variables as they are."""
        state = self.session.state
        if state.super_process_instance_id is None or state.super_execution_id is None:
            return
        self.session.ctx.outbox.append(
            CallEnded(
                caller_id=state.super_process_instance_id,
                execution_id=state.super_execution_id,
                callee_id=state.id,
                variables=visible_variables(self.session, state.id),
            )
        )

    def try_prune(self, scope_execution_id: str) -> None:
        """Fold the last concurrent child back into its scope execution (Camunda's compaction)."""
        scope = self.executions.get(scope_execution_id)
        if scope is None or len(scope.children) != 1:
            return
        last = self.executions[scope.children[0]]
        if last.is_concurrent and not last.is_scope:
            self._merge_same_names(last.id, scope.id)
            self.emit(ev.ExecutionReplaced(execution_id=last.id, by_execution_id=scope.id))
            self._replaced_by[last.id] = scope.id
            if last.id in self._in_transit:
                self._in_transit[scope.id] = self._in_transit.pop(last.id)

    def _merge_same_names(self, source_id: str, target_id: str) -> None:
        """Compaction moves the source's variables to the target; where the target has the
        name already, Camunda (ExecutionEntity.moveVariableTo) sets the target's variable to
        the moved value and deletes the moved one, so a scope never holds a name twice."""
        session = self.session
        for name, var in list(local_variables(session, source_id).items()):
            existing = find_local(session, target_id, name)
            if existing is None:
                continue
            now = session.ctx.now
            self.emit(
                ev.VariableSet(
                    variable_id=existing.id,
                    name=name,
                    execution_id=target_id,
                    value=var.value,
                    time=now,
                    detail_id=session.ctx.new_id(),
                )
            )
            self.emit(ev.VariableDeleted(variable_id=var.id, time=now))

    # -- joins ------------------------------------------------------------------------------

    def waiting_at(self, scope: Execution, activity_id: str, exclude: str) -> list[str]:
        """Tokens of the scope that arrived at a join gateway and wait there."""
        found: list[str] = []
        stack = list(scope.children)
        while stack:
            execution = self.executions[stack.pop(0)]
            if (
                execution.id != exclude
                and execution.activity_id == activity_id
                and not execution.is_active
                and execution.activity_instance_id is not None
            ):
                found.append(execution.id)
            stack.extend(execution.children)
        return found

    def other_tokens_can_arrive(self, scope: Execution, gateway: str, joined: set[str]) -> bool:
        """Whether a leaf token of the scope (not waiting here) may still reach the gateway."""
        stack = [scope.id]
        while stack:
            execution = self.executions[stack.pop()]
            if execution.children:
                stack.extend(execution.children)
                continue
            if execution.id in joined:
                continue
            position = self._in_transit.get(execution.id) or execution.activity_id
            if position is not None and self.model.can_reach(position, gateway):
                return True
        return False

    def join(self, execution_id: str, joined: list[str], flows: list[SequenceFlow]) -> None:
        """All tokens of a join are here: end the waiting ones, continue with the arriving one."""
        activity = self.activity_of(execution_id)
        if joined:
            # Camunda (PvmExecutionImpl.leaveActivityViaTransitions): executions that join
            # leave their local variables behind, the one that goes on too, even when it is
            # folded into its scope right after; only the scope's variables continue.
            for token in (execution_id, *joined):
                for var in local_variables(self.session, token).values():
                    self.emit(ev.VariableDeleted(variable_id=var.id, time=self.session.ctx.now))
        for other in joined:
            other_execution = self.executions[other]
            if other_execution.activity_instance_id is not None:
                self.emit(
                    ev.ActivityCompleted(
                        activity_instance_id=other_execution.activity_instance_id,
                        time=self.session.ctx.now,
                    )
                )
            parent = other_execution.parent_id
            self.emit(ev.ExecutionRemoved(execution_id=other))
            if parent is not None:
                self.try_prune(parent)
        self.complete(self.resolve(execution_id), activity, flows)

    # -- cancellation and errors ------------------------------------------------------------

    def cancel_tree(self, execution_id: str, reason: str) -> None:
        """Cancel everything an execution and its descendants do, innermost first.

        Each open activity's behaviour first ends what it owns (a task, an external task); then
        the activity instances are cancelled, the scope's own last."""
        now = self.session.ctx.now
        state = self.session.state
        order: list[str] = []
        stack = [execution_id]
        while stack:
            current = stack.pop()
            order.append(current)
            stack.extend(self.executions[current].children)
        for current in reversed(order):
            execution = self.executions[current]
            scope_ai = execution.scope_activity_instance_id
            open_ais = sorted(
                (ai for ai in state.activity_instances.values() if ai.execution_id == current),
                key=lambda ai: ai.id == scope_ai,
            )
            for ai in open_ais:
                activity = self.model.activities[ai.activity_id]
                behavior_for(activity).cancel(self, current, activity, ai.id, reason)
                if activity.listeners:
                    notify(self.session, activity.listeners, "end", current, activity.id)
            ending = {ai.id for ai in open_ais}
            drop_jobs(self, partial(_ends_with, ending, current))
            drop_subscriptions(self, partial(_waits_in, ending))
            for ai in open_ais:
                self.emit(ev.ActivityCanceled(activity_instance_id=ai.id, time=now))
            if execution.parent_id is not None:
                self.emit(ev.ExecutionRemoved(execution_id=current))

    def cancel_contents(self, scope_execution_id: str, reason: str) -> None:
        """Cancel everything running in a scope, the scope itself (its execution and activity
        instance) kept: an interrupting event subprocess takes it over."""
        now = self.session.ctx.now
        scope = self.executions[scope_execution_id]
        for child in list(scope.children):
            self.cancel_tree(child, reason)
        scope = self.executions[scope_execution_id]
        own = [
            ai
            for ai in self.session.state.activity_instances.values()
            if ai.execution_id == scope_execution_id and ai.id != scope.scope_activity_instance_id
        ]
        for ai in own:
            activity = self.model.activities[ai.activity_id]
            behavior_for(activity).cancel(self, scope_execution_id, activity, ai.id, reason)
        ending = {ai.id for ai in own}
        drop_jobs(self, partial(_ends_with, ending, scope_execution_id))
        drop_subscriptions(self, partial(_waits_in, ending))
        for ai in own:
            self.emit(ev.ActivityCanceled(activity_instance_id=ai.id, time=now))

    def concurrent_beside(self, scope_execution_id: str) -> str:
        """A new concurrent execution in the scope, beside what runs there (a token alone in the
        scope first becomes concurrent itself: Camunda's tree expansion). In a scope nothing
        runs in (a modification emptied it, a restart has not filled it yet), the scope's own
        execution: there is nothing to run beside."""
        if self.runs_nothing(scope_execution_id):
            return scope_execution_id
        scope = self.executions[scope_execution_id]
        children = [self.executions[c] for c in scope.children]
        if not children or not all(c.is_concurrent for c in children):
            self.emit(
                ev.ExecutionCreated(
                    execution_id=self.new_id(),
                    parent_id=scope_execution_id,
                    is_scope=False,
                    is_concurrent=True,
                    replaces=scope_execution_id,
                )
            )
        token = self.new_id()
        self.emit(
            ev.ExecutionCreated(
                execution_id=token, parent_id=scope_execution_id, is_scope=False, is_concurrent=True
            )
        )
        return token

    def runs_nothing(self, scope_execution_id: str) -> bool:
        """No token, no activity of its own and no continuation waits in the scope."""
        state = self.session.state
        execution = state.executions[scope_execution_id]
        if execution.children or execution.activity_instance_id is not None:
            return False  # the usual answer, without a scan
        own = execution.scope_activity_instance_id
        if any(
            ai.execution_id == scope_execution_id and ai.id != own
            for ai in state.activity_instances.values()
        ):
            return False
        return not any(
            job.execution_id == scope_execution_id and job.activity_instance_id is None
            for job in state.jobs.values()
        )

    def scope_execution_for(self, execution_id: str, activity_id: str) -> Execution | None:
        current: str | None = execution_id
        while current is not None:
            execution = self.executions[current]
            if execution.is_scope and execution.scope_activity_id == activity_id:
                return execution
            current = execution.parent_id
        return None


def _ends_with(activity_instances: Set[str], execution_id: str, job: Job) -> bool:
    """Whether the job ends when these activity instances of the execution are cancelled: their
    timers, and the continuations waiting on the execution."""
    if job.activity_instance_id is None:
        return job.execution_id == execution_id
    return job.activity_instance_id in activity_instances


def _waits_in(activity_instances: Set[str], subscription: EventSubscription) -> bool:
    return subscription.activity_instance_id in activity_instances
