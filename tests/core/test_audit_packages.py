"""Audit packages: an instance exported from the suite's database and loaded into a database of
another kind replays, shows its history and verifies as on the original; a damaged package is
refused with nothing written."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec
import pytest

from flowledger import ControllableClock, Engine
from flowledger.core.errors import InvalidValue
from flowledger.eventlog.integrity import stored_hash
from flowledger.eventlog.package import _Commit, _commit_row, _stored
from tests.support import fresh_database, require, selected_kind


def _other_kind() -> str:
    """A database kind other than the suite's: the laptop of the issue's story."""
    if selected_kind() != "sqlite":
        return "sqlite"
    require("postgresql")  # skips locally when there is none; CI starts one
    return "postgresql"


@pytest.fixture
def other(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "other").mkdir()
    with fresh_database(_other_kind(), tmp_path / "other") as url:
        yield url


MODEL = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="parent" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="call" />
    <bpmn:callActivity id="call" calledElement="child">
      <bpmn:extensionElements><camunda:in variables="all" /></bpmn:extensionElements>
    </bpmn:callActivity>
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
  <bpmn:process id="child" isExecutable="true">
    <bpmn:startEvent id="cs" />
    <bpmn:sequenceFlow id="c1" sourceRef="cs" targetRef="review" />
    <bpmn:userTask id="review" name="Review" camunda:assignee="kermit" />
    <bpmn:sequenceFlow id="c2" sourceRef="review" targetRef="ce" />
    <bpmn:endEvent id="ce" />
  </bpmn:process>
</bpmn:definitions>
"""


@pytest.fixture
def exported(engine: Engine, clock: ControllableClock, tmp_path: Path) -> tuple[str, Path]:
    """A parent that called a child, the child's task completed; other work beside it."""
    engine.deploy({"calls.bpmn": MODEL})
    bystander = engine.start_process_instance("child", {"n": 0})
    parent = engine.start_process_instance("parent", {"amount": 7})
    clock.advance(seconds=5)
    (task,) = engine.tasks(process_instance_id=_child_of(engine, parent.id))
    engine.acting_as("kermit", via="rest").complete_task(task.id, {"ok": True})
    engine.complete_task(engine.tasks(process_instance_id=bystander.id)[0].id)
    path = tmp_path / "parent.zip"
    summary = engine.audit_service.export_instance(parent.id, path)
    assert summary.subject == parent.id and len(summary.streams) == 3  # parent, child, deployment
    return parent.id, path


def _child_of(engine: Engine, parent_id: str) -> str:
    (called,) = [e for e in engine.events(parent_id) if e.type == "CalledInstanceStarted"]
    return str(called.payload["called_process_instance_id"])


def test_an_imported_instance_replays_and_verifies_on_another_database_kind(
    engine: Engine, exported: tuple[str, Path], other: str
) -> None:
    parent, path = exported
    child = _child_of(engine, parent)

    with Engine(other) as laptop:
        summary = laptop.audit_service.import_package(path)

        assert summary.subject == parent
        for instance in (parent, child):
            assert laptop.replay(instance) == engine.replay(instance)
            assert laptop.audit_service.timeline(instance) == engine.audit_service.timeline(
                instance
            )
        middle = engine.events(parent)[3].position
        assert laptop.audit_service.state_at(
            parent, position=middle
        ) == engine.audit_service.state_at(parent, position=middle)
        assert [
            (a.activity_id, a.end_time is not None)
            for a in laptop.historic_activity_instances(child)
        ] == [
            (a.activity_id, a.end_time is not None)
            for a in engine.historic_activity_instances(child)
        ]
        who = {(e.actor, e.via) for e in laptop.events(child) if e.command_type == "CompleteTask"}
        assert who == {("kermit", "rest")}
        report = laptop.verify()
        assert report.ok, report.problems


def test_a_package_loads_only_where_its_positions_are_free(
    exported: tuple[str, Path], other: str
) -> None:
    _, path = exported
    with Engine(other) as laptop:
        laptop.audit_service.import_package(path)
        with pytest.raises(InvalidValue, match="already reaches position"):
            laptop.audit_service.import_package(path)
        assert laptop.verify().ok


