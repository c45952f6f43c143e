"""List pages at scale: how long engine-rest's list and count endpoints take on a big database.

`python -m flowledger.tools.bench.list_pages --db URL --instances 100000` fills (once) a database
with N instances of four process definitions in the shape a running installation has: started
over 100 days at a steady rate, user tasks with candidate groups, claimed by some users and not
others, external tasks, business keys, a few variables each; most instances finished, the rest
waiting (the recent ones, and some that were left lying). Then it times every list endpoint a
Camunda client pages through (Cockpit's and Tasklist's sort orders; first page and
`firstResult=5000`, `maxResults=50`), their `/count` twins and POST query forms, through the
served app in-process (`rest.create_app`, Litestar's test client: the HTTP stack without a
socket), and prints median and p95 per endpoint, the statements each request ran, and the plans
(EXPLAIN) of the statements behind pages over the target.

The database is built through the engine on SQLite (synchronous OFF, asynchronous history) and
cached under `--cache-dir`; a PostgreSQL or MariaDB URL gets the cached rows copied in (the rows
the engine wrote, byte for byte; then VACUUM ANALYZE, ANALYZE TABLE, as autovacuum and InnoDB's
statistics would). A database already holding the benchmark's data for N is reused as it is;
one holding anything else is refused. The benchmark reads only, except that opening the engine
migrates the schema to the newest revision.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import importlib.metadata
import json
import random
import shutil
import sqlite3
import statistics
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, make_url

from flowledger import migrations
from flowledger.core.clock import ControllableClock
from flowledger.core.engine import Engine
from flowledger.core.state import STATE_SCHEMA
from flowledger.eventlog import tables as log_tables
from flowledger.projections.tables import (
    ACT_HI_PROCINST,
    ACT_RE_DEPLOYMENT,
    ACT_RU_TASK,
)
from flowledger.projections.tables import metadata as act_metadata
from flowledger.tools.progress import Progress

from .errors import BenchError

# -- the database's shape ------------------------------------------------------------------------

# Bump when the builder writes something else: the cache key and the marker deployment change.
BUILD_VERSION = 1
SPAN = timedelta(days=100)  # the instances start evenly over this time
EPOCH = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
MARKER = "list-pages"  # the name of the benchmark's first deployment starts with it
COPY_BATCH = 5_000
NOTE_EVERY = 5_000

GROUP_USERS: dict[str, tuple[str, ...]] = {
    "accounting": ("mary", "peter"),
    "sales": ("john", "demo"),
    "management": ("demo",),
    "support": ("lisa", "tom"),
    "logistics": ("lisa", "tom", "kermit"),
}
INVOICE_GROUPS = ("accounting", "accounting", "sales", "management", "support")
REVIEWERS = ("demo", "john", "mary", "peter", "lisa", "tom", "kermit", "fozzie")

_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'targetNamespace="http://flowledger.dev/bench/list-pages">\n'
)


def _invoice(version_name: str) -> str:
    return _HEAD + (
        f'  <process id="invoice" name="{version_name}" isExecutable="true" '
        'camunda:historyTimeToLive="P180D">\n'
        '    <startEvent id="received" name="Invoice received"/>\n'
        '    <userTask id="approve" name="Approve invoice" camunda:candidateGroups="${group}" '
        'camunda:formKey="embedded:app:forms/approve.html"/>\n'
        '    <serviceTask id="archive" name="Archive invoice" camunda:type="external" '
        'camunda:topic="archive"/>\n'
        '    <endEvent id="processed" name="Invoice processed"/>\n'
        '    <sequenceFlow id="f1" sourceRef="received" targetRef="approve"/>\n'
        '    <sequenceFlow id="f2" sourceRef="approve" targetRef="archive"/>\n'
        '    <sequenceFlow id="f3" sourceRef="archive" targetRef="processed"/>\n'
        "  </process>\n</definitions>\n"
    )


REVIEW = _HEAD + (
    '  <process id="review" name="Document review" isExecutable="true" '
    'camunda:historyTimeToLive="P180D">\n'
    '    <startEvent id="submitted" name="Document submitted"/>\n'
    '    <userTask id="check" name="Review document" camunda:assignee="${reviewer}"/>\n'
    '    <exclusiveGateway id="verdict" name="Approved?" default="f_rejected"/>\n'
    '    <endEvent id="accepted" name="Accepted"/>\n'
    '    <endEvent id="rejected" name="Rejected"/>\n'
    '    <sequenceFlow id="f1" sourceRef="submitted" targetRef="check"/>\n'
    '    <sequenceFlow id="f2" sourceRef="check" targetRef="verdict"/>\n'
    '    <sequenceFlow id="f_accepted" sourceRef="verdict" targetRef="accepted">\n'
    '      <conditionExpression xsi:type="tFormalExpression">${approved}</conditionExpression>\n'
    "    </sequenceFlow>\n"
    '    <sequenceFlow id="f_rejected" sourceRef="verdict" targetRef="rejected"/>\n'
    "  </process>\n</definitions>\n"
)

SHIPMENT = _HEAD + (
    '  <process id="shipment" name="Shipment" isExecutable="true" '
    'camunda:historyTimeToLive="P180D">\n'
    '    <startEvent id="ordered" name="Order placed"/>\n'
    '    <serviceTask id="ship" name="Ship goods" camunda:type="external" '
    'camunda:topic="shipping"/>\n'
    '    <userTask id="confirm" name="Confirm delivery" camunda:candidateGroups="logistics"/>\n'
    '    <endEvent id="delivered" name="Delivered"/>\n'
    '    <sequenceFlow id="f1" sourceRef="ordered" targetRef="ship"/>\n'
    '    <sequenceFlow id="f2" sourceRef="ship" targetRef="confirm"/>\n'
    '    <sequenceFlow id="f3" sourceRef="confirm" targetRef="delivered"/>\n'
    "  </process>\n</definitions>\n"
)


@dataclass(frozen=True)
class Fate:
    """What happens to one instance, drawn from the seeded generator before anything runs."""

    model: str  # invoice, review, shipment
    business_key: str
    variables: dict[str, Any]
    claim_after: timedelta | None  # a candidate claims the user task this long after it exists
    claimer: str | None
    task_after: timedelta | None  # the user task is completed this long after it exists
    external_after: timedelta | None  # the external task is done this long after it exists


def _hours(rng: random.Random, low: float, high: float) -> timedelta:
    return timedelta(hours=rng.uniform(low, high))


def fate(i: int, rng: random.Random) -> Fate:
    """Instance `i`'s model, business key, variables and timings. About one in five is left
    waiting at its user task (half of those claimed), a few at their external task; the rest
    finish within days, so the newest ones are still running too."""
    draw = rng.random()
    lying = rng.random() < 0.2
    amount = rng.randrange(10, 20_000)
    customer = f"customer-{rng.randrange(2_000):04d}"
    if draw < 0.35:
        group = rng.choice(INVOICE_GROUPS)
        claimed = rng.random() < (0.5 if lying else 0.7)
        return Fate(
            model="invoice",
            business_key=f"INV-{i:07d}",
            variables={"amount": amount, "customer": customer, "group": group},
            claim_after=_hours(rng, 0.1, 24) if claimed else None,
            claimer=rng.choice(GROUP_USERS[group]) if claimed else None,
            task_after=None if lying else _hours(rng, 24, 96),
            external_after=None if rng.random() < 0.03 else _hours(rng, 0.02, 6),
        )
    if draw < 0.75:
        return Fate(
            model="review",
            business_key=f"REV-{i:07d}",
            variables={"amount": amount, "customer": customer, "reviewer": rng.choice(REVIEWERS)},
            claim_after=None,
            claimer=None,
            task_after=None if lying else _hours(rng, 1, 120),
            external_after=None,
        )
    claimed = rng.random() < 0.5
    return Fate(
        model="shipment",
        business_key=f"SHP-{i:07d}",
        variables={"amount": amount, "customer": customer, "priority": rng.randrange(3)},
        claim_after=_hours(rng, 0.5, 12) if claimed else None,
        claimer=rng.choice(GROUP_USERS["logistics"]) if claimed else None,
        task_after=None if lying else _hours(rng, 13, 48),
        external_after=None if rng.random() < 0.03 else _hours(rng, 0.2, 48),
    )


# -- building -------------------------------------------------------------------------------------


def _engine_version() -> str:
    try:
        return importlib.metadata.version("flowledger")
    except importlib.metadata.PackageNotFoundError:
        return "dev"


def cache_key(instances: int, seed: int) -> str:
    """The cached database's name: what changes the rows the builder writes changes it (a new
    index does not: opening the engine migrates a copy of the cached file)."""
    models = hashlib.sha256((_invoice("") + REVIEW + SHIPMENT).encode()).hexdigest()[:8]
    return (
        f"list-pages-{instances}i-seed{seed}-b{BUILD_VERSION}-state{STATE_SCHEMA}"
        f"-v{_engine_version()}-{models}"
    )


def marker(instances: int, seed: int) -> str:
    """The name of the benchmark's first deployment: which data a database holds."""
    return f"{MARKER} {instances} seed={seed} build={BUILD_VERSION}"


