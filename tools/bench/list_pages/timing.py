"""Measuring the list pages: each request through the served app, its statements and plans.

Reads only: the app runs in-process (Litestar's test client, the HTTP stack without a socket)
on an engine opened over the prepared database.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from flowledger.engine import Engine
from flowledger.tools.progress import Progress

from ..errors import BenchError
from .cockpit_pages import cockpit_pages, cockpit_sample, notes, rows
from .pages import DEEP_FIRST, PAGE_SIZE, Page, pages, sample


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
    view: str | None = None  # the cockpit page that sends it; None: a list page
    shape: str | None = None
    served: bool = True  # False: the server has no such route (yet)

    @property
    def key(self) -> str:
        if self.view is not None:
            return f"cockpit {self.view}: {self.endpoint} {self.label}"
        page = "count" if self.first is None else f"first={self.first}"
        return f"{self.endpoint} {self.label} [{page}]"


class NotServed(Exception):
    """The router found no handler: the endpoint is not (yet) part of the server."""


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _not_routed(response: Any) -> bool:
    """The router's own 404 (no handler ran), not a handler's for an unknown id."""
    if response.status_code != 404:
        return False
    try:
        return bool(response.json().get("message") == "Not Found")
    except ValueError:
        return False


def _request(client: Any, page: Page, first: int | None) -> Any:
    params = dict(page.params)
    if first is not None:
        params.update(firstResult=str(first), maxResults=str(PAGE_SIZE))
    response = client.request(
        page.method, f"{page.prefix}{page.path}", params=params, json=page.body
    )
    if _not_routed(response):
        raise NotServed(f"{page.method} {page.prefix}{page.path}")
    if response.status_code != 200:
        raise BenchError(
            f"{page.method} {page.path} {params}: {response.status_code} {response.text[:300]}"
        )
    return response.json()


def time_page(
    client: Any, log: StatementLog, page: Page, first: int | None, repeat: int
) -> tuple[Timing, list[Statement]]:
    endpoint = f"{page.method} {page.shown or page.path}"
    began = time.perf_counter()
    try:
        body = _request(client, page, first)
    except NotServed:
        missing = Timing(endpoint, page.label, first, 0, 0.0, 0.0, 0.0, 0.0, 0)
        missing.view, missing.shape, missing.served = page.view, page.shape, False
        return missing, []
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
    timing = Timing(
        endpoint=endpoint,
        label=page.label,
        first=first,
        rows=rows(body),
        median_ms=statistics.median(seconds) * 1000,
        p95_ms=_percentile(seconds, 0.95) * 1000,
        first_call_ms=first_call * 1000,
        db_ms=statistics.median(db) * 1000,
        statements=len(statements),
        view=page.view,
        shape=page.shape,
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


GROUPS = ("list", "cockpit")


def run(
    url: str,
    repeat: int,
    explain_over_ms: float,
    only: str | None,
    progress: Progress,
    groups: Collection[str] = GROUPS,
) -> tuple[list[Timing], list[str]]:
    """Every chosen page timed; with the cockpit's, what its ids stand for (`notes`)."""
    from litestar.testing import TestClient

    from flowledger.rest import create_app

    timings: list[Timing] = []
    said: list[str] = []
    engine = Engine(url, history_level="full")
    try:
        with engine.reading() as conn:
            found = sample(conn)
            db = conn.engine
            cockpit = cockpit_sample(conn, found, engine) if "cockpit" in groups else None
        log = StatementLog(db)
        declared = pages(found) if "list" in groups else []
        if cockpit is not None:
            declared += cockpit_pages(cockpit)
            said = notes(cockpit)
        chosen = [p for p in declared if only is None or only in f"{p.method} {p.shown or p.path}"]
        progress.total = sum(1 if p.is_count or not p.deep else 2 for p in chosen)
        # The app `flowledger serve` serves (access log included); the client takes any ASGI app.
        app: Any = create_app(engine)
        with TestClient(app=app, raise_server_exceptions=True) as client:
            for page in chosen:
                firsts: list[int | None] = (
                    [None]
                    if page.is_count or page.view is not None
                    else [0, DEEP_FIRST]
                    if page.deep
                    else [0]
                )
                for first in firsts:
                    progress.phase(
                        f"{page.method} {page.shown or page.path} {page.label} first={first}"
                    )
                    timing, statements = time_page(client, log, page, first, repeat)
                    if timing.median_ms > explain_over_ms and statements:
                        slowest = max(statements, key=lambda s: s.seconds)
                        with engine.reading() as conn:
                            timing.plan = explain(conn, slowest)
                    timings.append(timing)
                    progress.tick()
    finally:
        engine.close()
    return timings, said
