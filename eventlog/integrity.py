"""Integrity of the log: the hash chain of each stream, gapless positions, the anchor an auditor
keeps outside the database, and the command log agreeing with the commits.

Read-only: these checks run over commits the store reads and report problems; they never repair.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import msgspec
from sqlalchemy.engine import Connection

from .errors import CorruptStream
from .hashing import anchor_step, commit_hash
from .merkle import Frontier, leaf_hash
from .records import CommandRecord, LogProblem, StoredCommit

# Counts a commit's events without decoding them (the store knows nothing of their types).
_count_decoder = msgspec.json.Decoder(list[msgspec.Raw])


GENESIS_ANCHOR = "0" * 64
# Stream heads a checker given `predecessor` keeps (most recently used): a stream idle for longer
# is looked up once when it moves again, so memory does not grow with the number of streams.
KEEP_HEADS = 10_000

# (stream id, position): the stream's last commit before that position, as (last version, hash).
Predecessor = Callable[[str, int], tuple[int, str] | None]
# Every stream whose last commit disagrees with its witness: (stream id, the log's last commit
# as (version, hash) or None, the witness as (version, hash) or None).
Mismatch = tuple[str, tuple[int, str] | None, tuple[int, str] | None]
WitnessMismatches = Callable[[], Iterable[Mismatch]]


@dataclass(frozen=True, slots=True)
class LogAnchor:
    """The digest of the whole log up to `position` (a commit boundary): every commit's hash
    chained in position order. Rows can be rewritten consistently by whoever can write the
    database; an anchor an auditor keeps outside it cannot, so comparing it shows the rewrite."""

    position: int
    digest: str

    def __str__(self) -> str:
        return f"{self.position}:{self.digest}"

    @classmethod
    def parse(cls, text: str) -> LogAnchor:
        """`POSITION:DIGEST` as `verify` prints it; ValueError names what is wrong."""
        position, sep, digest = text.strip().partition(":")
        if not sep or not position.isdigit() or len(digest) != 64:
            raise ValueError(
                f"anchor {text!r} is not POSITION:DIGEST (a position, a colon and the 64 hex "
                "digits `flowledger verify` printed)"
            )
        try:
            int(digest, 16)
        except ValueError:
            raise ValueError(f"anchor {text!r}: the digest must be 64 hex digits") from None
        return cls(int(position), digest.lower())


def stored_hash(c: StoredCommit) -> str:
    """The hash a commit's stored columns give (equal to `c.hash` unless the row was edited)."""
    return commit_hash(
        prev_hash=c.prev_hash,
        stream_id=c.stream_id,
        first_version=c.first_version,
        last_version=c.last_version,
        first_position=c.first_position,
        last_position=c.last_position,
        command_id=c.command_id,
        command_type=c.command_type,
        actor=c.actor,
        causation_position=c.causation_position,
        recorded_at=c.recorded_at,
        events=c.events,
        via=c.via,
    )


def commit_leaf_of(digest: str) -> bytes:
    """The Merkle leaf of a commit whose stored hash is `digest` (64 hex digits; a hash column
    edited into something else still gets a leaf, which then matches no published root)."""
    try:
        raw = bytes.fromhex(digest)
    except ValueError:
        raw = digest.encode()
    return leaf_hash(raw)


def check_stream(
    stream_id: str,
    commits: Sequence[StoredCommit],
    after_version: int,
    *,
    linked_to_start: bool,
) -> None:
    """Raise CorruptStream unless `commits` continue the stream after `after_version`, each
    linked to the one before and each hash recomputing from the stored columns.

    `linked_to_start`: the first commit starts the stream (no predecessor hash); a caller that
    starts from a snapshot has no predecessor's hash at hand and checks from the second commit.
    """
    version = after_version
    previous: str | None = None
    for i, c in enumerate(commits):
        if c.first_version != version + 1:
            raise CorruptStream(
                stream_id, c.first_position, f"version {c.first_version} follows version {version}"
            )
        if (i > 0 or linked_to_start) and c.prev_hash != previous:
            raise CorruptStream(
                stream_id,
                c.first_position,
                "its previous-hash does not match the stream's preceding commit",
            )
        if stored_hash(c) != c.hash:
            raise CorruptStream(stream_id, c.first_position, "its content does not match its hash")
        version, previous = c.last_version, c.hash


