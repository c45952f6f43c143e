"""HTTP Basic authentication from a users file, the body size limit, and errors without traces."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core import Engine
from rest.auth import Users, UsersFileError, add_user

from .server import LiveServer, live_server


@pytest.fixture(scope="module")
def users_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("users") / "users.txt"
    add_user(path, "demo", "s3cret")
    add_user(path, "kermit", "frog")
    return path


@pytest.fixture(scope="module")
def guarded(users_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("auth") / "auth.db"
    with (
        Engine(f"sqlite:///{db}") as engine,
        live_server(engine, users=Users.load(users_file), max_body_bytes=64 * 1024) as server,
    ):
        yield server


def test_users_file_holds_hashes_not_passwords(users_file: Path) -> None:
    text = users_file.read_text()
    assert "s3cret" not in text and "frog" not in text
    assert text.count("scrypt$") == 2
    assert users_file.stat().st_mode & 0o077 == 0


def test_request_without_credentials_is_refused(guarded: LiveServer) -> None:
    response = httpx.get(f"{guarded.url}/engine")
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Basic")
    assert response.json()["type"] == "AuthenticationException"


def test_wrong_password_is_refused(guarded: LiveServer) -> None:
    assert httpx.get(f"{guarded.url}/engine", auth=("demo", "wrong")).status_code == 401
    assert httpx.get(f"{guarded.url}/engine", auth=("nobody", "s3cret")).status_code == 401


def test_valid_credentials_pass(guarded: LiveServer) -> None:
    for user, password in (("demo", "s3cret"), ("kermit", "frog"), ("demo", "s3cret")):
        response = httpx.get(f"{guarded.url}/engine", auth=(user, password))
        assert response.status_code == 200, response.text


def test_replacing_a_user_changes_the_password(tmp_path: Path) -> None:
    path = tmp_path / "users"
    add_user(path, "demo", "old")
    add_user(path, "demo", "new")
    users = Users.load(path)
    assert users.verify("demo", "new")
    assert not users.verify("demo", "old")


def test_broken_users_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "users"
    path.write_text("# comment\ndemo:plaintext\n")
    with pytest.raises(UsersFileError, match=r"users, line 2"):
        Users.load(path)
    with pytest.raises(UsersFileError, match="cannot read users file"):
        Users.load(tmp_path / "missing")


def test_oversized_body_is_refused_with_413(guarded: LiveServer) -> None:
    body = {"variables": {"big": {"value": "x" * 100_000, "type": "String"}}}
    response = httpx.post(
        f"{guarded.url}/process-definition/key/any/start", json=body, auth=("demo", "s3cret")
    )
    assert response.status_code == 413
    assert "traceback" not in response.text.lower()


def test_malformed_json_is_a_400_without_trace(rest: LiveServer) -> None:
    response = rest.client.post(
        "/process-definition/key/any/start",
        content=b'{"variables": ',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "InvalidRequestException"
    assert "Traceback" not in body["message"]
