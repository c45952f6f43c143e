"""How throughput scales with engine processes on one database: N processes (each with T threads)
run a workload's instances in a loop through the public `Engine` API for a fixed time.

Each process count runs on a fresh schema (PostgreSQL), database (MariaDB/MySQL) or file (SQLite)
that is dropped afterwards; reports instances/s, the ratio to one process, and per-instance
latency percentiles. `python -m flowledger.tools.bench.processes --help` lists the options.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.queues import Queue
from pathlib import Path
from typing import Any

import msgspec
import sqlalchemy as sa

from flowledger import Engine

from .errors import BenchError
from .flowledger_runner import count_delegate, deploy, drive
from .model_generator import DELEGATE_NAME
from .workloads import Workload, workload

DEFAULT_DB = "postgresql+psycopg://127.0.0.1:5432/test"
START_MARGIN_S = 3.0  # time the processes get to open their engines before the clock starts
MAX_ERRORS_SHOWN = 5


@dataclass
class ProcessResult:
    """What one process measured inside the common window."""

    instances: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    cpu_s: float = 0.0
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RunResult:
    processes: int
    threads: int
    seconds: float
    instances: int
    p50_ms: float
    p99_ms: float
    cpu_s: float
    lock_waiters: float | None  # mean transactions of the run waiting for a lock (not SQLite)
    errors: list[str]
    # Seconds the follower (deferred rows, asynchronous history) needed after the window to
    # write what the window committed: counted in `per_second`, as the single-process
    # benchmark counts its drain. None when nothing follows the log.
    catch_up_s: float | None = None

    @property
    def per_second(self) -> float:
        return self.instances / (self.seconds + (self.catch_up_s or 0.0))


# -- fresh database state -----------------------------------------------------------------


@contextmanager
def scratch_database(url: str) -> Iterator[str]:
    """A URL to an empty database next to `url`, dropped when done. On PostgreSQL its
    connections carry the scratch schema's name as their application name."""
    if url.startswith("sqlite"):
        with tempfile.TemporaryDirectory(prefix="flowledger-bench-") as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.db'}"
        return
    name = f"flbench_{uuid.uuid4().hex[:12]}"
    base = sa.make_url(url)
    postgres = base.get_backend_name() == "postgresql"
    admin = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            if postgres:
                conn.execute(sa.text(f"CREATE SCHEMA {name}"))
            else:
                conn.execute(
                    sa.text(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
                )
    except sa.exc.SQLAlchemyError as exc:
        admin.dispose()
        raise BenchError(f"cannot create a scratch database at {url}: {exc}") from None
    scratch = (
        base.update_query_dict({"options": f"-csearch_path={name}", "application_name": name})
        if postgres
        else base.set(database=name)
    )
    try:
        yield scratch.render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            drop = "DROP SCHEMA {} CASCADE" if postgres else "DROP DATABASE {}"
            conn.execute(sa.text(drop.format(name)))
        admin.dispose()


# -- one process --------------------------------------------------------------------------


def _loop(
    engine: Engine,
    work: Workload,
    start_at: float,
    stop_at: float,
    first: int,
    result: ProcessResult,
    guard: threading.Lock,
) -> None:
    i = first
    while True:
        began = time.time()
        if began >= stop_at:
            return
        try:
            drive(engine, work, 1, first=i)
        except Exception as exc:  # counted and shown: a command that fails is a finding
            with guard:
                result.errors.append(f"{type(exc).__name__}: {exc}")
            continue
        finally:
            i += 1
        ended = time.time()
        if began >= start_at and ended <= stop_at:
            with guard:
                result.instances += 1
                result.latencies_ms.append((ended - began) * 1000)


def _cpu_in_window(start_at: float, stop_at: float, result: ProcessResult) -> None:
    """The process's CPU seconds between `start_at` and `stop_at` (warm-up not counted)."""
    time.sleep(max(start_at - time.time(), 0))
    began = time.process_time()
    time.sleep(max(stop_at - time.time(), 0))
    result.cpu_s = time.process_time() - began


def run_process(
    url: str,
    workload_name: str,
    threads: int,
    start_at: float,
    stop_at: float,
    seed: int,
    options: dict[str, Any],
    out: Queue[bytes],
) -> None:
    """One engine process: `threads` threads run instances from before `start_at` (warm-up,
    not counted) until `stop_at`; what it measured goes to `out` as JSON."""
    result = ProcessResult()
    try:
        work = workload(workload_name)
        engine = Engine(url, **options)
        engine.register_delegate(DELEGATE_NAME, count_delegate)
        try:
            clock = threading.Thread(target=_cpu_in_window, args=(start_at, stop_at, result))
            clock.start()
            guard = threading.Lock()
            runners = [
                threading.Thread(
                    target=_loop,
                    args=(engine, work, start_at, stop_at, seed + t * 1_000_000, result, guard),
                )
                for t in range(threads)
            ]
            for runner in runners:
                runner.start()
            for runner in runners:
                runner.join()
            clock.join()
        finally:
            engine.close()
    except Exception as exc:
        result.errors.append(f"process failed: {type(exc).__name__}: {exc}")
    out.put(msgspec.json.encode(result))


# -- one process count --------------------------------------------------------------------


def _lock_waits_query(scratch: str) -> tuple[str, str, float] | None:
    """(query, scratch name, seconds between samples) counting the run's lock waits."""
    url = sa.make_url(scratch)
    if url.get_backend_name() == "postgresql":
        name = url.query["application_name"]
        query = (
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE application_name = :name AND wait_event_type = 'Lock'"
        )
        return query, str(name), 0.01
    if url.get_backend_name() in ("mysql", "mariadb"):
        query = (
            "SELECT count(*) FROM information_schema.INNODB_TRX t "
            "JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id "
            "WHERE p.DB = :name AND t.trx_state = 'LOCK WAIT'"
        )
        # InnoDB refreshes INNODB_TRX only when it was not read for 0.1 s.
        return query, str(url.database), 0.15
    return None


def sample_lock_waits(scratch: str, start_at: float, stop_at: float, out: list[float]) -> None:
    """Append to `out` the mean number of the run's transactions that waited for a lock (the
    log head's or a row's), sampled between `start_at` and `stop_at`."""
    found = _lock_waits_query(scratch)
    if found is None:
        return
    query, name, every = found
    admin = sa.make_url(scratch)
    if admin.get_backend_name() == "postgresql":
        admin = admin.update_query_dict({"application_name": "flowledger-bench-sampler"})
    db = sa.create_engine(admin)
    samples = []
    try:
        time.sleep(max(start_at - time.time(), 0))
        with db.connect() as conn:
            while time.time() < stop_at:
                samples.append(int(conn.execute(sa.text(query), {"name": name}).scalar_one()))
                conn.rollback()
                time.sleep(every)
    finally:
        db.dispose()
    if samples:
        out.append(statistics.fmean(samples))


def time_catch_up(scratch: str, stop_at: float, out: list[float]) -> None:
    """Append to `out` the seconds after `stop_at` until the follower's checkpoint (deferred
    rows or asynchronous history) reached the log head as it stood at `stop_at`; nothing when no
    follower's checkpoint exists."""
    db = sa.create_engine(scratch)
    position = sa.text(
        "SELECT min(position) FROM projection_checkpoint WHERE name IN ('deferred', 'history')"
    )
    try:
        time.sleep(max(stop_at - time.time(), 0))
        with db.connect() as conn:
            head = conn.execute(sa.text("SELECT last_position FROM log_head")).scalar()
            conn.rollback()
            while True:
                reached = conn.execute(position).scalar()
                conn.rollback()
                if reached is None or head is None:
                    return
                if reached >= head:
                    out.append(max(time.time() - stop_at, 0.0))
                    return
                if time.time() > stop_at + 170:
                    return
                time.sleep(0.005)
    finally:
        db.dispose()


def _percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=1000, method="inclusive")[round(fraction * 1000) - 1]