class LogChecker:
    """The log's own checks, fed one commit at a time in position order: gapless positions,
    event counts, stream versions, every stream's hash chain, the log head, the anchor and the
    Merkle tree's root (`frontier`, RFC 9162 over the commits' stored hashes).

    Nothing per commit is kept. Given `predecessor` (the store's lookup of a stream's last commit
    before a position), at most `keep` stream heads are kept, the others looked up when their
    stream moves again: memory does not grow with the log. Without it every stream's head is
    kept (a caller with no database). Given `mismatches` (streams whose last commit and witness
    disagree, found by the database), or else `witnesses` (each stream's witness: stream id,
    last version, hash; compared with the heads kept, which must then be all), `finish` reports
    each; `holds` tells a commit made while the log was read from a removed one.
    """

    def __init__(
        self,
        expect: LogAnchor | None = None,
        imported_gaps: Iterable[tuple[int, int]] = (),
        witnesses: Callable[[], Iterable[tuple[str, int, str]]] | None = None,
        holds: Callable[[str, int, str], bool] | None = None,
        *,
        predecessor: Predecessor | None = None,
        mismatches: WitnessMismatches | None = None,
        keep: int = KEEP_HEADS,
    ) -> None:
        self._witnesses = witnesses
        self._mismatches = mismatches
        # Whether the log holds the commit a witness names (stream, last version, hash): a
        # witness ahead of the commits read names a commit made after they were read.
        self._holds = holds
        self._predecessor = predecessor
        self._keep = keep
        self.problems: list[LogProblem] = []
        # Positions an imported audit package left out (exactly these ranges, nothing more).
        self._imported_gaps = set(imported_gaps)
        self._heads: OrderedDict[str, tuple[int, str]] = OrderedDict()
        self._expected_position = 1
        self._digest = GENESIS_ANCHOR
        self._expect = expect
        self._expect_checked = expect is None or expect.position == 0
        self.frontier = Frontier()
        self.lookups = 0  # stream heads looked up in the database (evicted, or before `resume`)

    def resume(self, frontier: Frontier, digest: str, last_position: int) -> None:
        """Go on after commits checked elsewhere (an incremental verify's trusted prefix): the
        tree and the anchor so far, and the position they end at. Stream heads before it come
        from `predecessor`."""
        self.frontier = frontier
        self._digest = digest
        self._expected_position = last_position + 1

    def check(self, c: StoredCommit) -> None:
        self._check_position(c)
        try:
            count = len(_count_decoder.decode(c.events))
        except msgspec.DecodeError:
            count = -1
        covered = c.last_position - c.first_position + 1
        if count != covered:
            self._problem(
                "event-count",
                c,
                f"commit covers {covered} positions but holds {count} events",
            )
        prev_version, prev_hash = self._head_before(c)
        if c.first_version != prev_version + 1:
            self._problem(
                "stream-version", c, f"version {c.first_version} follows version {prev_version}"
            )
        if c.prev_hash != prev_hash:
            self._problem("chain", c, "previous-hash does not match the stream's preceding commit")
        recomputed = stored_hash(c)
        if recomputed != c.hash:
            self._problem("hash", c, "commit content does not match its hash")
        heads = self._heads
        heads[c.stream_id] = (c.last_version, c.hash)
        if self._predecessor is not None:
            heads.move_to_end(c.stream_id)
            if len(heads) > self._keep:
                heads.popitem(last=False)
        # The anchor chains what the rows hold now (recomputed), so any edit changes it; the
        # tree's leaves are the stored hashes, as `audit head` and the proofs read them.
        self._digest = anchor_step(self._digest, recomputed)
        self.frontier.append_hash(commit_leaf_of(c.hash))
        self._check_anchor(c)

    def _head_before(self, c: StoredCommit) -> tuple[int, str | None]:
        known = self._heads.get(c.stream_id)
        if known is not None:
            return known
        if self._predecessor is None or c.first_version == 1:
            return 0, None
        # Not kept (evicted, or before a resumed start): the stream's last commit before this
        # one, as stored; its hash was checked against its columns when it was read.
        self.lookups += 1
        found = self._predecessor(c.stream_id, c.first_position)
        return (0, None) if found is None else found

    def finish(self, head_position: int) -> LogAnchor:
        """The checks that need the whole log; returns the anchor of the log as read."""
        last = self._expected_position - 1
        if head_position != last:
            self.problems.append(
                LogProblem(
                    "gap",
                    None,
                    self._expected_position,
                    f"log head is at {head_position} but the last stored event is at {last}",
                )
            )
        if not self._expect_checked and self._expect is not None:
            self.problems.append(
                LogProblem(
                    "anchor",
                    None,
                    self._expect.position,
                    f"the log ends at position {last}, before the expected anchor: commits "
                    "recorded when the anchor was taken are gone",
                )
            )
        if self._mismatches is not None:
            self._check_mismatches(self._mismatches())
        elif self._witnesses is not None:
            self._check_witnesses(self._witnesses())
        return LogAnchor(last, self._digest)

    def _check_mismatches(self, found: Iterable[Mismatch]) -> None:
        for stream_id, head, witness in found:
            if witness is None:
                if head is not None:
                    self._unwitnessed(stream_id, head[0])
                continue
            version, digest = witness
            ahead = head is None or head[0] < version
            if ahead and self._holds is not None and self._holds(stream_id, version, digest):
                continue
            self._witness_problem(stream_id, version, digest, head)

    def _check_witnesses(self, witnesses: Iterable[tuple[str, int, str]]) -> None:
        unwitnessed = dict(self._heads)
        for stream_id, version, digest in witnesses:
            head = unwitnessed.pop(stream_id, None)
            if head == (version, digest):
                continue
            ahead = head is None or head[0] < version
            if ahead and self._holds is not None and self._holds(stream_id, version, digest):
                continue
            self._witness_problem(stream_id, version, digest, head)
        for stream_id, (version, _digest) in unwitnessed.items():
            self._unwitnessed(stream_id, version)

    def _witness_problem(
        self, stream_id: str, version: int, digest: str, head: tuple[int, str] | None
    ) -> None:
        ends = "holds no commit" if head is None else f"ends at version {head[0]}"
        self.problems.append(
            LogProblem(
                "witness",
                stream_id,
                None,
                f"its witness says its last commit is version {version} (hash "
                f"{digest[:12]}…), but the stream {ends}: commits after it were removed "
                "or inserted, or the witness was edited",
            )
        )

    def _unwitnessed(self, stream_id: str, version: int) -> None:
        self.problems.append(
            LogProblem(
                "witness",
                stream_id,
                None,
                f"the stream ends at version {version} but has no witness (its stream_head "
                "row was removed)",
            )
        )

    def _check_position(self, c: StoredCommit) -> None:
        expected = self._expected_position
        if (expected, c.first_position - 1) in self._imported_gaps:
            pass  # left out by an audit package this log was loaded from
        elif c.first_position > expected:
            # The missing commit's stream is unknown here: naming the next commit's stream
            # would blame a bystander (the command log names the command that wrote it).
            self.problems.append(
                LogProblem(
                    "gap",
                    None,
                    expected,
                    f"positions {expected}..{c.first_position - 1} are missing",
                )
            )
        elif c.first_position < expected:
            self._problem("gap", c, f"position {c.first_position} overlaps the previous commit")
        self._expected_position = c.last_position + 1

    def _check_anchor(self, c: StoredCommit) -> None:
        expect = self._expect
        if self._expect_checked or expect is None or c.last_position < expect.position:
            return
        self._expect_checked = True
        if c.last_position > expect.position:
            detail = (
                f"no commit ends at position {expect.position} (the commit at "
                f"{c.first_position}..{c.last_position} spans it): the log was rewritten"
            )
        elif self._digest != expect.digest:
            detail = (
                f"the log up to here digests to {self._digest}, not to the expected "
                f"{expect.digest}: a commit at or before position {expect.position} was "
                "changed, removed or inserted since the anchor was taken"
            )
        else:
            return
        self.problems.append(LogProblem("anchor", None, expect.position, detail))

    def _problem(self, kind: str, c: StoredCommit, detail: str) -> None:
        self.problems.append(LogProblem(kind, c.stream_id, c.first_position, detail))


