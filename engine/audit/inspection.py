"""Reading an instance's past: its state at a position or a moment, its timeline, and the chain
of commands behind one of its events. Reads the log only; runs no command.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from sqlalchemy.engine import Connection

from flowledger.core import audit_trail
from flowledger.core import events as ev
from flowledger.core.errors import InvalidValue, NotFound
from flowledger.core.evolve import evolve
from flowledger.core.state import InstanceState
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.streams import Repository
from flowledger.eventlog import EventStore, StoredCommit
from flowledger.projections.queries import reads as queries
from flowledger.projections.queries.filters import naive_utc


class PointInTime(msgspec.Struct, frozen=True):
    """An instance as it was right after the event at `position`, recorded at `recorded_at`."""

    position: int
    recorded_at: datetime
    state: InstanceState


class Inspection:
    """What `AuditService.state_at`, `timeline` and `why` answer."""

    def __init__(self, db: Connections, store: EventStore, repository: Repository) -> None:
        self._db = db
        self._store = store
        self._repository = repository

    def state_at(
        self, instance_id: str, *, position: int | None = None, moment: datetime | None = None
    ) -> PointInTime:
        """The instance after its last event at or before `position` (or recorded at or before
        `moment`; the newest without either). Refuses a point beyond the log's end or before
        the instance began, naming both ends."""
        with self._db.read() as conn:
            commits = self._commits(conn, instance_id)
            if position is not None:
                head = self._store.head_position(conn)
                if position > head or position < 1:
                    raise InvalidValue(
                        f"position {position} is outside the log, which holds positions 1 to "
                        f"{head}",
                        "position",
                    )
        last = commits[-1]
        limit = last.last_position if position is None else position
        if moment is not None:
            moment = naive_utc(moment)
            limit = max(
                (c.last_position for c in commits if c.recorded_at <= moment),
                default=0,
            )
        if limit < commits[0].first_position:
            began = f"{commits[0].first_position} ({_shown(commits[0].recorded_at)})"
            asked = f"position {position}" if moment is None else _shown(moment)
            raise InvalidValue(
                f"process instance {instance_id} began at position {began}, after {asked}",
                "position" if moment is None else "timestamp",
            )
        state: InstanceState | None = None
        at_position, recorded = 0, commits[0].recorded_at
        for commit in commits:
            if commit.first_position > limit:
                break
            for i, event in enumerate(self._repository.decode(commit.events)):
                if commit.first_position + i > limit:
                    break
                state = evolve(state, event)
                at_position, recorded = commit.first_position + i, commit.recorded_at
        assert state is not None  # the first commit starts the instance
        return PointInTime(at_position, queries.utc(recorded) or recorded, state)

    def timeline(self, instance_id: str) -> list[audit_trail.TimelineEntry]:
        with self._db.read() as conn:
            commits = self._trail(conn, instance_id)
        return audit_trail.timeline(commits)

    def why(self, instance_id: str, position: int) -> list[audit_trail.Cause]:
        """The command behind the event at `position`, and the commands behind that one."""
        with self._db.read() as conn:
            commits = self._trail(conn, instance_id)
        chain = audit_trail.causes(commits, position)
        if not chain:
            first, last = commits[0].first_position, commits[-1].first_position
            last += len(commits[-1].events) - 1
            raise InvalidValue(
                f"process instance {instance_id} has no event at position {position}; its events "
                f"lie between positions {first} and {last}",
                "position",
            )
        return chain

    def _commits(self, conn: Connection, instance_id: str) -> list[StoredCommit]:
        commits = self._store.read_stream(conn, instance_id)
        if not commits:
            raise NotFound("Process instance", instance_id)
        first = self._repository.decode(commits[0].events)[0]
        if not isinstance(first, ev.ProcessInstanceStarted):
            raise NotFound("Process instance", instance_id, ev.not_an_instance(first))
        return commits

    def _trail(self, conn: Connection, instance_id: str) -> list[audit_trail.Commit]:
        out = []
        for commit in self._commits(conn, instance_id):
            events = self._repository.decode(commit.events)
            out.append(
                audit_trail.Commit(
                    first_position=commit.first_position,
                    recorded_at=queries.utc(commit.recorded_at) or commit.recorded_at,
                    command_id=commit.command_id,
                    command_type=commit.command_type,
                    actor=commit.actor,
                    via=commit.via,
                    events=events,
                )
            )
        return out


def _shown(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"
