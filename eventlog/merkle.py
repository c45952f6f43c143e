"""Merkle tree hashing over the log, as RFC 9162 (Certificate Transparency 2.0, after RFC 6962)
defines it: leaf and interior hashes with their own prefix bytes, the tree head of any size, and
the two proofs an auditor checks with nothing but hashes — that one leaf is in a tree of a given
size (inclusion), and that a tree only extends an older one (consistency).

Pure functions of bytes: the verifiers (`verify_inclusion`, `verify_consistency`) are what
`flowledger audit check` runs without any database. Proofs are built from a `SubtreeSource`,
which answers the hash of an aligned, complete subtree; `MemoryTree` keeps every level in memory
(tests, small logs), the stored levels serve the same questions in O(log n) reads. `Frontier` is
what a writer keeps to know the root after each append: one hash per set bit of the tree's size,
at most 64.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Protocol

LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"
HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    """The hash of one leaf: SHA-256(0x00 || data)."""
    return hashlib.sha256(LEAF_PREFIX + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The hash of an interior node: SHA-256(0x01 || left || right)."""
    return hashlib.sha256(NODE_PREFIX + left + right).digest()


def split(size: int) -> int:
    """The size of the left subtree of a tree of `size` > 1 leaves: the largest power of two
    below it."""
    return 1 << ((size - 1).bit_length() - 1)


class SubtreeSource(Protocol):
    """Answers the hash of the complete subtree of 2**level leaves that starts at leaf
    `index << level` (the tree must hold all of them)."""

    def subtree(self, level: int, index: int) -> bytes: ...


def range_hash(source: SubtreeSource, start: int, end: int) -> bytes:
    """MTH(D[start:end]) for a range that a proof asks for: `start` aligned to the largest power
    of two not above `end - start` (every range RFC 9162's proofs name is one). Complete parts come
    from `source`, the ragged right edge is folded from its complete subtrees."""
    size = end - start
    if size <= 0:
        raise ValueError(f"an empty range [{start}, {end}) has no subtree hash")
    if size & (size - 1) == 0:
        level = size.bit_length() - 1
        if start % size:
            raise ValueError(f"range [{start}, {end}) is not aligned to its size")
        return source.subtree(level, start >> level)
    k = split(size)
    return node_hash(range_hash(source, start, start + k), range_hash(source, start + k, end))


def root(source: SubtreeSource, size: int) -> bytes:
    """The tree head's root hash of the first `size` leaves."""
    return EMPTY_ROOT if size == 0 else range_hash(source, 0, size)


def inclusion_proof(source: SubtreeSource, index: int, size: int) -> list[bytes]:
    """The audit path of leaf `index` in the tree of the first `size` leaves (RFC 9162 2.1.3.1),
    from the leaf up."""
    if not 0 <= index < size:
        raise ValueError(f"leaf {index} is not in a tree of {size} leaves")
    path: list[bytes] = []
    start, end = 0, size
    # Walk down from the root, collecting the sibling of each subtree the leaf is in.
    while end - start > 1:
        k = split(end - start)
        if index < start + k:
            path.append(range_hash(source, start + k, end))
            end = start + k
        else:
            path.append(range_hash(source, start, start + k))
            start += k
    path.reverse()
    return path


def consistency_proof(source: SubtreeSource, old_size: int, new_size: int) -> list[bytes]:
    """The proof that the tree of `new_size` leaves extends the one of `old_size` (RFC 9162
    2.1.4.1); empty when the sizes are equal or the old tree is empty."""
    if not 0 <= old_size <= new_size:
        raise ValueError(f"no consistency proof from {old_size} to {new_size} leaves")
    if old_size in (0, new_size):
        return []
    proof: list[bytes] = []
    start, end, whole = 0, new_size, True
    m = old_size
    while m != end - start:
        k = split(end - start)
        if m <= k:
            proof.append(range_hash(source, start + k, end))
            end = start + k
        else:
            proof.append(range_hash(source, start, start + k))
            start, m, whole = start + k, m - k, False
    if not whole:
        proof.append(range_hash(source, start, end))
    proof.reverse()
    return proof


