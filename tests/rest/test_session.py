"""Signing in to the web UI: the session endpoints of /flowledger/v1, the session cookie, its
CSRF token, signing out, and the session's user as the actor of what the UI does; HTTP Basic
keeps working beside it. Plus the session store's bounds, on a clock the test moves."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from flowledger import Engine
from flowledger.rest.auth import Users, add_user
from flowledger.rest.paths import BASE_PATH
from flowledger.rest.session import ABSOLUTE_TIMEOUT, IDLE_TIMEOUT, Sessions
from tests.support import bpmn, fresh_database, selected_kind

from .server import LiveServer, live_server

PASSWORD = "demo-password"
SESSION = "/flowledger/v1/session"
MODEL = "user_task_assignment.bpmn"
START = {
    "variables": {
        "initiator": {"value": "kermit"},
        "extraUser": {"value": "gonzo"},
        "due": {"value": "2031-05-04T08:00:00.000+0000", "type": "Date"},
        "priority": {"value": 5},
        "orderId": {"value": "order-1"},
    }
}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    users_file = tmp_path_factory.mktemp("session-users") / "users"
    add_user(users_file, "demo", PASSWORD, groups=["accounting", "sales"])
    add_user(users_file, "kermit", "frog")
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("session")) as url,
        Engine(url, history_level="full") as engine,  # full: the user operation log
        live_server(engine, users=Users.load(users_file)) as server,
    ):
        server.client.auth = ("kermit", "frog")
        server.deploy(bpmn(MODEL), name="session")
        server.client.auth = None
        yield server


def _root(server: LiveServer) -> str:
    return server.url.removesuffix(BASE_PATH)


@pytest.fixture
def browser(guarded: LiveServer) -> Iterator[httpx.Client]:
    """A client at the server's root that keeps cookies, as a browser does."""
    with httpx.Client(base_url=_root(guarded), timeout=30) as client:
        yield client


def _sign_in(client: httpx.Client, user: str = "demo", password: str = PASSWORD) -> str:
    """Sign in; the session's CSRF token."""
    answer = client.post(SESSION, json={"username": user, "password": password})
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["csrfToken"]
    return token


def _cookie_header(answer: httpx.Response) -> str:
    [cookie] = [v for v in answer.headers.get_list("set-cookie") if "flowledger_session=" in v]
    return cookie


def _attributes(cookie: str) -> set[str]:
    return {part.strip().lower() for part in cookie.split(";")[1:]}