class _Builder:
    """Runs the instances on one timeline: every start, claim and completion at its moment of
    the engine's (controllable) clock, in time order. What is due after the last start stays
    undone: those instances are still running."""

    def __init__(self, engine: Engine, clock: ControllableClock, instances: int, seed: int):
        self.engine = engine
        self.clock = clock
        self.instances = instances
        self.rng = random.Random(seed)
        self.queue: list[tuple[datetime, int, str, int]] = []
        self.fates: dict[int, Fate] = {}
        self.ids: dict[int, str] = {}
        self.order = 0
        self.end = EPOCH + SPAN

    def _at(self, moment: datetime, action: str, i: int) -> None:
        if moment < self.end:
            self.order += 1
            heapq.heappush(self.queue, (moment, self.order, action, i))

    def run(self, progress: Progress) -> None:
        spacing = SPAN / self.instances
        for i in range(self.instances):
            self._at(EPOCH + spacing * i, "start", i)
        started = 0
        while self.queue:
            moment, _order, action, i = heapq.heappop(self.queue)
            self.clock.set(moment)
            getattr(self, f"_{action}")(i, moment)
            if action == "start":
                started += 1
                if started % NOTE_EVERY == 0:
                    progress.note(f"list-pages database: {started:,} of {self.instances:,} started")
            if started == self.instances // 2 and action == "start":
                # A second version of the invoice process half-way: later instances run it.
                self.engine.deploy({"invoice.bpmn": _invoice("Invoice receipt v2")}, name="invoice")

    def _start(self, i: int, moment: datetime) -> None:
        f = self.fates[i] = fate(i, self.rng)
        pi = self.engine.start_process_instance(f.model, f.variables, business_key=f.business_key)
        self.ids[i] = pi.id
        self._waiting(i, moment)

    def _waiting(self, i: int, moment: datetime) -> None:
        """Schedule what happens to the task the instance now waits in."""
        f = self.fates[i]
        if self.engine.tasks(process_instance_id=self.ids[i]):
            if f.claim_after is not None:
                self._at(moment + f.claim_after, "claim", i)
            if f.task_after is not None:
                self._at(moment + f.task_after, "complete", i)
        elif f.external_after is not None and self.engine.external_tasks(
            process_instance_id=self.ids[i]
        ):
            self._at(moment + f.external_after, "work", i)

    def _claim(self, i: int, moment: datetime) -> None:
        f = self.fates[i]
        tasks = self.engine.tasks(process_instance_id=self.ids[i])
        if tasks and tasks[0].assignee is None and f.claimer is not None:
            self.engine.claim(tasks[0].id, f.claimer)

    def _complete(self, i: int, moment: datetime) -> None:
        (task,) = self.engine.tasks(process_instance_id=self.ids[i])
        self.engine.complete_task(task.id, {"approved": self.rng.random() < 0.8})
        self._waiting(i, moment)

    def _work(self, i: int, moment: datetime) -> None:
        (task,) = self.engine.external_tasks(process_instance_id=self.ids[i])
        locked = self.engine.fetch_and_lock(
            "bench-worker", {task.topic_name: 60_000}, 1, task_ids=[task.id]
        )
        if len(locked) != 1:
            raise BenchError(f"list-pages build: could not lock external task {task.id}")
        self.engine.complete_external_task(task.id, "bench-worker", {"archived": True})
        self._waiting(i, moment)


