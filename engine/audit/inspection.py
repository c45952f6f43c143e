"""Reading an instance's past: its state at a position or a moment, its trail (activities passed,
flows taken), its timeline with each commit's chain status, and the chain of commands behind one
of its events with the conditions that chose its path. Reads the log only; runs no command.

States at a position fold forward from the nearest state kept in `FoldedStates` (every
CHECKPOINT_EVERY events of an instance already read), not from the instance's first event.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from time import monotonic

import msgspec
from sqlalchemy import select
from sqlalchemy.engine import Connection, RowMapping

from flowledger.core import audit_trail
from flowledger.core import events as ev
from flowledger.core.budget import CommandBudget, opened
from flowledger.core.errors import FlowledgerError, InvalidValue, NotFound
from flowledger.core.evolve import evolve
from flowledger.core.instance_trail import Trail, trail
from flowledger.core.instance_view import InstanceView, VariableView, instance_view, variables_view
from flowledger.core.model import ProcessModel
from flowledger.core.state import InstanceState, decode_state, encode_state
from flowledger.core.why_conditions import ConditionCheck, explained
from flowledger.engine.audit.folded_states import CHECKPOINT_EVERY, Checkpoint, FoldedStates
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.streams import Repository
from flowledger.eventlog import EventStore, StoredCommit
from flowledger.eventlog.integrity import stored_hash
from flowledger.eventlog.tables import event_log
from flowledger.projections.queries import reads as queries
from flowledger.projections.queries.filters import naive_utc

VERIFIED, DAMAGED = "verified", "damaged"
_ENDS = (ev.ProcessInstanceCompleted, ev.ProcessInstanceTerminated)


class PointInTime(msgspec.Struct, frozen=True):
    """An instance as it was right after the event at `position`, recorded at `recorded_at`.
    `variables_at_end`: an ended instance's variables as they were at its end."""

    position: int
    recorded_at: datetime
    state: InstanceState
    variables_at_end: list[VariableView] | None = None

    def view(self) -> InstanceView:
        return instance_view(self.state, self.variables_at_end)


