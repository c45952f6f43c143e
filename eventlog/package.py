"""Audit packages: some streams of a log in one self-checking file, to load into another
database (of any kind) where they replay and verify as on the original.

The file is a zip archive (docs/audit-packages.md describes it):

- `manifest.json`: format name and version, the exporting engine's version, when, the subject
  (an instance id), each stream's chain head (last version and hash), the counts, and the
  SHA-256 of the two files below;
- `commits.jsonl`: one commit per line, every column of `event_log` as stored (the events as
  their stored JSON text), in position order;
- `commands.jsonl`: the command-log row of every command those commits carry;
- `resources/<name>`: the deployed definition files, for people to read (the events carry the
  same bytes, and only those count);
- `proofs.jsonl` (when the manifest has a `tree`): per commit, in the same order, its leaf index
  in the exporting log's Merkle tree and its inclusion path to that tree's root — so an importer
  checks the package against a tree head it got from elsewhere (a published, signed one), not
  only against itself. The manifest may carry that head signed (`signed_head`).

Reading checks everything before anything is handed out: the manifest, both digests, every
commit's hash, every stream's chain from its first commit, and that each commit's command is
there. A truncated or edited package is refused with what is wrong and where.

Memory stays bounded whatever the file holds: nothing is inflated before the sizes its header
declares are within the limits below, members are digested a chunk at a time and parsed a line
at a time, and the rows are handed out as they are read again (never all held at once).
"""

from __future__ import annotations

import dataclasses
import hashlib
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import msgspec

from . import merkle
from .integrity import stored_hash
from .proofs import TreeHead, commit_leaf
from .records import CommandRecord, StoredCommit

FORMAT = "flowledger-audit-package"
FORMAT_VERSION = 1
MAX_PACKAGE_BYTES = 2 * 1024**3  # members larger than this together are refused, not inflated
MAX_MEMBER_BYTES = 1024**3  # one member declaring (or inflating to) more is refused
MAX_LINE_BYTES = 64 * 1024**2  # one commit or command line, and the manifest (a 16 MB request's
# commit, JSON-escaped, stays well below)
MAX_RATIO = 200  # a member inflating more than this is a zip bomb, not a log (JSON gives ~10)
_CHUNK = 1024**2  # bytes inflated at a time while digesting
# What the log's columns hold (eventlog/tables.py): longer values are refused before writing.
_LIMITS = {"stream_id": 64, "command_id": 64, "command_type": 64, "actor": 255, "via": 32}


class PackageError(Exception):
    """The package cannot be read or does not check out; the message says what and where."""


class StreamHead(msgspec.Struct, frozen=True):
    last_version: int
    hash: str


class Manifest(msgspec.Struct, frozen=True):
    format: str
    format_version: int
    engine_version: str
    created_at: datetime
    subject: str
    streams: dict[str, StreamHead]
    commits: int
    commands: int
    commits_sha256: str
    commands_sha256: str
    resources: list[str] = []
    # The exporting log's tree head the commits are proven in, and their proofs' digest.
    tree: TreeHead | None = None
    proofs_sha256: str | None = None
    signed_head: str | None = None  # the head as a signed note (`audit keygen`), when signed


class LeafProof(msgspec.Struct, frozen=True):
    """A commit's place in the exporting log's tree and its path to the tree's root."""

    leaf_index: int
    path: list[str]


class _Commit(msgspec.Struct, frozen=True):
    first_position: int
    last_position: int
    stream_id: str
    first_version: int
    last_version: int
    events: str
    command_id: str
    command_type: str
    actor: str | None
    causation_position: int | None
    recorded_at: datetime
    prev_hash: str | None
    hash: str
    via: str | None = None


class _Command(msgspec.Struct, frozen=True):
    command_id: str
    command_type: str
    payload: str
    status: str
    received_at: datetime
    reason: str | None = None
    result: str | None = None
    first_position: int | None = None
    last_position: int | None = None
    actor: str | None = None
    via: str | None = None


_Row = TypeVar("_Row", _Commit, _Command, LeafProof)


@dataclass(frozen=True)
class Package:
    """A package as read and checked: its manifest, digest and extent. Its rows are read again,
    a line at a time, by `commits()` and `commands()`: a package of any size loads in bounded
    memory (and a file changed since it was checked fails its digest at the end of the read)."""

    path: Path
    manifest: Manifest
    digest: str  # SHA-256 of the whole file: the package's identity
    streams: list[str]  # in the order of their first commits
    first_position: int
    last_position: int

    def commits(self) -> Iterator[StoredCommit]:
        for row in _rows(self.path, "commits.jsonl", _Commit, self.manifest.commits_sha256):
            yield _stored(row)

    def commands(self) -> Iterator[CommandRecord]:
        for row in _rows(self.path, "commands.jsonl", _Command, self.manifest.commands_sha256):
            yield _record(row)


