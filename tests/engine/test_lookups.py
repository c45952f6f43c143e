"""The command side's reads of the projected tables: `engine.commands.lookups` names the tables
of every lookup, the statements the lookups send read exactly those, and no other command-side
module reads through the read side (`projections.queries`) behind its back."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import and_, event
from sqlalchemy.engine import Connection

from flowledger import Engine
from flowledger.engine import commands, lookups
from flowledger.engine.storage import streams
from flowledger.engine.workers import job_executor, job_leases
from flowledger.eventlog.fastsql import Prepared
from flowledger.projections.tables import metadata
from tests.support import bpmn

READ_SIDE = "flowledger.projections.queries"


def _public_functions() -> set[str]:
    """lookups' public functions: its own and those it re-exports from the projections."""
    return {
        name
        for name, value in vars(lookups).items()
        if not name.startswith("_")
        and inspect.isfunction(value)
        and value.__module__.startswith("flowledger.")
        and name != "deferred_table"  # the split of the tables, not a lookup
    }


def test_every_lookup_names_its_tables_and_every_named_one_is_a_lookup() -> None:
    assert _public_functions() == set(lookups.TABLES_READ)
    assert lookups.LAG_TOLERANT <= set(lookups.TABLES_READ)


def test_every_named_table_is_a_projected_table_the_docstring_names() -> None:
    for name, tables in lookups.TABLES_READ.items():
        assert tables, f"{name} reads no table"
        unknown = [t for t in tables if t not in metadata.tables]
        assert unknown == [], f"{name} names tables the projections do not define: {unknown}"
        doc = inspect.getdoc(getattr(lookups, name)) or ""
        unsaid = [t for t in tables if t not in doc]
        assert unsaid == [], f"{name}'s docstring does not say it reads {unsaid}"


def test_the_inline_tables_are_those_of_every_lookup_that_cannot_lag() -> None:
    assert "ACT_RU_TASK" in lookups.INLINE_TABLES
    assert not {"ACT_HI_PROCINST", "ACT_HI_DECINST"} & lookups.INLINE_TABLES


# -- the statements the lookups send ---------------------------------------------------------------


def _tables_in(sql: str) -> set[str]:
    return {word for word in re.findall(r"\bACT_\w+", sql) if word in metadata.tables}