class Inspection:
    """What `AuditService.state_at`, `trail`, `timeline` and `why` answer."""

    def __init__(self, db: Connections, store: EventStore, repository: Repository) -> None:
        self._db = db
        self._store = store
        self._repository = repository
        self.folded_states = FoldedStates()
        self.last_folded = 0  # events the last state_at folded (tests read it; no timing)

    # -- state at a point ------------------------------------------------------------------

    def state_at(
        self, instance_id: str, *, position: int | None = None, moment: datetime | None = None
    ) -> PointInTime:
        """The instance after its last event at or before `position` (or recorded at or before
        `moment`; the newest without either). Refuses a point beyond the log's end or before
        the instance began, naming both ends."""
        with self._db.read() as conn:
            if position is not None:
                self._inside_log(conn, position)
            if moment is None:
                return self._state_at_position(conn, instance_id, position)
            commits = self._commits(conn, instance_id)
        limit = self._limit(instance_id, commits, position, moment)
        start = self.folded_states.nearest(instance_id, limit)
        if start is not None:
            rest = self._after(instance_id, commits, start)
            start, commits = (None, commits) if rest is None else (start, rest)
        return self._fold(instance_id, start, commits, limit)

    def _state_at_position(
        self, conn: Connection, instance_id: str, position: int | None
    ) -> PointInTime:
        """Read only the commits from the nearest kept state to `position`, and fold them."""
        start = self.folded_states.nearest(instance_id, position)
        if start is not None:
            commits = self._span(conn, instance_id, start.version, position)
            if not commits or commits[0].prev_hash == start.commit_hash:
                limit = position if position is not None else start.position
                if position is None and commits:
                    limit = commits[-1].last_position
                return self._fold(instance_id, start, commits, limit)
            self.folded_states.drop(instance_id)  # not the stream its states were folded from
        commits = self._span(conn, instance_id, 0, position)
        if not commits or commits[0].first_version != 1:
            commits = self._commits(conn, instance_id)  # unknown, or it began after `position`
        else:
            first = self._repository.decode(commits[0].events)[0]
            if not isinstance(first, ev.ProcessInstanceStarted):
                raise NotFound("Process instance", instance_id, ev.not_an_instance(first))
        return self._fold(
            instance_id, None, commits, self._limit(instance_id, commits, position, None)
        )

    def _span(
        self, conn: Connection, instance_id: str, after_version: int, up_to: int | None
    ) -> list[StoredCommit]:
        """The stream's commits after `after_version` that begin at or before position
        `up_to`: a slider's step reads the few commits it folds, not the stream's rest."""
        stmt = select(event_log).where(
            event_log.c.stream_id == instance_id, event_log.c.last_version > after_version
        )
        if up_to is not None:
            stmt = stmt.where(event_log.c.first_position <= up_to)
        return [
            _commit(row._mapping) for row in conn.execute(stmt.order_by(event_log.c.first_version))
        ]

    def _limit(
        self,
        instance_id: str,
        commits: list[StoredCommit],
        position: int | None,
        moment: datetime | None,
    ) -> int:
        """The last position the state includes; refused before the instance began."""
        limit = commits[-1].last_position if position is None else position
        if moment is not None:
            moment = naive_utc(moment)
            limit = max((c.last_position for c in commits if c.recorded_at <= moment), default=0)
        if limit < commits[0].first_position:
            began = f"{commits[0].first_position} ({_shown(commits[0].recorded_at)})"
            asked = f"position {position}" if moment is None else _shown(moment)
            raise InvalidValue(
                f"process instance {instance_id} began at position {began}, after {asked}",
                "position" if moment is None else "timestamp",
            )
        return limit

    def _after(
        self, instance_id: str, commits: list[StoredCommit], start: Checkpoint
    ) -> list[StoredCommit] | None:
        """The commits after the kept state, when the stream still holds the commit it ends
        at; None (the instance's kept states dropped) otherwise."""
        ends = [c for c in commits if c.last_version == start.version]
        if ends and ends[0].hash == start.commit_hash:
            return [c for c in commits if c.first_version > start.version]
        self.folded_states.drop(instance_id)
        return None

    def _fold(
        self,
        instance_id: str,
        start: Checkpoint | None,
        commits: list[StoredCommit],
        limit: int,
    ) -> PointInTime:
        state: InstanceState | None = None
        at_position, recorded = 0, commits[0].recorded_at if commits else datetime.min
        at_end: tuple[VariableView, ...] | None = None
        first = commits[0].first_position if commits else 0
        if start is not None:
            state = decode_state(start.state)
            at_position, recorded = start.position, start.recorded_at
            at_end, first = start.variables_at_end, start.first_position
        folded = 0
        for commit in commits:
            if commit.first_position > limit:
                break
            events = self._repository.decode(commit.events)
            for i, event in enumerate(events):
                if commit.first_position + i > limit:
                    break
                if isinstance(event, _ENDS) and state is not None:
                    at_end = tuple(variables_view(state))
                state = evolve(state, event)
                folded += 1
                at_position, recorded = commit.first_position + i, commit.recorded_at
            else:
                assert state is not None  # the first commit starts the instance
                if (
                    state.version // CHECKPOINT_EVERY
                    != (state.version - len(events)) // CHECKPOINT_EVERY
                ):
                    self.folded_states.keep(
                        instance_id,
                        Checkpoint(
                            commit.last_version,
                            commit.last_position,
                            commit.recorded_at,
                            commit.hash,
                            encode_state(state),
                            at_end,
                            first,
                        ),
                    )
        self.last_folded = folded
        assert state is not None  # the first commit starts the instance
        return PointInTime(
            at_position,
            queries.utc(recorded) or recorded,
            state,
            None if at_end is None else list(at_end),
        )

    def _inside_log(self, conn: Connection, position: int) -> None:
        head = self._store.head_position(conn)
        if position > head or position < 1:
            raise InvalidValue(
                f"position {position} is outside the log, which holds positions 1 to {head}",
                "position",
            )

    # -- what it passed ---------------------------------------------------------------------

    def trail(self, instance_id: str, position: int | None = None) -> Trail:
        """The activities the instance entered and the flows it took up to `position`."""
        with self._db.read() as conn:
            if position is not None:
                self._inside_log(conn, position)
            commits = self._commits(conn, instance_id)
            limit = self._limit(instance_id, commits, position, None)
            events = list(self._events_until(commits, limit))
            model = self._model(conn, events[0][1])
        return trail((event for _p, event in events), model, events[-1][0])

    def _events_until(
        self, commits: list[StoredCommit], limit: int
    ) -> Iterator[tuple[int, ev.Event]]:
        for commit in commits:
            if commit.first_position > limit:
                return
            for i, event in enumerate(self._repository.decode(commit.events)):
                if commit.first_position + i > limit:
                    return
                yield commit.first_position + i, event

    def _model(self, conn: Connection, first: ev.Event) -> ProcessModel | None:
        """The instance's model, as deployed (None when it cannot be read any more)."""
        if not isinstance(first, ev.ProcessInstanceStarted):
            return None
        try:
            return self._repository.model(conn, first.definition_id, first.deployment_id)
        except FlowledgerError:
            return None

    # -- timeline and causes ----------------------------------------------------------------

    def timeline(self, instance_id: str) -> list[audit_trail.TimelineEntry]:
        with self._db.read() as conn:
            commits = self._trail(conn, instance_id)
        return audit_trail.timeline(commits)

    def why(self, instance_id: str, position: int) -> list[audit_trail.Cause]:
        """The command behind the event at `position`, and the commands behind that one, each
        with the conditions that chose the paths its token moves took."""
        with self._db.read() as conn:
            commits = self._trail(conn, instance_id)
            chain = audit_trail.causes(commits, position)
            if not chain:
                first, last = commits[0].first_position, commits[-1].first_position
                last += len(commits[-1].events) - 1
                raise InvalidValue(
                    f"process instance {instance_id} has no event at position {position}; its "
                    f"events lie between positions {first} and {last}",
                    "position",
                )
            model = self._model(conn, commits[0].events[0])
        if model is None:
            return chain
        checks = _conditions(commits, {c.position for c in chain}, position, model)
        return [
            msgspec.structs.replace(cause, conditions=checks.get(cause.position, []))
            for cause in chain
        ]

    def _commits(self, conn: Connection, instance_id: str) -> list[StoredCommit]:
        commits = self._store.read_stream(conn, instance_id)
        if not commits:
            raise NotFound("Process instance", instance_id)
        first = self._repository.decode(commits[0].events)[0]
        if not isinstance(first, ev.ProcessInstanceStarted):
            raise NotFound("Process instance", instance_id, ev.not_an_instance(first))
        return commits

    def _trail(self, conn: Connection, instance_id: str) -> list[audit_trail.Commit]:
        stored = self._commits(conn, instance_id)
        return [
            audit_trail.Commit(
                first_position=commit.first_position,
                recorded_at=queries.utc(commit.recorded_at) or commit.recorded_at,
                command_id=commit.command_id,
                command_type=commit.command_type,
                actor=commit.actor,
                via=commit.via,
                events=self._repository.decode(commit.events),
                chain=status,
            )
            for commit, status in zip(stored, chain_status(stored), strict=True)
        ]


