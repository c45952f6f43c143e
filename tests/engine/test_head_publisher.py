"""A server's signed heads: published at start and again whenever the log grew, each one checking
with the public key and against the log; a failure to publish is logged, kept and DOWN in
`/actuator/health` until a later round succeeds."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from flowledger import Engine
from flowledger.engine.workers.head_publisher import HeadPublisher
from flowledger.eventlog import signed_heads
from tests.engine.test_deferred_projection import USER_TASK
from tests.rest.server import served_process


def _wait_for_first(publisher: HeadPublisher) -> None:
    deadline = time.monotonic() + 30
    while publisher.published == 0 and publisher.last_error is None:
        assert time.monotonic() < deadline, "no head published at start"
        time.sleep(0.01)


def test_heads_are_published_while_the_log_grows(db_url: str, tmp_path: Path) -> None:
    key = tmp_path / "server.key"
    public = signed_heads.load_public(signed_heads.generate(key))
    target = tmp_path / "heads.jsonl"
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        publisher = engine.publish_heads(key, target, every=3600)
        _wait_for_first(publisher)
        assert publisher.publish_now() is False  # nothing committed since
        engine.start_process_instance("p", {"who": "ann"})
        assert publisher.publish_now() is True
        health = engine.head_publisher_health()
        assert health is not None
        assert (health.status, health.published, health.last_size) == ("UP", 2, 3)
        heads = [signed_heads.verify(note, public).head for note in signed_heads.published(target)]
        # the deployment and the log's record of the server's key, then the start
        assert [h.size for h in heads] == [2, 3]
        assert engine.audit_service.check_published(heads) == []


def test_a_head_that_cannot_be_published_is_down_and_said(
    db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    key = tmp_path / "server.key"
    signed_heads.generate(key)
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        publisher = engine.publish_heads(key, tmp_path / "missing" / "heads.jsonl", every=3600)
        _wait_for_first(publisher)
        health = engine.head_publisher_health()
        assert health is not None and health.status == "DOWN"
        assert health.last_error is not None and "No such file" in health.last_error
    assert "cannot publish the log's head" in caplog.text


def test_a_key_others_can_read_is_refused(db_url: str, tmp_path: Path) -> None:
    key = tmp_path / "server.key"
    signed_heads.generate(key)
    key.chmod(0o644)
    with Engine(db_url) as engine, pytest.raises(signed_heads.KeyFileError, match="chmod 600"):
        engine.publish_heads(key, tmp_path / "heads.jsonl")


def test_a_served_engine_publishes_signed_heads_and_its_health_says_so(
    db_url: str, tmp_path: Path
) -> None:
    key = tmp_path / "server.key"
    public = signed_heads.load_public(signed_heads.generate(key))
    target = tmp_path / "heads.jsonl"
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
    options = ("--signing-key", str(key), "--publish-heads", str(target), "--head-interval", "1")
    with served_process(db_url, *options, log=tmp_path / "serve.log") as served:
        base = served.url.removesuffix("/engine-rest")
        deadline = time.monotonic() + 60
        while True:
            body = httpx.get(base + "/actuator/health", timeout=10).json()
            heads = body["components"].get("heads", {})
            if heads.get("details", {}).get("published", 0) >= 1:
                break
            assert time.monotonic() < deadline, body
            time.sleep(0.1)
        assert heads["status"] == "UP"
        assert heads["details"]["lastSize"] >= 1
    (note, *_rest) = signed_heads.published(target)
    assert signed_heads.verify(note, public).head.size >= 1
