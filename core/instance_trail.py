"""What an instance passed up to a position of its log: the activities it entered (how often,
and which it is in), and the sequence flows its tokens took, for marking them on the diagram.

Pure: reads the instance's events in order and its model; no I/O.

The flows come from the events: `ActivityStarted.flow_id` names the flow a token arrived by.
One arrival records no flow: a token entering an activity through its asyncBefore job (the job
runs later, and the start it makes carries none). For those the flow is derived, and only when
unambiguous: the token's execution (or, for a scope activity, the execution its scope was
created under) completed activity A, nothing started on that execution since, and the model has
exactly one sequence flow from A to the entered activity. The arrival counts when the token
reaches the activity, i.e. when its asyncBefore job is created (or, for an older log, when the
activity starts). Anything else, such as an activity started by process instance modification
or a start event, took no flow and none is derived.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from . import events as ev
from .behaviors.jobs import ASYNC, BEFORE
from .model import ProcessModel


class ActivityPass(msgspec.Struct, frozen=True):
    """How often the instance entered one activity, and whether a token is in it now (or
    waits before it: an asyncBefore job, `count` 0 until the job enters it)."""

    activity_id: str
    count: int
    active: bool


class Trail(msgspec.Struct, frozen=True):
    """The activities in the order first entered; the flows in the order first taken."""

    position: int
    activities: list[ActivityPass]
    sequence_flows: list[str]


class _Walk:
    """The state of the derivation as the events pass."""

    def __init__(self, model: ProcessModel | None) -> None:
        self.model = model
        self.counts: dict[str, int] = {}
        self.open: dict[str, str] = {}  # activity instance id -> activity id
        self.of_instance: dict[str, str] = {}  # activity instance id -> its execution
        self.flows: dict[str, None] = {}  # taken, in order (a dict keeps the first time)
        # execution -> the activity it completed last, while no start on it used the arrival
        self.left: dict[str, str] = {}
        self.created_under: dict[str, str] = {}  # scope execution -> the one it was made in
        # asyncBefore job id -> its activity: a token waits before it (active, not yet entered)
        self.waiting: dict[str, str] = {}

    def see(self, event: ev.Event) -> None:
        match event:
            case ev.ActivityStarted():
                self.counts[event.activity_id] = self.counts.get(event.activity_id, 0) + 1
                self.open[event.activity_instance_id] = event.activity_id
                self.of_instance[event.activity_instance_id] = event.execution_id
                flow = event.flow_id or self._derived(event.execution_id, event.activity_id)
                if flow is not None:
                    self.flows.setdefault(flow, None)
                self._arrived(event.execution_id)
            case ev.ActivityCompleted() | ev.ActivityCanceled():
                activity = self.open.pop(event.activity_instance_id, None)
                execution = self.of_instance.get(event.activity_instance_id)
                if isinstance(event, ev.ActivityCompleted) and activity and execution:
                    self.left[execution] = activity
            case ev.ExecutionCreated() if event.is_scope:
                self.created_under[event.execution_id] = event.parent_id
            case ev.JobCreated() if event.handler_type == ASYNC and (
                event.handler_configuration == BEFORE
            ):
                flow = self._derived(event.execution_id, event.activity_id)
                if flow is not None:
                    self.flows.setdefault(flow, None)
                self._arrived(event.execution_id)
                self.waiting[event.job_id] = event.activity_id
            case ev.JobExecuted() | ev.JobDeleted():
                self.waiting.pop(event.job_id, None)
            case ev.ProcessInstanceCompleted() | ev.ProcessInstanceTerminated():
                self.open.clear()
                self.waiting.clear()

    def _arrived(self, execution: str) -> None:
        self.left.pop(execution, None)
        parent = self.created_under.get(execution)
        if parent is not None:
            self.left.pop(parent, None)

    def _derived(self, execution: str, target: str) -> str | None:
        """The one flow from the activity the token's execution just left to `target`."""
        if self.model is None:
            return None
        source = self.left.get(execution)
        if source is None and execution in self.created_under:
            source = self.left.get(self.created_under[execution])
        if source is None:
            return None
        found = [
            f.id for f in self.model.flows.values() if f.source == source and f.target == target
        ]
        return found[0] if len(found) == 1 else None


def trail(events: Iterable[ev.Event], model: ProcessModel | None, position: int) -> Trail:
    """The trail of an instance whose events up to `position` are `events` (in log order);
    without its model, the flows the events record and none derived."""
    walk = _Walk(model)
    for event in events:
        walk.see(event)
    open_activities = {*walk.open.values(), *walk.waiting.values()}
    passes = [
        ActivityPass(activity, count, activity in open_activities)
        for activity, count in walk.counts.items()
    ]
    # a token waiting before an activity it has not entered yet: active, entered 0 times
    passes += [
        ActivityPass(activity, 0, True)
        for activity in dict.fromkeys(walk.waiting.values())
        if activity not in walk.counts
    ]
    return Trail(position=position, activities=passes, sequence_flows=list(walk.flows))
