"""Building the list-pages database: the scenario run through the engine on SQLite, cached.

The build runs once per scenario and engine version (`cache_key`); later runs copy the cached
file. It writes only under the cache directory.
"""

from __future__ import annotations

import hashlib
import heapq
import importlib.metadata
import random
import sqlite3
import time
from contextlib import closing
from datetime import datetime, timedelta
from pathlib import Path

from flowledger.core.clock import ControllableClock
from flowledger.core.state import STATE_SCHEMA
from flowledger.engine import Engine
from flowledger.tools.progress import Progress

from ..errors import BenchError
from .scenario import (
    BUILD_VERSION,
    EPOCH,
    LONG_BUSINESS_KEY,
    LONG_COMMANDS,
    LONG_VARIABLES,
    MARKER,
    REVIEW,
    SHIPMENT,
    SPAN,
    Fate,
    fate,
    invoice,
)

NOTE_EVERY = 5_000


def _engine_version() -> str:
    try:
        return importlib.metadata.version("flowledger")
    except importlib.metadata.PackageNotFoundError:
        return "dev"


def cache_key(instances: int, seed: int) -> str:
    """The cached database's name: what changes the rows the builder writes changes it (a new
    index does not: opening the engine migrates a copy of the cached file)."""
    models = hashlib.sha256((invoice("") + REVIEW + SHIPMENT).encode()).hexdigest()[:8]
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
                self.engine.deploy({"invoice.bpmn": invoice("Invoice receipt v2")}, name="invoice")

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
        elif f.external_after is not None and self.engine.external_task_service.external_tasks(
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
        (task,) = self.engine.external_task_service.external_tasks(process_instance_id=self.ids[i])
        locked = self.engine.external_task_service.fetch_and_lock(
            "bench-worker", {task.topic_name: 60_000}, 1, task_ids=[task.id]
        )
        if len(locked) != 1:
            raise BenchError(f"list-pages build: could not lock external task {task.id}")
        if self.fates[i].external_fails:
            self.engine.external_task_service.handle_failure(
                task.id, "bench-worker", f"{task.topic_name} service unreachable", retries=0
            )
            return
        self.engine.external_task_service.complete(task.id, "bench-worker", {"archived": True})
        self._waiting(i, moment)

    def long_instance(self) -> None:
        """An invoice waiting for approval whose variables were set 1,000 times: 10,000 events
        (the cockpit's slider over a long past), started and changed after every other one."""
        pi = self.engine.start_process_instance(
            "invoice",
            {"amount": 100, "customer": "customer-long", "group": "accounting"},
            business_key=LONG_BUSINESS_KEY,
        )
        for n in range(LONG_COMMANDS):
            self.clock.set(self.end + timedelta(seconds=n))
            self.engine.runtime_service.set_variables(
                pi.id, {f"v{j}": n for j in range(LONG_VARIABLES)}
            )


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
        engine.deploy({"invoice.bpmn": invoice("Invoice receipt")}, name=marker(instances, seed))
        engine.deploy({"review.bpmn": REVIEW}, name="review")
        engine.deploy({"shipment.bpmn": SHIPMENT}, name="shipment")
        builder = _Builder(engine, clock, instances, seed)
        builder.run(progress)
        builder.long_instance()
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
