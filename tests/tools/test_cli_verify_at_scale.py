"""Verify at scale (issue 34): the chain checker's memory does not grow with the log, the phases
are timed apart in the report and in `flowledger verify --json`, and the incremental verify from
a tree head catches a tampered commit after the head (its chain) and before it (the root).
Tampering is plain SQL on a database of the suite's kind; no test here times anything.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tracemalloc
from datetime import datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.eventlog import LogChecker, StoredCommit
from flowledger.eventlog.integrity import stored_hash
from flowledger.eventlog.merkle import MemoryTree
from flowledger.eventlog.proofs import commit_leaf
from flowledger.tools.cli import main

MODEL = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"
    targetNamespace="t">
  <bpmn:process id="claim" isExecutable="true">
    <bpmn:startEvent id="filed" />
    <bpmn:sequenceFlow id="f1" sourceRef="filed" targetRef="assess" />
    <bpmn:userTask id="assess" />
    <bpmn:sequenceFlow id="f2" sourceRef="assess" targetRef="closed" />
    <bpmn:endEvent id="closed" />
  </bpmn:process>
</bpmn:definitions>
"""
WHEN = datetime(2026, 1, 1, 12, 0, 0)
STREAM_LENGTH = 3  # commits per synthetic stream


def _synthetic(index: int, prev_hash: str | None) -> StoredCommit:
    """Commit `index` of a synthetic log: streams of STREAM_LENGTH commits, 50 streams open at
    once (interleaved), one event each."""
    stream, version = _place(index)
    unhashed = StoredCommit(
        first_position=index + 1,
        last_position=index + 1,
        stream_id=f"s-{stream}",
        first_version=version,
        last_version=version,
        events=b'[{"type":"X","v":1}]',
        command_id=f"c-{index}",
        command_type="Synthetic",
        actor=None,
        causation_position=None,
        recorded_at=WHEN,
        prev_hash=prev_hash,
        hash="",
    )
    return dataclasses.replace(unhashed, hash=stored_hash(unhashed))


def _place(index: int) -> tuple[int, int]:
    group, offset = divmod(index, 50 * STREAM_LENGTH)
    return group * 50 + offset % 50, offset // 50 + 1


def _index_of(stream: int, version: int) -> int:
    group, slot = divmod(stream, 50)
    return group * 50 * STREAM_LENGTH + (version - 1) * 50 + slot


def _hash_at(index: int) -> str:
    """The hash of synthetic commit `index`, recomputed from the stream's start (no table)."""
    stream, version = _place(index)
    digest = None
    for v in range(1, version + 1):
        digest = _synthetic(_index_of(stream, v), digest).hash
    assert digest is not None
    return digest


def _peak(commits: int) -> int:
    """tracemalloc's peak while a bounded checker reads a synthetic log of `commits` commits."""

    def predecessor(stream_id: str, position: int) -> tuple[int, str] | None:
        stream, version = int(stream_id[2:]), _place(position - 1)[1]
        if version == 1:
            return None
        return version - 1, _hash_at(_index_of(stream, version - 1))

    tracemalloc.start()
    try:
        checker = LogChecker(predecessor=predecessor, mismatches=lambda: (), keep=20)
        heads: dict[int, str] = {}  # of the 50 open streams only, as a writer would know them
        for index in range(commits):
            stream, version = _place(index)
            commit = _synthetic(index, heads.pop(stream, None) if version > 1 else None)
            if version < STREAM_LENGTH:
                heads[stream] = commit.hash
            checker.check(commit)
        checker.finish(commits)
        assert checker.problems == []
        assert checker.lookups > 0  # the window of 20 heads is smaller than the 50 open streams
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_chain_checker_holds_nothing_per_commit_or_per_stream() -> None:
    short, long = _peak(1_500), _peak(15_000)
    # Ten times the commits and streams: the peak stays within a small constant of the short
    # one's (an unbounded head per stream alone would add about 5,000 entries).
    assert long < short * 1.5 + 64 * 1024, (short, long)


def test_the_checker_computes_the_tree_root_as_the_proofs_do() -> None:
    checker = LogChecker()
    tree = MemoryTree()
    heads: dict[int, str] = {}
    for index in range(300):
        stream, version = _place(index)
        commit = _synthetic(index, heads.get(stream) if version > 1 else None)
        heads[stream] = commit.hash
        checker.check(commit)
        tree.append_hash(commit_leaf(commit.hash))
    assert checker.frontier.root() == tree.root()


@pytest.fixture
def logged(db_url: str) -> str:
    with Engine(db_url) as engine:
        engine.deploy({"claim.bpmn": MODEL})
        for i in range(6):
            pi = engine.start_process_instance("claim", {"n": i})
            if i % 2 == 0:
                engine.complete_task(engine.tasks(process_instance_id=pi.id)[0].id, {})
    return db_url


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main(list(argv))
        status = 0
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


def _tamper(url: str, position_rank: int) -> None:
    """Edit the events of the commit at `position_rank` (0-based, position order), leaving its
    hash: what the chain's hash check (or a root over recomputed hashes) must see."""
    sql = sa.create_engine(url)
    try:
        with sql.begin() as conn:
            first = conn.execute(
                sa.text("SELECT first_position FROM event_log ORDER BY first_position")
            ).all()[position_rank][0]
            conn.execute(
                sa.text(
                    "UPDATE event_log SET actor = 'mallory', hash = :h WHERE first_position = :p"
                ),
                {"p": first, "h": hashlib.sha256(b"forged").hexdigest()},
            )
    finally:
        sql.dispose()


def test_verify_json_carries_each_phase_and_the_tree_head(
    logged: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = cli(capsys, "--json", "verify", "--db", logged)
    assert status == 0, out
    report = json.loads(out)
    assert [p["name"] for p in report["phases"]] == ["chains", "replay", "tables"]
    assert all(p["seconds"] >= 0 for p in report["phases"])
    assert report["phases"][0]["commits"] == report["commits_checked"] > 0
    status, head, _ = cli(capsys, "audit", "head", "--db", logged)
    assert report["root"] == head.split()[0]


def test_incremental_verify_from_a_head(
    logged: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Engine(logged) as engine:
        head = engine.audit_service.tree_head()
        engine.start_process_instance("claim", {"n": 99})  # commits after the head
        report = engine.audit_service.verify(since_head=head)
        assert report.ok, report.problems
        assert [p.name for p in report.phases] == ["root", "chains"]
        assert report.commits_checked >= 1
        full = engine.verify()
        assert report.root == full.root and report.anchor == full.anchor
    kept = tmp_path / "head.txt"
    kept.write_text(f"{head.size}:{head.root}\n")
    status, out, _ = cli(capsys, "verify", "--since-head", str(kept), "--db", logged)
    assert status == 0, out
    assert "root:" in out and "chains:" in out

    # A commit after the head, re-hashed (its chain's next link or the witness disagrees).
    _tamper(logged, head.size)
    status, out, _ = cli(capsys, "--json", "verify", "--since-head", str(kept), "--db", logged)
    assert status == 2
    problems = json.loads(out)["problems"]
    assert problems and not any(p.startswith("root:") for p in problems), problems


def test_incremental_verify_sees_a_commit_before_the_head_rewritten(
    logged: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with Engine(logged) as engine:
        head = engine.audit_service.tree_head()
    _tamper(logged, 1)
    status, out, _ = cli(
        capsys, "--json", "verify", "--since-head", f"{head.size}:{head.root}", "--db", logged
    )
    assert status == 2
    problems = json.loads(out)["problems"]
    assert any(p.startswith("root:") for p in problems), problems
