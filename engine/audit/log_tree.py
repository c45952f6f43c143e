"""The Merkle tree over the log, its heads and proofs (`eventlog.proofs`), read from the database.

A tree head is read from the right edge every append keeps beside the log head (one read);
proofs from the stored tiles a follower writes (`eventlog.tile_store`: O(log n) reads, the log's
tail past the follower tiled in memory), on one read snapshot, so a head and a proof made
together agree. `check_heads` (verify against published heads) reads the log itself: the tiles
and the edge are derived data a forger can rewrite too.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from sqlalchemy.engine import Connection

from flowledger.core.errors import InvalidValue, NotFound, ProcessEngineError
from flowledger.eventlog import EventStore, tile_store
from flowledger.eventlog.merkle import (
    Frontier,
    MemoryTree,
    consistency_proof,
    inclusion_proof,
)
from flowledger.eventlog.package import LeafProof
from flowledger.eventlog.proofs import (
    FORMAT,
    ConsistencyProof,
    InclusionProof,
    ProvenCommit,
    TreeHead,
    commit_leaf,
)
from flowledger.eventlog.records import StoredCommit
from flowledger.eventlog.tile_store import StoredTree

Progress = Callable[[int, int], None]
DURABLE_TRIES = 5  # FULL checkpoints tried before signing gives up (each waits for writers)


class LogTree:
    """The tree of every commit on one snapshot, and where each commit's positions end."""

    def __init__(self, tree: MemoryTree, last_positions: list[int]) -> None:
        self.tree = tree
        self.last_positions = last_positions

    @classmethod
    def read(
        cls,
        store: EventStore,
        conn: Connection,
        progress: Progress | None = None,
        keep: Callable[[int, StoredCommit], None] | None = None,
    ) -> LogTree:
        """Every commit's leaf, in position order; `keep(index, commit)` sees each commit."""
        total = store.commit_count(conn) if progress is not None else 0
        tree, last_positions = MemoryTree(), []
        for commit in store.read_all(conn):
            if keep is not None:
                keep(tree.size, commit)
            tree.append_hash(commit_leaf(commit.hash))
            last_positions.append(commit.last_position)
            if progress is not None and tree.size % 1000 == 0:
                progress(tree.size, total)
        if progress is not None:
            progress(tree.size, total)
        return cls(tree, last_positions)

    def head(self, size: int | None = None) -> TreeHead:
        size = self.tree.size if size is None else self.checked_size(size)
        return TreeHead(
            size=size,
            root=self.tree.root(size).hex(),
            position=self.last_positions[size - 1] if size else 0,
        )

    def checked_size(self, size: int) -> int:
        if not 0 <= size <= self.tree.size:
            raise InvalidValue(f"the log holds {self.tree.size} commits: no tree head of {size}")
        return size

    def leaf_of(self, position: int) -> int:
        """The number of the commit that holds log position `position`."""
        index = bisect.bisect_left(self.last_positions, position)
        if position < 1 or index == len(self.last_positions):
            raise NotFound("Log position", str(position), "the log does not reach it")
        return index


def tree_head(store: EventStore, conn: Connection, progress: Progress | None = None) -> TreeHead:
    """The head over every commit, from the right edge every append keeps beside the log head:
    one read, whatever the log's length (`progress` is not called: nothing is read)."""
    position, frontier = store.tree(conn)
    return TreeHead(size=frontier.size, root=frontier.root().hex(), position=position)


def check_heads(store: EventStore, conn: Connection, heads: list[TreeHead]) -> list[str]:
    """What the log says against heads published earlier (empty: it extends every one): a head
    whose size the log's tree no longer has, or whose root it no longer gives, means commits
    were removed or rewritten after the head was taken. The tree is grown from the log's own
    commit hashes (never the stored tiles, which a forger rewrites as well), a frontier at a
    time: memory O(log n), whatever the log's length."""
    sizes = {h.size for h in heads}
    frontier = Frontier()
    roots = {0: frontier.root()} if 0 in sizes else {}
    largest = max(sizes, default=0)
    if largest:
        for _last, digest in tile_store.leaves_after(conn, 0):
            frontier.append_hash(commit_leaf(digest))
            if frontier.size in sizes:
                roots[frontier.size] = frontier.root()
                if frontier.size == largest:
                    break
    problems = []
    for head in heads:
        root = roots.get(head.size)
        if root is None:
            problems.append(
                f"published: a head covers {head.size} commits, the log holds only "
                f"{frontier.size}: commits were removed after it was published"
            )
        elif root.hex() != head.root:
            problems.append(
                f"published: the log's tree of {head.size} commits has root {root.hex()}, not "
                f"the published {head.root}: the log was rewritten after that head was published"
            )
    return problems