def _commit(row: RowMapping) -> StoredCommit:
    """An event_log row as the store reads it (eventlog.store)."""
    events = row["events"]
    return StoredCommit(
        first_position=row["first_position"],
        last_position=row["last_position"],
        stream_id=row["stream_id"],
        first_version=row["first_version"],
        last_version=row["last_version"],
        events=events if isinstance(events, bytes) else events.encode(),
        command_id=row["command_id"],
        command_type=row["command_type"],
        actor=row["actor"],
        causation_position=row["causation_position"],
        recorded_at=row["recorded_at"],
        prev_hash=row["prev_hash"],
        hash=row["hash"],
        via=row["via"],
    )


def chain_status(commits: Sequence[StoredCommit]) -> list[str]:
    """Each commit's hash link in its stream: `verified` when it follows the commit before it
    (versions, previous hash) and its stored columns still give its hash, else `damaged`. One
    pass, one SHA-256 per commit (eventlog.integrity's check, commit by commit)."""
    out: list[str] = []
    version, previous = 0, None
    for commit in commits:
        linked = commit.first_version == version + 1 and commit.prev_hash == previous
        out.append(VERIFIED if linked and stored_hash(commit) == commit.hash else DAMAGED)
        version, previous = commit.last_version, commit.hash
    return out


def _conditions(
    commits: Sequence[audit_trail.Commit],
    explain: set[int],
    position: int,
    model: ProcessModel,
) -> dict[int, list[ConditionCheck]]:
    """The conditions evaluated in the commits starting at `explain` positions, each against
    the state replayed right before the completion that chose; the fold ends at `position`.
    Each evaluation is bounded by a command's budget of its own."""
    found: dict[int, list[ConditionCheck]] = {}
    state: InstanceState | None = None
    for commit in commits:
        for i, event in enumerate(commit.events):
            if commit.first_position + i > position:
                return found
            if (
                state is not None
                and commit.first_position in explain
                and isinstance(event, ev.ActivityCompleted)
            ):
                with opened(CommandBudget(clock=monotonic)):
                    checks = explained(commit.events, i, model, state)
                if checks:
                    found.setdefault(commit.first_position, []).extend(checks)
            state = evolve(state, event)
    return found


def _shown(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"