def _build(path: Path, instances: int, seed: int, progress: Progress) -> None:
    clock = ControllableClock(EPOCH - timedelta(days=1))
    engine = Engine(
        f"sqlite:///{path}",
        clock=clock,
        history_level="full",
        history_mode="async",
        sqlite_synchronous="OFF",
    )
    try:
        engine.deploy({"invoice.bpmn": _invoice("Invoice receipt")}, name=marker(instances, seed))
        engine.deploy({"review.bpmn": REVIEW}, name="review")
        engine.deploy({"shipment.bpmn": SHIPMENT}, name="shipment")
        _Builder(engine, clock, instances, seed).run(progress)
        progress.note("list-pages database: waiting for asynchronous history")
        engine.flush_history()
    finally:
        engine.close()


def ensure_cached(cache_dir: Path, instances: int, seed: int, progress: Progress) -> Path:
    """The cached SQLite database for N instances, built first when the cache lacks it."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"{cache_key(instances, seed)}.db"
    if path.exists():
        return path
    partial = cache_dir / f"{path.stem}.partial.db"
    for stale in cache_dir.glob(f"{partial.name}*"):
        stale.unlink()
    progress.note(f"building {path} (once; cached afterwards)")
    started = time.perf_counter()
    _build(partial, instances, seed, progress)
    with closing(sqlite3.connect(partial)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
    partial.replace(path)
    progress.note(f"built in {time.perf_counter() - started:,.0f} s")
    return path


# -- the database under test ----------------------------------------------------------------------


def _held_marker(db: sa.Engine) -> str | None:
    """The benchmark marker the database holds, "" when it holds other data, None when empty."""
    inspector = sa.inspect(db)
    names = {n.upper() for n in inspector.get_table_names()}
    if "EVENT_LOG" not in names:
        return None
    with db.connect() as conn:
        if conn.execute(sa.select(log_tables.event_log.c.first_position).limit(1)).first() is None:
            return None
        d = ACT_RE_DEPLOYMENT
        found = conn.execute(
            sa.select(d.c.NAME_).where(d.c.NAME_.like(f"{MARKER} %")).limit(1)
        ).scalar()
    return found or ""


def _copy_rows(source: Path, target: sa.Engine, progress: Progress) -> None:
    """Every row of the cached SQLite file into the (migrated, empty) server database."""
    tables = [*log_tables.metadata.sorted_tables, *act_metadata.sorted_tables]
    src = sa.create_engine(f"sqlite:///{source}")
    try:
        with src.connect() as read, target.begin() as write:
            for table in tables:
                write.execute(sa.delete(table))  # the rows migrations seed (the log head)
                rows = read.execute(sa.select(table)).mappings()
                copied = 0
                while batch := [dict(r) for r in rows.fetchmany(COPY_BATCH)]:
                    write.execute(sa.insert(table), batch)
                    copied += len(batch)
                progress.note(f"copied {copied:,} rows of {table.name}")
    finally:
        src.dispose()
    with target.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        if target.dialect.name == "postgresql":
            conn.exec_driver_sql("VACUUM ANALYZE")
        else:
            for table in tables:
                conn.exec_driver_sql(f"ANALYZE TABLE {table.name}")


def prepare(url: str, cache_dir: Path, instances: int, seed: int, progress: Progress) -> None:
    """Make the database at `url` hold the benchmark's data for N instances."""
    wanted = marker(instances, seed)
    db = sa.create_engine(url)
    try:
        held = _held_marker(db)
        if held == wanted:
            return
        if held is not None:
            what = f"the benchmark's data of another run ({held!r})" if held else "other data"
            raise BenchError(
                f"{_redacted(url)} holds {what}; give an empty database or one this benchmark "
                f"filled for --instances {instances} --seed {seed}"
            )
        cached = ensure_cached(cache_dir, instances, seed, progress)
        if db.dialect.name == "sqlite":
            database = db.url.database
            if not database or database == ":memory:":
                raise BenchError("--db: an SQLite database must be a file")
            db.dispose()
            target = Path(database)
            for suffix in ("-wal", "-shm", "-journal"):  # of an empty database
                target.with_name(target.name + suffix).unlink(missing_ok=True)
            shutil.copyfile(cached, target)
            return
        progress.note(f"copying {cached.name} into {_redacted(url)}")
        revision = _revision_of(cached)
        with db.connect() as conn:
            current = migrations.current_revision(conn)
        if current not in (None, revision):
            raise BenchError(
                f"{_redacted(url)} is empty but at schema revision {current}, the cached rows "
                f"at {revision}: give a database no flowledger has opened yet"
            )
        # The rows go in at the revision that wrote them; opening the engine migrates them.
        migrations.upgrade(db, revision)
        _copy_rows(cached, db, progress)
    finally:
        db.dispose()


