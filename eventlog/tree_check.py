"""`verify`'s check of the stored Merkle tree against the log: the right edge beside the log head
(`log_head.frontier`) and every stored tile must be what the log's commit hashes give.

They are derived data a forger who rewrites the log can rewrite too, so they prove nothing alone;
but a log rewritten under them (or a tile edited) shows here. Reads the stored edge and tile count
when made, then one tile per 256 commits as the log is checked. Reports, never repairs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from sqlalchemy.engine import Connection

from . import merkle, tile_store
from .integrity import LogAnchor, LogChecker
from .merkle_tiles import WIDTH, TileBuilder, edge_keys
from .records import LogProblem, StoredCommit


class TreeCheckingLogChecker(LogChecker):
    """A `LogChecker` that also grows the log's tree and compares it with the stored one."""

    def __init__(self, conn: Connection, store: Any, *args: Any) -> None:
        super().__init__(*args)
        self._read_tile: Callable[[int, int], Any] = lambda level, idx: tile_store.read_tile(
            conn, level, idx
        )
        _position, self._stored_edge = store.tree(conn)
        self._tiled, _last = tile_store.tiled(conn)
        self._log = merkle.Frontier()
        self._tiles = TileBuilder()

    def check(self, c: StoredCommit) -> None:
        super().check(c)
        leaf = merkle.leaf_hash(bytes.fromhex(c.hash))
        self._log.append_hash(leaf)
        if self._tiles.size >= self._tiled:
            return
        self._tiles.append(leaf, c.last_position)
        finished = self._tiles.changed
        self._tiles.changed = {}
        at_edge = self._tiles.size == self._tiled
        for key, tile in finished.items():
            if tile.width == WIDTH or (at_edge and key in edge_keys(self._tiled)):
                self._compare(key, tile.hashes, c)

    def _compare(self, key: tuple[int, int], hashes: Iterable[int], c: StoredCommit) -> None:
        stored = self._read_tile(*key)
        if stored is None or bytes(stored.hashes) != bytes(hashes):
            self.problems.append(
                LogProblem(
                    "tree",
                    None,
                    c.last_position,
                    f"stored Merkle tile {key[0]}/{key[1]} is not what the log's commits give "
                    "(the log or the tile was rewritten; rebuild the tiles once the log is "
                    "trusted)",
                )
            )

    def finish(self, head_position: int) -> LogAnchor:
        anchor = super().finish(head_position)
        edge = self._stored_edge
        if (edge.size, edge.root()) != (self._log.size, self._log.root()):
            self.problems.append(
                LogProblem(
                    "tree",
                    None,
                    head_position,
                    f"the Merkle frontier beside the log head (a tree of {edge.size} commits, "
                    f"root {edge.root().hex()}) is not the log's tree of {self._log.size} "
                    f"commits (root {self._log.root().hex()}): the log or the frontier was "
                    "rewritten",
                )
            )
        return anchor
