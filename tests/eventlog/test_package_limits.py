"""Audit packages built to exhaust memory (zip bombs, one endless line) are refused while the
reader's memory stays bounded: members are streamed through their digests a chunk at a time, and
sizes are held to their limits before anything is inflated.

Memory is measured with tracemalloc's peak (deterministic, unlike RSS or time). The packages are
written a chunk at a time, so the tests themselves stay small too.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import tracemalloc
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest

from flowledger.eventlog import CommandRecord, StoredCommit
from flowledger.eventlog import package as pkg
from flowledger.eventlog.integrity import stored_hash
from flowledger.eventlog.package import Manifest, PackageError, read_package, write_package

MiB = 1024**2
# Each 1 MiB chunk: 6 KiB that do not compress, then zeros. Deflate shrinks it ~150 times, under
# the ratio a bomb is refused at (MAX_RATIO), so only reading it decides. No newline in it: the
# whole member is one line.
_NOISE = random.Random(30).randbytes(6 * 1024).replace(b"\n", b" ")
_CHUNK = _NOISE + bytes(MiB - len(_NOISE))


def _write(
    path: Path,
    commits: Callable[[zipfile.ZipFile], str],
    *,
    commits_sha256: str | None = None,
) -> Path:
    """A package whose commits.jsonl `commits` writes (returning its digest); the manifest
    names `commits_sha256` instead when given."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        digest = commits(archive)
        archive.writestr("commands.jsonl", b"")
        manifest = Manifest(
            format=pkg.FORMAT,
            format_version=pkg.FORMAT_VERSION,
            engine_version="test",
            created_at=datetime(2026, 12, 6, tzinfo=UTC),
            subject="bomb",
            streams={},
            commits=1,
            commands=0,
            commits_sha256=commits_sha256 or digest,
            commands_sha256=hashlib.sha256(b"").hexdigest(),
        )
        archive.writestr("manifest.json", msgspec.json.encode(manifest))
    return path


def _chunks(count: int, chunk: bytes = _CHUNK) -> Callable[[zipfile.ZipFile], str]:
    def write(archive: zipfile.ZipFile) -> str:
        h = hashlib.sha256()
        with archive.open("commits.jsonl", "w", force_zip64=True) as member:
            for _ in range(count):
                member.write(chunk)
                h.update(chunk)
        return h.hexdigest()

    return write


def _refused_with_peak(path: Path) -> tuple[str, int]:
    """The refusal's message and the peak of memory allocated while reading `path`."""
    tracemalloc.start()
    try:
        with pytest.raises(PackageError) as refused:
            read_package(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return str(refused.value), peak


def test_a_member_declaring_more_than_the_limit_is_refused_before_it_is_inflated(
    tmp_path: Path,
) -> None:
    # 1 GiB of zeros, about 1 MB on disk.
    zeros = bytes(MiB)
    path = _write(tmp_path / "bomb.zip", _chunks(1024, zeros))
    assert path.stat().st_size < 2 * MiB
    message, peak = _refused_with_peak(path)
    assert "commits.jsonl" in message
    assert f"{pkg.MAX_MEMBER_BYTES:,}" in message
    assert peak < 4 * MiB


def test_a_member_that_does_not_match_its_digest_is_refused_reading_a_chunk_at_a_time(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path / "junk.zip", _chunks(48), commits_sha256="0" * 64)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("commits.jsonl")
    assert info.file_size == 48 * MiB and info.file_size < pkg.MAX_RATIO * info.compress_size
    message, peak = _refused_with_peak(path)
    assert "commits.jsonl does not match the digest" in message
    assert peak < 12 * MiB  # the member inflated whole was 48 MiB


def test_a_line_longer_than_the_limit_is_refused_without_reading_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Digests are no signature: whoever crafts the file can make its manifest match."""
    monkeypatch.setattr(pkg, "MAX_LINE_BYTES", 4 * MiB)
    path = _write(tmp_path / "line.zip", _chunks(48))
    message, peak = _refused_with_peak(path)
    assert "commits.jsonl line 1 is longer than 4,194,304 bytes" in message
    assert peak < 16 * MiB


def test_a_member_inflating_far_more_than_it_takes_on_disk_is_refused_as_a_bomb(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path / "zeros.zip", _chunks(64, bytes(MiB)))
    message, peak = _refused_with_peak(path)
    assert "commits.jsonl inflates 67,108,864 bytes" in message
    assert f"more than {pkg.MAX_RATIO} times" in message
    assert peak < 4 * MiB


def _genuine(path: Path, commits: int, event_bytes: int) -> Path:
    """A package of `commits` commits on one stream, each with one event of `event_bytes`."""
    when = datetime(2026, 12, 6, 9, 0)
    rows: list[StoredCommit] = []
    previous: str | None = None
    rnd = random.Random(6)
    for n in range(1, commits + 1):
        text = rnd.randbytes(event_bytes // 2).hex()
        commit = StoredCommit(
            first_position=n,
            last_position=n,
            stream_id="stream-1",
            first_version=n,
            last_version=n,
            events=msgspec.json.encode([{"type": "Noted", "text": text}]),
            command_id=f"command-{n}",
            command_type="Note",
            actor=None,
            causation_position=None,
            recorded_at=when,
            prev_hash=previous,
            hash="",
        )
        commit = dataclasses.replace(commit, hash=stored_hash(commit))
        previous = commit.hash
        rows.append(commit)
    commands = [
        CommandRecord(
            c.command_id,
            "Note",
            b"{}",
            "accepted",
            when,
            first_position=c.first_position,
            last_position=c.last_position,
        )
        for c in rows
    ]
    write_package(
        path,
        subject="log",
        engine_version="test",
        created_at=when,
        commits=rows,
        commands=commands,
        resources={},
    )
    return path


def test_a_genuine_package_is_checked_and_read_back_a_line_at_a_time(tmp_path: Path) -> None:
    path = _genuine(tmp_path / "log.zip", commits=48, event_bytes=256 * 1024)  # 12 MiB of commits
    tracemalloc.start()
    try:
        package = read_package(path)
        positions = [c.first_position for c in package.commits()]
        commands = sum(1 for _ in package.commands())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert positions == list(range(1, 49)) and commands == 48
    assert (package.first_position, package.last_position, package.streams) == (1, 48, ["stream-1"])
    assert peak < 8 * MiB  # the commits alone are 12 MiB (the reader kept them all, and more)


def test_a_package_changed_after_its_check_fails_its_digest_when_read_again(
    tmp_path: Path,
) -> None:
    path = _genuine(tmp_path / "log.zip", commits=3, event_bytes=64)
    package = read_package(path)
    _genuine(tmp_path / "other.zip", commits=3, event_bytes=80).replace(path)
    with pytest.raises(PackageError, match=r"commits\.jsonl changed since it was checked"):
        list(package.commits())
