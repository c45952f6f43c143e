"""`flowledger serve --export` and `flowledger exporters status`: a server streams every event to
its targets; killed with SIGKILL in the middle of an export and started again, each target holds
every event exactly once by position, in order; the status command reads the stored positions
from the database."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

import httpx
import pytest

from flowledger import Engine
from tests.engine.test_deferred_projection import USER_TASK
from tests.exporter_support import (
    file_positions,
    nats_messages,
    nats_stream_name,
    wait_for,
)
from tests.rest.server import served_process
from tests.tools.test_cli_audit import cli

INSTANCES = 400  # about 3,000 events before the server starts: its export takes a while


def test_exporters_status_reads_the_stored_positions(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = cli(capsys, "exporters", "status", "--db", db_url)
    assert status != 0 or "no exporter" in out  # a new database: nothing to show
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_exporter(f"audit=file:{tmp_path / 'events.jsonl'}")
        wait_for(lambda: engine.exporters_health()[0].lag == 0)
        engine.start_process_instance("p", {"who": "ann"})  # after the exporter stopped
        head = engine.log_position()
        wait_for(lambda: engine.exporters_health()[0].lag == 0)
        engine.close()
        with Engine(db_url) as later:
            later.start_process_instance("p", {"who": "bob"})  # no exporter runs: it lags
            lagging = later.log_position() - head
    status, out, _err = cli(capsys, "exporters", "status", "--db", db_url)
    assert status == 0
    assert "audit" in out and "following" in out and str(head) in out
    status, out, _err = cli(capsys, "exporters", "status", "--db", db_url, "--json")
    assert status == 0
    (row,) = json.loads(out)
    assert (row["name"], row["position"], row["lag"], row["status"]) == (
        "audit",
        head,
        lagging,
        "following",
    )
    assert "events.jsonl" in row["detail"] and row["updated"]


def test_a_bad_export_target_is_refused_before_serving(
    db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _out, err = cli(capsys, "serve", "--db", db_url, "--export", "ftp://x")
    assert status != 0 and "not an export target" in err


@pytest.mark.parametrize("kinds", [("file",), ("file", "nats")])
def test_kill_9_during_export_then_restart_every_event_exactly_once(
    db_url: str, tmp_path: Path, kinds: tuple[str, ...]
) -> None:
    target = tmp_path / "events.jsonl"
    with contextlib.ExitStack() as stack:
        options = ["--export", f"file:{target}"]
        stream = None
        if "nats" in kinds:
            stream = stack.enter_context(nats_stream_name())
            options += ["--export", f"nats://127.0.0.1:4222/{stream}/fl.events"]
        with Engine(db_url) as engine:
            engine.deploy({"p.bpmn": USER_TASK})
            for i in range(INSTANCES):
                engine.start_process_instance("p", {"who": f"u{i}"})
        log = tmp_path / "serve.log"
        with served_process(db_url, *options, log=log) as served:
            # Killed once the export began and before it ended (on the slower target).
            def begun() -> bool:
                if stream is not None:
                    return len(nats_messages(stream)) > 0
                return target.exists() and target.stat().st_size > 0

            wait_for(begun, 60, "the export to begin")
            served.kill_server()
        with served_process(db_url, *options, log=log) as served:
            for i in range(5):  # commands while it catches up
                httpx.post(
                    f"{served.url}/process-definition/key/p/start",
                    json={"variables": {"who": {"value": f"late{i}", "type": "String"}}},
                    timeout=30,
                ).raise_for_status()
            with Engine(db_url) as engine:
                head = engine.log_position()
            base = served.url.removesuffix("/engine-rest")

            def exported() -> bool:
                health = httpx.get(f"{base}/actuator/health", timeout=10).json()
                found = health["components"]["exporters"]["details"]
                return all(e["position"] == head and e["lag"] == 0 for e in found.values())

            wait_for(exported, 120, "the export to catch up after the restart")
        assert file_positions(target) == list(range(1, head + 1))
        if stream is not None:
            messages = nats_messages(stream)
            positions = [json.loads(body)["position"] for _s, _h, body in messages]
            assert positions == list(range(1, head + 1))
            subject, headers, body = messages[0]
            assert subject == "fl.events.DeploymentCreated"
            assert headers["Nats-Msg-Id"] == json.loads(body)["id"]
        time.sleep(0)  # the stream is deleted when the ExitStack closes
