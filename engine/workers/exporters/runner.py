"""The exporter's follower: a thread that reads the log after its stored position, in order,
and hands bounded batches of CloudEvents to its target.

Exactly-once in effect: the stored position (`projection_checkpoint` row `exporter:<name>`) is
advanced only after the target acknowledged the batch. On (re)start, and after every failure,
the target is opened again and says what it holds last; the export resumes after that position
when the target can say (a file, a stream), else after the stored one (a webhook, whose
receiver deduplicates by position). So a crash between the acknowledgement and the stored
position re-sends nothing to a file or a stream.

Backpressure: a batch is at most `batch_events` events and about `batch_bytes` bytes, read only
when the last one was acknowledged; a slow or unreachable target makes this thread wait with
backoff (logged), nothing is buffered, and commands never wait for it (it reads the log on a
read connection and writes its checkpoint in a short transaction per batch).

Must not: advance the stored position past what the target acknowledged, or skip a position.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select

from flowledger.engine.storage.connections import Connections
from flowledger.eventlog import EventCodec, EventStore
from flowledger.eventlog.tables import event_log

from . import cloudevents
from .lease import ExporterLease
from .targets import Held, Outgoing, Target, TargetError

log = logging.getLogger("flowledger.exporters")

CHECKPOINT_PREFIX = "exporter:"
SCHEMA_VERSION = 1  # of what an exporter writes: CloudEvents 1.0 as `cloudevents` maps them
BATCH_EVENTS = 500  # events per batch at most
BATCH_BYTES = 1024 * 1024  # a batch stops growing past this many bytes (one event at least)
BACKOFF_FIRST = 0.5  # seconds before the first retry after a failure
BACKOFF_CAP = 30.0  # seconds between retries at most, however long the target is away
DEADLINE_SECONDS = 10.0  # one send (a webhook's POST, a NATS publish until acknowledged)
POLL_SECONDS = 1.0  # the log is looked at this often when no commit of this engine woke us
_READ_COMMITS = 64  # commits fetched per query while a batch fills

FOLLOWING, FAILING, STANDBY = "following", "failing", "standby"
# Seconds between a standby exporter's tries to take the lease (another process exports).
STANDBY_RETRY = 1.0


@dataclass(frozen=True)
class ExporterSettings:
    """The limits of one exporter (defaults above; docs/design.md, Exporters)."""

    batch_events: int = BATCH_EVENTS
    batch_bytes: int = BATCH_BYTES
    backoff_first: float = BACKOFF_FIRST
    backoff_cap: float = BACKOFF_CAP
    poll_seconds: float = POLL_SECONDS
    deadline_seconds: float = DEADLINE_SECONDS

    def __post_init__(self) -> None:
        if not 1 <= self.batch_events <= 10_000:
            raise ValueError("an exporter's batch is 1 to 10,000 events")
        if not 1024 <= self.batch_bytes <= 64 * 1024 * 1024:
            raise ValueError("an exporter's batch is 1 KiB to 64 MiB")
        if not 0 < self.backoff_first <= self.backoff_cap <= 3600:
            raise ValueError("an exporter's backoff is more than 0 and at most 3,600 s")
        if not 0 < self.poll_seconds <= 60:
            raise ValueError("an exporter looks at the log every 0 to 60 s")
        if not 0 < self.deadline_seconds <= 600:
            raise ValueError("an exporter's deadline is more than 0 and at most 600 s")


@dataclass(frozen=True)
class ExporterHealth:
    name: str
    kind: str
    target: str
    status: str  # UP | DOWN (failing: the last try did not reach the target)
    state: str  # starting | following | failing | stopped
    position: int  # the last position the target acknowledged (or held when opened)
    lag: int  # the log's head minus `position`
    exported: int  # events acknowledged since this exporter started
    failures: int  # failed tries since this exporter started
    last_error: str | None
    last_at: datetime | None  # when the last batch was acknowledged


class Exporter:
    """Streams every committed event to one target; `start`, `stop`, `health`."""

    def __init__(
        self,
        name: str,
        target: Target,
        *,
        db: Connections,
        store: EventStore,
        codec: EventCodec,
        origin: Callable[[], str | None],
        settings: ExporterSettings | None = None,
    ) -> None:
        self.name = name
        self.checkpoint = CHECKPOINT_PREFIX + name
        self.target = target
        self.settings = settings or ExporterSettings()
        self._db, self._store, self._codec = db, store, codec
        self._origin_of = origin
        self._origin: str | None = None
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"flowledger-exporter-{name}", daemon=True
        )
        self._opened = False
        self.state = "starting"
        self.position = 0
        self.exported = 0
        self.failures = 0
        self.last_error: str | None = None
        self.last_at: datetime | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def committed(self) -> None:
        """Commit listener: runs under the engine's lock, so it only sets a flag."""
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout=30)
        self.state = "stopped"

    def health(self, head: int) -> ExporterHealth:
        failing = self.last_error is not None
        return ExporterHealth(
            name=self.name,
            kind=self.target.kind,
            target=self.target.shown,
            status="DOWN" if failing else "UP",
            state=self.state,
            position=self.position,
            lag=max(0, head - self.position),
            exported=self.exported,
            failures=self.failures,
            last_error=self.last_error,
            last_at=self.last_at,
        )

    # -- the loop --------------------------------------------------------------------------

    def _run(self) -> None:
        delay = self.settings.backoff_first
        lease = ExporterLease(self._db.db, self.name)
        try:
            while not self._stopping.is_set():
                if not (lease.take() and lease.still_held()):
                    # Another engine process exports under this name: stand by, take over
                    # when it stops (its lease goes with its process).
                    self._close_target()
                    self.state = STANDBY
                    self._stopping.wait(STANDBY_RETRY)
                    continue
                delay = self._step(delay)
        finally:
            lease.release()
            self._close_target()

    def _step(self, delay: float) -> float:
        """One round: open the target when it is not, send a batch or wait for commits; the
        backoff for the next round."""
        if not self._stopping.is_set():
            try:
                if not self._opened:
                    self._open()
                sent = self.export_once()
            except Exception as exc:  # a failure is waited out, never the end of the thread
                self._failed(exc, delay)
                self._stopping.wait(delay)
                return min(delay * 2, self.settings.backoff_cap)
            if sent == 0:
                self._wake.wait(self.settings.poll_seconds)
                self._wake.clear()
        return self.settings.backoff_first

    def _failed(self, exc: Exception, delay: float) -> None:
        message = str(exc) if isinstance(exc, TargetError) else f"{type(exc).__name__}: {exc}"
        first = self.last_error is None
        self.failures += 1
        self.last_error = message
        self.state = FAILING
        log.warning(
            "exporter %s (%s): %s; retrying in %.1f s", self.name, self.target.shown, message, delay
        )
        self._close_target()
        if first:  # the stored status says so once, not at every retry
            try:
                with self._db.write() as conn:
                    self._store.set_checkpoint_status(
                        conn, self.checkpoint, FAILING, message[:2000], _now()
                    )
            except Exception:  # the database may be what failed; health still says it
                log.debug("exporter %s: cannot record its failure", self.name, exc_info=True)

    def _close_target(self) -> None:
        if self._opened:
            self._opened = False
            try:
                self.target.close()
            except Exception:
                log.debug("exporter %s: closing its target failed", self.name, exc_info=True)

    def _open(self) -> None:
        """Open the target and find where to resume: after what it holds when it can say,
        else after the stored position."""
        self._opened = True  # so that a failure below closes what was opened
        held = self.target.open()
        with self._db.read_unchecked() as conn:
            head, stored = self._store.head_and_checkpoint(conn, self.checkpoint)
        if held is not None:
            self._check_held(held, head)
        resume = (stored or 0) if held is None else held.position
        with self._db.write() as conn:
            if stored is None or stored != resume:
                self._store.save_checkpoint(conn, self.checkpoint, resume, SCHEMA_VERSION, _now())
            detail = f"target {self.target.shown}"
            self._store.set_checkpoint_status(conn, self.checkpoint, FOLLOWING, detail, _now())
        if held is not None and stored is not None and held.position != stored:
            log.info(
                "exporter %s: %s holds position %d, the stored position was %d: resuming after %d",
                self.name,
                self.target.shown,
                held.position,
                stored,
                held.position,
            )
        self.position = resume
        self.last_error = None
        self.state = FOLLOWING

    def _check_held(self, held: Held, head: int) -> None:
        if held.position > head:
            raise TargetError(
                f"{self.target.shown} holds position {held.position}, past the log's head "
                f"{head}: it is not this log's export (or the database was restored); name "
                "another target"
            )
        origin = self.origin()
        if held.source is not None and origin is not None and held.source != origin:
            raise TargetError(
                f"{self.target.shown} holds events of {held.source}, not of this log ({origin}): "
                "name another target"
            )

    def origin(self) -> str | None:
        """The log's origin, once it has a first commit (it never changes after)."""
        if self._origin is None:
            self._origin = self._origin_of() or None
        return self._origin

    def export_once(self) -> int:
        """Read one batch after the position, send it, store the new position: the number of
        events sent (0: the log has nothing new)."""
        batch = self._read_batch()
        if not batch:
            return 0
        self.target.send(batch)
        last = batch[-1].position
        with self._db.write() as conn:
            self._store.move_checkpoint(conn, self.checkpoint, last, _now())
        if self.last_error is not None:
            log.info("exporter %s: %s reached again", self.name, self.target.shown)
        self.position, self.last_error, self.state = last, None, FOLLOWING
        self.exported += len(batch)
        self.last_at = _now()
        return len(batch)

    def _read_batch(self) -> list[Outgoing]:
        after = self.position
        limits = self.settings
        batch: list[Outgoing] = []
        size = 0
        origin = self.origin()
        with self._db.read_unchecked() as conn:
            # The commit holding the next position may begin before it (a batch can end inside
            # a large commit): read from that commit's start, skip what was sent.
            start = conn.execute(
                select(func.max(event_log.c.first_position)).where(
                    event_log.c.first_position <= after + 1
                )
            ).scalar()
            commits = self._store.read_all(
                conn, after_position=(start or 1) - 1, batch_size=_READ_COMMITS
            )
            for commit in commits:
                if commit.last_position <= after:
                    continue
                if origin is None:
                    origin = self.origin() or "flowledger/unnamed"
                # As the log holds them: a personal value leaves sealed, so an export holds
                # nothing readable once its subject is erased (docs/design.md, "Erasure").
                events = self._codec.decode_sealed(commit.events)
                for event in cloudevents.from_commit(origin, commit, events, after=after):
                    body = cloudevents.encode(event)
                    kind = event.type.removeprefix(cloudevents.TYPE_PREFIX)
                    batch.append(Outgoing(event.position, event.id, kind, body))
                    size += len(body)
                    if len(batch) >= limits.batch_events or size >= limits.batch_bytes:
                        return batch
        return batch


def _now() -> datetime:
    """Checkpoints are stamped by the wall clock, as every follower's are."""
    return datetime.now(UTC)


def wait_until(check: Callable[[], bool], seconds: float) -> bool:
    """Poll `check` until it holds or `seconds` pass (for callers that wait for an export)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
