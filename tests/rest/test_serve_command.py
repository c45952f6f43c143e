"""`flowledger serve` as a user runs it: a real process, refusals, logs, graceful shutdown."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from flowledger.rest.auth import add_user

from .server import free_port

BPMN = Path(__file__).resolve().parents[1] / "bpmn" / "user_task_assignment.bpmn"


def run_flowledger(*args: str, cwd: Path) -> subprocess.Popen[str]:
    """`flowledger ARGS` as a process, its output captured."""
    env = {k: v for k, v in os.environ.items() if k != "FLOWLEDGER_DB"}
    return subprocess.Popen(
        [sys.executable, "-m", "flowledger", *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_until_serving(url: str, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[1]
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("flowledger serve did not come up")


def test_serve_answers_logs_each_request_and_stops_gracefully(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "served.db"
    process = run_flowledger("--db", f"sqlite:///{db}", "serve", "--port", str(port), cwd=tmp_path)
    try:
        base = f"http://127.0.0.1:{port}/engine-rest"
        wait_until_serving(f"{base}/engine", process)
        assert httpx.get(f"{base}/version").json() == {"version": "7.15.0"}
        assert httpx.get(f"{base}/no-such-thing").status_code == 404
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "GET /engine-rest/version 200" in err
    assert "GET /engine-rest/no-such-thing 404" in err
    assert "Traceback" not in err
    assert db.exists()


def test_serve_refuses_a_public_address_without_authentication(tmp_path: Path) -> None:
    process = run_flowledger("serve", "--host", "0.0.0.0", "--port", "1", cwd=tmp_path)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert "refusing to serve on non-loopback address 0.0.0.0" in err
    assert "--insecure" in err
    assert not (tmp_path / "flowledger.db").exists()  # refused before touching the database


def test_serve_with_a_broken_users_file_says_which(tmp_path: Path) -> None:
    users = tmp_path / "users"
    users.write_text("demo\n")
    users.chmod(0o600)
    process = run_flowledger("serve", "--users", str(users), cwd=tmp_path)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 1
    assert f"{users}, line 1" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620])
def test_serve_refuses_a_users_file_others_can_open(tmp_path: Path, mode: int) -> None:
    users = tmp_path / "users"
    add_user(users, "demo", "pw")
    users.chmod(mode)
    process = run_flowledger("serve", "--users", str(users), cwd=tmp_path)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 2, err
    assert f"users file {users} is accessible by others (mode {mode:04o})" in err
    assert f"chmod 600 {users}" in err
    assert "Traceback" not in err
    assert not (tmp_path / "flowledger.db").exists()  # refused before touching the database


def test_users_add_then_serve_with_authentication(tmp_path: Path) -> None:
    users = tmp_path / "users"
    adder = subprocess.run(
        [
            sys.executable,
            "-m",
            "flowledger",
            "users",
            "add",
            "demo",
            "--file",
            str(users),
            "--password-stdin",
        ],
        input="pw\n",
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert adder.returncode == 0, adder.stderr
    assert stat.S_IMODE(users.stat().st_mode) == 0o600
    port = free_port()
    process = run_flowledger(
        "--db",
        f"sqlite:///{tmp_path / 'a.db'}",
        "serve",
        "--port",
        str(port),
        "--users",
        str(users),
        cwd=tmp_path,
    )
    try:
        base = f"http://127.0.0.1:{port}/engine-rest"
        wait_until_serving(f"{base}/engine", process)
        assert httpx.get(f"{base}/engine").status_code == 401
        assert httpx.get(f"{base}/engine", auth=("demo", "pw")).status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
