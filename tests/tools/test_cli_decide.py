"""`flowledger decide KEY --var name=value`: a deployed decision evaluated from the command line,
its result and matched rules printed (a table, or JSON with `--json`), the evaluation recorded;
a decision that is missing or fails is one line on stderr and exit status 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from flowledger import Engine
from flowledger.tools.cli import main
from tests.dmn.models import table
from tests.support import bpmn

DINNER = ["--var", "season=Fall", "--var", "guestCount=4", "--var", "guestsWithChildren=true"]


@pytest.fixture
def url(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'decide.db'}"
    main(["deploy", str(bpmn("dinner.dmn")), "--db", url])
    return url


def test_decide_prints_each_result_with_its_rule(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    main(["decide", "beverages", *DINNER, "--db", url])
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if "ribs" in line or "children" in line]
    assert "Aecht Schlenkerla Rauchbier" in lines[0] and "Apple Juice" in lines[1]
    assert "recorded as decision instance" in out


def test_decide_json_is_the_result_the_rules_and_the_recorded_instance(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    main(
        [
            "decide",
            "dish",
            "--var",
            "season=Winter",
            "--var",
            "guestCount=12",
            "--json",
            "--db",
            url,
        ]
    )
    document = json.loads(capsys.readouterr().out)
    assert document["result"] == [{"desiredDish": "Stew"}]
    assert document["matchedRules"] == ["big"]
    with Engine(url) as engine:
        events = engine.events(document["decisionInstanceId"])
    assert [e.type for e in events] == ["DecisionEvaluated"]
    assert events[0].actor is not None  # who asked: the operating system user by default


def test_an_aggregation_prints_its_rules_below_the_single_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'sum.db'}"
    rules = [("a", ["> 0"], ["1"]), ("b", ["> 5"], ["10"])]
    with Engine(url) as engine:
        engine.deploy(
            {
                "points.dmn": table(
                    [("x", "integer")],
                    [("points", "integer")],
                    rules,
                    hit_policy="COLLECT",
                    aggregation="SUM",
                )
            }
        )
    main(["decide", "t", "--var", "x=7", "--db", url])
    out = capsys.readouterr().out
    assert "11" in out
    assert "matched rules: a, b" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["decide", "nothing"], "Decision definition 'nothing' not found"),
        (
            ["decide", "dish", "--var", "season=Fall", "--var", "guestCount=many"],
            "'many' cannot be converted to integer",
        ),
    ],
)
def test_a_decision_that_cannot_answer_is_one_line_on_stderr(
    url: str, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--db", url])
    assert exited.value.code == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
