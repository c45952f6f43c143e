"""Every answer carries its request id in `X-Request-Id` (the caller's when well formed); the
access log line names it, escapes what the request sent so that a line stays one line, and a 5xx
is logged at ERROR with the exception and the id, while the answer holds neither."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import pytest

from flowledger import Engine
from flowledger.rest.access_log import access_log
from flowledger.rest.auth import USER_KEY, Users, hash_password
from tests.support import fresh_database, selected_kind

from .server import LiveServer, live_server

ACCESS = "flowledger.rest.access"
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$")


# -- the middleware alone, over ASGI apps that misbehave on purpose -----------------------------


def _run(app: Any, scope: dict[str, Any]) -> list[MutableMapping[str, Any]]:
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    asyncio.run(access_log(app)(scope, receive, send))
    return sent


def _scope(**fields: Any) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "GET",
        "path": "/engine-rest/engine",
        "query_string": b"",
        "headers": [],
        **fields,
    }


async def _ok(scope: Any, receive: Any, send: Any) -> None:
    scope["state"][USER_KEY] = "eve\nGET /forged 200"
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"[]"})


def _headers(sent: list[MutableMapping[str, Any]]) -> dict[bytes, bytes]:
    return dict(sent[0]["headers"])


def test_every_request_derived_field_is_escaped_in_the_access_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS)
    scope = _scope(
        method="GE\rT",
        path="/engine-rest/a\x00b\nGET /forged 200\u2028\\x",
        query_string=b"q=\x1b[31m\t",
    )

    _run(_ok, scope)

    [record] = [r for r in caplog.records if r.name == ACCESS]
    line = record.getMessage()
    assert "\n" not in line and "\r" not in line and "\x00" not in line and "\x1b" not in line
    assert "\u2028" not in line
    assert line.startswith(
        "GE\\rT /engine-rest/a\\x00b\\nGET /forged 200\\u2028\\\\x?q=\\x1b[31m\\t "
    )
    assert " 200 " in line
    assert "user=eve\\nGET /forged 200" in line


def test_a_well_formed_caller_id_is_kept_and_a_malformed_one_replaced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS)
    kept = _run(_ok, _scope(headers=[(b"x-request-id", b"trace-0af7651916cd43dd")]))
    assert _headers(kept)[b"x-request-id"] == b"trace-0af7651916cd43dd"

    for bad in (b"has space", b"x" * 129, b"new\nline", b""):
        replaced = _run(_ok, _scope(headers=[(b"x-request-id", bad)]))
        rid = _headers(replaced)[b"x-request-id"].decode()
        assert UUID.match(rid), (bad, rid)
    assert "id=trace-0af7651916cd43dd" in caplog.records[0].getMessage()


def test_an_exception_escaping_the_application_is_a_json_500_with_the_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("secret detail of the failure")

    sent = _run(broken, _scope(headers=[(b"x-request-id", b"r-1")]))

    assert sent[0]["status"] == 500
    assert _headers(sent)[b"x-request-id"] == b"r-1"
    body = sent[1]["body"].decode()
    assert "r-1" in body and "secret detail" not in body and "Traceback" not in body
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert any(r.exc_info and "r-1" in r.getMessage() for r in errors)
    assert any(r.name == ACCESS and " 500 " in r.getMessage() for r in errors)


def test_an_application_that_answers_nothing_gets_a_500_with_the_id() -> None:
    async def silent(scope: Any, receive: Any, send: Any) -> None:
        return None

    sent = _run(silent, _scope())

    assert sent[0]["status"] == 500
    assert UUID.match(_headers(sent)[b"x-request-id"].decode())


# -- the application on a live server ---------------------------------------------------------


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("request-ids")) as url,
        Engine(url) as engine,
    ):
        yield engine


@pytest.fixture(scope="module")
def open_server(engine: Engine) -> Iterator[LiveServer]:
    with live_server(engine, max_body_bytes=1024) as server:
        yield server


@pytest.fixture(scope="module")
def guarded(engine: Engine) -> Iterator[LiveServer]:
    users = Users({"demo": hash_password("s3cret")})
    with live_server(engine, users=users) as server:
        yield server


def _access_lines(caplog: pytest.LogCaptureFixture, containing: str) -> list[str]:
    """The access lines holding `containing`: the server writes one after the answer is sent,
    so the client may see the answer first (the deadline only catches a line never written)."""
    deadline = time.monotonic() + 10
    while True:
        lines = [
            r.getMessage()
            for r in caplog.records
            if r.name == ACCESS and containing in r.getMessage()
        ]
        if lines or time.monotonic() > deadline:
            return lines
        time.sleep(0.01)


def _root(server: LiveServer) -> str:
    return server.url.removesuffix("/engine-rest")


@pytest.mark.parametrize(
    ("method", "path", "status", "body"),
    [
        ("GET", "/engine-rest/engine", 200, None),
        ("GET", "/engine-rest/no/such/resource", 404, None),
        ("GET", "/not-engine-rest-at-all", 404, None),
        ("GET", "/engine-rest/process-instance/a%00b", 404, None),
        ("GET", "/engine-rest/process-instance?firstResult=x", 400, None),
        ("POST", "/engine-rest/process-instance", 413, {"processInstanceIds": ["x" * 2000]}),
    ],
)
def test_every_answer_carries_its_request_id(
    open_server: LiveServer, method: str, path: str, status: int, body: Any
) -> None:
    response = open_server.client.request(method, _root(open_server) + path, json=body)

    assert response.status_code == status, response.text
    assert UUID.match(response.headers["x-request-id"])


def test_a_401_carries_its_request_id_and_an_authenticated_call_logs_the_user(
    guarded: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS)
    refused = guarded.client.get("/engine")
    assert refused.status_code == 401
    assert UUID.match(refused.headers["x-request-id"])

    allowed = guarded.client.get("/engine", auth=("demo", "s3cret"))

    rid = allowed.headers["x-request-id"]
    assert _access_lines(caplog, f"user=demo id={rid}")


def test_the_callers_request_id_comes_back_and_is_logged(
    open_server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS)
    rid = f"client-{uuid.uuid4().hex}"

    response = open_server.client.get("/engine", headers={"X-Request-Id": rid})

    assert response.headers["x-request-id"] == rid
    assert _access_lines(caplog, f"id={rid}")


def test_a_nul_or_newline_in_the_path_stays_escaped_in_the_log(
    open_server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=ACCESS)

    open_server.client.get("/process-instance/a%00b%0Aforged%0D")

    [line] = _access_lines(caplog, "forged")
    assert "/process-instance/a\\x00b\\nforged\\r 404 " in line


def test_a_500_is_logged_at_error_with_the_exception_and_the_id(
    open_server: LiveServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the projection fell over")

    monkeypatch.setattr(Engine, "reading", failing)
    caplog.set_level(logging.INFO)

    response = open_server.client.get("/process-definition")

    assert response.status_code == 500
    rid = response.headers["x-request-id"]
    assert UUID.match(rid)
    assert "fell over" not in response.text and "Traceback" not in response.text
    assert rid in response.json()["message"]  # what the caller can report
    [access] = _access_lines(caplog, rid)  # written last, after the answer
    assert " 500 " in access
    mentioning = [r for r in caplog.records if rid in r.getMessage()]
    assert {r.levelno for r in mentioning} == {logging.ERROR}
    [cause] = [r for r in mentioning if r.exc_info is not None]
    assert "RuntimeError" in cause.getMessage()
    assert isinstance(cause.exc_info[1], RuntimeError)  # type: ignore[index]


def test_a_refusal_camunda_answers_with_a_500_is_a_warning_without_a_traceback(
    open_server: LiveServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A claimed task claimed again: Camunda's 500 TaskAlreadyClaimedException, but nothing
    broke, so the log says so at WARNING instead of an ERROR with a traceback."""
    open_server.engine.deploy(Path(__file__).parents[1] / "bpmn" / "rest_task_steps.bpmn")
    started = open_server.client.post("/process-definition/key/restTaskSteps/start", json={})
    assert started.status_code == 200, started.text
    [task] = open_server.client.get(
        "/task", params={"processInstanceId": started.json()["id"]}
    ).json()
    assert open_server.client.post(f"/task/{task['id']}/claim", json={"userId": "a"}).status_code
    caplog.set_level(logging.INFO)

    response = open_server.client.post(f"/task/{task['id']}/claim", json={"userId": "b"})

    assert response.status_code == 500
    assert response.json()["type"] == "TaskAlreadyClaimedException"
    rid = response.headers["x-request-id"]
    _access_lines(caplog, rid)  # the access line is written last
    refusals = [r for r in caplog.records if rid in r.getMessage() and r.name != ACCESS]
    assert [(r.levelno, r.exc_info) for r in refusals] == [(logging.WARNING, None)]
    assert "TaskAlreadyClaimed" in refusals[0].getMessage()
