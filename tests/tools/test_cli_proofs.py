"""`flowledger audit head | prove | consistency | check` as an auditor runs them, on the suite's
database: a tree head kept outside, proofs written as files and checked with no database, and the
consistent re-hash forgery — which the per-stream chains no longer show — caught by the head an
auditor kept."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.eventlog import proofs, signed_heads
from tests.core.test_verify import forge
from tests.tools.test_cli_audit import MODEL, cli

HEAD = r"^\d+:[0-9a-f]{64}$"
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


@pytest.fixture
def claims(db_url: str) -> list[str]:
    with Engine(db_url) as engine:
        engine.deploy({"claim.bpmn": MODEL})
        return [
            engine.start_process_instance("claim", {"who": f"Claimant-{i}"}).id for i in range(5)
        ]


def _head(capsys: pytest.CaptureFixture[str], db_url: str) -> str:
    status, out, _err = cli(capsys, "audit", "head", "--db", db_url)
    assert status == 0
    return out.strip()


def test_a_proof_checks_without_the_database_and_fails_once_changed(
    db_url: str, claims: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = _head(capsys, db_url)
    assert head.split(":")[0] == "6"  # the deployment and five starts
    proof_file = tmp_path / "proof.json"
    status, _out, _err = cli(
        capsys, "audit", "prove", "5", "--db", db_url, "--out", str(proof_file)
    )
    assert status == 0
    proof = proofs.decode(proof_file.read_bytes())
    assert isinstance(proof, proofs.InclusionProof)
    assert proof.commit.first_position <= 5 <= proof.commit.last_position
    assert len(proof.path) <= 3  # log2 of 6 commits, rounded up

    # No --db: the check never opens a database.
    status, out, _err = cli(capsys, "audit", "check", str(proof_file), "--head", head)
    assert (status, out.split()[0]) == (0, "OK")
    assert "log position 5" in out

    data = json.loads(proof_file.read_text())
    data["commit"]["actor"] = "mallory"
    proof_file.write_text(json.dumps(data))
    status, _out, err = cli(capsys, "audit", "check", str(proof_file), "--head", head)
    assert status == 1
    assert "the commit's columns hash to" in err

    # A proof about another tree than the one the auditor trusts proves nothing about it.
    other = tmp_path / "other.json"
    cli(capsys, "audit", "prove", "2", "--head", "3", "--db", db_url, "--out", str(other))
    status, _out, err = cli(capsys, "audit", "check", str(other), "--head", head)
    assert status == 1 and "not the trusted head" in err


def test_the_log_only_grows_past_a_head_kept_earlier(
    db_url: str, claims: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = _head(capsys, db_url)
    with Engine(db_url) as engine:
        engine.start_process_instance("claim", {"who": "Later"})
    now = _head(capsys, db_url)
    assert now != kept and now.split(":")[0] == "7"
    proof_file = tmp_path / "grew.json"
    status, _out, _err = cli(
        capsys, "audit", "consistency", kept, "--db", db_url, "--out", str(proof_file)
    )
    assert status == 0
    status, out, _err = cli(capsys, "audit", "check", str(proof_file), "--head", kept)
    assert status == 0 and f"extends the tree {kept}" in out


def test_a_consistent_rehash_of_the_past_is_caught_by_the_kept_head(
    db_url: str, claims: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = _head(capsys, db_url)
    db = sa.create_engine(db_url)
    try:
        with db.begin() as conn:
            forge(conn, claims[1], "Claimant-1", "Claimant-9")
    finally:
        db.dispose()
    # Every stream's chain holds again, so only a head kept outside can tell.
    status, _out, err = cli(capsys, "audit", "consistency", kept, "--db", db_url)
    assert status == 1
    assert "the log was rewritten since that head was taken" in err
    # A forger who hands out a proof from the rewritten log: it does not check against the head.
    size = kept.split(":")[0]
    forged = tmp_path / "forged.json"
    cli(capsys, "audit", "consistency", size, "--db", db_url, "--out", str(forged))
    status, _out, err = cli(capsys, "audit", "check", str(forged), "--head", kept)
    assert status == 1 and "neither of the proof's heads" in err


def test_heads_and_proofs_that_are_not_are_refused(
    db_url: str, claims: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _out, err = cli(capsys, "audit", "prove", "999", "--db", db_url)
    assert status != 0 and "999" in err
    status, _out, err = cli(capsys, "audit", "consistency", "12:zz", "--db", db_url)
    assert status != 0 and "64 hex digits" in err
    status, _out, err = cli(capsys, "audit", "consistency", "9", "--db", db_url)
    assert status != 0 and "no consistency proof from 9 commits to 6" in err
    status, _out, err = cli(capsys, "audit", "consistency", "2", "9", "--db", db_url)
    assert status != 0 and "the log holds 6 commits: no tree head of 9" in err
    junk = tmp_path / "junk.json"
    junk.write_text('{"kind": "inclusion"}')
    status, _out, err = cli(capsys, "audit", "check", str(junk))
    assert status != 0 and "not a flowledger proof" in err


def test_a_signed_head_checks_with_the_public_key_alone(
    db_url: str, claims: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "ledger.key"
    status, _out, _err = cli(capsys, "audit", "keygen", str(key))
    assert status == 0
    assert key.stat().st_mode & 0o777 == 0o600
    public = tmp_path / "ledger.key.pub"
    status, note, _err = cli(capsys, "audit", "head", "--db", db_url, "--signing-key", str(key))
    assert status == 0
    lines = note.splitlines()
    # origin, size: the five starts, the deployment and the log's record of the signing key
    assert lines[0].startswith("flowledger/") and lines[1] == "7"
    assert lines[-1].startswith("\u2014 ledger.key ")
    head_file = tmp_path / "head.txt"
    head_file.write_text(note)
    status, out, _err = cli(capsys, "audit", "check", str(head_file), "--key", str(public))
    assert status == 0 and out.startswith(f"OK {lines[0]} 7:")

    # A proof checked against the signed head, with nothing but the two files and the key.
    proof_file = tmp_path / "proof.json"
    cli(capsys, "audit", "prove", "3", "--db", db_url, "--out", str(proof_file))
    status, out, _err = cli(
        capsys, "audit", "check", str(proof_file), "--head", str(head_file), "--key", str(public)
    )
    assert status == 0 and "log position 3" in out

    # Changed after signing: the size line says 8.
    head_file.write_text(note.replace("\n7\n", "\n8\n", 1))
    status, _out, err = cli(capsys, "audit", "check", str(head_file), "--key", str(public))
    assert status == 1 and "the head was changed after it was signed" in err

    # Another key's public half finds no signature of its own on the head.
    other = tmp_path / "other.key"
    cli(capsys, "audit", "keygen", str(other))
    head_file.write_text(note)
    status, _out, err = cli(
        capsys, "audit", "check", str(head_file), "--key", str(tmp_path / "other.key.pub")
    )
    assert status == 1 and "no signature by this public key" in err


def test_a_signing_key_others_can_read_is_refused_and_keys_are_never_overwritten(
    db_url: str, claims: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "ledger.key"
    cli(capsys, "audit", "keygen", str(key))
    status, _out, err = cli(capsys, "audit", "keygen", str(key))
    assert status == 1 and "exists: keys are never overwritten" in err
    key.chmod(0o640)
    status, _out, err = cli(capsys, "audit", "head", "--db", db_url, "--signing-key", str(key))
    assert status == 1 and "accessible by others (mode 0640)" in err


def test_verify_against_published_heads_catches_a_rewrite_after_publishing(
    db_url: str, claims: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, published = tmp_path / "ledger.key", tmp_path / "published.jsonl"
    public = tmp_path / "ledger.key.pub"
    cli(capsys, "audit", "keygen", str(key))
    status, out, _err = cli(
        capsys,
        "audit",
        "publish",
        "--db",
        db_url,
        "--signing-key",
        str(key),
        "--to",
        str(published),
    )
    assert status == 0 and out.startswith("published 7 commits")  # with the key's record
    with Engine(db_url) as engine:
        engine.start_process_instance("claim", {"who": "Later"})
    cli(
        capsys,
        "audit",
        "publish",
        "--db",
        db_url,
        "--signing-key",
        str(key),
        "--to",
        str(published),
    )
    assert len(published.read_text().splitlines()) == 2

    verify = ("verify", "--db", db_url, "--against-published", str(published), "--key", str(public))
    status, out, _err = cli(capsys, *verify)
    assert status == 0 and "OK" in out

    db = sa.create_engine(db_url)
    try:
        with db.begin() as conn:
            forge(conn, claims[2], "Claimant-2", "Claimant-7")
    finally:
        db.dispose()
    status, out, _err = cli(capsys, *verify)
    assert status == 2
    rewritten = [
        line for line in out.splitlines() if "rewritten after that head was published" in line
    ]
    assert len(rewritten) == 2  # both heads cover the forged commit

    # Without the key the published file proves nothing: refused before anything is read.
    status, _out, err = cli(capsys, "verify", "--db", db_url, "--against-published", str(published))
    assert status != 0 and "needs --key" in err


def test_a_rotated_signing_key_is_recorded_in_the_log(
    db_url: str, claims: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = tmp_path / "2026.key", tmp_path / "2027.key"
    cli(capsys, "audit", "keygen", str(first))
    cli(capsys, "audit", "keygen", str(second))
    for key in (first, first, second):  # signing twice with one key records it once
        status, _note, _err = cli(
            capsys, "audit", "head", "--db", db_url, "--signing-key", str(key)
        )
        assert status == 0
    status, out, _err = cli(capsys, "audit", "keys", "--db", db_url, "--json")
    assert status == 0
    keys = json.loads(out)
    assert [k["name"] for k in keys] == ["2026.key", "2027.key"]
    assert keys[0]["replaces"] is None and keys[1]["replaces"] == keys[0]["key_hash"]
    # The public key the log recorded is the one the auditor was given.
    public = (tmp_path / "2027.key.pub").read_text()
    assert keys[1]["public_key"] in public
    status, out, _err = cli(capsys, "verify", "--db", db_url, "--json")
    assert status == 0 and json.loads(out)["problems"] == []

    # Heads published across the rotation check with both public keys; a head signed by a key
    # the log never recorded (forged outside the engine) is a problem.
    published = tmp_path / "published.jsonl"
    for key in (first, second):
        cli(
            capsys,
            "audit",
            "publish",
            "--db",
            db_url,
            "--signing-key",
            str(key),
            "--to",
            str(published),
        )
    keys_args = ("--key", str(tmp_path / "2026.key.pub"), "--key", str(tmp_path / "2027.key.pub"))
    against = ("verify", "--db", db_url, "--against-published", str(published))
    status, out, _err = cli(capsys, *against, *keys_args)
    assert status == 0, out
    stranger = tmp_path / "stranger.key"
    cli(capsys, "audit", "keygen", str(stranger))
    with Engine(db_url) as engine:
        head = engine.audit_service.tree_head()
    note = signed_heads.sign(
        "flowledger/x", head, signed_heads.load_private(stranger), "stranger.key", NOW
    )
    signed_heads.publish(published, note)
    status, out, _err = cli(
        capsys, *against, *keys_args, "--key", str(tmp_path / "stranger.key.pub")
    )
    assert status == 2 and "never recorded as a signing key" in out
