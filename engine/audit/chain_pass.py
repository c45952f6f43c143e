"""Verify's first phase: the log's own checks over every commit (positions, event counts, stream
versions and hash chains, witnesses, the anchor, the Merkle root) and the command log, in one
streamed read, in memory that does not grow with the log; and an incremental verify's trusted
prefix, checked against a tree head by its root alone.

Reads only. Decodes no event (a commit's hash is over its stored bytes; its events are only
counted), keeps no per-commit state and at most `KEEP_HEADS` stream heads (`LogChecker`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy.engine import Connection

from flowledger.eventlog import (
    CommandLogChecker,
    EventStore,
    LogAnchor,
    LogChecker,
    StoredCommit,
    log_scan,
)
from flowledger.eventlog.hashing import anchor_step
from flowledger.eventlog.integrity import GENESIS_ANCHOR, KEEP_HEADS, commit_leaf_of, stored_hash
from flowledger.eventlog.merkle import Frontier
from flowledger.eventlog.proofs import TreeHead

Progress = Callable[[int, int], None]
PROGRESS_EVERY = 1000
READ_BATCH = 5000  # commits per keyset page (position order)


@dataclass
class Prefix:
    """What the commits a tree head covers give: the tree and anchor to go on from, and where
    they end. `commands` are the prefix's last commits of a command the head splits."""

    frontier: Frontier
    digest: str
    last_position: int
    problems: list[str] = field(default_factory=list)
    commands: list[StoredCommit] = field(default_factory=list)
    events: int = 0


def check_prefix(
    store: EventStore, conn: Connection, head: TreeHead, progress: Progress | None = None
) -> Prefix:
    """The first `head.size` commits: each one's hash recomputed from its stored columns (no
    event decoded) and equal to the hash stored, and their tree's root equal to `head.root`.
    Then every one of them is byte for byte a commit the head was made over."""
    frontier, digest, last_position, events = Frontier(), GENESIS_ANCHOR, 0, 0
    problems: list[str] = []
    run: list[StoredCommit] = []  # the commits of the last command so far
    if head.size:
        for commit in store.read_all(conn, batch_size=min(READ_BATCH, head.size)):
            recomputed = stored_hash(commit)
            if recomputed != commit.hash:
                problems.append(
                    f"hash: stream {commit.stream_id} at position {commit.first_position}: "
                    "commit content does not match its hash"
                )
            frontier.append_hash(commit_leaf_of(commit.hash))
            digest = anchor_step(digest, recomputed)
            last_position = commit.last_position
            events += commit.last_position - commit.first_position + 1
            if run and run[-1].command_id != commit.command_id:
                run = []
            run.append(commit)
            if progress is not None and frontier.size % PROGRESS_EVERY == 0:
                progress(frontier.size, head.size)
            if frontier.size == head.size:
                break
    if frontier.size < head.size:
        problems.append(
            f"root: the head covers {head.size} commits, the log holds only {frontier.size}: "
            "commits were removed after the head was taken"
        )
    elif frontier.root().hex() != head.root:
        problems.append(
            f"root: the log's tree of {head.size} commits has root {frontier.root().hex()}, not "
            f"the head's {head.root}: a commit among them was changed, removed, inserted or "
            "re-hashed since the head was taken"
        )
    if progress is not None:
        progress(frontier.size, head.size)
    return Prefix(frontier, digest, last_position, problems, run, events)


@dataclass
class ChainResult:
    log: LogChecker
    commands: CommandLogChecker
    anchor: LogAnchor
    commits: int
    events: int
    seconds: float

    @property
    def root(self) -> str:
        return f"{self.log.frontier.size}:{self.log.frontier.root().hex()}"


def log_checker(
    store: EventStore, conn: Connection, expect: LogAnchor | None = None, keep: int = KEEP_HEADS
) -> LogChecker:
    """A bounded checker of this log: stream heads it no longer keeps are looked up, witnesses
    are compared by the database."""
    return LogChecker(
        expect,
        store.imported_gaps(conn),
        holds=lambda stream_id, version, digest: store.holds(conn, stream_id, version, digest),
        predecessor=lambda stream_id, position: log_scan.predecessor(conn, stream_id, position),
        mismatches=lambda: log_scan.witness_mismatches(conn),
        keep=keep,
    )


def check_chains(
    store: EventStore,
    conn: Connection,
    total: int,
    *,
    expect: LogAnchor | None = None,
    progress: Progress | None = None,
    prefix: Prefix | None = None,
    keep: int = KEEP_HEADS,
) -> ChainResult:
    """Every commit after `prefix` (all without one) through the log's and the command log's
    checks; `total` is the commits to read, for `progress`."""
    started = time.perf_counter()
    log = log_checker(store, conn, expect, keep)
    after = 0 if prefix is None else prefix.last_position
    commits = store.read_all(conn, after_position=after, batch_size=READ_BATCH)
    if prefix is None:
        commands = CommandLogChecker(store, conn)
    else:
        log.resume(prefix.frontier, prefix.digest, prefix.last_position)
        first = next(commits, None)
        # A command whose commits the head splits is compared whole, from its first commit.
        split = (
            prefix.commands
            if first is not None
            and prefix.commands
            and (prefix.commands[-1].command_id == first.command_id)
            else []
        )
        since = split[0].first_position - 1 if split else after
        commands = CommandLogChecker(
            store, conn, log_scan.accepted_commands(conn, after_position=since)
        )
        for earlier in split:
            commands.check(earlier)
        if first is not None:
            commits = itertools.chain([first], commits)
    done = events = 0
    for commit in commits:
        log.check(commit)
        commands.check(commit)
        done += 1
        events += commit.last_position - commit.first_position + 1
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, total)
    anchor = log.finish(store.head_position(conn))
    commands.finish()
    if progress is not None:
        progress(done, total)
    return ChainResult(log, commands, anchor, done, events, time.perf_counter() - started)
