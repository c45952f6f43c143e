"""The auditor's commands as a person runs them, on the suite's database: `history`, `events`,
`replay --at/--diff`, `why` (with the conditions that chose the path), `head` and
`verify --against`; their exit codes and `--json`; `why` and `--diff` answer as REST does."""

from __future__ import annotations

import getpass
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.rest.paths import BASE_PATH, EXTENSIONS_PATH
from flowledger.tools.cli import main
from tests.rest.server import live_server

MODEL = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="t">
  <bpmn:process id="claim" name="Claim" isExecutable="true">
    <bpmn:startEvent id="filed" />
    <bpmn:sequenceFlow id="f1" sourceRef="filed" targetRef="assess" />
    <bpmn:userTask id="assess" name="Assess claim" camunda:candidateGroups="adjusters" />
    <bpmn:sequenceFlow id="f2" sourceRef="assess" targetRef="closed" />
    <bpmn:endEvent id="closed" />
  </bpmn:process>
</bpmn:definitions>
"""


@dataclass(frozen=True)
class Run:
    url: str
    instance: str
    task: str
    claimed_at: int  # the log position of the claim
    completed_at: int  # the log position of the task's completion


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line; (exit status, stdout, stderr)."""
    capsys.readouterr()
    try:
        main(list(argv))
        status = 0
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def run(db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[Run]:
    """A claim filed and assessed from the command line; `kermit` claims it from Python."""
    model = tmp_path / "claim.bpmn"
    model.write_bytes(MODEL)
    assert cli(capsys, "deploy", str(model), "--db", db_url)[0] == 0
    status, out, _ = cli(capsys, "start", "claim", "--var", "amount=900", "--json", "--db", db_url)
    assert status == 0
    started = json.loads(out)
    instance, task = started["instance"]["id"], started["tasks"][0]["id"]
    with Engine(db_url) as engine:
        engine.acting_as("kermit", via="rest").claim(task, "kermit")
        claimed_at = engine.log_position()
    assert cli(capsys, "complete", task, "--var", "approved=true", "--db", db_url)[0] == 0
    with Engine(db_url) as engine:
        completed_at = next(
            e.position for e in engine.events(instance) if e.type == "TaskCompleted"
        )
    yield Run(db_url, instance, task, claimed_at, completed_at)


def test_history_is_a_timeline_of_who_did_what(
    run: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = cli(capsys, "history", run.instance, "--db", run.url)

    assert status == 0
    me = f"{getpass.getuser()} (cli)"
    assert "instance started" in out and me in out
    assert "task claimed by kermit" in out and "kermit (rest)" in out
    assert "approved=true" in out and "amount=900" in out

    status, out, _ = cli(capsys, "--json", "history", run.instance, "--db", run.url)
    entries = json.loads(out)
    claim = next(e for e in entries if e["what"] == "task claimed by kermit")
    assert (claim["actor"], claim["via"], claim["activity_id"]) == ("kermit", "rest", "assess")
    assert claim["position"] == run.claimed_at
    completion = next(e for e in entries if e["variables"].get("approved") is True)
    assert completion["via"] == "cli"


def test_events_name_who_issued_each_command(run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "events", run.instance, "--json", "--db", run.url)

    assert status == 0
    recorded = json.loads(out)
    assert {(e["command_type"], e["actor"], e["via"]) for e in recorded} == {
        ("StartProcessInstance", getpass.getuser(), "cli"),
        ("ClaimTask", "kermit", "rest"),
        ("CompleteTask", getpass.getuser(), "cli"),
    }


def test_replay_shows_the_instance_as_it_was_and_what_changed(
    run: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = cli(
        capsys, "replay", run.instance, "--at", str(run.claimed_at), "--db", run.url
    )

    assert status == 0
    assert "Assess claim" in out and "kermit" in out and "adjusters" in out
    assert f"as of position {run.claimed_at}" in out

    status, out, _ = cli(
        capsys, "replay", run.instance, "--at", str(run.claimed_at), "--json", "--db", run.url
    )
    then = json.loads(out)
    assert then["position"] == run.claimed_at
    assert [t["assignee"] for t in then["view"]["tasks"]] == ["kermit"]
    assert then["state"]["status"] == "ACTIVE"  # --json still gives the internal state

    before_claim = str(run.claimed_at - 1)
    status, out, _ = cli(
        capsys,
        "replay",
        run.instance,
        "--diff",
        before_claim,
        str(run.claimed_at),
        "--json",
        "--db",
        run.url,
    )
    changes = json.loads(out)["changes"]
    assert [(c["section"], c["kind"], c["before"], c["after"]) for c in changes] == [
        ("tasks", "changed", {"assignee": None}, {"assignee": "kermit"})
    ]

    status, out, _ = cli(capsys, "replay", run.instance, "--db", run.url)
    assert "COMPLETED" in out


def test_replay_at_a_moment(run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    with Engine(run.url) as engine:
        recorded = engine.events(run.instance)
    claim = next(e for e in recorded if e.type == "TaskClaimed")
    # the instance's last event recorded at or before the claim's moment (commits of the same
    # millisecond included)
    expected = max(e.position for e in recorded if e.recorded_at <= claim.recorded_at)

    status, out, _ = cli(
        capsys,
        "replay",
        run.instance,
        "--at",
        claim.recorded_at.isoformat(),
        "--json",
        "--db",
        run.url,
    )

    assert status == 0
    assert json.loads(out)["position"] == expected < recorded[-1].position


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["replay", "{i}", "--at", "99999999"], "position 99999999 is outside the log"),
        (["replay", "{i}", "--at", "2001-01-01T00:00:00Z"], "began at position"),
        (["replay", "{i}", "--at", "yesterday"], "neither a log position"),
        (["replay", "{i}", "--at", "²"], "neither a log position"),
        (["replay", "no-such-instance"], "no-such-instance"),
        (["why", "{i}", "1"], "has no event at position 1"),
        (["history", "no-such-instance"], "not found"),
    ],
)
def test_bad_input_is_a_clear_error(
    run: Run, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, _, err = cli(capsys, *[a.format(i=run.instance) for a in argv], "--db", run.url)

    assert status in (1, 2)
    assert message in err
    assert "Traceback" not in err


def test_why_follows_the_completion_back_to_the_start(
    run: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = cli(
        capsys, "why", run.instance, str(run.completed_at), "--json", "--db", run.url
    )

    assert status == 0
    chain = json.loads(out)
    assert [c["command_type"] for c in chain] == ["CompleteTask", "StartProcessInstance"]
    assert chain[0]["because_of"] == f"task {run.task}"
    assert chain[0]["via"] == "cli"


def test_head_anchors_the_log_and_verify_against_it_catches_a_rewrite(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = cli(capsys, "head", "--db", run.url)
    assert status == 0
    anchor = out.strip()
    kept = tmp_path / "anchor.txt"
    kept.write_text(out)

    status, out, _ = cli(capsys, "verify", "--against", str(kept), "--db", run.url)
    assert status == 0, out
    assert f"anchor {anchor}" in out

    # Whoever can write the database rewrites a commit and recomputes its hash: the chain is
    # consistent again, only the anchor kept outside shows it.
    sql = sa.create_engine(run.url)
    try:
        with sql.begin() as conn:
            conn.execute(
                sa.text("UPDATE event_log SET actor = 'mallory' WHERE first_position = :p"),
                {"p": run.claimed_at},
            )
    finally:
        sql.dispose()
    status, out, _ = cli(capsys, "verify", "--against", anchor, "--json", "--db", run.url)
    assert status == 2
    problems = json.loads(out)["problems"]
    assert any(run.instance in p and str(run.claimed_at) in p for p in problems), problems
    assert any(p.startswith("anchor:") for p in problems), problems

    status, _, err = cli(capsys, "head", "--db", run.url)
    assert status == 2
    assert "PROBLEM" in err


def test_a_malformed_anchor_is_refused(run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = cli(capsys, "verify", "--against", "12:abc", "--db", run.url)

    assert status == 2
    assert "neither POSITION:DIGEST nor a file" in err


def test_stepping_walks_forwards_and_backwards(run: Run) -> None:
    from rich.console import Console

    from flowledger.tools.cli_audit import step_through
    from flowledger.tools.output import Output

    out = Output()
    out.out = Console(record=True, width=160, force_terminal=False)
    answers = iter(["", "", "p", str(run.claimed_at), "q"])
    with Engine(run.url) as engine:
        first = engine.events(run.instance)[0].position
        step_through(out, engine, run.instance, lambda: next(answers))
    text = out.out.export_text()

    shown = [
        int(line.split(" at position ")[1].split(":")[0])
        for line in text.splitlines()
        if line.startswith("event ")
    ]
    assert shown == [first, first + 1, first + 2, first + 1, run.claimed_at]
    assert "ClaimTask by kermit (rest)" in text
    assert "Changes from position" in text


def test_export_then_import_into_a_fresh_database(
    run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    package = tmp_path / "claim.zip"
    status, out, _ = cli(capsys, "export", run.instance, "-o", str(package), "--db", run.url)
    assert status == 0
    assert f"process instance {run.instance}" in out

    laptop = f"sqlite:///{tmp_path / 'laptop.db'}"
    status, out, _ = cli(capsys, "import", str(package), "--json", "--db", laptop)
    assert status == 0
    assert json.loads(out)["subject"] == run.instance
    status, out, _ = cli(
        capsys, "replay", run.instance, "--at", str(run.claimed_at), "--db", laptop
    )
    assert status == 0 and "kermit" in out
    assert cli(capsys, "verify", "--db", laptop)[0] == 0

    cut = tmp_path / "cut.zip"
    cut.write_bytes(package.read_bytes()[:200])
    fresh = f"sqlite:///{tmp_path / 'fresh.db'}"
    status, _, err = cli(capsys, "import", str(cut), "--db", fresh)
    assert status == 1
    assert "not a readable audit package" in err and "Traceback" not in err
    with Engine(fresh) as engine:
        assert engine.log_position() == 0


@pytest.mark.parametrize("writer_process", [False, True], ids=["in-process", "writer-process"])
def test_rebuild_from_the_command_line(
    run: Run,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    writer_process: bool,
) -> None:
    if writer_process:  # as a rebuild of 100,000 events or more writes
        monkeypatch.setattr("flowledger.engine.audit.rebuild.PIPELINE_FROM_EVENTS", 0)
    status, out, _ = cli(
        capsys,
        "rebuild",
        "--projection",
        "history",
        "--history-level",
        "full",
        "--json",
        "--db",
        run.url,
    )

    assert status == 0
    report = json.loads(out)
    assert report["resumed_from"] == 0 and "ACT_HI_DETAIL" in report["tables"]
    assert cli(capsys, "history-level", "--db", run.url)[1].strip() == "full"
    assert cli(capsys, "verify", "--db", run.url)[0] == 0

    status, out, _ = cli(capsys, "rebuild", "--drop-old", "--db", run.url)
    assert status == 0 and "old_act_hi_detail" in out
    status, _, err = cli(capsys, "rebuild", "--projection", "everything", "--db", run.url)
    assert status == 2 and "everything" in err


def test_cleanup_from_the_command_line(run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "cleanup", "--json", "--db", run.url)

    assert status == 0
    assert json.loads(out)["removed"] == 0  # the claim model has no time to live: kept
    status, out, _ = cli(capsys, "cleanup", "--db", run.url)
    assert status == 0 and "removed the history of 0 instances" in out


def test_verify_one_instance(run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = cli(capsys, "verify", "--instance", run.instance, "--json", "--db", run.url)

    assert status == 0
    report = json.loads(out)
    assert report["streams_checked"] == 1 and report["problems"] == []


GATEWAY = b"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d"
    targetNamespace="t">
  <bpmn:process id="route" isExecutable="true">
    <bpmn:startEvent id="s" />
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="assess" />
    <bpmn:userTask id="assess" />
    <bpmn:sequenceFlow id="f2" sourceRef="assess" targetRef="gw" />
    <bpmn:exclusiveGateway id="gw" default="toClerk" />
    <bpmn:sequenceFlow id="toBoss" sourceRef="gw" targetRef="boss">
      <bpmn:conditionExpression>${amount &gt; limit}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="toClerk" sourceRef="gw" targetRef="clerk" />
    <bpmn:userTask id="boss" />
    <bpmn:sequenceFlow id="f3" sourceRef="boss" targetRef="e" />
    <bpmn:userTask id="clerk" />
    <bpmn:sequenceFlow id="f4" sourceRef="clerk" targetRef="e" />
    <bpmn:endEvent id="e" />
  </bpmn:process>
</bpmn:definitions>
"""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def test_why_and_diff_answer_as_the_rest_api_does(
    db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with Engine(db_url) as engine:
        engine.deploy({"route.bpmn": GATEWAY})
        instance = engine.start_process_instance("route", {"amount": 10, "limit": 500}).id
        [assess] = engine.tasks(process_instance_id=instance)
        engine.complete_task(assess.id, {"amount": 900})
        boss_started = next(
            e.position
            for e in engine.events(instance)
            if e.type == "ActivityStarted" and e.payload["activity_id"] == "boss"
        )
        started = next(e.position for e in engine.events(instance) if e.type == "UserTaskCreated")
        [boss] = engine.tasks(process_instance_id=instance)
        engine.complete_task(boss.id)
        ended = engine.events(instance)[-1].position
        with live_server(engine) as server:
            ext = server.url.removesuffix(BASE_PATH) + EXTENSIONS_PATH
            rest_why = httpx.get(f"{ext}/process-instance/{instance}/why/{boss_started}").json()
            rest_diff = httpx.get(
                f"{ext}/process-instance/{instance}/diff", params={"from": started, "to": ended}
            ).json()

    status, out, _ = cli(capsys, "why", instance, str(boss_started), "--json", "--db", db_url)
    assert status == 0
    cli_why = json.loads(out)
    check = {
        "gateway_id": "gw",
        "flow_id": "toBoss",
        "expression": "${amount > limit}",
        "result": True,
        "variables": {"amount": 900, "limit": 500},
    }
    assert [c["conditions"] for c in cli_why] == [[check], []]
    assert [
        [{_camel(k): v for k, v in c.items()} for c in step["conditions"]] for step in cli_why
    ] == [step["conditions"] for step in rest_why]
    status, out, _ = cli(capsys, "why", instance, str(boss_started), "--db", db_url)
    assert "toBoss" in out and "${amount > limit}" in out and "amount=900" in out

    status, out, _ = cli(
        capsys, "replay", instance, "--diff", str(started), str(ended), "--json", "--db", db_url
    )
    assert status == 0
    cli_changes = json.loads(out)["changes"]
    assert [(c["section"], c["key"], c["kind"]) for c in cli_changes] == [
        (_camel(c["section"]), c["key"], c["kind"]) for c in rest_diff["changes"]
    ][: len(cli_changes)] and len(cli_changes) == len(rest_diff["changes"])
    # across the end, the variables are not removed: only `amount` changed
    variables = [c for c in cli_changes if c["section"] == "variables"]
    assert [(c["key"], c["kind"], c["before"], c["after"]) for c in variables] == [
        ("process instance/amount", "changed", {"value": 10}, {"value": 900})
    ]
