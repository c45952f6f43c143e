"""The Merkle tree's tiles in the database (`merkle_tile`), and extending them from the log.

`extend` is the follower's step: it reads the commits after the `merkle` checkpoint (hash and last
position only), grows the tiles' right edge and writes the tiles that changed, with the checkpoint,
in the caller's transaction (which it locks the checkpoint row in). `StoredTree` reads tiles for a
proof on one snapshot; when the tiles end before the log does, it grows a copy of the edge in
memory from the log's tail (never writing). Never called on the command path.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Protocol

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from . import merkle
from .merkle import HASH_SIZE
from .merkle_tiles import Tile, TileBuilder, TileSource, edge_keys, positions_of
from .tables import event_log, merkle_tile

CHECKPOINT = "merkle"
SCHEMA_VERSION = 1
BATCH = 5000  # commits read from the log at a time


class Checkpoints(Protocol):
    """What `extend` needs of the `EventStore` (which imports this module's reader in verify)."""

    def checkpoint(self, conn: Connection, name: str, *, lock: bool = False) -> int | None: ...

    def save_checkpoint(
        self, conn: Connection, name: str, position: int, schema_version: int, now: datetime
    ) -> None: ...

    def drop_checkpoint(self, conn: Connection, name: str) -> None: ...


def read_tile(conn: Connection, level: int, idx: int) -> Tile | None:
    t = merkle_tile.c
    row = conn.execute(
        select(t.hashes, t.positions, t.last_position).where(t.level == level, t.idx == idx)
    ).first()
    return None if row is None else Tile(bytes(row[0]), _bytes(row[1]), int(row[2]))


def _bytes(value: bytes | None) -> bytes | None:
    return None if value is None else bytes(value)


def tiled(conn: Connection) -> tuple[int, int]:
    """(leaves, last log position) the stored tiles cover: from the last level-0 tile."""
    t = merkle_tile.c
    row = conn.execute(
        select(t.idx, t.hashes, t.last_position).where(t.level == 0).order_by(t.idx.desc()).limit(1)
    ).first()
    if row is None:
        return 0, 0
    return int(row[0]) * 256 + len(row[1]) // HASH_SIZE, int(row[2])


def leaves_after(
    conn: Connection, after: int, up_to: int | None = None
) -> Iterator[tuple[int, str]]:
    """(last position, hash) of every commit after log position `after`, in position order."""
    e = event_log.c
    while True:
        query = select(e.first_position, e.last_position, e.hash).where(e.first_position > after)
        if up_to is not None:
            query = query.where(e.first_position <= up_to)
        rows = conn.execute(query.order_by(e.first_position).limit(BATCH)).all()
        if not rows:
            return
        for _first, last, digest in rows:
            yield int(last), str(digest)
        after = int(rows[-1][0])


def _builder(conn: Connection) -> tuple[TileBuilder, int]:
    size, position = tiled(conn)
    edge = {key: tile for key in edge_keys(size) if (tile := read_tile(conn, *key)) is not None}
    return TileBuilder(size, edge), position


def extend(
    store: Checkpoints, conn: Connection, now: datetime, limit: int = 50_000
) -> tuple[int, int]:
    """Tile up to `limit` more commits of the log (the follower's step, in the caller's write
    transaction): (leaves tiled now, commits added)."""
    store.checkpoint(conn, CHECKPOINT, lock=True)  # one writer of the tiles at a time
    builder, position = _builder(conn)
    added = 0
    for last, digest in leaves_after(conn, position):
        builder.append(merkle.leaf_hash(bytes.fromhex(digest)), last)
        position, added = last, added + 1
        if added >= limit:
            break
    if added:
        write(conn, builder.changed)
        store.save_checkpoint(conn, CHECKPOINT, position, SCHEMA_VERSION, now)
    return builder.size, added


def write(conn: Connection, tiles: dict[tuple[int, int], Tile]) -> None:
    t = merkle_tile.c
    for (level, idx), tile in tiles.items():
        values = {
            "hashes": bytes(tile.hashes),
            "positions": None if tile.positions is None else bytes(tile.positions),
            "last_position": tile.last_position,
        }
        moved = conn.execute(
            update(merkle_tile).where(t.level == level, t.idx == idx).values(values)
        ).rowcount
        if not moved:
            conn.execute(insert(merkle_tile).values(level=level, idx=idx, **values))


def clear(conn: Connection, store: Checkpoints) -> None:
    """Drop every tile and the checkpoint (they are built again from the log)."""
    conn.execute(delete(merkle_tile))
    store.drop_checkpoint(conn, CHECKPOINT)


class StoredTree:
    """The tree of the first `size` commits served from the stored tiles on `conn`'s snapshot,
    the log's tail after them tiled in memory. `source.reads` counts the tiles read."""

    def __init__(self, conn: Connection, size: int) -> None:
        self.conn = conn
        tiled_size, position = tiled(conn)
        self.memory: dict[tuple[int, int], Tile] = {}
        if tiled_size < size:
            builder, position = _builder(conn)
            for last, digest in leaves_after(conn, position):
                builder.append(merkle.leaf_hash(bytes.fromhex(digest)), last)
                if builder.size == size:
                    break
            self.memory = builder.changed
            tiled_size = builder.size
        if tiled_size < size:
            raise ValueError(f"the log holds {tiled_size} commits, not {size}")
        self.size = size
        self.source = TileSource(self._read)

    def _read(self, level: int, idx: int) -> Tile | None:
        return self.memory.get((level, idx)) or read_tile(self.conn, level, idx)

    def root(self, size: int) -> bytes:
        return merkle.root(self.source, size)

    def last_position(self, leaf: int) -> int:
        """The last log position of commit number `leaf` (0-based)."""
        tile = self.source.tile(0, leaf // 256)
        assert tile is not None and tile.positions is not None
        return positions_of(bytes(tile.positions))[leaf % 256]

    def leaf_of(self, position: int) -> int | None:
        """The number of the commit holding log position `position` (None: beyond the tree)."""
        t = merkle_tile.c
        found = [
            k[1] for k, tile in self.memory.items() if k[0] == 0 and tile.last_position >= position
        ]
        row = self.conn.execute(
            select(t.idx).where(t.level == 0, t.last_position >= position).order_by(t.idx).limit(1)
        ).first()
        if row is not None:
            found.append(int(row[0]))
        if not found:
            return None
        idx = min(found)
        tile = self.source.tile(0, idx)
        assert tile is not None and tile.positions is not None
        for offset, last in enumerate(positions_of(bytes(tile.positions))):
            if last >= position:
                leaf = idx * 256 + offset
                return leaf if leaf < self.size else None
        return None