def _revision_of(path: Path) -> str:
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    return str(row[0])


# -- what is timed --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sample:
    """Ids the filtered pages ask for, read from the database."""

    running_instance: str  # an invoice instance waiting in its user task
    finished_instance: str
    running_business_key: str
    finished_business_key: str


@dataclass(frozen=True)
class Page:
    """One request: `label` says what a client asks; `deep` also times `firstResult=5000`."""

    label: str
    method: str
    path: str
    params: Mapping[str, str] = field(default_factory=dict)
    body: Mapping[str, Any] | None = None
    deep: bool = False

    @property
    def is_count(self) -> bool:
        return self.path.endswith("/count")


DEEP_FIRST = 5000
PAGE_SIZE = 50


def _desc(by: str) -> dict[str, str]:
    return {"sortBy": by, "sortOrder": "desc"}


def _sorting(by: str, order: str = "desc") -> list[dict[str, str]]:
    return [{"sortBy": by, "sortOrder": order}]


def pages(s: Sample) -> list[Page]:
    """Every list a Camunda client pages through, in the sort orders Cockpit and Tasklist use,
    with the counts they ask for beside them."""
    running, finished = s.running_instance, s.finished_instance
    return [
        # runtime process instances (Cockpit's definition view: by definition, by id)
        Page("all", "GET", "/process-instance", deep=True),
        Page(
            "by definition key",
            "GET",
            "/process-instance",
            {"processDefinitionKey": "invoice"},
            deep=True,
        ),
        Page(
            "by business key", "GET", "/process-instance", {"businessKey": s.running_business_key}
        ),
        Page("all", "GET", "/process-instance/count"),
        Page(
            "by definition key",
            "POST",
            "/process-instance",
            body={"processDefinitionKey": "invoice", "sorting": _sorting("instanceId", "asc")},
            deep=True,
        ),
        Page(
            "by definition key",
            "POST",
            "/process-instance/count",
            body={"processDefinitionKey": "invoice"},
        ),
        Page("of an instance", "GET", "/execution", {"processInstanceId": running}),
        # tasks (Tasklist: newest first; its filters are assignee and candidate groups)
        Page("all, created desc", "GET", "/task", _desc("created"), deep=True),
        Page(
            "candidateGroup, created desc",
            "GET",
            "/task",
            {"candidateGroup": "accounting", **_desc("created")},
            deep=True,
        ),
        Page(
            "assignee, created desc",
            "GET",
            "/task",
            {"assignee": "demo", **_desc("created")},
            deep=True,
        ),
        Page(
            "candidateGroups, created desc",
            "POST",
            "/task",
            body={"candidateGroups": ["accounting", "sales"], "sorting": _sorting("created")},
            deep=True,
        ),
        Page(
            "assignee, created desc",
            "POST",
            "/task",
            body={"assignee": "demo", "sorting": _sorting("created")},
            deep=True,
        ),
        Page("of an instance", "GET", "/task", {"processInstanceId": running}),
        Page(
            "candidateGroup of an instance",
            "GET",
            "/task",
            {"processInstanceId": running, "candidateGroup": "accounting"},
        ),
        Page("all", "GET", "/task/count"),
        Page("candidateGroup", "GET", "/task/count", {"candidateGroup": "accounting"}),
        Page(
            "candidateGroups",
            "POST",
            "/task/count",
            body={"candidateGroups": ["accounting", "sales"]},
        ),
        Page("assignee", "GET", "/task/count", {"assignee": "demo"}),
        # historic process instances (Cockpit's history: newest first)
        Page(
            "all, startTime desc", "GET", "/history/process-instance", _desc("startTime"), deep=True
        ),
        Page(
            "finished, startTime desc",
            "GET",
            "/history/process-instance",
            {"finished": "true", **_desc("startTime")},
            deep=True,
        ),
        Page(
            "unfinished, startTime desc",
            "GET",
            "/history/process-instance",
            {"unfinished": "true", **_desc("startTime")},
            deep=True,
        ),
        Page(
            "finished, endTime desc",
            "GET",
            "/history/process-instance",
            {"finished": "true", **_desc("endTime")},
            deep=True,
        ),
        Page(
            "definition key, startTime desc",
            "GET",
            "/history/process-instance",
            {"processDefinitionKey": "invoice", **_desc("startTime")},
            deep=True,
        ),
        Page(
            "by business key",
            "GET",
            "/history/process-instance",
            {"processInstanceBusinessKey": s.finished_business_key},
        ),
        # A selective filter beside one an index is led by: the planner must pick the first.
        Page(
            "definition key and business key",
            "GET",
            "/history/process-instance",
            {
                "processDefinitionKey": "invoice",
                "processInstanceBusinessKey": s.finished_business_key,
            },
        ),
        Page(
            "unfinished, by business key",
            "GET",
            "/history/process-instance",
            {"unfinished": "true", "processInstanceBusinessKey": s.running_business_key},
        ),
        Page(
            "finished, startTime desc",
            "POST",
            "/history/process-instance",
            body={"finished": True, "sorting": _sorting("startTime")},
            deep=True,
        ),
        Page("all", "GET", "/history/process-instance/count"),
        Page("finished", "GET", "/history/process-instance/count", {"finished": "true"}),
        Page("unfinished", "POST", "/history/process-instance/count", body={"unfinished": True}),
        # historic activity instances
        Page(
            "all, startTime desc",
            "GET",
            "/history/activity-instance",
            _desc("startTime"),
            deep=True,
        ),
        Page(
            "finished, endTime desc",
            "GET",
            "/history/activity-instance",
            {"finished": "true", **_desc("endTime")},
            deep=True,
        ),
        Page(
            "of an instance, startTime asc",
            "GET",
            "/history/activity-instance",
            {"processInstanceId": finished, "sortBy": "startTime", "sortOrder": "asc"},
        ),
        Page(
            "of an instance",
            "POST",
            "/history/activity-instance",
            body={"processInstanceId": finished, "sorting": _sorting("occurrence", "asc")},
        ),
        Page("all", "GET", "/history/activity-instance/count"),
        # historic task instances
        Page("all, startTime desc", "GET", "/history/task", _desc("startTime"), deep=True),
        Page(
            "finished, endTime desc",
            "GET",
            "/history/task",
            {"finished": "true", **_desc("endTime")},
            deep=True,
        ),
        Page("of an instance", "GET", "/history/task", {"processInstanceId": finished}),
        Page(
            "unfinished, startTime desc",
            "POST",
            "/history/task",
            body={"unfinished": True, "sorting": _sorting("startTime")},
            deep=True,
        ),
        Page("all", "GET", "/history/task/count"),
        # historic variables and details
        Page("all", "GET", "/history/variable-instance", deep=True),
        Page(
            "by name", "GET", "/history/variable-instance", {"variableName": "customer"}, deep=True
        ),
        Page(
            "of an instance", "GET", "/history/variable-instance", {"processInstanceId": finished}
        ),
        Page(
            "of instances",
            "POST",
            "/history/variable-instance",
            body={"processInstanceIdIn": [finished, running]},
        ),
        Page("all", "GET", "/history/variable-instance/count"),
        Page("all", "GET", "/history/detail", deep=True),
        Page("of an instance", "GET", "/history/detail", {"processInstanceId": finished}),
        Page("all", "GET", "/history/detail/count"),
        # external tasks
        Page("all", "GET", "/external-task", deep=True),
        Page("by topic", "GET", "/external-task", {"topicName": "archive"}, deep=True),
        Page(
            "by topic, createTime asc",
            "POST",
            "/external-task",
            body={"topicName": "shipping", "sorting": _sorting("createTime", "asc")},
            deep=True,
        ),
        Page("all", "GET", "/external-task/count"),
        # repository
        Page(
            "latest, by name",
            "GET",
            "/process-definition",
            {"latestVersion": "true", "sortBy": "name", "sortOrder": "asc"},
        ),
        Page("all", "GET", "/process-definition/count"),
        Page("deploymentTime desc", "GET", "/deployment", _desc("deploymentTime")),
        Page("all", "GET", "/deployment/count"),
        # runtime variables
        Page("all", "GET", "/variable-instance", deep=True),
        Page("by name", "GET", "/variable-instance", {"variableName": "customer"}, deep=True),
        Page("of an instance", "GET", "/variable-instance", {"processInstanceIdIn": running}),
        Page("of instances", "POST", "/variable-instance", body={"processInstanceIdIn": [running]}),
        Page("all", "GET", "/variable-instance/count"),
    ]