def make_durable(conn: Connection) -> None:
    """Everything committed so far is on disk once this returns: a head is signed only over
    commits a power loss cannot take back (which would later look like tampering). SQLite in WAL
    mode with synchronous=NORMAL syncs its WAL at checkpoints only: a FULL checkpoint syncs it and
    copies it into the database file. PostgreSQL and MariaDB sync each commit already (their
    defaults, synchronous_commit=on and innodb_flush_log_at_trx_commit=1, which an operator who
    signs heads must keep)."""
    if conn.dialect.name != "sqlite":
        return
    for _ in range(DURABLE_TRIES):
        busy, _log, _done = conn.exec_driver_sql("PRAGMA wal_checkpoint(FULL)").one()
        if not busy:
            return
    raise ProcessEngineError(
        "cannot make the log durable before signing its head: SQLite's checkpoint stayed busy "
        f"{DURABLE_TRIES} times (a long reader?); try again"
    )


def _stored_head(tree: StoredTree, size: int) -> TreeHead:
    return TreeHead(
        size=size,
        root=tree.root(size).hex(),
        position=tree.last_position(size - 1) if size else 0,
    )


def _stored_tree(store: EventStore, conn: Connection, size: int | None) -> tuple[StoredTree, int]:
    """The stored tree over every commit now, and `size` checked against it (default: all)."""
    _position, frontier = store.tree(conn)
    total = frontier.size
    if size is not None and not 0 <= size <= total:
        raise InvalidValue(f"the log holds {total} commits: no tree head of {size}")
    return StoredTree(conn, total), total if size is None else size


def prove_position(
    store: EventStore, conn: Connection, position: int, size: int | None = None
) -> InclusionProof:
    """The commit holding log position `position` is in the tree of the first `size` commits
    (default: all), from the stored tiles: O(log n) reads."""
    tree, size = _stored_tree(store, conn, size)
    index = tree.leaf_of(position) if position >= 1 else None
    if index is None:
        raise NotFound("Log position", str(position), "the log does not reach it")
    head = _stored_head(tree, size)
    if index >= head.size:
        raise InvalidValue(
            f"log position {position} is in commit {index + 1}: the tree of {head.size} commits "
            "does not hold it yet"
        )
    after = tree.last_position(index - 1) if index else 0
    commit = next(store.read_all(conn, after_position=after, batch_size=1), None)
    if commit is None or not commit.first_position <= position <= commit.last_position:
        raise NotFound("Log position", str(position), "no commit holds it")
    return InclusionProof(
        format=FORMAT,
        head=head,
        leaf_index=index,
        event_index=position - commit.first_position,
        commit=ProvenCommit.of(commit),
        path=[h.hex() for h in inclusion_proof(tree.source, index, head.size)],
    )


def prove_consistency(
    store: EventStore, conn: Connection, old_size: int, new_size: int | None = None
) -> ConsistencyProof:
    """The tree of the first `new_size` commits (default: all) extends that of `old_size`, from
    the stored tiles: O(log n) reads."""
    tree, size = _stored_tree(store, conn, new_size)
    if old_size > size:
        raise InvalidValue(
            f"no consistency proof from {old_size} commits to {size}: the old tree is larger"
        )
    if old_size < 0:
        raise InvalidValue(f"the log holds {size} commits: no tree head of {old_size}")
    new, old = _stored_head(tree, size), _stored_head(tree, old_size)
    return ConsistencyProof(
        format=FORMAT,
        old=old,
        new=new,
        path=[h.hex() for h in consistency_proof(tree.source, old.size, new.size)],
    )


def prove_commits(
    store: EventStore, conn: Connection, commits: list[StoredCommit], size: int | None = None
) -> tuple[TreeHead, list[LeafProof]]:
    """The tree head of the first `size` commits (default: all) and each of `commits`' place and
    inclusion path in it, in their order (an audit package's proofs): O(log n) tile reads each."""
    tree, size = _stored_tree(store, conn, size)
    head = _stored_head(tree, size)
    proven = []
    for commit in commits:
        index = tree.leaf_of(commit.first_position)
        if index is None or index >= size:
            raise InvalidValue(
                f"the commit at position {commit.first_position} is not in the tree of {size} "
                "commits"
            )
        path = [h.hex() for h in inclusion_proof(tree.source, index, size)]
        proven.append(LeafProof(leaf_index=index, path=path))
    return head, proven