def write_package(
    path: Path,
    *,
    subject: str,
    engine_version: str,
    created_at: datetime,
    commits: Sequence[StoredCommit],
    commands: Sequence[CommandRecord],
    resources: Mapping[str, bytes],
    tree: TreeHead | None = None,
    proofs: Sequence[LeafProof] = (),
    signed_head: str | None = None,
) -> Manifest:
    """Write the package to `path` (replaced whole: written beside it, then renamed). With
    `tree`, `proofs` holds each commit's inclusion proof in it, in the commits' order."""
    if tree is not None and len(proofs) != len(commits):
        raise ValueError("a package proven in a tree needs one proof per commit")
    commit_lines = b"".join(msgspec.json.encode(_commit_row(c)) + b"\n" for c in commits)
    command_lines = b"".join(msgspec.json.encode(_command_row(r)) + b"\n" for r in commands)
    proof_lines = b"".join(msgspec.json.encode(p) + b"\n" for p in proofs)
    heads: dict[str, StreamHead] = {}
    for c in commits:
        heads[c.stream_id] = StreamHead(c.last_version, c.hash)
    manifest = Manifest(
        format=FORMAT,
        format_version=FORMAT_VERSION,
        engine_version=engine_version,
        created_at=created_at,
        subject=subject,
        streams=heads,
        commits=len(commits),
        commands=len(commands),
        commits_sha256=hashlib.sha256(commit_lines).hexdigest(),
        commands_sha256=hashlib.sha256(command_lines).hexdigest(),
        resources=sorted(resources),
        tree=tree,
        proofs_sha256=None if tree is None else hashlib.sha256(proof_lines).hexdigest(),
        signed_head=signed_head,
    )
    partial = path.with_name(path.name + ".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", msgspec.json.format(msgspec.json.encode(manifest)))
        archive.writestr("commits.jsonl", commit_lines)
        archive.writestr("commands.jsonl", command_lines)
        if tree is not None:
            archive.writestr("proofs.jsonl", proof_lines)
        for name, data in sorted(resources.items()):
            archive.writestr(f"resources/{Path(name).name}", data)
    partial.replace(path)
    return manifest


def read_package(path: Path) -> Package:
    """The checked package at `path`; PackageError says why one cannot be used.

    Memory stays bounded: each member is streamed through its digest in chunks before a line of
    it is parsed, sizes are held to their limits before anything is inflated, and the rows are
    then checked a line at a time, keeping one chain head per stream and the ids of the
    accepted commands, nothing per commit."""
    try:
        with zipfile.ZipFile(path) as archive:
            inflated = sum(info.file_size for info in archive.infolist())
            if inflated > MAX_PACKAGE_BYTES:
                raise PackageError(
                    f"{path}: its members inflate to {inflated:,} bytes, over the limit of "
                    f"{MAX_PACKAGE_BYTES:,} bytes for a whole package"
                )
            manifest_info = _member(archive, path, "manifest.json")
            commits_info = _member(archive, path, "commits.jsonl")
            commands_info = _member(archive, path, "commands.jsonl")
            manifest = _manifest(path, archive, manifest_info)
            # Digests first: a truncated, edited or foreign member is refused before parsing.
            _digest(archive, path, commits_info, manifest.commits_sha256)
            _digest(archive, path, commands_info, manifest.commands_sha256)
            accepted: set[str] = set()
            commands = 0
            for r in _lines(archive, path, commands_info, _Command):
                commands += 1
                if r.status == "accepted":
                    accepted.add(r.command_id)
            checker = _Checker(path, manifest, accepted)
            proven = _proofs(archive, path, manifest)
            for c in _lines(archive, path, commits_info, _Commit):
                stored = _stored(c)
                checker.check(stored)
                if proven is not None:
                    _check_proof(path, manifest, stored, next(proven, None))
            if proven is not None and next(proven, None) is not None:
                raise PackageError(f"{path}: proofs.jsonl holds more proofs than commits")
        digest = _file_digest(path)
    except (zipfile.BadZipFile, EOFError, OSError, zlib.error) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise PackageError(f"{path} is not a readable audit package (zip): {reason}") from None
    if (checker.commits, commands) != (manifest.commits, manifest.commands):
        raise PackageError(
            f"{path}: holds {checker.commits} commits and {commands} commands, its manifest "
            f"says {manifest.commits} and {manifest.commands}"
        )
    checker.finish()
    return Package(path, manifest, digest, list(checker.heads), checker.first, checker.after)