def _rewrite(path: Path, member: str, edit: Callable[[bytes], bytes]) -> Path:
    damaged = path.with_name(f"{path.stem}-{member}.zip")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(damaged, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, edit(data) if info.filename == member else data)
    return damaged


def _edit_commit_and_digest(path: Path) -> Path:
    """An edited event, with the manifest's digest recomputed to match: only the hash tells."""
    with zipfile.ZipFile(path) as src:
        lines = src.read("commits.jsonl").splitlines(keepends=True)
        manifest = json.loads(src.read("manifest.json"))
    row = json.loads(lines[-1])
    row["actor"] = "mallory"
    lines[-1] = msgspec.json.encode(row) + b"\n"
    commits = b"".join(lines)
    manifest["commits_sha256"] = hashlib.sha256(commits).hexdigest()
    damaged = _rewrite(path, "commits.jsonl", lambda _: commits)
    return _rewrite(damaged, "manifest.json", lambda _: json.dumps(manifest).encode())


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.with_name("missing.zip"), "No such file"),
        (lambda p: _truncated(p), "not a readable audit package"),
        (lambda p: _rewrite(p, "commands.jsonl", lambda d: d[: len(d) // 2]), "does not match"),
        (
            lambda p: _rewrite(p, "commits.jsonl", lambda d: d.replace(b"kermit", b"mallory")),
            "does not match the digest",
        ),
        (_edit_commit_and_digest, "does not match its hash"),
        (lambda p: _rewrite(p, "manifest.json", lambda d: b"{}"), "not a package manifest"),
    ],
    ids=["missing", "truncated", "half-commands", "edited", "edited-and-redigested", "manifest"],
)
def test_a_damaged_package_is_refused_and_nothing_is_written(
    exported: tuple[str, Path], other: str, damage: Callable[[Path], Path], message: str
) -> None:
    _, path = exported
    damaged = damage(path)
    with Engine(other) as laptop:
        with pytest.raises(InvalidValue, match=message):
            laptop.audit_service.import_package(damaged)
        assert laptop.log_position() == 0
        assert laptop.repository_service.process_definitions() == []


def _truncated(path: Path) -> Path:
    cut = path.with_name("cut.zip")
    data = path.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    return cut


def test_a_package_with_an_event_this_engine_cannot_read_is_refused_whole(
    exported: tuple[str, Path], other: str
) -> None:
    """As one from a newer engine would be: every hash checks out, the event does not read."""
    _, path = exported
    with zipfile.ZipFile(path) as src:
        lines = src.read("commits.jsonl").splitlines(keepends=True)
        manifest = json.loads(src.read("manifest.json"))
    last = _stored(msgspec.json.decode(lines[-1], type=_Commit))
    events = last.events.replace(b'"type":"', b'"type":"Future', 1)
    forged = dataclasses.replace(last, events=events)
    forged = dataclasses.replace(forged, hash=stored_hash(forged))
    lines[-1] = msgspec.json.encode(_commit_row(forged)) + b"\n"
    commits = b"".join(lines)
    manifest["commits_sha256"] = hashlib.sha256(commits).hexdigest()
    manifest["streams"][forged.stream_id]["hash"] = forged.hash
    damaged = _rewrite(path, "commits.jsonl", lambda _: commits)
    rehashed = _rewrite(damaged, "manifest.json", lambda _: json.dumps(manifest).encode())
    # Re-hashed consistently, the package still fails its commit's inclusion proof in the
    # exporting log's tree ...
    with (
        Engine(other) as laptop,
        pytest.raises(InvalidValue, match=r"is not in the tree of \d+ commits its manifest"),
    ):
        laptop.audit_service.import_package(rehashed)
    # ... so a package from a newer engine is played here as one without proofs (an older one).
    del manifest["tree"], manifest["proofs_sha256"]
    damaged = _rewrite(damaged, "manifest.json", lambda _: json.dumps(manifest).encode())

    with Engine(other) as laptop:
        with pytest.raises(InvalidValue, match="cannot be read by this engine"):
            laptop.audit_service.import_package(damaged)
        assert laptop.log_position() == 0