def sample(conn: Connection) -> Sample:
    t, p = ACT_RU_TASK, ACT_HI_PROCINST
    waiting = conn.execute(
        sa.select(t.c.PROC_INST_ID_).where(t.c.TASK_DEF_KEY_ == "approve").order_by(t.c.ID_)
    ).scalar()
    if waiting is None:
        raise BenchError("the database holds no invoice waiting for approval: rebuild it")
    ended = conn.execute(
        sa.select(p.c.PROC_INST_ID_, p.c.BUSINESS_KEY_)
        .where(p.c.END_TIME_.is_not(None), p.c.PROC_DEF_KEY_ == "invoice")
        .order_by(p.c.ID_)
        .limit(1)
    ).one()
    running_key = conn.execute(
        sa.select(p.c.BUSINESS_KEY_).where(p.c.PROC_INST_ID_ == waiting)
    ).scalar_one()
    return Sample(waiting, ended[0], running_key, ended[1])


# -- timing ---------------------------------------------------------------------------------------


@dataclass
class Statement:
    sql: str
    parameters: Any
    seconds: float


class StatementLog:
    """The statements run through SQLAlchemy while recording. The engine's prepared lookups
    (`eventlog.fastsql`) bypass it: the time a task list spends checking each task's instance
    for its form key shows in the request's time only."""

    def __init__(self, db: sa.Engine) -> None:
        self.recording = False
        self.statements: list[Statement] = []
        self._started: dict[int, float] = {}
        sa.event.listen(db, "before_cursor_execute", self._before)
        sa.event.listen(db, "after_cursor_execute", self._after)

    def _before(
        self, conn: Any, cursor: Any, sql: str, params: Any, context: Any, many: bool
    ) -> None:
        self._started[id(cursor)] = time.perf_counter()

    def _after(
        self, conn: Any, cursor: Any, sql: str, params: Any, context: Any, many: bool
    ) -> None:
        began = self._started.pop(id(cursor), None)
        if self.recording and began is not None:
            self.statements.append(Statement(sql, params, time.perf_counter() - began))

    @contextmanager
    def record(self) -> Iterator[list[Statement]]:
        self.statements = []
        self.recording = True
        try:
            yield self.statements
        finally:
            self.recording = False


