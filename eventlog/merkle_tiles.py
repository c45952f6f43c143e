"""The Merkle tree's stored levels as tiles (C2SP tlog-tiles' cut): pure functions of hashes.

Tile (level, idx) holds the hashes of tree level 8*level, nodes 256*idx .. 256*idx + 255, back to
back; the levels between (8*level + 1 .. 8*level + 7) are folded from a tile when asked for. The
right-edge tile of each level is partial and grows until it is complete. `TileBuilder` appends
leaves to the right edge and says which tiles changed; `TileSource` answers `merkle.SubtreeSource`
from tiles a reader hands it (the database's, or a builder's in memory). Reads nothing itself.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from .merkle import HASH_SIZE, node_hash

HEIGHT = 8
WIDTH = 1 << HEIGHT  # hashes in a complete tile
TILE_BYTES = WIDTH * HASH_SIZE
_POSITION = struct.Struct(">q")  # a leaf's commit's last log position, in level-0 tiles


def fold(hashes: bytes) -> bytes:
    """The root of a complete subtree over a power-of-two number of hashes (back to back)."""
    level = [hashes[i : i + HASH_SIZE] for i in range(0, len(hashes), HASH_SIZE)]
    while len(level) > 1:
        level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level), 2)]
    return level[0]


def position_at(positions: bytes, offset: int) -> int:
    return int(_POSITION.unpack_from(positions, offset * _POSITION.size)[0])


def positions_of(positions: bytes) -> list[int]:
    return [p for (p,) in _POSITION.iter_unpack(positions)]


class Tile:
    """One tile as stored: its hashes, its leaves' last positions (level 0), the last position
    it covers."""

    __slots__ = ("hashes", "last_position", "positions")

    def __init__(self, hashes: bytes, positions: bytes | None, last_position: int) -> None:
        self.hashes = bytearray(hashes)
        self.positions = None if positions is None else bytearray(positions)
        self.last_position = last_position

    @property
    def width(self) -> int:
        return len(self.hashes) // HASH_SIZE


def edge_keys(size: int) -> list[tuple[int, int]]:
    """(level, idx) of the partial right-edge tiles of a tree of `size` leaves (none where a
    level's entries fill their tiles exactly)."""
    keys, level = [], 0
    while size >> (HEIGHT * level):
        entries = size >> (HEIGHT * level)
        if entries % WIDTH:
            keys.append((level, entries // WIDTH))
        level += 1
    return keys


class TileBuilder:
    """The right edge of the tiled tree, grown a leaf at a time; `changed` holds every tile an
    append touched since it was last cleared (complete ones and the partial edge)."""

    def __init__(self, size: int = 0, edge: dict[tuple[int, int], Tile] | None = None) -> None:
        self.size = size
        self.edge: dict[int, tuple[int, Tile]] = {}
        for (level, idx), tile in (edge or {}).items():
            self.edge[level] = (idx, tile)
        self.changed: dict[tuple[int, int], Tile] = {}

    def append(self, leaf: bytes, last_position: int) -> None:
        entry, level = leaf, 0
        self.size += 1
        while True:
            idx = ((self.size >> (HEIGHT * level)) - 1) // WIDTH
            held = self.edge.get(level)
            if held is None or held[0] != idx:
                tile = Tile(b"", b"" if level == 0 else None, last_position)
                self.edge[level] = (idx, tile)
            else:
                tile = held[1]
            tile.hashes += entry
            if tile.positions is not None:
                tile.positions += _POSITION.pack(last_position)
            tile.last_position = last_position
            self.changed[(level, idx)] = tile
            if tile.width < WIDTH:
                return
            # A complete tile: its root is the next level's entry.
            entry = fold(bytes(tile.hashes))
            del self.edge[level]
            level += 1


class TileSource:
    """`merkle.SubtreeSource` over tiles: `read(level, idx)` hands a tile (or None); each tile is
    read once per source, so a proof costs one read per distinct tile it touches."""

    def __init__(self, read: Callable[[int, int], Tile | None]) -> None:
        self._read = read
        self._tiles: dict[tuple[int, int], Tile | None] = {}
        self.reads = 0

    def tile(self, level: int, idx: int) -> Tile | None:
        key = (level, idx)
        if key not in self._tiles:
            self.reads += 1
            self._tiles[key] = self._read(level, idx)
        return self._tiles[key]

    def subtree(self, level: int, index: int) -> bytes:
        tier, height = divmod(level, HEIGHT)
        start = index << height
        tile = self.tile(tier, start // WIDTH)
        offset = (start % WIDTH) * HASH_SIZE
        end = offset + (HASH_SIZE << height)
        if tile is None or len(tile.hashes) < end:
            raise ValueError(f"no stored tile holds the complete subtree {index} at level {level}")
        return fold(bytes(tile.hashes[offset:end]))
