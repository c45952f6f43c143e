"""The harness itself: its assertions fail when they should, runs are reproducible, and nothing in
this folder imports the engine, the event log, the projections or a database library.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from flowledger.core import events as ev
from flowledger.core.commands import ClaimTask, CompleteTask, StartProcessInstance
from flowledger.core.errors import NotFound
from tests.domain.harness import NOW, Scenario, bpmn, like

SIMPLE = bpmn(
    "simple",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <userTask id="work" name="Work"/>
    <sequenceFlow id="f2" sourceRef="work" targetRef="end"/>
    <endEvent id="end"/>
    """,
)


@pytest.fixture
def started(scenario: Scenario) -> Scenario:
    return scenario.given(SIMPLE).when(StartProcessInstance(key="simple"))


def test_then_fails_on_a_different_field(started: Scenario) -> None:
    with pytest.raises(AssertionError, match="expected:"):
        started.then(like(ev.UserTaskCreated, name="Other work"))


def test_then_fails_on_a_missing_or_an_unexpected_event(started: Scenario) -> None:
    with pytest.raises(AssertionError):
        started.then(like(ev.ActivityStarted, activity_id="start"))  # 'work' was started too
    with pytest.raises(AssertionError):
        started.then(*[like(ev.UserTaskCreated)] * 2)
    with pytest.raises(AssertionError, match="unexpected"):
        started.then_no(ev.UserTaskCreated)
    with pytest.raises(AssertionError, match="activities"):
        started.then_activities(started=["start", "work"], completed=[])


def test_like_names_only_fields_the_event_has() -> None:
    with pytest.raises(TypeError, match="activityId"):
        like(ev.ActivityStarted, activityId="work")


def test_an_accepted_command_is_not_a_refusal(started: Scenario) -> None:
    with pytest.raises(AssertionError, match="was accepted"):
        started.then_raises(NotFound)


def test_a_refused_command_has_no_events_and_changes_nothing(started: Scenario) -> None:
    before = started.history
    started.when(CompleteTask(task_id="nope"))
    with pytest.raises(AssertionError, match="refused: NotFound"):
        started.then_exactly()
    with pytest.raises(
        AssertionError, match=r"expected NotFound matching 'no such text', got NotFound"
    ):
        started.then_raises(NotFound, "no such text")
    assert started.history == before
    started.when(ClaimTask(task_id=started.task("work"), user_id="demo")).then_exactly(
        ev.TaskClaimed(task_id=started.task("work"), assignee="demo", time=NOW)
    )


def test_the_same_commands_record_the_same_events() -> None:
    """Counted ids and a fixed clock make the domain's output a function of its input."""

    def run() -> list[ev.Event]:
        scenario = Scenario().given(SIMPLE)
        scenario.when(StartProcessInstance(key="simple", variables={"n": 1}))
        scenario.when(CompleteTask(task_id=scenario.task("work")))
        return scenario.history

    first, second = run(), run()
    assert first == second
    assert isinstance(first[-1], ev.ProcessInstanceCompleted)


# What a domain test must not use: the engine and its storage, or a database or web library.
# `flowledger` itself is the public API, whose import pulls in the engine (Engine).
FORBIDDEN = (
    "flowledger.engine",
    "flowledger.eventlog",
    "flowledger.projections",
    "flowledger.migrations",
    "flowledger.rest",
    "flowledger.tools",
    "sqlalchemy",
    "litestar",
    "alembic",
    "tests.support",
)


def _imported(path: Path) -> set[str]:
    """Every module name the file imports, `from m import n` counted as m and m.n."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                package = "tests.domain".rsplit(".", node.level - 1)[0]
                module = f"{package}.{module}" if module else package
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def _forbidden(name: str) -> bool:
    return name == "flowledger" or any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def test_forbidden_is_detected() -> None:
    assert _forbidden("flowledger")
    assert _forbidden("flowledger.engine.root")
    assert _forbidden("sqlalchemy.engine")
    assert not _forbidden("flowledger.core.decide")
    assert not _forbidden("flowledger.engines")


def test_domain_tests_import_nothing_of_the_engine_or_a_database() -> None:
    folder = Path(__file__).parent
    files = sorted(folder.glob("*.py"))
    assert {f.name for f in files} >= {"harness.py", "conftest.py", Path(__file__).name}
    found = {
        f"{path.name}: {name}" for path in files for name in _imported(path) if _forbidden(name)
    }
    assert not found, f"domain tests must not import these: {sorted(found)}"