@dataclass
class Timing:
    endpoint: str  # "GET /task"
    label: str
    first: int | None  # firstResult; None for a count
    rows: int
    median_ms: float
    p95_ms: float
    first_call_ms: float  # the first request (the engine's caches cold for these rows)
    db_ms: float  # median time in the driver's execute calls (SQLite: up to the first row)
    statements: int
    plan: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        page = "count" if self.first is None else f"first={self.first}"
        return f"{self.endpoint} {self.label} [{page}]"


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _request(client: Any, page: Page, first: int | None) -> Any:
    params = dict(page.params)
    if first is not None:
        params.update(firstResult=str(first), maxResults=str(PAGE_SIZE))
    response = client.request(
        page.method, f"/engine-rest{page.path}", params=params, json=page.body
    )
    if response.status_code != 200:
        raise BenchError(
            f"{page.method} {page.path} {params}: {response.status_code} {response.text[:300]}"
        )
    return response.json()


def time_page(
    client: Any, log: StatementLog, page: Page, first: int | None, repeat: int
) -> tuple[Timing, list[Statement]]:
    began = time.perf_counter()
    body = _request(client, page, first)
    first_call = time.perf_counter() - began
    seconds: list[float] = []
    db: list[float] = []
    # Slow pages get fewer repetitions: the median of a few 100 ms requests is clear enough.
    runs = repeat if first_call < 0.2 else max(3, repeat // 4)
    statements: list[Statement] = []
    for _ in range(runs):
        with log.record() as recorded:
            began = time.perf_counter()
            body = _request(client, page, first)
            seconds.append(time.perf_counter() - began)
        statements = recorded
        db.append(sum(s.seconds for s in statements))
    rows = int(body["count"]) if page.is_count else len(body)
    timing = Timing(
        endpoint=f"{page.method} {page.path}",
        label=page.label,
        first=first,
        rows=rows,
        median_ms=statistics.median(seconds) * 1000,
        p95_ms=_percentile(seconds, 0.95) * 1000,
        first_call_ms=first_call * 1000,
        db_ms=statistics.median(db) * 1000,
        statements=len(statements),
    )
    return timing, statements


def explain(conn: Connection, statement: Statement) -> list[str]:
    """The plan of a recorded statement with its recorded parameters."""
    dialect = conn.dialect.name
    if dialect == "sqlite":
        rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement.sql}", statement.parameters)
        depth: dict[int, int] = {}
        lines = []
        for node, parent, _unused, detail in rows:
            depth[node] = depth.get(parent, -1) + 1
            lines.append(f"{'  ' * depth[node]}{detail}")
        return lines
    prefix = "EXPLAIN (ANALYZE, BUFFERS) " if dialect == "postgresql" else "ANALYZE "
    result = conn.exec_driver_sql(prefix + statement.sql, statement.parameters)
    if dialect == "postgresql":
        return [str(r[0]) for r in result]
    names = list(result.keys())
    return [
        " ".join(f"{n}={v}" for n, v in zip(names, r, strict=True) if v is not None) for r in result
    ]


