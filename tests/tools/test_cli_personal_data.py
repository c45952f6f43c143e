"""`flowledger personal-data SUBJECT` and `flowledger erase SUBJECT --reason` as a data protection
officer runs them: the erasure names what it erased, is recorded with the operating-system user
and the reason, and leaves `flowledger verify` clean; errors name the problem, never a
traceback."""

from __future__ import annotations

import json

import pytest

from flowledger import Engine
from flowledger.core.variables import TypedValue
from tests.tools.test_cli_audit import MODEL, cli


def test_erase_then_verify(db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with Engine(db_url) as engine:
        engine.deploy({"claim.bpmn": MODEL})
        pi = engine.start_process_instance(
            "claim",
            {"who": TypedValue("String", "Dora Claimant", {"personalData": True})},
            business_key="claimant-9",
        )
    status, out, _err = cli(capsys, "personal-data", "claimant-9", "--db", db_url, "--json")
    assert status == 0
    assert [k["process_instance_id"] for k in json.loads(out)["keys"]] == [pi.id]

    status, _out, err = cli(capsys, "erase", "claimant-9", "--db", db_url)
    assert status != 0 and "--reason" in err

    status, out, _err = cli(
        capsys, "erase", "claimant-9", "--reason", "withdrew consent", "--db", db_url
    )
    assert status == 0, out
    assert "erased 1 value(s) in 1 instance(s)" in out

    status, out, _err = cli(capsys, "verify", "--db", db_url, "--json")
    assert status == 0 and json.loads(out)["problems"] == []
    status, out, _err = cli(capsys, "personal-data", "claimant-9", "--db", db_url, "--json")
    (key,) = json.loads(out)["keys"]
    assert key["reason"] == "withdrew consent" and key["erased_at"]

    status, _out, err = cli(capsys, "erase", "no-such-subject", "--reason", "x", "--db", db_url)
    assert status != 0 and "no-such-subject" in err and "Traceback" not in err
