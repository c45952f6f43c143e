"""The NATS JetStream exporter against the machine's NATS server (its own stream per test,
deleted afterwards; the server itself is never stopped): one message per event with its id as
`Nats-Msg-Id`; resumed after what the stream holds; and when NATS goes away (a TCP proxy in the
test paused, then closed) the exporter waits with backoff, health says DOWN with its lag, the
engine's commands go on at their pace, and the export catches up once NATS is back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.engine.workers.exporters import ExporterSettings
from tests.engine.test_deferred_projection import USER_TASK
from tests.exporter_support import (
    NATS_HOST,
    NATS_PORT,
    TcpProxy,
    nats_messages,
    nats_stream_name,
    wait_for,
)
from tests.rest.server import live_server

FAST = ExporterSettings(backoff_first=0.1, backoff_cap=0.5, deadline_seconds=1.0)


def _positions(stream: str) -> list[int]:
    return [json.loads(body)["position"] for _s, _h, body in nats_messages(stream)]


def _caught_up(engine: Engine) -> bool:
    return all(h.lag == 0 and h.status == "UP" for h in engine.exporters_health())


def test_every_event_is_one_message_and_a_restart_resends_nothing(db_url: str) -> None:
    with nats_stream_name() as stream:
        url = f"nats://{NATS_HOST}:{NATS_PORT}/{stream}"
        with Engine(db_url) as engine:
            engine.deploy({"p.bpmn": USER_TASK})
            engine.start_exporter(url, settings=FAST)
            engine.start_process_instance("p", {"who": "ann"})
            wait_for(lambda: _caught_up(engine))
            first = engine.log_position()
        # The stored position falls behind what the stream holds (a crash between the
        # acknowledgement and the store): the restart reads the stream's last message.
        db = sa.create_engine(db_url)
        with db.begin() as conn:
            conn.execute(
                sa.text(
                    "UPDATE projection_checkpoint SET position = 1 WHERE name LIKE 'exporter:%'"
                )
            )
        db.dispose()
        with Engine(db_url) as engine:
            engine.start_exporter(url, settings=FAST)
            engine.start_process_instance("p", {"who": "bob"})
            wait_for(lambda: _caught_up(engine))
            head = engine.log_position()
        assert head > first
        messages = nats_messages(stream)
        assert _positions(stream) == list(range(1, head + 1))
        subject, headers, body = messages[-1]
        event = json.loads(body)
        assert subject == f"{stream.lower()}.{event['type'].removeprefix('org.flowledger.')}"
        assert headers["Nats-Msg-Id"] == event["id"] == f"{event['source']}/{head}"
        assert headers["Content-Type"] == "application/cloudevents+json"


@pytest.mark.parametrize("away", ["pause", "cut"])
def test_nats_away_blocks_the_exporter_not_the_engine(db_url: str, away: str) -> None:
    with nats_stream_name() as stream, Engine(db_url) as engine:
        proxy = TcpProxy((NATS_HOST, NATS_PORT))
        try:
            engine.deploy({"p.bpmn": USER_TASK})
            engine.start_exporter(f"siem=nats://127.0.0.1:{proxy.port}/{stream}/fl", settings=FAST)
            engine.start_process_instance("p", {"who": "ann"})
            wait_for(lambda: _caught_up(engine))
            getattr(proxy, away)()
            before = engine.log_position()
            for i in range(5):
                engine.start_process_instance("p", {"who": f"u{i}"})
            # The five commands committed while none of their events could reach NATS: the engine
            # never waits for its exporters (were it to, the first start would hang here).
            assert engine.log_position() > before
            assert engine.exporters_health()[0].position <= before
            assert len(engine.tasks()) == 6
            wait_for(lambda: engine.exporters_health()[0].status == "DOWN", 20, "DOWN")
            (health,) = engine.exporters_health()
            assert health.lag > 0 and health.last_error
            with live_server(engine) as server:
                answer = server.client.get(
                    server.url.removesuffix("/engine-rest") + "/actuator/health"
                )
            assert answer.status_code == 503
            component = answer.json()["components"]["exporters"]
            assert component["status"] == "DOWN"
            assert component["details"]["siem"]["lag"] > 0
            assert engine.exporters_status()[0].status == "failing"
            proxy.resume()
            wait_for(lambda: _caught_up(engine), 30, "the export to catch up")
            head = engine.log_position()
            assert _positions(stream) == list(range(1, head + 1))
            assert engine.exporters_status()[0].status == "following"
        finally:
            proxy.close()


def test_a_nats_server_that_is_not_there_is_down_and_said(
    db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    proxy = TcpProxy((NATS_HOST, NATS_PORT))
    proxy.cut()  # refuses every connection
    try:
        with Engine(db_url) as engine:
            engine.start_exporter(f"nats://127.0.0.1:{proxy.port}/NOWHERE", settings=FAST)
            wait_for(lambda: engine.exporters_health()[0].failures >= 2, 20, "retries")
            assert engine.exporters_health()[0].status == "DOWN"
    finally:
        proxy.close()
    assert "retrying in" in caplog.text