def check_database(url: str) -> list[str]:
    """Every instance ran to its end and the log is gapless: what a run must leave behind."""
    problems: list[str] = []
    db = sa.create_engine(url)
    try:
        with db.connect() as conn:
            for table in ("ACT_RU_TASK", "ACT_RU_EXECUTION"):
                left = conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
                if left:
                    problems.append(f"{left} rows left in {table}: some instance did not end")
            events, top, commits = conn.execute(
                sa.text(
                    "SELECT coalesce(sum(last_position - first_position + 1), 0), "
                    "coalesce(max(last_position), 0), count(*) FROM event_log"
                )
            ).one()
            head = conn.execute(sa.text("SELECT last_position FROM log_head")).scalar_one()
            if not (int(events) == int(top) == int(head)):
                problems.append(
                    f"log not gapless: {events} events in {commits} commits, highest position "
                    f"{top}, log head {head}"
                )
    finally:
        db.dispose()
    return problems


def run_count(
    url: str,
    work: Workload,
    processes: int,
    threads: int,
    seconds: float,
    warmup: float,
    options: dict[str, Any],
) -> RunResult:
    """`processes` processes for `seconds` on a fresh database."""
    context = multiprocessing.get_context("spawn")
    with scratch_database(url) as scratch:
        setup = Engine(scratch, **options)
        try:
            deploy(setup, work)
        finally:
            setup.close()
        out: Queue[bytes] = context.Queue()
        start_at = time.time() + START_MARGIN_S + warmup
        stop_at = start_at + seconds
        children = [
            context.Process(
                target=run_process,
                args=(
                    scratch,
                    work.name,
                    threads,
                    start_at,
                    stop_at,
                    p * 100_000_000,
                    options,
                    out,
                ),
                daemon=True,
            )
            for p in range(processes)
        ]
        for child in children:
            child.start()
        waits: list[float] = []
        sampler = threading.Thread(
            target=sample_lock_waits, args=(scratch, start_at, stop_at, waits), daemon=True
        )
        sampler.start()
        catch_ups: list[float] = []
        catcher = threading.Thread(
            target=time_catch_up, args=(scratch, stop_at, catch_ups), daemon=True
        )
        catcher.start()
        deadline = stop_at + 120
        results = []
        for _ in children:
            remaining = max(deadline - time.time(), 1)
            try:
                results.append(msgspec.json.decode(out.get(timeout=remaining), type=ProcessResult))
            except Exception:
                raise BenchError("a benchmark process neither reported nor ended in time") from None
        for child in children:
            child.join(timeout=30)
        sampler.join(timeout=30)
        catcher.join(timeout=180)
        problems = check_database(scratch)
    latencies = sorted(v for r in results for v in r.latencies_ms)
    errors = [e for r in results for e in r.errors] + problems
    return RunResult(
        processes=processes,
        threads=threads,
        seconds=seconds,
        instances=sum(r.instances for r in results),
        p50_ms=_percentile(latencies, 0.5),
        p99_ms=_percentile(latencies, 0.99),
        cpu_s=sum(r.cpu_s for r in results),
        lock_waiters=waits[0] if waits else None,
        errors=errors,
        catch_up_s=catch_ups[0] if catch_ups else None,
    )