def run(
    url: str, repeat: int, explain_over_ms: float, only: str | None, progress: Progress
) -> list[Timing]:
    from litestar.testing import TestClient

    from flowledger.rest import create_app

    timings: list[Timing] = []
    engine = Engine(url, history_level="full")
    try:
        with engine.reading() as conn:
            found = sample(conn)
            db = conn.engine
        log = StatementLog(db)
        chosen = [p for p in pages(found) if only is None or only in f"{p.method} {p.path}"]
        progress.total = sum(1 if p.is_count or not p.deep else 2 for p in chosen)
        # The app `flowledger serve` serves (access log included); the client takes any ASGI app.
        app: Any = create_app(engine)
        with TestClient(app=app, raise_server_exceptions=True) as client:
            for page in chosen:
                firsts: list[int | None] = (
                    [None] if page.is_count else [0, DEEP_FIRST] if page.deep else [0]
                )
                for first in firsts:
                    progress.phase(f"{page.method} {page.path} {page.label} first={first}")
                    timing, statements = time_page(client, log, page, first, repeat)
                    if timing.median_ms > explain_over_ms and statements:
                        slowest = max(statements, key=lambda s: s.seconds)
                        with engine.reading() as conn:
                            timing.plan = explain(conn, slowest)
                    timings.append(timing)
                    progress.tick()
    finally:
        engine.close()
    return timings


