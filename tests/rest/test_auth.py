"""HTTP Basic authentication from a users file, the body size limit, and errors without traces."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from flowledger import Engine
from flowledger.rest import auth
from flowledger.rest.auth import HASHING_THREADS, Users, UsersFileError, add_user, hash_password

from .server import LiveServer, live_server


@pytest.fixture(scope="module")
def users_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("users") / "users.txt"
    add_user(path, "demo", "s3cret")
    add_user(path, "kermit", "frog")
    return path


@pytest.fixture(scope="module")
def users(users_file: Path) -> Users:
    return Users.load(users_file)


@pytest.fixture(scope="module")
def guarded(users: Users, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    db = tmp_path_factory.mktemp("auth") / "auth.db"
    with (
        Engine(f"sqlite:///{db}") as engine,
        live_server(engine, users=users, max_body_bytes=64 * 1024) as server,
    ):
        yield server


def _count_scrypt(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """Spy on the one scrypt function: its (N, r, p) per call."""
    calls: list[tuple[int, int, int]] = []
    real = auth._scrypt

    def counted(password: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
        calls.append((n, r, p))
        return real(password, salt, n, r, p)

    monkeypatch.setattr(auth, "_scrypt", counted)
    return calls


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


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


def test_users_file_is_never_readable_by_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With umask 0 a plain open() would create the file 0666; the hash must never sit in one.
    path = tmp_path / "users"
    path.write_text("# users\n")
    path.chmod(0o644)  # an existing file others can read is replaced by a private one
    replaced: list[int] = []
    real_replace = os.replace

    def spy(src: str, dst: str | Path) -> None:
        replaced.append(stat.S_IMODE(os.stat(src).st_mode))
        assert "scrypt$" in Path(src).read_text()  # written whole before it takes the name
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    old_umask = os.umask(0)
    try:
        add_user(path, "demo", "s3cret")
        add_user(tmp_path / "new", "demo", "s3cret")
    finally:
        os.umask(old_umask)
    assert replaced == [0o600, 0o600]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "users"]  # no temporary left
    assert Users.load(path).verify("demo", "s3cret")


def test_failed_write_keeps_the_users_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "users"
    add_user(path, "demo", "s3cret")
    before = path.read_text()

    def broken(src: str, dst: str | Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        add_user(path, "kermit", "frog")
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["users"]


def test_unknown_user_costs_one_scrypt_like_a_wrong_password(
    users: Users, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _count_scrypt(monkeypatch)
    assert not users.verify("nobody", "s3cret")
    assert not users.verify("demo", "wrong")
    assert not users.verify("nobody", "s3cret")  # refusals are not remembered
    # the same code path with the same parameters (same cost) for each refusal
    assert calls == [(2**14, 8, 1)] * 3


def test_verified_credentials_are_remembered_for_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [0.0]
    users = Users(
        {"demo": hash_password("s3cret"), "kermit": hash_password("frog")},
        cache_ttl=60,
        cache_size=1,
        clock=lambda: now[0],
    )
    calls = _count_scrypt(monkeypatch)
    assert users.verify("demo", "s3cret")
    assert users.verify("demo", "s3cret")
    now[0] = 59.0
    assert users.verify("demo", "s3cret")
    assert len(calls) == 1  # hits do not hash again
    assert not users.verify("demo", "S3cret")  # another password is no hit
    assert len(calls) == 2
    now[0] = 61.0
    assert users.verify("demo", "s3cret")  # expired: hashed again
    assert len(calls) == 3
    assert users.verify("kermit", "frog")  # the cache holds one entry: demo's goes
    assert users.verify("demo", "s3cret")
    assert len(calls) == 5
    assert not users.verify("demo\0x", "s3cret") and not users.verify("demo", "\0s3cret")


def test_valid_request_is_answered_while_wrong_passwords_are_hashed(
    guarded: LiveServer, users: Users, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"{guarded.url}/engine"
    assert httpx.get(url, auth=("demo", "s3cret")).status_code == 200  # now remembered
    gate = threading.Event()
    lock = threading.Lock()
    hashing = [0, 0]  # running now, most at once
    arrived: list[str] = []
    real_scrypt, real_remembered = auth._scrypt, users.remembered

    def stuck(password: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
        with lock:
            hashing[0] += 1
            hashing[1] = max(hashing)
        gate.wait(30)
        with lock:
            hashing[0] -= 1
        return real_scrypt(password, salt, n, r, p)

    def remembered(name: str, password: str) -> bool:
        if password.startswith("wrong"):
            arrived.append(password)
        return real_remembered(name, password)

    monkeypatch.setattr(auth, "_scrypt", stuck)
    monkeypatch.setattr(users, "remembered", remembered)
    flood = HASHING_THREADS * 5
    with ThreadPoolExecutor(flood) as pool:
        bad = [
            pool.submit(httpx.get, url, auth=("demo", f"wrong{i}"), timeout=60)
            for i in range(flood)
        ]
        try:
            _wait_for(lambda: len(arrived) == flood, "every wrong password to reach the server")
            _wait_for(lambda: hashing[0] == HASHING_THREADS, "every hashing thread to be busy")
            valid = httpx.get(url, auth=("demo", "s3cret"), timeout=10)
            anonymous = httpx.get(url, timeout=10)
            pending = [future for future in bad if not future.done()]
        finally:
            gate.set()
        statuses = [future.result().status_code for future in bad]
    assert valid.status_code == 200 and anonymous.status_code == 401
    assert len(pending) == flood  # answered while every wrong password was still pending
    assert statuses == [401] * flood
    assert hashing[1] == HASHING_THREADS  # a flood takes no more threads than that


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
    assert response.json() == {
        "type": "InvalidRequestException",
        "message": "Request body too large: this server accepts at most 65536 bytes",
    }


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
