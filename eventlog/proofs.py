"""Tree heads and proofs over the log as files an auditor keeps and checks without the database.

The Merkle tree's leaves are the log's commits in position order, leaf i the i-th commit (0-based);
a leaf's data is the commit's hash — the SHA-256 its hash chain already stores, over every column
of the commit and its predecessor's hash (`hashing.commit_hash`) — as 32 raw bytes, so a leaf is
`SHA-256(0x00 || commit hash)`. A tree head names a size (commits) and the root over them; the
log anchor `POSITION:DIGEST` of `flowledger head` covers the same commits (those up to POSITION)
with a hash chain over the same commit hashes, so each anchor has exactly one tree head and the
other way round.

An `InclusionProof` carries the whole commit (every column its hash covers): `check_inclusion`
recomputes the commit's hash from them, so a proven commit's events are the bytes the log holds;
an event is proven by its commit's inclusion and its place in the commit (`event_index`). A
`ConsistencyProof` shows a later head only extends an earlier one.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

import msgspec

from . import merkle
from .integrity import stored_hash
from .records import StoredCommit

FORMAT = "flowledger.proof/1"


def commit_leaf(commit_hash_hex: str) -> bytes:
    """The leaf hash of a commit, from the hash its chain stores (64 hex digits)."""
    return merkle.leaf_hash(bytes.fromhex(commit_hash_hex))


class TreeHead(msgspec.Struct, frozen=True):
    """The Merkle tree over the first `size` commits: `root` (hex), and `position`, the last log
    position those commits hold (the anchor of the same commits is `position:…`)."""

    size: int
    root: str
    position: int


class ProvenCommit(msgspec.Struct, frozen=True):
    """Every column of a commit its hash covers (events as the stored JSON text)."""

    stream_id: str
    first_version: int
    last_version: int
    first_position: int
    last_position: int
    command_id: str
    command_type: str
    actor: str | None
    causation_position: int | None
    recorded_at: datetime
    events: str
    prev_hash: str | None
    hash: str
    via: str | None = None

    @classmethod
    def of(cls, commit: StoredCommit) -> ProvenCommit:
        return cls(**{**dataclasses.asdict(commit), "events": commit.events.decode()})

    def recomputed_hash(self) -> str:
        """The hash the columns give (`integrity.stored_hash`, as verify recomputes it)."""
        fields = msgspec.structs.asdict(self)
        return stored_hash(StoredCommit(**{**fields, "events": self.events.encode()}))


class InclusionProof(msgspec.Struct, frozen=True, tag="inclusion", tag_field="kind"):
    """Commit number `leaf_index` (0-based) is in the tree `head`; the proven log position is
    the commit's event `event_index`."""

    format: str
    head: TreeHead
    leaf_index: int
    event_index: int
    commit: ProvenCommit
    path: list[str]


class ConsistencyProof(msgspec.Struct, frozen=True, tag="consistency", tag_field="kind"):
    """The tree `new` extends the tree `old`: its first `old.size` commits are those of `old`."""

    format: str
    old: TreeHead
    new: TreeHead
    path: list[str]


Proof = InclusionProof | ConsistencyProof


class ProofError(Exception):
    """A proof file that is not one (its message says what is wrong with it)."""


def encode(proof: Proof) -> bytes:
    return msgspec.json.format(msgspec.json.encode(proof)) + b"\n"


def decode(data: bytes) -> Proof:
    try:
        proof = msgspec.json.decode(data, type=Proof)
    except msgspec.DecodeError as exc:
        raise ProofError(f"not a flowledger proof: {exc}") from None
    if proof.format != FORMAT:
        raise ProofError(f"proof format {proof.format!r} is not {FORMAT!r}")
    return proof


def _hashes(path: list[str]) -> list[bytes]:
    try:
        hashes = [bytes.fromhex(h) for h in path]
    except ValueError:
        raise ProofError("a proof hash is not hex") from None
    if any(len(h) != merkle.HASH_SIZE for h in hashes):
        raise ProofError(f"a proof hash is not {merkle.HASH_SIZE} bytes")
    return hashes


def _root(head: TreeHead) -> bytes:
    try:
        root = bytes.fromhex(head.root)
    except ValueError:
        raise ProofError(f"tree head root {head.root!r} is not hex") from None
    if len(root) != merkle.HASH_SIZE:
        raise ProofError(f"tree head root is not {merkle.HASH_SIZE} bytes")
    return root


def check_inclusion(proof: InclusionProof, trusted: TreeHead | None = None) -> list[str]:
    """What is wrong with `proof` (empty: it holds). `trusted`: the head the auditor got from
    elsewhere (a published or signed one); the proof's own head must be it."""
    problems: list[str] = []
    if trusted is not None and (trusted.size, trusted.root) != (proof.head.size, proof.head.root):
        problems.append(
            f"the proof is for the tree of {proof.head.size} commits with root {proof.head.root}, "
            f"not the trusted head of {trusted.size} commits with root {trusted.root}"
        )
    commit = proof.commit
    recomputed = commit.recomputed_hash()
    if recomputed != commit.hash:
        problems.append(
            f"the commit's columns hash to {recomputed}, not to the hash {commit.hash} it names"
        )
    span = commit.last_position - commit.first_position + 1
    if not 0 <= proof.event_index < span:
        problems.append(f"event {proof.event_index} is not one of the commit's {span} events")
    if not merkle.verify_inclusion(
        commit_leaf(recomputed),
        proof.leaf_index,
        proof.head.size,
        _hashes(proof.path),
        _root(proof.head),
    ):
        problems.append(
            f"commit {proof.leaf_index + 1} (positions {commit.first_position}.."
            f"{commit.last_position}) is not in the tree of {proof.head.size} commits with root "
            f"{proof.head.root}"
        )
    return problems


def check_consistency(proof: ConsistencyProof, trusted: TreeHead | None = None) -> list[str]:
    """What is wrong with `proof` (empty: the new tree extends the old). `trusted`: a head the
    auditor got from elsewhere, which must be the proof's old or new head."""
    problems: list[str] = []
    if trusted is not None and (trusted.size, trusted.root) not in (
        (proof.old.size, proof.old.root),
        (proof.new.size, proof.new.root),
    ):
        problems.append(
            f"the trusted head of {trusted.size} commits with root {trusted.root} is neither "
            "of the proof's heads"
        )
    if not merkle.verify_consistency(
        proof.old.size,
        proof.new.size,
        _hashes(proof.path),
        _root(proof.old),
        _root(proof.new),
    ):
        problems.append(
            f"the tree of {proof.new.size} commits with root {proof.new.root} does not extend "
            f"the tree of {proof.old.size} commits with root {proof.old.root}"
        )
    return problems
