"""Signed heads published to a NATS JetStream stream (`serve --publish-heads nats://…`,
`Engine.publish_heads`) and `verify --against-published nats://…/STREAM --key K.pub` reading every
one back: a consistent re-hash forgery after a head was published is caught. Each test has its
own stream, deleted afterwards; the NATS server is never stopped."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.engine.workers import head_targets
from flowledger.eventlog import signed_heads
from tests.core.test_verify import forge
from tests.exporter_support import NATS_HOST, NATS_PORT, nats_messages, nats_stream_name
from tests.tools.test_cli_audit import MODEL, cli


def test_heads_on_nats_catch_the_consistent_forgery(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "server.key"
    public = signed_heads.generate(key)
    with nats_stream_name() as stream:
        target = f"nats://{NATS_HOST}:{NATS_PORT}/{stream}"
        with Engine(db_url) as engine:
            engine.deploy({"claim.bpmn": MODEL})
            ids = [
                engine.start_process_instance("claim", {"who": f"Claimant-{i}"}).id
                for i in range(3)
            ]
            publisher = engine.publish_heads(key, target, every=3600)
            deadline = time.monotonic() + 30
            while publisher.published == 0:
                assert publisher.last_error is None, publisher.last_error
                assert time.monotonic() < deadline
                time.sleep(0.02)
            engine.start_process_instance("claim", {"who": "Claimant-9"})
            # A reader may keep SQLite's checkpoint busy for a moment: the server's publisher
            # tries again at its interval, this test at once.
            for _ in range(50):
                if publisher.publish_now():
                    break
                time.sleep(0.1)
            assert publisher.published == 2
            health = engine.head_publisher_health()
            assert health is not None and health.status == "UP" and stream in health.target
        messages = nats_messages(stream)
        assert [s for s, _h, _b in messages] == [f"{stream.lower()}.heads"] * 2
        assert len(head_targets.published(target)) == 2

        verify = ("verify", "--db", db_url, "--against-published", target, "--key", str(public))
        status, out, _err = cli(capsys, *verify)
        assert status == 0 and "OK" in out

        db = sa.create_engine(db_url)
        try:
            with db.begin() as conn:
                forge(conn, ids[1], "Claimant-1", "Claimant-7")
        finally:
            db.dispose()
        status, out, _err = cli(capsys, *verify)
        assert status == 2
        assert (
            sum("rewritten after that head was published" in line for line in out.splitlines()) == 2
        )


def test_a_nats_head_target_that_cannot_be_reached_is_said(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "server.key"
    public = signed_heads.generate(key)
    with Engine(db_url) as engine:
        engine.deploy({"claim.bpmn": MODEL})
    status, _out, err = cli(
        capsys,
        "verify",
        "--db",
        db_url,
        "--against-published",
        "nats://127.0.0.1:1/S",
        "--key",
        str(public),
    )
    assert status != 0 and "cannot read the published heads" in err
    status, _out, err = cli(
        capsys,
        "serve",
        "--db",
        db_url,
        "--signing-key",
        str(key),
        "--publish-heads",
        "nats://h:4222/",
    )
    assert status != 0 and "names no JetStream stream" in err
