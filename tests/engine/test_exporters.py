"""Event exporters to a JSON-lines file and to a webhook: every committed event once, in log
order, as a CloudEvent; the stored position advances only after the target acknowledged; after
a crash (a torn last line, a stored position behind the file) nothing is lost or doubled; the
limits (batch size, backoff) hold; a webhook goes through the outbound allow-list."""

from __future__ import annotations

import http.server
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.engine.outbound import OutboundPolicy
from flowledger.engine.workers.exporters import ExporterSettings, TargetSpec
from flowledger.engine.workers.exporters.runner import (
    BACKOFF_CAP,
    BACKOFF_FIRST,
    BATCH_BYTES,
    BATCH_EVENTS,
)
from tests.engine.test_deferred_projection import USER_TASK
from tests.exporter_support import file_positions, wait_for


def _caught_up(engine: Engine) -> bool:
    return all(h.lag == 0 and h.status == "UP" for h in engine.exporters_health())


def test_every_event_is_a_cloudevent_once_in_log_order(db_url: str, tmp_path: Path) -> None:
    target = tmp_path / "events.jsonl"
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_exporter(f"file:{target}")
        ids = [engine.start_process_instance("p", {"who": f"u{i}"}).id for i in range(3)]
        wait_for(lambda: _caught_up(engine))
        head = engine.log_position()
        recorded = {e.position: e for i in ids for e in engine.events(i)}
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [c["position"] for c in lines] == list(range(1, head + 1))
    assert len({c["id"] for c in lines}) == len(lines)
    origin = lines[0]["source"]
    assert re.fullmatch(r"flowledger/[0-9a-f]{16}", origin)
    for cloud in lines:
        assert cloud["specversion"] == "1.0"
        assert cloud["id"] == f"{origin}/{cloud['position']}"
        assert cloud["source"] == origin
        assert cloud["time"].endswith("Z")
        # extension attribute names: lowercase letters and digits (CloudEvents 1.0)
        assert all(re.fullmatch(r"[a-z0-9]+", name) for name in cloud)
        event = recorded.get(cloud["position"])
        if event is not None:
            assert cloud["type"] == f"org.flowledger.{event.type}"
            assert cloud["subject"] == cloud["streamid"] == event.stream_id
            assert cloud["streamversion"] == event.stream_version
            assert cloud["commandid"] == event.command_id
            assert cloud["data"] == json.loads(json.dumps(event.payload))


def test_the_file_export_resumes_exactly_once_after_a_crash(db_url: str, tmp_path: Path) -> None:
    target = tmp_path / "events.jsonl"
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_exporter(f"audit=file:{target}")
        engine.start_process_instance("p", {"who": "ann"})
        wait_for(lambda: _caught_up(engine))
        written = engine.log_position()
    # A crash after the file was synced but before the position was stored, in the middle of
    # writing the next line: the stored position lags, the last line is torn.
    _set_position(db_url, "exporter:audit", 2)
    with target.open("ab") as out:
        out.write(b'{"id":"x","position":')
    with Engine(db_url) as engine:
        assert engine.exporters_status()[0].position == 2
        engine.start_exporter(f"audit=file:{target}")
        engine.start_process_instance("p", {"who": "bob"})
        wait_for(lambda: _caught_up(engine))
        head = engine.log_position()
        status = engine.exporters_status()
    assert head > written
    assert file_positions(target) == list(range(1, head + 1))
    assert [(s.name, s.position, s.lag, s.status) for s in status] == [
        ("audit", head, 0, "following")
    ]


def test_a_file_of_another_log_is_refused(db_url: str, tmp_path: Path) -> None:
    target = tmp_path / "events.jsonl"
    target.write_text('{"position": 1, "source": "flowledger/0123456789abcdef"}\n')
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_exporter(f"file:{target}")
        wait_for(lambda: any(h.last_error for h in engine.exporters_health()))
        (health,) = engine.exporters_health()
        assert health.status == "DOWN" and "not of this log" in (health.last_error or "")
    assert target.read_text().count("\n") == 1  # nothing appended


def _compact_size(event: object) -> int:
    return len(json.dumps(event, separators=(",", ":"), ensure_ascii=False).encode())


def test_batches_are_bounded(db_url: str, tmp_path: Path) -> None:
    assert (BATCH_EVENTS, BATCH_BYTES, BACKOFF_FIRST, BACKOFF_CAP) == (500, 1024 * 1024, 0.5, 30.0)
    with Receiver() as receiver, _webhook_engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        for i in range(3):
            engine.start_process_instance("p", {"who": f"u{i}"})
        engine.start_exporter(receiver.url, settings=ExporterSettings(batch_events=4))
        wait_for(lambda: _caught_up(engine))
        head = engine.log_position()
    assert max(len(b) for b in receiver.batches) == 4
    assert receiver.positions() == list(range(1, head + 1))
    with Receiver() as receiver, _webhook_engine(db_url) as engine:
        # A webhook cannot say what it holds: the stored position is where an exporter of
        # the same name resumes, so this one has a name of its own.
        engine.start_exporter(f"small={receiver.url}", settings=ExporterSettings(batch_bytes=1024))
        wait_for(lambda: _caught_up(engine))
    # A batch stops growing at the first event that takes it past the cap (measured as the
    # exporter does: each event's compact UTF-8 JSON).
    assert all(sum(_compact_size(e) for e in b[:-1]) < 1024 for b in receiver.batches)
    assert len(receiver.batches) > 1


