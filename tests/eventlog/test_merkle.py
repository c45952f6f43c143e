"""Merkle tree hashing (RFC 9162): the known answers of Certificate Transparency's test data, and
properties over random logs — every proof verifies, and none survives a change to a byte, the
order of leaves, a deletion or an insertion."""

from __future__ import annotations

import hypothesis.strategies as st
import pytest
from hypothesis import given

from flowledger.eventlog.merkle import (
    EMPTY_ROOT,
    Frontier,
    MemoryTree,
    consistency_proof,
    inclusion_proof,
    leaf_hash,
    verify_consistency,
    verify_inclusion,
)

# The leaves and answers of the RFC 6962 test data (certificate-transparency, transparency-dev's
# merkle package): read as data, to check this implementation against an independent one.
LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    b"\x50\x51\x52\x53\x54\x55\x56\x57",
    b"\x60\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x6b\x6c\x6d\x6e\x6f",
]
ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
INCLUSION = {
    (0, 1): [],
    (0, 8): [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
    (5, 8): [
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
}
CONSISTENCY = {
    (1, 1): [],
    (1, 8): [
        "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
    (6, 8): [
        "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
        "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
    (2, 5): [
        "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
        "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
}


def test_roots_of_the_reference_data() -> None:
    tree = MemoryTree(LEAVES)
    assert tree.root(0) == EMPTY_ROOT
    assert [tree.root(n).hex() for n in range(1, 9)] == ROOTS


@pytest.mark.parametrize(("index", "size"), sorted(INCLUSION))
def test_inclusion_proofs_of_the_reference_data(index: int, size: int) -> None:
    tree = MemoryTree(LEAVES)
    proof = inclusion_proof(tree, index, size)
    assert [p.hex() for p in proof] == INCLUSION[index, size]
    assert verify_inclusion(leaf_hash(LEAVES[index]), index, size, proof, tree.root(size))


@pytest.mark.parametrize(("old", "new"), sorted(CONSISTENCY))
def test_consistency_proofs_of_the_reference_data(old: int, new: int) -> None:
    tree = MemoryTree(LEAVES)
    proof = consistency_proof(tree, old, new)
    assert [p.hex() for p in proof] == CONSISTENCY[old, new]
    assert verify_consistency(old, new, proof, tree.root(old), tree.root(new))


def test_every_proof_of_the_reference_data_verifies() -> None:
    tree = MemoryTree(LEAVES)
    for size in range(1, 9):
        for index in range(size):
            proof = inclusion_proof(tree, index, size)
            assert verify_inclusion(leaf_hash(LEAVES[index]), index, size, proof, tree.root(size))
        for old in range(size + 1):
            proof = consistency_proof(tree, old, size)
            assert verify_consistency(old, size, proof, tree.root(old), tree.root(size))


def test_a_consistency_proof_against_another_root_fails() -> None:
    tree = MemoryTree(LEAVES)
    proof = consistency_proof(tree, 3, 7)
    assert not verify_consistency(3, 7, proof, tree.root(3), tree.root(6))
    assert not verify_consistency(3, 7, proof, tree.root(2), tree.root(7))


logs = st.lists(st.binary(max_size=40), min_size=1, max_size=70, unique=True)


def _flipped(data: bytes, at: int) -> bytes:
    at %= len(data)
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


@given(logs, st.data())
def test_inclusion_proofs_verify_and_no_changed_byte_does(
    leaves: list[bytes], data: st.DataObject
) -> None:
    tree = MemoryTree(leaves)
    size = data.draw(st.integers(1, tree.size), label="size")
    index = data.draw(st.integers(0, size - 1), label="index")
    proof = inclusion_proof(tree, index, size)
    head = tree.root(size)
    leaf = leaf_hash(leaves[index])
    assert verify_inclusion(leaf, index, size, proof, head)
    assert len(proof) <= (size - 1).bit_length()  # O(log n)
    at = data.draw(st.integers(0, 10_000), label="byte")
    assert not verify_inclusion(_flipped(leaf, at), index, size, proof, head)
    assert not verify_inclusion(leaf, index, size, proof, _flipped(head, at))
    if proof:
        which = data.draw(st.integers(0, len(proof) - 1), label="proof element")
        changed = [*proof[:which], _flipped(proof[which], at), *proof[which + 1 :]]
        assert not verify_inclusion(leaf, index, size, changed, head)
        assert not verify_inclusion(leaf, index, size, proof[:-1], head)
    other = data.draw(st.integers(0, size - 1), label="another index")
    if other != index:
        assert not verify_inclusion(leaf, other, size, proof, head)
    # (The size is not checked on its own: a signed head names it together with the root.)


@given(logs, st.data())
def test_consistency_proofs_verify_and_no_changed_byte_does(
    leaves: list[bytes], data: st.DataObject
) -> None:
    tree = MemoryTree(leaves)
    new = data.draw(st.integers(0, tree.size), label="new size")
    old = data.draw(st.integers(0, new), label="old size")
    proof = consistency_proof(tree, old, new)
    old_root, new_root = tree.root(old), tree.root(new)
    assert verify_consistency(old, new, proof, old_root, new_root)
    assert len(proof) <= 2 * max(new - 1, 1).bit_length()
    at = data.draw(st.integers(0, 10_000), label="byte")
    if 0 < old < new:
        which = data.draw(st.integers(0, len(proof) - 1), label="proof element")
        changed = [*proof[:which], _flipped(proof[which], at), *proof[which + 1 :]]
        assert not verify_consistency(old, new, changed, old_root, new_root)
        assert not verify_consistency(old, new, proof, _flipped(old_root, at), new_root)
        assert not verify_consistency(old, new, proof, old_root, _flipped(new_root, at))


@given(logs, st.data())
def test_a_rewritten_past_never_proves_consistent_with_an_older_head(
    leaves: list[bytes], data: st.DataObject
) -> None:
    old = data.draw(st.integers(1, len(leaves)), label="old size")
    old_root = MemoryTree(leaves).root(old)
    at = data.draw(st.integers(0, old - 1), label="position changed")
    change = data.draw(st.sampled_from(["byte", "delete", "insert", "swap"]), label="change")
    forged = list(leaves)
    if change == "byte":
        forged[at] = _flipped(forged[at] or b"\x00", 0) if forged[at] else b"\x01"
    elif change == "delete":
        del forged[at]
    elif change == "insert":
        forged.insert(at, b"forged" + bytes([at % 256]))
    else:
        if at + 1 >= len(forged):
            return
        forged[at], forged[at + 1] = forged[at + 1], forged[at]
    if forged[:old] == leaves[:old]:
        return  # the change left the old tree's leaves as they were
    tree = MemoryTree(forged)
    # Whatever size the forger now claims, its tree does not extend the head published before.
    for new in range(old, tree.size + 1):
        proof = consistency_proof(tree, old, new)
        assert not verify_consistency(old, new, proof, old_root, tree.root(new))


@given(st.lists(st.binary(max_size=20), max_size=140))
def test_the_frontier_knows_the_root_after_every_append(leaves: list[bytes]) -> None:
    tree, frontier = MemoryTree(), Frontier()
    for data in leaves:
        tree.append(data)
        frontier.append_hash(leaf_hash(data))
        assert frontier.root() == tree.root()
        assert len(frontier.hashes) == frontier.size.bit_count() <= 64
    again = Frontier.decode(frontier.size, frontier.encode())
    assert again.root() == frontier.root()


def test_a_frontier_of_the_wrong_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="holds 2 hashes, not 1"):
        Frontier(3, [EMPTY_ROOT])
    with pytest.raises(ValueError, match="multiple of 32 bytes"):
        Frontier.decode(1, b"\x00" * 31)


def test_proofs_of_leaves_outside_the_tree_are_refused() -> None:
    tree = MemoryTree(LEAVES)
    with pytest.raises(ValueError, match="leaf 8 is not in a tree of 8 leaves"):
        inclusion_proof(tree, 8, 8)
    with pytest.raises(ValueError, match="no consistency proof from 5 to 4 leaves"):
        consistency_proof(tree, 5, 4)
    with pytest.raises(ValueError, match="no complete subtree"):
        tree.subtree(3, 1)
