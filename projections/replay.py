"""Committed events back through the projectors, in log order.

Three readers of the log use this: `verify` (rebuild in memory and compare), the rebuild of the
live tables, and the asynchronous history follower. Each needs the instance state just before
every commit; `Replayer` keeps those states and asks its caller for one it has not seen.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from sqlalchemy.engine import Connection

from flowledger.core import events as ev
from flowledger.core.evolve import evolve
from flowledger.core.state import InstanceState
from flowledger.eventlog import EventStore

from .changes import ChangeSet
from .history import HistoryProjector
from .operation_log import Operation, operation_logger
from .repository import project_repository
from .runtime import RuntimeBatch

# (stream id, version) -> the stream's state at that version, or None for a deployment stream
StateLoader = Callable[[str, int], InstanceState | None]


class _Decoder(Protocol):
    def decode(self, data: bytes) -> list[ev.Event]: ...


class Commit(Protocol):
    """What projecting reads of a commit: a log entry or a stored commit."""

    @property
    def stream_id(self) -> str: ...
    @property
    def first_version(self) -> int: ...
    @property
    def last_version(self) -> int: ...
    @property
    def command_id(self) -> str: ...
    @property
    def command_type(self) -> str: ...
    @property
    def actor(self) -> str | None: ...


def operation_of(commit: Commit) -> Operation:
    return Operation(commit.command_id, commit.command_type, commit.actor)


def state_at(
    store: EventStore, conn: Connection, codec: _Decoder, stream_id: str, version: int
) -> InstanceState | None:
    """An instance's state after `version` events, replayed from its stream in the log."""
    state: InstanceState | None = None
    for commit in store.read_stream(conn, stream_id):
        if commit.first_version > version:
            break
        for event in codec.decode(commit.events):
            if isinstance(event, ev.STATELESS_STREAM_EVENTS):
                return None
            if state is not None and state.version >= version:
                return state  # `version` falls inside this commit
            state = evolve(state, event)
    return state


# Event type -> whether it belongs to a stream without instance state (a deployment's, a decision
# evaluated over the API): isinstance against the tuple once per type, not per event replayed.
_STATELESS_TYPES: dict[type, bool] = {}


def project_events(
    events: Sequence[ev.Event],
    state: InstanceState | None,
    changes: ChangeSet,
    *,
    history: HistoryProjector | None,
    runtime: bool,
    repository: bool,
    operation: Operation | None = None,
) -> InstanceState | None:
    """Project one commit's events onto `changes`; returns the stream's state after them.
    `operation`: the command behind the commit, for the user operation log."""
    batch = RuntimeBatch() if runtime else None
    log_operation = operation_logger(history, operation)
    stateless_types = _STATELESS_TYPES
    for event in events:
        kind = type(event)
        stateless = stateless_types.get(kind)
        if stateless is None:
            stateless = stateless_types[kind] = issubclass(kind, ev.STATELESS_STREAM_EVENTS)
        if stateless:
            if repository:
                project_repository(event, changes)
            if history is not None:  # a deployment deleted with cascade takes history along
                history.observe(event, None, changes)
            if log_operation is not None:
                log_operation(event, None, changes)
            continue
        if batch is not None:
            batch.observe(event, state)
        if history is not None:
            history.observe(event, state, changes)
        if log_operation is not None:
            log_operation(event, state, changes)
        state = evolve(state, event)
    if batch is not None and state is not None:
        batch.finish(state, changes)
    return state


_ENDS = (ev.ProcessInstanceCompleted, ev.ProcessInstanceTerminated)
# The tags of `_ENDS` as a commit's JSON holds them: a commit without either does not end its
# instance, and is not decoded to find out.
_END_TAGS = tuple(f'"{t.__name__}"'.encode() for t in _ENDS)


def begin_and_end(
    commits: Iterable[tuple[str, int, bytes]], decode: Callable[[bytes], Sequence[ev.Event]]
) -> set[str]:
    """The instances that start and end among `commits` ((stream id, first version, stored
    events), in log order): the stream's first commit among them is its first (version 1)
    and its last one ends with the instance's end. Every runtime row is an entity of its
    instance's state, and the end clears that state and deletes the rows of every entity it
    had: projected into one change set, such an instance's runtime rows are inserted and
    deleted within it and net to nothing, so a batch holding all of these commits may leave
    their runtime projection out. Only a stream's last commit, and only when its JSON holds an
    end tag, is decoded to find out (a batch's decoded events are not held: the garbage
    collector would walk them over and over)."""
    starts: dict[str, bool] = {}
    last: dict[str, bytes] = {}
    for stream_id, first_version, data in commits:
        if stream_id not in starts:
            starts[stream_id] = first_version == 1
        last[stream_id] = data
    ended: set[str] = set()
    for stream_id, data in last.items():
        if starts[stream_id] and any(tag in data for tag in _END_TAGS):
            events = decode(data)
            if events and isinstance(events[-1], _ENDS):
                ended.add(stream_id)
    return ended


class Replayer:
    """Projects commits in position order, keeping the states of unfinished instances."""

    def __init__(
        self,
        load: StateLoader,
        *,
        history: HistoryProjector | None,
        runtime: bool,
        repository: bool,
        keep: int = 10_000,
    ) -> None:
        self._load = load
        self._history = history
        self._runtime = runtime
        self._repository = repository
        self._keep = keep
        self._states: OrderedDict[str, tuple[int, InstanceState]] = OrderedDict()

    def project(
        self,
        stream_id: str,
        first_version: int,
        last_version: int,
        events: Sequence[ev.Event],
        changes: ChangeSet,
        operation: Operation | None = None,
        *,
        runtime: bool = True,
    ) -> None:
        """Project one commit, adding its net row changes to the batch in `changes`;
        `runtime=False` leaves the runtime tables out for this commit (`begin_and_end`)."""
        state = self._state_before(stream_id, first_version, events)
        own = ChangeSet()  # revisions count per command, so each commit is projected alone
        after = project_events(
            events,
            state,
            own,
            history=self._history,
            runtime=self._runtime and runtime,
            repository=self._repository,
            operation=operation,
        )
        changes.merge(own)
        if after is None or after.ended:
            # A deployment stream has no state; a finished instance takes few more commits (its
            # history's deletion), and `_load` replays it for them.
            self._states.pop(stream_id, None)
            return
        self._states[stream_id] = (last_version, after)
        self._states.move_to_end(stream_id)
        while len(self._states) > self._keep:
            self._states.popitem(last=False)

    def project_commit(
        self,
        commit: Commit,
        events: Sequence[ev.Event],
        changes: ChangeSet,
        *,
        runtime: bool = True,
    ) -> None:
        """Project one commit read from the log, with the command behind it."""
        self.project(
            commit.stream_id,
            commit.first_version,
            commit.last_version,
            events,
            changes,
            operation_of(commit),
            runtime=runtime,
        )

    def forget(self) -> None:
        """Drop every kept state: after a failed commit they may be half evolved."""
        self._states.clear()

    def _state_before(
        self, stream_id: str, first_version: int, events: Sequence[ev.Event]
    ) -> InstanceState | None:
        if first_version == 1 or (events and isinstance(events[0], ev.STATELESS_STREAM_EVENTS)):
            return None  # a new stream, or a deployment stream (which has no state)
        known = self._states.get(stream_id)
        if known is not None and known[0] == first_version - 1:
            return known[1]
        return self._load(stream_id, first_version - 1)