@pytest.mark.parametrize(
    "settings",
    [
        {"batch_events": 0},
        {"batch_events": 10_001},
        {"batch_bytes": 10},
        {"backoff_first": 0},
        {"backoff_first": 5, "backoff_cap": 1},
        {"poll_seconds": 0},
    ],
)
def test_limits_out_of_range_are_refused(settings: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        ExporterSettings(**settings)


@pytest.mark.parametrize(
    ("text", "name", "kind"),
    [
        ("file:/var/log/fl/events.jsonl", "file-events.jsonl", "file"),
        ("siem=nats://127.0.0.1:4222/EVENTS/fl.events", "siem", "nats"),
        ("https://hooks.example.com/in?token=x", "webhook-hooks.example.com", "webhook"),
    ],
)
def test_targets_are_named(text: str, name: str, kind: str) -> None:
    spec = TargetSpec.parse(text)
    assert (spec.name, spec.kind) == (name, kind)


@pytest.mark.parametrize("text", ["ftp://x", "file:", "nats://h:4222/", "bad name=file:x"])
def test_bad_targets_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        TargetSpec.parse(text)


def test_the_webhook_gets_every_event_once(db_url: str) -> None:
    with Receiver() as receiver, _webhook_engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_exporter(receiver.url)
        engine.start_process_instance("p", {"who": "ann"})
        wait_for(lambda: _caught_up(engine))
        head = engine.log_position()
    assert receiver.positions() == list(range(1, head + 1))
    first, last = receiver.headers[0]
    batch = receiver.batches[0]
    assert (first, last) == (batch[0]["position"], batch[-1]["position"])
    assert receiver.content_types == {"application/cloudevents-batch+json"}


def test_a_webhook_not_on_the_allow_list_is_refused_and_commands_go_on(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    fast = ExporterSettings(backoff_first=0.05, backoff_cap=0.2)
    with Receiver() as receiver, Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_exporter(receiver.url, settings=fast)
        wait_for(lambda: sum(h.failures for h in engine.exporters_health()) >= 6, what="retries")
        engine.start_process_instance("p", {"who": "ann"})  # the engine is not held up
        (health,) = engine.exporters_health()
        status = engine.exporters_status()
    assert receiver.batches == []
    assert health.status == "DOWN" and health.lag > 0
    assert "allow-list" in (health.last_error or "")
    assert status[0].status == "failing" and "allow-list" in (status[0].detail or "")
    assert "retrying in 0.2 s" in caplog.text  # the backoff reached its cap


def _webhook_engine(db_url: str) -> Engine:
    return Engine(db_url, outbound=OutboundPolicy(http_allow=("127.0.0.1",)))


def _set_position(db_url: str, name: str, position: int) -> None:
    db = sa.create_engine(db_url)
    try:
        with db.begin() as conn:
            conn.execute(
                sa.text("UPDATE projection_checkpoint SET position = :p WHERE name = :n"),
                {"p": position, "n": name},
            )
    finally:
        db.dispose()


class Receiver:
    """A local webhook receiver: records every batch it is POSTed and answers 204."""

    def __init__(self) -> None:
        self.batches: list[list[dict[str, Any]]] = []
        self.headers: list[tuple[int, int]] = []
        self.content_types: set[str] = set()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.batches.append(json.loads(body))
                receiver.content_types.add(self.headers["Content-Type"])
                receiver.headers.append(
                    (
                        int(self.headers["Flowledger-First-Position"]),
                        int(self.headers["Flowledger-Last-Position"]),
                    )
                )
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/events"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def positions(self) -> list[int]:
        return [e["position"] for batch in self.batches for e in batch]

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


def test_personal_values_leave_sealed(db_url: str, tmp_path: Path) -> None:
    """An export carries a personal value as the log does, sealed: readable by no consumer, and
    nothing to chase after its subject is erased."""
    from flowledger.core.variables import TypedValue

    target = tmp_path / "events.jsonl"
    with Engine(db_url) as engine:
        engine.deploy({"p.bpmn": USER_TASK})
        engine.start_exporter(f"file:{target}")
        engine.start_process_instance(
            "p",
            {
                "who": "ann",  # the model assigns the task to `who`: that copy is not sealed
                "email": TypedValue("String", "erin@exported.example", {"personalData": True}),
            },
            business_key="subject-e",
        )
        wait_for(lambda: _caught_up(engine))
        engine.personal_data_service.erase("subject-e", "export test")
        wait_for(lambda: _caught_up(engine))
    text = target.read_text()
    assert "erin@exported" not in text
    sealed = [
        json.loads(line)["data"]["value"]
        for line in text.splitlines()
        if json.loads(line)["type"] == "org.flowledger.VariableSet"
        and json.loads(line)["data"]["name"] == "email"
    ]
    assert [v["type"] for v in sealed] == ["sealed"]
    assert "org.flowledger.PersonalDataErased" in text


def test_two_engines_export_a_name_once_between_them(db_url: str, tmp_path: Path) -> None:
    """Two engine processes on one database, both exporting under one name: one exports, the
    other stands by, and takes over when the first stops; every event reaches the target once."""
    target = tmp_path / "events.jsonl"
    first, second = Engine(db_url), Engine(db_url)
    try:
        first.deploy({"p.bpmn": USER_TASK})
        first.start_exporter(f"audit=file:{target}")
        wait_for(lambda: _caught_up(first))
        second.start_exporter(f"audit=file:{target}")
        wait_for(lambda: [h.state for h in second.exporters_health()] == ["standby"])
        for i in range(3):
            second.start_process_instance("p", {"who": f"u{i}"})
        wait_for(lambda: first.exporters_health()[0].position == first.log_position())
        first.close()  # its lease goes with it: the standby takes over
        second.start_process_instance("p", {"who": "later"})
        head = second.log_position()
        wait_for(lambda: second.exporters_health()[0].position == head, what="the takeover")
    finally:
        first.close()
        second.close()
    assert file_positions(target) == list(range(1, head + 1))