def _header(url: str, work: Workload) -> list[str]:
    host = sa.make_url(url)
    return [
        f"{work.name} on {host.get_backend_name()} ({host.host or host.database}), "
        f"{os.cpu_count()} cores",
        f"{'processes':>9} {'threads':>7} {'inst/s':>8} {'x 1 proc':>8} {'p50 ms':>8} "
        f"{'p99 ms':>8} {'engine CPU %':>12} {'CPU ms/inst':>11} {'lock waits':>10} "
        f"{'catch-up s':>10} {'errors':>6}",
    ]


def _row(r: RunResult, base: RunResult | None) -> str:
    ratio = f"{r.per_second / base.per_second:.2f}" if base and base.per_second else "-"
    cpu = 100 * r.cpu_s / r.seconds
    cpu_per_instance = 1000 * r.cpu_s / r.instances if r.instances else float("nan")
    waits = "-" if r.lock_waiters is None else f"{r.lock_waiters:.2f}"
    catch_up = "-" if r.catch_up_s is None else f"{r.catch_up_s:.2f}"
    return (
        f"{r.processes:>9} {r.threads:>7} {r.per_second:>8.1f} {ratio:>8} {r.p50_ms:>8.2f} "
        f"{r.p99_ms:>8.2f} {cpu:>12.0f} {cpu_per_instance:>11.2f} {waits:>10} {catch_up:>10} "
        f"{len(r.errors):>6}"
    )


def table(results: Sequence[RunResult], url: str, work: Workload) -> str:
    """The results as a terminal table, the errors of each count below it."""
    base = next((r for r in results if r.processes == 1), None)
    lines = _header(url, work) + [_row(r, base) for r in results]
    for r in results:
        for error in r.errors[:MAX_ERRORS_SHOWN]:
            lines.append(f"  {r.processes} processes: {error}")
        if len(r.errors) > MAX_ERRORS_SHOWN:
            lines.append(f"  {r.processes} processes: … {len(r.errors) - MAX_ERRORS_SHOWN} more")
    return "\n".join(lines)


def _counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers like 1,2,4,8, got {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"expected numbers of at least 1, got {text!r}")
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m flowledger.tools.bench.processes",
        description="Throughput and latency of N engine processes on one database.",
    )
    parser.add_argument("--db", default=DEFAULT_DB, help=f"SQLAlchemy URL (default {DEFAULT_DB})")
    parser.add_argument(
        "--processes", type=_counts, default=[1, 2, 4, 8], help="counts to run (default 1,2,4,8)"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="threads per process, each its own loop (1)"
    )
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time per count")
    parser.add_argument(
        "--warmup", type=float, default=1.0, help="seconds run before measuring (1)"
    )
    parser.add_argument("--workload", default="usertask_gateway", help="(usertask_gateway)")
    parser.add_argument(
        "--history-level", help="Engine(history_level=...) (default: the engine's default)"
    )
    parser.add_argument(
        "--history-mode", help="Engine(history_mode=...) (default: the engine's default)"
    )
    parser.add_argument(
        "--projection", help="Engine(projection=...): inline or deferred (default: the engine's)"
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the results here")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    if args.history_level:
        options["history_level"] = args.history_level
    if args.history_mode:
        options["history_mode"] = args.history_mode
    if args.projection:
        options["projection"] = args.projection
    try:
        work = workload(args.workload)
        results: list[RunResult] = []
        print("\n".join(_header(args.db, work)), flush=True)
        for count in args.processes:
            result = run_count(
                args.db, work, count, args.threads, args.seconds, args.warmup, options
            )
            results.append(result)
            base = next((r for r in results if r.processes == 1), None)
            print(_row(result, base), flush=True)
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print()
    print(table(results, args.db, work))
    if args.json is not None:
        args.json.write_bytes(msgspec.json.encode(results))
        print(f"wrote {args.json}")
    raise SystemExit(1 if any(r.errors for r in results) else 0)


if __name__ == "__main__":
    main()