def test_signing_in_answers_the_session_and_sets_a_strict_http_only_cookie(
    browser: httpx.Client,
) -> None:
    answer = browser.post(SESSION, json={"username": "demo", "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    token = body.pop("csrfToken")
    assert body == {
        "authenticationRequired": True,
        "authenticated": True,
        "user": "demo",
        "groups": ["accounting", "sales"],
    }
    assert isinstance(token, str) and len(token) >= 43  # 256 random bits, URL-safe base64
    cookie = _cookie_header(answer)
    value = cookie.split(";")[0].removeprefix("flowledger_session=")
    assert len(value) >= 43 and value != token
    attributes = _attributes(cookie)
    assert {"httponly", "samesite=strict", "path=/"} <= attributes
    assert "secure" not in attributes  # plain http here: a Secure cookie would never come back
    assert not any(a.startswith(("max-age", "expires")) for a in attributes)  # ends with the tab
    assert browser.get(SESSION).json() == {**body, "csrfToken": token}


def test_the_cookie_is_secure_when_the_request_came_over_https(guarded: LiveServer) -> None:
    # uvicorn trusts X-Forwarded-Proto from a proxy on loopback: the scheme the browser used
    answer = httpx.post(
        _root(guarded) + SESSION,
        json={"username": "demo", "password": PASSWORD},
        headers={"X-Forwarded-Proto": "https"},
    )
    assert answer.status_code == 200, answer.text
    assert "secure" in _attributes(_cookie_header(answer))


def test_wrong_credentials_are_refused_and_logged_without_the_password(
    browser: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="flowledger.rest"):
        wrong = browser.post(SESSION, json={"username": "demo", "password": "guess-1234"})
        unknown = browser.post(SESSION, json={"username": "nobody", "password": "guess-5678"})
    for answer in (wrong, unknown):
        assert answer.status_code == 401
        assert answer.json() == {
            "type": "AuthenticationException",
            "message": "Wrong user name or password",
        }
        assert "flowledger_session" not in answer.headers.get("set-cookie", "")
    assert "sign-in refused: user demo" in caplog.text
    assert "sign-in refused: user nobody" in caplog.text
    assert "guess-1234" not in caplog.text and "guess-5678" not in caplog.text
    assert browser.get(SESSION).json()["authenticated"] is False


def test_a_sign_in_without_its_fields_is_a_400(browser: httpx.Client) -> None:
    answer = browser.post(SESSION, json={"username": "demo"})
    assert answer.status_code == 400
    assert answer.json()["type"] == "InvalidRequestException"
    assert "password" in answer.json()["message"]


def test_before_signing_in_the_session_says_so_and_the_api_answers_401(
    browser: httpx.Client,
) -> None:
    answer = browser.get(SESSION)
    assert answer.status_code == 200
    assert answer.json() == {
        "authenticationRequired": True,
        "authenticated": False,
        "user": None,
        "groups": [],
        "csrfToken": None,
    }
    refused = browser.get(f"{BASE_PATH}/engine")
    assert refused.status_code == 401
    assert refused.json()["type"] == "AuthenticationException"
    assert refused.headers["www-authenticate"].startswith("Basic")
    assert browser.get("/flowledger/v1/log/head").status_code == 401
    assert browser.delete(SESSION).status_code == 401


def test_the_session_cookie_authenticates_reads(browser: httpx.Client) -> None:
    _sign_in(browser)
    assert browser.get(f"{BASE_PATH}/engine").status_code == 200
    assert browser.get("/flowledger/v1/log/head").status_code == 200


def test_a_change_with_the_cookie_needs_the_csrf_token(
    guarded: LiveServer, browser: httpx.Client
) -> None:
    token = _sign_in(browser)
    start = f"{BASE_PATH}/process-definition/key/userTaskAssignment/start"
    for headers in ({}, {"X-XSRF-TOKEN": "forged"}, {"X-XSRF-TOKEN": ""}):
        refused = browser.post(start, json=START, headers=headers)
        assert refused.status_code == 403, refused.text
        assert refused.json()["type"] == "AuthorizationException"
        assert "X-XSRF-TOKEN" in refused.json()["message"]
    head = guarded.engine.log_position()
    started = browser.post(start, json=START, headers={"X-XSRF-TOKEN": token})
    assert started.status_code == 200, started.text
    assert guarded.engine.log_position() > head


def test_the_signed_in_user_is_the_actor_of_what_the_ui_does(
    guarded: LiveServer, browser: httpx.Client
) -> None:
    token = _sign_in(browser)
    csrf = {"X-XSRF-TOKEN": token}
    started = browser.post(
        f"{BASE_PATH}/process-definition/key/userTaskAssignment/start", json=START, headers=csrf
    )
    instance_id = started.json()["id"]
    [task] = browser.get(f"{BASE_PATH}/task", params={"processInstanceId": instance_id}).json()
    completed = browser.post(f"{BASE_PATH}/task/{task['id']}/complete", json={}, headers=csrf)
    assert completed.status_code in (200, 204), completed.text
    actors = {e.command_type: e.actor for e in guarded.engine.events(instance_id)}
    assert actors["StartProcessInstance"] == "demo"
    assert actors["CompleteTask"] == "demo"
    operations = browser.get(
        f"{BASE_PATH}/history/user-operation",
        params={"processInstanceId": instance_id, "operationType": "Complete"},
    ).json()
    assert operations and {entry["userId"] for entry in operations} == {"demo"}


def test_signing_out_ends_the_session_on_the_server(browser: httpx.Client) -> None:
    token = _sign_in(browser)
    cookie = browser.cookies["flowledger_session"]
    assert browser.delete(SESSION).status_code == 403  # signing out is a change: CSRF too
    assert browser.get(f"{BASE_PATH}/engine").status_code == 200
    answer = browser.delete(SESSION, headers={"X-XSRF-TOKEN": token})
    assert answer.status_code == 204
    cleared = _cookie_header(answer)
    assert cleared.startswith("flowledger_session=;") or 'flowledger_session="";' in cleared
    assert "max-age=0" in _attributes(cleared)
    assert "flowledger_session" not in browser.cookies
    # the old cookie, kept by someone who copied it, is worth nothing now
    with httpx.Client(base_url=str(browser.base_url), cookies={"flowledger_session": cookie}) as c:
        refused = c.get(f"{BASE_PATH}/engine")
        assert refused.status_code == 401
        # no Basic challenge for the UI: the browser would open its own password dialog
        assert "www-authenticate" not in refused.headers
        assert c.get(SESSION).json()["authenticated"] is False


def test_signing_in_again_ends_the_session_before(browser: httpx.Client) -> None:
    _sign_in(browser)
    first = browser.cookies["flowledger_session"]
    _sign_in(browser, "kermit", "frog")
    assert browser.get(SESSION).json()["user"] == "kermit"
    with httpx.Client(base_url=str(browser.base_url), cookies={"flowledger_session": first}) as c:
        assert c.get(f"{BASE_PATH}/engine").status_code == 401


def test_http_basic_still_works_and_needs_no_csrf_token(guarded: LiveServer) -> None:
    with httpx.Client(base_url=guarded.url, auth=("demo", PASSWORD), timeout=30) as client:
        started = client.post("/process-definition/key/userTaskAssignment/start", json=START)
        assert started.status_code == 200, started.text
        actors = {e.command_type: e.actor for e in guarded.engine.events(started.json()["id"])}
        assert actors["StartProcessInstance"] == "demo"
        assert client.get("/engine").status_code == 200


def test_a_basic_caller_knows_its_groups_from_the_users_file(guarded: LiveServer) -> None:
    answer = httpx.get(_root(guarded) + SESSION, auth=("demo", PASSWORD))
    assert answer.json() == {
        "authenticationRequired": True,
        "authenticated": True,
        "user": "demo",
        "groups": ["accounting", "sales"],
        "csrfToken": None,  # Basic needs none
    }
    kermit = httpx.get(_root(guarded) + SESSION, auth=("kermit", "frog")).json()
    assert kermit["user"] == "kermit" and kermit["groups"] == []


def test_without_a_users_file_everyone_is_let_in(rest: LiveServer) -> None:
    root = _root(rest)
    assert httpx.get(root + SESSION).json() == {
        "authenticationRequired": False,
        "authenticated": True,
        "user": None,
        "groups": [],
        "csrfToken": None,
    }
    answer = httpx.post(root + SESSION, json={"username": "any", "password": "thing"})
    assert answer.status_code == 200 and answer.json()["authenticated"] is True
    assert "set-cookie" not in answer.headers
    assert httpx.delete(root + SESSION).status_code == 204


# -- the store: bounded in number and in time ----------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_ends_after_eight_idle_hours() -> None:
    clock = Clock()
    sessions = Sessions(clock=clock)
    kept = sessions.create("demo", ())
    left = sessions.create("kermit", ())
    for _ in range(3):  # in use every seven hours: alive for 21 hours
        clock.now += 7 * 3600
        assert sessions.find(kept.id) == kept
    assert sessions.find(left.id) is None
    assert IDLE_TIMEOUT == 8 * 3600


def test_a_session_ends_a_day_after_sign_in_however_busy() -> None:
    clock = Clock()
    sessions = Sessions(clock=clock)
    session = sessions.create("demo", ("accounting",))
    while clock.now + 3600 < 1000.0 + ABSOLUTE_TIMEOUT:
        clock.now += 3600
        assert sessions.find(session.id) == session
    clock.now += 3600
    assert sessions.find(session.id) is None
    assert ABSOLUTE_TIMEOUT == 24 * 3600


def test_the_store_holds_a_bounded_number_and_pushes_out_the_idlest() -> None:
    clock = Clock()
    sessions = Sessions(max_sessions=3, clock=clock)
    created: list[Any] = []
    for user in ("a", "b", "c"):
        created.append(sessions.create(user, ()))
        clock.now += 1
    assert sessions.find(created[0].id) is not None  # a is in use again: b is now the idlest
    newest = sessions.create("d", ())
    assert len(sessions) == 3
    assert sessions.find(created[1].id) is None
    assert {sessions.find(s.id) is not None for s in (created[0], created[2], newest)} == {True}


def test_ids_and_tokens_are_random_and_unknown_ids_find_nothing(tmp_path: Path) -> None:
    sessions = Sessions()
    made = [sessions.create("demo", ()) for _ in range(50)]
    values = {s.id for s in made} | {s.csrf_token for s in made}
    assert len(values) == 100
    assert sessions.find("") is None and sessions.find(made[0].csrf_token) is None
    sessions.forget(made[0].id)
    assert sessions.find(made[0].id) is None and sessions.find(made[1].id) == made[1]