def _manifest(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Manifest:
    with archive.open(info) as stream:
        data = stream.read(MAX_LINE_BYTES + 1)
    if len(data) > MAX_LINE_BYTES:
        raise PackageError(
            f"{path}: manifest.json is longer than {MAX_LINE_BYTES:,} bytes (the limit)"
        )
    try:
        manifest = msgspec.json.decode(data, type=Manifest)
    except msgspec.DecodeError as exc:
        raise PackageError(f"{path}: manifest.json is not a package manifest: {exc}") from None
    if manifest.format != FORMAT or manifest.format_version != FORMAT_VERSION:
        raise PackageError(
            f"{path}: format {manifest.format!r} version {manifest.format_version}; this "
            f"engine reads {FORMAT!r} version {FORMAT_VERSION}"
        )
    return manifest


class _Checker:
    """The commits' checks, fed one commit at a time in file order: positions rising, columns
    the log can hold, every stream's chain from its first commit, each commit's hash, its
    command among the accepted ones, and every stream ending where the manifest says."""

    def __init__(self, path: Path, manifest: Manifest, accepted: set[str]) -> None:
        self.path = path
        self.manifest = manifest
        self.accepted = accepted
        self.heads: dict[str, tuple[int, str]] = {}
        self.commits = 0
        self.first = 0
        self.after = 0  # the last position of the commits so far

    def check(self, c: StoredCommit) -> None:
        where = f"{self.path}: the commit at position {c.first_position}"
        if c.first_position <= self.after or c.last_position < c.first_position:
            raise PackageError(f"{where} overlaps or precedes the one before it")
        self.first = self.first or c.first_position
        self.after = c.last_position
        self.commits += 1
        if c.last_version - c.first_version != c.last_position - c.first_position:
            raise PackageError(f"{where} covers positions and versions of different lengths")
        for column, limit in _LIMITS.items():
            value = getattr(c, column)
            if value is not None and (len(value) > limit or "\x00" in value):
                raise PackageError(f"{where}: {column} is not a value the log can hold")
        version, previous = self.heads.get(c.stream_id, (0, None))
        where += f" (stream {c.stream_id})"
        if c.first_version != version + 1:
            raise PackageError(f"{where}: version {c.first_version} follows version {version}")
        if c.prev_hash != previous:
            raise PackageError(
                f"{where}: its previous-hash does not match the stream's preceding commit"
            )
        if stored_hash(c) != c.hash:
            raise PackageError(f"{where}: its content does not match its hash")
        if c.command_id not in self.accepted:
            raise PackageError(
                f"{where} carries command {c.command_id}, which commands.jsonl does not hold"
            )
        self.heads[c.stream_id] = (c.last_version, c.hash)

    def finish(self) -> None:
        if not self.commits:
            raise PackageError(f"{self.path}: holds no commits")
        for stream_id, (version, digest) in self.heads.items():
            head = self.manifest.streams.get(stream_id)
            if head != StreamHead(version, digest):
                raise PackageError(
                    f"{self.path}: stream {stream_id} ends at version {version} with hash "
                    f"{digest}, the manifest says {head}"
                )
        if set(self.manifest.streams) != set(self.heads):
            raise PackageError(f"{self.path}: the manifest names streams the commits do not hold")


def _proofs(archive: zipfile.ZipFile, path: Path, manifest: Manifest) -> Iterator[LeafProof] | None:
    """The commits' proofs, digest checked, when the package is proven in a tree."""
    if manifest.tree is None:
        return None
    if manifest.proofs_sha256 is None:
        raise PackageError(f"{path}: its manifest names a tree but no digest of its proofs")
    info = _member(archive, path, "proofs.jsonl")
    _digest(archive, path, info, manifest.proofs_sha256)
    return _lines(archive, path, info, LeafProof)


def _check_proof(path: Path, manifest: Manifest, c: StoredCommit, proof: LeafProof | None) -> None:
    tree = manifest.tree
    assert tree is not None
    where = f"{path}: the commit at position {c.first_position}"
    if proof is None:
        raise PackageError(f"{where} has no inclusion proof (proofs.jsonl ends early)")
    try:
        path_hashes = [bytes.fromhex(h) for h in proof.path]
        root = bytes.fromhex(tree.root)
    except ValueError:
        raise PackageError(f"{where}: its inclusion proof is not hex") from None
    if not merkle.verify_inclusion(
        commit_leaf(c.hash), proof.leaf_index, tree.size, path_hashes, root
    ):
        raise PackageError(
            f"{where} is not in the tree of {tree.size} commits its manifest names (its "
            "inclusion proof does not lead to that root)"
        )


def _member(archive: zipfile.ZipFile, path: Path, name: str) -> zipfile.ZipInfo:
    """The member's entry, refused on what its header declares, before anything is inflated."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise PackageError(f"{path}: {name} is missing (a truncated or foreign file?)") from None
    if info.file_size > MAX_MEMBER_BYTES:
        raise PackageError(
            f"{path}: {name} declares {info.file_size:,} bytes, over the limit of "
            f"{MAX_MEMBER_BYTES:,} bytes for one member"
        )
    if info.file_size > MAX_RATIO * max(info.compress_size, 1024):
        raise PackageError(
            f"{path}: {name} inflates {info.file_size:,} bytes from {info.compress_size:,}, "
            f"more than {MAX_RATIO} times: not a log (a zip bomb?)"
        )
    return info


def _chunks(archive: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """The member inflated a chunk at a time, refused once it inflates past its limit (zipfile
    stops at the declared size and checks the CRC; this holds whatever the header says)."""
    seen, cap = 0, min(info.file_size, MAX_MEMBER_BYTES)
    with archive.open(info) as stream:
        while chunk := stream.read(_CHUNK):
            seen += len(chunk)
            if seen > cap:
                raise PackageError(
                    f"{path}: {info.filename} inflates past {cap:,} bytes, more than its header "
                    "declares or the limit for one member"
                )
            yield chunk


def _digest(archive: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, expected: str) -> None:
    h = hashlib.sha256()
    for chunk in _chunks(archive, path, info):
        h.update(chunk)
    if h.hexdigest() != expected:
        raise PackageError(
            f"{path}: {info.filename} does not match the digest in its manifest (edited?)"
        )


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _raw_lines(
    archive: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo
) -> Iterator[tuple[int, bytes]]:
    """The member's lines with their numbers, one read at a time, none over MAX_LINE_BYTES."""
    with archive.open(info) as stream:
        number = 0
        while line := stream.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise PackageError(
                    f"{path}: {info.filename} line {number} is longer than {MAX_LINE_BYTES:,} "
                    "bytes (the limit for one commit or command)"
                )
            yield number, line


def _decoded(
    decoder: msgspec.json.Decoder[_Row], path: Path, name: str, number: int, line: bytes
) -> _Row:
    try:
        return decoder.decode(line)
    except msgspec.DecodeError as exc:
        raise PackageError(f"{path}: {name} line {number}: {exc}") from None


def _lines(
    archive: zipfile.ZipFile, path: Path, info: zipfile.ZipInfo, kind: type[_Row]
) -> Iterator[_Row]:
    """The member's rows, one line read at a time."""
    decoder = msgspec.json.Decoder(kind)
    for number, line in _raw_lines(archive, path, info):
        yield _decoded(decoder, path, info.filename, number, line)


def _rows(path: Path, name: str, kind: type[_Row], expected: str) -> Iterator[_Row]:
    """The member's rows read again after `read_package` checked them, a line at a time; the
    file must not have changed since: its digest is checked again at the end (a caller writing
    the rows in a transaction rolls it back on the PackageError)."""
    decoder = msgspec.json.Decoder(kind)
    h = hashlib.sha256()
    try:
        with zipfile.ZipFile(path) as archive:
            info = _member(archive, path, name)
            for number, line in _raw_lines(archive, path, info):
                h.update(line)
                yield _decoded(decoder, path, name, number, line)
    except (zipfile.BadZipFile, EOFError, OSError, zlib.error) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise PackageError(f"{path} is not a readable audit package (zip): {reason}") from None
    if h.hexdigest() != expected:
        raise PackageError(f"{path}: {name} changed since it was checked")


def _commit_row(c: StoredCommit) -> _Commit:
    return _Commit(**{**dataclasses.asdict(c), "events": c.events.decode()})


def _stored(c: _Commit) -> StoredCommit:
    return StoredCommit(**{**msgspec.structs.asdict(c), "events": c.events.encode()})


def _command_row(r: CommandRecord) -> _Command:
    result = None if r.result is None else r.result.decode()
    return _Command(**{**dataclasses.asdict(r), "payload": r.payload.decode(), "result": result})


def _record(r: _Command) -> CommandRecord:
    result = None if r.result is None else r.result.encode()
    fields = msgspec.structs.asdict(r)
    return CommandRecord(**{**fields, "payload": r.payload.encode(), "result": result})


def head_problems(path: Path, manifest: Manifest, trusted: TreeHead | None) -> list[str]:
    """What keeps a checked package from being proven in `trusted`, a tree head the importer got
    from elsewhere (empty: every commit is in that tree). Without `trusted`, only whether the
    package is proven in a tree at all."""
    tree = manifest.tree
    if tree is None:
        return [
            f"{path} carries no tree head and no inclusion proofs (exported by an older "
            "engine): it checks only against itself"
        ]
    if trusted is not None and (trusted.size, trusted.root) != (tree.size, tree.root):
        return [
            f"{path} is proven in the tree {tree.size}:{tree.root}, not in the trusted head "
            f"{trusted.size}:{trusted.root} (export it proven in that head: `flowledger export "
            f"--head-size {trusted.size}`)"
        ]
    return []