# -- the report -----------------------------------------------------------------------------------


def report(
    timings: Sequence[Timing], target_ms: float, before: Mapping[str, Mapping[str, Any]] | None
) -> str:
    lines = []
    head = "| endpoint | query | page | rows | median ms | p95 ms | first call ms | db ms | stmts |"
    rule = "|---|---|---|---:|---:|---:|---:|---:|---:|"
    if before is not None:
        head += " before median ms |"
        rule += "---:|"
    lines += [head, rule]
    for t in timings:
        page = "count" if t.first is None else f"{t.first}+{PAGE_SIZE}"
        mark = " **" if t.median_ms > target_ms else ""
        row = (
            f"| {t.endpoint} | {t.label} | {page} | {t.rows:,} | {t.median_ms:.1f}{mark} | "
            f"{t.p95_ms:.1f} | {t.first_call_ms:.1f} | {t.db_ms:.1f} | {t.statements} |"
        )
        if before is not None:
            old = before.get(t.key)
            row += f" {old['median_ms']:.1f} |" if old else " - |"
        lines.append(row)
    slow = [t for t in timings if t.median_ms > target_ms]
    lines.append("")
    lines.append(
        f"{len(timings) - len(slow)} of {len(timings)} requests under {target_ms:g} ms (median)"
        + ("" if not slow else "; over it (marked **):")
    )
    for t in slow:
        lines.append(f"  {t.key}: {t.median_ms:.1f} ms")
    for t in timings:
        if t.plan:
            lines.append("")
            lines.append(f"plan of the slowest statement of {t.key} ({t.median_ms:.1f} ms):")
            lines.extend(f"    {line}" for line in t.plan)
    return "\n".join(lines)


def _redacted(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m flowledger.tools.bench.list_pages",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--db",
        help="SQLAlchemy URL of the database to fill (or reuse) and "
        "time (default: a working copy of the cached SQLite file)",
    )
    parser.add_argument("--instances", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=20, help="timed requests per page")
    parser.add_argument("--target-ms", type=float, default=10.0)
    parser.add_argument(
        "--explain-over-ms",
        type=float,
        default=None,
        help="print plans of pages slower than this (default: the target)",
    )
    parser.add_argument("--only", help="time only endpoints whose 'METHOD /path' contains this")
    parser.add_argument("--cache-dir", type=Path, default=Path(".bench-cache"))
    parser.add_argument("--json", type=Path, help="write the timings to this file")
    parser.add_argument(
        "--compare",
        type=Path,
        help="a --json file of an earlier run: its medians in a column beside these",
    )
    args = parser.parse_args(argv)
    if args.instances < 1000:
        parser.error("--instances: at least 1000")
    progress = Progress(1)
    try:
        url = args.db
        if url is None:
            cached = ensure_cached(args.cache_dir, args.instances, args.seed, progress)
            copy = args.cache_dir / f"{cached.stem}.run.db"
            shutil.copyfile(cached, copy)
            url = f"sqlite:///{copy}"
        else:
            prepare(url, args.cache_dir, args.instances, args.seed, progress)
        before = None
        if args.compare is not None:
            before = {t["key"]: t for t in json.loads(args.compare.read_text())["timings"]}
        explain_over = args.target_ms if args.explain_over_ms is None else args.explain_over_ms
        timings = run(url, args.repeat, explain_over, args.only, progress)
    except BenchError as exc:
        print(f"list_pages: {exc}", file=sys.stderr)
        return 1
    progress.finish()
    print(
        f"# list pages: {_redacted(url)}, {args.instances:,} instances, "
        f"maxResults={PAGE_SIZE}, {args.repeat} requests each\n"
    )
    print(report(timings, args.target_ms, before))
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "db": _redacted(url),
                    "instances": args.instances,
                    "timings": [{**asdict(t), "key": t.key} for t in timings],
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