@pytest.fixture
def statements(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Connection, list[str]]]:
    """A read connection and the SQL it runs: through SQLAlchemy, and the prepared statements
    that `eventlog.fastsql` runs on the DBAPI cursor."""
    sent: list[str] = []
    run = Prepared.execute

    def recorded(self: Prepared, conn: Connection, values: Any) -> Any:
        sent.append(self.sql)
        return run(self, conn, values)

    monkeypatch.setattr(Prepared, "execute", recorded)
    with engine.reading() as conn:

        def before(_c: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
            sent.append(statement)

        event.listen(conn, "before_cursor_execute", before)
        yield conn, sent
        event.remove(conn, "before_cursor_execute", before)


def _calls(conn: Connection, deployed: Any, now: datetime) -> dict[str, Callable[[], object]]:
    """One call of every lookup, on arguments that take every branch that reads a table."""
    definition = deployed.process_definitions[0]
    keys = [definition.key]
    return {
        "instance_of_task": lambda: lookups.instance_of_task(conn, "t"),
        "instance_of_execution": lambda: lookups.instance_of_execution(conn, "e"),
        "instance_of_external_task": lambda: lookups.instance_of_external_task(conn, "x"),
        "instance_of_job": lambda: lookups.instance_of_job(conn, "j"),
        "instance_of_incident": lambda: lookups.instance_of_incident(conn, "i"),
        "due_jobs": lambda: lookups.due_jobs(conn, now, 10),
        "due_order": lambda: [str(part) for part in lookups.due_order()],
        "runnable": lambda: str(and_(*lookups.runnable(now))),
        "process_definition": lambda: lookups.process_definition(conn, definition.id),
        "latest_process_definition": lambda: lookups.latest_process_definition(conn, "k"),
        "process_definitions": lambda: lookups.process_definitions(conn, key="k"),
        "latest_versions": lambda: lookups.latest_versions(conn, keys),
        "deployment": lambda: lookups.deployment(conn, deployed.id),
        "latest_deployment_resources": lambda: lookups.latest_deployment_resources(
            conn, "lookups", None
        ),
        "decision_definition": lambda: lookups.decision_definition(conn, "d"),
        "latest_decision_definition": lambda: lookups.latest_decision_definition(conn, "d"),
        "decision_definitions": lambda: lookups.decision_definitions(conn, key="d"),
        "latest_decision_versions": lambda: lookups.latest_decision_versions(conn, ["d"]),
        "latest_requirements_versions": lambda: lookups.latest_requirements_versions(conn, ["r"]),
        "running_process_instances": lambda: lookups.running_process_instances(
            conn, [definition.id]
        ),
        "fetchable_external_tasks": lambda: lookups.fetchable_external_tasks(
            conn, ["invoice"], now, 10, True, only=["x"]
        ),
        "waiting": lambda: lookups.waiting(conn, "m", process_instance_id="p", business_key="b"),
        "start_subscriptions": lambda: lookups.start_subscriptions(
            conn, keys=keys, deployment_id=deployed.id, names=["m"], event_type="message"
        ),
        "start_timer": lambda: lookups.start_timer(conn, "j"),
        "start_timers": lambda: lookups.start_timers(conn, keys=keys, deployment_id=deployed.id),
        "batch": lambda: lookups.batch(conn, "b"),
        "batch_job": lambda: lookups.batch_job(conn, "j"),
        "batch_jobs": lambda: lookups.batch_jobs(conn, ["d"]),
        "remaining_batch_jobs": lambda: lookups.remaining_batch_jobs(conn, "d"),
        "batch_configuration": lambda: lookups.batch_configuration(conn, "c"),
        "batch_variables": lambda: lookups.batch_variables(conn, "b"),
        "expired_instances": lambda: lookups.expired_instances(conn, now, 10),
        "expired_decisions": lambda: lookups.expired_decisions(conn, now, 10),
        "decision_instance_origin": lambda: lookups.decision_instance_origin(conn, "d"),
    }


def test_each_lookup_reads_exactly_the_tables_it_names(
    engine: Engine, statements: tuple[Connection, list[str]]
) -> None:
    conn, sent = statements
    deployed = engine.deploy(bpmn("external_task.bpmn"), "lookups")
    now = engine.clock.now()
    calls = _calls(conn, deployed, now)
    assert set(calls) == set(lookups.TABLES_READ)
    for name, call in calls.items():
        sent.clear()
        result = call()
        read = set().union(*map(_tables_in, sent))
        if name in ("due_order", "runnable"):  # statement parts send nothing: what they name
            read = _tables_in(str(result))
        assert read == set(lookups.TABLES_READ[name]), name


# -- nothing else on the command side reads through the read side ---------------------------------


def _command_side() -> list[Path]:
    package = Path(inspect.getfile(commands)).parent
    modules = sorted(package.rglob("*.py"))
    return [*modules, *(Path(inspect.getfile(m)) for m in (streams, job_leases, job_executor))]


def _imported(tree: ast.AST, package: str) -> Iterator[tuple[int, str]]:
    """(line, module) of every import in the module, those inside functions too, absolute."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _package_of(path: Path) -> str:
    """The dotted package a command-side file's relative imports start from."""
    engine_root = Path(inspect.getfile(commands)).parent.parent
    relative = path.relative_to(engine_root).with_suffix("")
    return ".".join(["flowledger", "engine", *relative.parts[:-1]])


def test_the_command_side_reads_the_projections_only_through_lookups() -> None:
    files = _command_side()
    assert len(files) > 20  # the walk found the handlers
    offenders = []
    for path in files:
        if path.name == "lookups.py" and path.parent == Path(inspect.getfile(lookups)).parent:
            continue
        tree = ast.parse(path.read_text(), str(path))
        for line, module in _imported(tree, _package_of(path)):
            if module == READ_SIDE or module.startswith(READ_SIDE + "."):
                offenders.append(f"{path.name}:{line} imports {module}")
    assert offenders == []


def test_lookups_is_what_the_command_side_imports() -> None:
    """The walk above sees the imports that matter: lookups itself imports the read side."""
    tree = ast.parse(Path(inspect.getfile(lookups)).read_text())
    imported = {module for _line, module in _imported(tree, "flowledger.engine.commands")}
    assert any(m.startswith(READ_SIDE) for m in imported)