def verify_inclusion(
    leaf: bytes, index: int, size: int, proof: Sequence[bytes], expected_root: bytes
) -> bool:
    """Whether `proof` shows the leaf hash `leaf` at `index` in the tree of `size` leaves whose
    root is `expected_root` (RFC 9162 2.1.3.2)."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected_root


def verify_consistency(
    old_size: int, new_size: int, proof: Sequence[bytes], old_root: bytes, new_root: bytes
) -> bool:
    """Whether `proof` shows that the tree of `new_size` leaves with root `new_root` extends the
    tree of `old_size` leaves with root `old_root` (RFC 9162 2.1.4.2)."""
    if not 0 <= old_size <= new_size:
        return False
    if old_size == new_size:
        return not proof and old_root == new_root
    if old_size == 0:
        return not proof and old_root == EMPTY_ROOT
    if not proof:
        return False
    path = list(proof)
    if old_size & (old_size - 1) == 0:
        path.insert(0, old_root)
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == old_root and sr == new_root and sn == 0


class MemoryTree:
    """Every level of a tree in memory: `levels[0]` the leaf hashes, `levels[n]` the complete
    subtrees of 2**n leaves, each level one bytearray of 32-byte hashes (about 64 bytes per leaf
    in all). For tests and for reading a log whole; stored levels answer the same questions."""

    def __init__(self, leaves: Iterable[bytes] = ()) -> None:
        self.levels: list[bytearray] = [bytearray()]
        for data in leaves:
            self.append(data)

    @property
    def size(self) -> int:
        return len(self.levels[0]) // HASH_SIZE

    def append(self, data: bytes) -> None:
        """Add one leaf (its data, hashed here) and every subtree it completes."""
        self.append_hash(leaf_hash(data))

    def append_hash(self, leaf: bytes) -> None:
        self.levels[0] += leaf
        level = 0
        while len(self.levels[level]) // HASH_SIZE % 2 == 0:
            pair = self.levels[level][-2 * HASH_SIZE :]
            if level + 1 == len(self.levels):
                self.levels.append(bytearray())
            self.levels[level + 1] += node_hash(bytes(pair[:HASH_SIZE]), bytes(pair[HASH_SIZE:]))
            level += 1

    def subtree(self, level: int, index: int) -> bytes:
        start = index * HASH_SIZE
        if level >= len(self.levels) or index < 0 or start + HASH_SIZE > len(self.levels[level]):
            raise ValueError(
                f"the tree of {self.size} leaves has no complete subtree {index} at level {level}"
            )
        return bytes(self.levels[level][start : start + HASH_SIZE])

    def root(self, size: int | None = None) -> bytes:
        return root(self, self.size if size is None else size)


class Frontier:
    """The right edge of a tree: the roots of its complete subtrees, largest first (one per set
    bit of its size, so at most 64). Enough to append a leaf and to know the root after it,
    without reading anything else; a writer keeps it beside the log head."""

    def __init__(self, size: int = 0, hashes: Sequence[bytes] = ()) -> None:
        if len(hashes) != size.bit_count():
            raise ValueError(
                f"a frontier of a tree of {size} leaves holds {size.bit_count()} hashes, "
                f"not {len(hashes)}"
            )
        self.size = size
        self.hashes = list(hashes)

    def append_hash(self, leaf: bytes) -> None:
        merged = leaf
        size = self.size
        # Each trailing 1 bit of the size is a complete subtree the new leaf now pairs with.
        while size & 1:
            merged = node_hash(self.hashes.pop(), merged)
            size >>= 1
        self.hashes.append(merged)
        self.size += 1

    def root(self) -> bytes:
        if not self.hashes:
            return EMPTY_ROOT
        r = self.hashes[-1]
        for h in reversed(self.hashes[:-1]):
            r = node_hash(h, r)
        return r

    def encode(self) -> bytes:
        """The hashes back to back (32 bytes each), for a column beside the log head."""
        return b"".join(self.hashes)

    @classmethod
    def decode(cls, size: int, data: bytes) -> Frontier:
        if len(data) % HASH_SIZE:
            raise ValueError(f"a frontier is a multiple of {HASH_SIZE} bytes, not {len(data)}")
        return cls(size, [data[i : i + HASH_SIZE] for i in range(0, len(data), HASH_SIZE)])