@dataclass
class _CommandRun:
    """The consecutive commits of one command (a command appends all its commits together)."""

    command_id: str
    command_type: str
    actor: str | None
    first_position: int
    last_position: int
    streams: list[str]
    mixed: bool = False  # its commits disagree about the command's type or actor


class CommandLog(Protocol):
    """What the command log checker reads of the store: the accepted commands, and one by id."""

    def accepted_commands(
        self, conn: Connection, batch_size: int = ...
    ) -> Iterator[tuple[str, str, str | None, int, int]]: ...

    def find_command(self, conn: Connection, command_id: str) -> CommandRecord | None: ...


class CommandLogChecker:
    """command_log against the log, fed the commits in position order: each accepted command's
    positions cover exactly the commits that carry its id, with the same type and actor, and
    every commit's command is recorded as accepted. Reads command_log in batches alongside."""

    def __init__(
        self,
        store: CommandLog,
        conn: Connection,
        accepted: Iterator[tuple[str, str, str | None, int, int]] | None = None,
    ) -> None:
        """`accepted`: the accepted commands to compare with, in position order (default:
        every one; an incremental verify passes those after its trusted prefix)."""
        self.problems: list[LogProblem] = []
        self.missing: list[tuple[str, int, int]] = []  # (command id, first, last) without commits
        self._store = store
        self._conn = conn
        self._accepted = store.accepted_commands(conn) if accepted is None else accepted
        self._next = next(self._accepted, None)
        self._run: _CommandRun | None = None

    def check(self, c: StoredCommit) -> None:
        run = self._run
        if run is not None and run.command_id == c.command_id:
            run.last_position = max(run.last_position, c.last_position)
            run.streams.append(c.stream_id)
            run.mixed |= (run.command_type, run.actor) != (c.command_type, c.actor)
            return
        if run is not None:
            self._close(run)
        self._run = _CommandRun(
            c.command_id, c.command_type, c.actor, c.first_position, c.last_position, [c.stream_id]
        )

    def finish(self) -> None:
        if self._run is not None:
            self._close(self._run)
            self._run = None
        while self._next is not None:
            self._missing(self._next)

    def _close(self, run: _CommandRun) -> None:
        while self._next is not None and self._next[3] < run.first_position:
            self._missing(self._next)
        row = self._next
        if row is None or row[3] != run.first_position or row[0] != run.command_id:
            self._unrecorded(run)
            return
        self._next = next(self._accepted, None)
        command_id, command_type, actor, first, last = row
        where = f"the log holds it at positions {run.first_position}..{run.last_position}"
        if last != run.last_position:
            self._add(command_id, f"{where}, command_log says {first}..{last}")
        if run.mixed or (command_type, actor) != (run.command_type, run.actor):
            self._add(
                command_id,
                f"{where} as {run.command_type} by {run.actor!r}, command_log says "
                f"{command_type} by {actor!r}",
            )

    def _missing(self, row: tuple[str, str, str | None, int, int]) -> None:
        command_id, command_type, actor, first, last = row
        self._next = next(self._accepted, None)
        self.missing.append((command_id, first, last))
        self._add(
            command_id,
            f"{command_type} by {actor!r} was accepted with positions {first}..{last}, but no "
            "commit in the log carries it: its commits were removed",
        )

    def _unrecorded(self, run: _CommandRun) -> None:
        record = self._store.find_command(self._conn, run.command_id)
        where = (
            f"the log holds it at positions {run.first_position}..{run.last_position} "
            f"(streams {', '.join(dict.fromkeys(run.streams))})"
        )
        if record is None:
            detail = f"{where}, but command_log has no such command"
        elif record.status != "accepted":
            detail = f"{where}, but command_log records it as {record.status}"
        else:
            detail = (
                f"{where}, command_log says positions {record.first_position}.."
                f"{record.last_position}"
            )
        self._add(run.command_id, detail)

    def _add(self, command_id: str, detail: str) -> None:
        self.problems.append(LogProblem("command-log", None, None, detail, command_id=command_id))
