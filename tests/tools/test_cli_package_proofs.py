"""Audit packages carry the exporting log's tree head and each commit's inclusion proof: an
importer checks a package against a head it got from elsewhere (published, signed) — with no
database (`audit check PACKAGE --head`), and before anything is written (`import --head`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flowledger import Engine
from tests.support import fresh_database, selected_kind
from tests.tools.test_cli_audit import MODEL, cli


def test_a_package_checks_against_a_published_head(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Engine(db_url) as engine:
        engine.deploy({"claim.bpmn": MODEL})
        pid = engine.start_process_instance("claim", {"who": "Fay"}).id
    key = tmp_path / "ledger.key"
    cli(capsys, "audit", "keygen", str(key))
    public = tmp_path / "ledger.key.pub"
    published = tmp_path / "heads.jsonl"
    status, _out, _err = cli(
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
    assert status == 0
    head_note = tmp_path / "head.txt"
    head_note.write_text(json.loads(published.read_text().splitlines()[0])["note"])
    size = head_note.read_text().splitlines()[1]
    with Engine(db_url) as engine:  # the log grows after the head was published
        engine.start_process_instance("claim", {"who": "Gus"})

    package = tmp_path / "case.zip"
    status, out, _err = cli(
        capsys, "export", pid, "-o", str(package), "--head-size", size, "--db", db_url
    )
    assert status == 0 and f"proven in the exporting log's tree {size}:" in out

    # No database: every proof leads to the published head's root.
    status, out, _err = cli(
        capsys, "audit", "check", str(package), "--head", str(head_note), "--key", str(public)
    )
    assert status == 0 and out.startswith(f"OK {package}")
    # A head of another size is not the one the package is proven in: said, and how to fix it.
    with Engine(db_url) as engine:
        now = engine.audit_service.tree_head()
    status, _out, err = cli(
        capsys, "audit", "check", str(package), "--head", f"{now.size}:{now.root}"
    )
    assert status == 1 and f"--head-size {now.size}" in err

    (tmp_path / "laptop").mkdir()
    with fresh_database(selected_kind(), tmp_path / "laptop") as laptop:
        status, _out, err = cli(
            capsys, "import", str(package), "--db", laptop, "--head", f"{now.size}:{now.root}"
        )
        assert status == 1 and "not in the trusted head" in err
        status, out, _err = cli(
            capsys,
            "import",
            str(package),
            "--db",
            laptop,
            "--head",
            str(head_note),
            "--key",
            str(public),
        )
        assert status == 0 and "imported" in out


def test_a_package_carries_the_head_it_was_signed_in(
    db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Engine(db_url) as engine:
        engine.deploy({"claim.bpmn": MODEL})
        pid = engine.start_process_instance("claim", {"who": "Hal"}).id
    key = tmp_path / "ledger.key"
    cli(capsys, "audit", "keygen", str(key))
    package = tmp_path / "signed.zip"
    status, _out, _err = cli(
        capsys, "export", pid, "-o", str(package), "--signing-key", str(key), "--db", db_url
    )
    assert status == 0
    status, out, _err = cli(
        capsys, "audit", "check", str(package), "--key", str(tmp_path / "ledger.key.pub")
    )
    assert status == 0 and "each proven in the tree" in out
    other = tmp_path / "other.key"
    cli(capsys, "audit", "keygen", str(other))
    status, _out, err = cli(
        capsys, "audit", "check", str(package), "--key", str(tmp_path / "other.key.pub")
    )
    assert status == 1 and "no signature by this public key" in err
