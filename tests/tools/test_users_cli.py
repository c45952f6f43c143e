"""`flowledger users add/list`: users and their groups in the users file of `serve --users`,
files written before groups existed, and a served sign-in that knows the file's groups."""

from __future__ import annotations

import io
import signal
from pathlib import Path

import httpx
import pytest

from flowledger.rest.auth import Users, hash_password, read_users_file
from flowledger.tools.cli import main
from tests.rest.server import free_port
from tests.rest.test_serve_command import run_flowledger, wait_until_serving


def users(*args: str, password: str = "pw", monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(password + "\n"))
    main(["users", *args])


def add(file: Path, name: str, *groups: str, monkeypatch: pytest.MonkeyPatch) -> None:
    options = [option for group in groups for option in ("--group", group)]
    users("add", name, "--file", str(file), *options, "--password-stdin", monkeypatch=monkeypatch)


def test_users_add_writes_the_groups_and_list_shows_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "users"
    add(file, "demo", "accounting", "management", monkeypatch=monkeypatch)
    add(file, "mary", monkeypatch=monkeypatch)
    assert "user demo in groups accounting, management written to" in capsys.readouterr().out
    users("list", "--file", str(file), monkeypatch=monkeypatch)
    listed = capsys.readouterr().out
    assert listed.splitlines() == ["demo  accounting,management", "mary  -"]
    assert "scrypt" not in listed  # never the hashes
    loaded = Users.load(file)
    assert loaded.groups_of("demo") == ("accounting", "management")
    assert loaded.groups_of("mary") == () and loaded.verify("mary", "pw")
    # the file stays one readable line per user: name, hash, groups
    demo_line = next(line for line in file.read_text().splitlines() if line.startswith("demo:"))
    assert demo_line.startswith("demo:scrypt$") and demo_line.endswith(":accounting,management")


def test_adding_a_user_again_replaces_its_password_and_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "users"
    add(file, "demo", "accounting", monkeypatch=monkeypatch)
    monkeypatch.setattr("sys.stdin", io.StringIO("new-pw\n"))
    main(["users", "add", "demo", "--file", str(file), "--group", "sales", "--password-stdin"])
    [entry] = read_users_file(file)
    assert entry.groups == ("sales",)
    assert Users.load(file).verify("demo", "new-pw")


@pytest.mark.parametrize("group", ["a,b", "a:b", "two words", ""])
def test_a_group_name_the_file_cannot_hold_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    group: str,
) -> None:
    file = tmp_path / "users"
    with pytest.raises(SystemExit) as exited:
        add(file, "demo", group, monkeypatch=monkeypatch)
    assert exited.value.code == 1
    assert f"invalid group name {group!r}" in capsys.readouterr().err
    assert not file.exists()


def test_a_users_file_from_before_groups_still_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "users"
    file.write_text(f"# written by an older flowledger\nkermit:{hash_password('frog')}\n")
    loaded = Users.load(file)
    assert loaded.verify("kermit", "frog") and loaded.groups_of("kermit") == ()
    users("list", "--file", str(file), monkeypatch=monkeypatch)
    assert capsys.readouterr().out == "kermit  -\n"


def test_a_broken_group_list_names_the_line(tmp_path: Path) -> None:
    file = tmp_path / "users"
    file.write_text(f"kermit:{hash_password('frog')}:muppets, the band\n")
    with pytest.raises(Exception, match=r"users, line 1"):
        Users.load(file)


def test_listing_a_missing_file_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        users("list", "--file", str(tmp_path / "none"), monkeypatch=monkeypatch)
    assert exited.value.code == 1
    assert "cannot read users file" in capsys.readouterr().err


def test_serve_names_the_ui_and_its_sign_in_knows_the_files_groups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "users"
    add(file, "demo", "accounting", monkeypatch=monkeypatch)
    port = free_port()
    db = f"sqlite:///{tmp_path / 'a.db'}"
    serve = ("serve", "--port", str(port), "--users", str(file))
    process = run_flowledger("--db", db, *serve, cwd=tmp_path)
    root = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(f"{root}/engine-rest/engine", process)
        answer = httpx.post(
            f"{root}/flowledger/v1/session", json={"username": "demo", "password": "pw"}
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["groups"] == ["accounting"]
        assert httpx.get(f"{root}/cockpit/").status_code in (200, 503)  # open, built or not
    finally:
        process.send_signal(signal.SIGTERM)
        _, log = process.communicate(timeout=30)
    assert f"web UI on {root}/ (cockpit {root}/cockpit/" in log
    assert f"engine-rest on {root}/engine-rest" in log
