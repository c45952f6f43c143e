"""Job executor figures: how many asynchronous continuations per second N executor processes run
on one database, and how late timers fire (due date to the commit that fired them).

Throughput: a loader starts `--jobs` instances of a model whose one step is `asyncBefore`, so each
leaves one due job; then N processes, each an `Engine(job_executor=True)`, run them until
ACT_RU_JOB is empty. Latency: instances wait in timer catch events due over a few seconds while
one executor runs; each firing's lateness is the time its JobExecuted commit was recorded minus
the job's due date. `python -m flowledger.tools.bench.jobs --help` lists the options.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import msgspec
import sqlalchemy as sa

from flowledger import Engine

from .errors import BenchError
from .processes import _counts, _percentile, scratch_database

DEFAULT_DB = "sqlite"
_HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n<definitions '
    'xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="bench">'
)
ASYNC_MODEL = (
    _HEADER + '<process id="asyncStep" isExecutable="true"><startEvent id="s"/>'
    '<scriptTask id="work" scriptFormat="juel" camunda:asyncBefore="true" '
    'camunda:resultVariable="done"><script>${true}</script></scriptTask><endEvent id="e"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="work"/>'
    '<sequenceFlow id="f2" sourceRef="work" targetRef="e"/></process></definitions>'
)
TIMER_MODEL = (
    _HEADER + '<process id="timed" isExecutable="true"><startEvent id="s"/>'
    '<intermediateCatchEvent id="wait"><timerEventDefinition><timeDuration>${delay}'
    '</timeDuration></timerEventDefinition></intermediateCatchEvent><endEvent id="e"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>'
    '<sequenceFlow id="f2" sourceRef="wait" targetRef="e"/></process></definitions>'
)
# An executor process: it opens its engine, says so, starts executing on "go", and stops when
# its stdin closes.
_EXECUTOR = """
import sys
from flowledger import Engine
from flowledger.engine.workers.job_executor import JobExecutorSettings
settings = JobExecutorSettings(threads=int(sys.argv[2]), wait=0.05, max_wait=0.5)
with Engine(sys.argv[1]) as engine:
    sys.stdout.write("ready\\n")
    sys.stdout.flush()
    sys.stdin.readline()
    engine.start_job_executor(settings)
    sys.stdin.readline()
"""


@dataclass(frozen=True)
class ThroughputResult:
    database: str
    processes: int
    threads: int
    jobs: int
    seconds: float
    jobs_per_second: float


@dataclass(frozen=True)
class LatencyResult:
    database: str
    timers: int
    p50_ms: float
    p99_ms: float
    max_ms: float


def _left(url: str) -> int:
    db = sa.create_engine(url)
    try:
        with db.connect() as conn:
            return int(conn.execute(sa.text("SELECT count(*) FROM ACT_RU_JOB")).scalar_one())
    finally:
        db.dispose()


def _executors(url: str, count: int, threads: int) -> list[subprocess.Popen[str]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _EXECUTOR, url, str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    for proc in procs:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise BenchError("an executor process did not start")
    return procs


def _go(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()


def _stop(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.close()
    for proc in procs:
        proc.wait(60)


def throughput(
    db: str, processes: int, threads: int, jobs: int, limit_s: float
) -> ThroughputResult:
    with scratch_database(db if not db.startswith("sqlite") else "sqlite") as url:
        with Engine(url) as loader:
            loader.deploy(ASYNC_MODEL)
            for _ in range(jobs):
                loader.start_process_instance("asyncStep")
        # The jobs are all due; the clock starts once every executor is up.
        procs = _executors(url, processes, threads)
        started = time.perf_counter()
        _go(procs)
        try:
            while _left(url):
                if time.perf_counter() - started > limit_s:
                    raise BenchError(f"{_left(url)} jobs left after {limit_s:.0f} s")
                time.sleep(0.02)
            seconds = time.perf_counter() - started
        finally:
            _stop(procs)
    return ThroughputResult(db.split(":")[0], processes, threads, jobs, seconds, jobs / seconds)


def latency(db: str, timers: int, spread_s: float) -> LatencyResult:
    with scratch_database(db if not db.startswith("sqlite") else "sqlite") as url:
        procs = _executors(url, 1, 2)
        _go(procs)
        try:
            with Engine(url) as loader:
                loader.deploy(TIMER_MODEL)
                ids = []
                for n in range(timers):
                    delay = 1.0 + spread_s * n / timers
                    ids.append(
                        loader.start_process_instance("timed", {"delay": f"PT{delay:.3f}S"}).id
                    )
                deadline = time.perf_counter() + spread_s + 60
                while _left(url):
                    if time.perf_counter() > deadline:
                        raise BenchError(f"{_left(url)} timers did not fire")
                    time.sleep(0.05)
                late_ms = []
                for instance_id in ids:
                    events = loader.events(instance_id)
                    due = next(e for e in events if e.type == "JobCreated").payload["due_date"]
                    fired = next(e for e in events if e.type == "JobExecuted").recorded_at
                    due_at = datetime.fromisoformat(due.replace("Z", "+00:00"))
                    late_ms.append((fired - due_at.astimezone(UTC)).total_seconds() * 1000)
        finally:
            _stop(procs)
    late_ms.sort()
    return LatencyResult(
        db.split(":")[0],
        timers,
        _percentile(late_ms, 0.5),
        _percentile(late_ms, 0.99),
        late_ms[-1],
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m flowledger.tools.bench.jobs",
        description="Job executor throughput (async continuations/s) and timer lateness.",
    )
    parser.add_argument(
        "--db", default=DEFAULT_DB, help="SQLAlchemy URL of the server to use, or sqlite"
    )
    parser.add_argument("--processes", type=_counts, default=[1, 2], help="(default 1,2)")
    parser.add_argument("--threads", type=int, default=3, help="worker threads per process (3)")
    parser.add_argument("--jobs", type=int, default=2000, help="async jobs per run (2000)")
    parser.add_argument("--timers", type=int, default=200, help="timers for the latency run")
    parser.add_argument("--spread", type=float, default=10.0, help="seconds the timers span")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    results: list[ThroughputResult | LatencyResult] = []
    try:
        for count in args.processes:
            result = throughput(args.db, count, args.threads, args.jobs, 600.0)
            results.append(result)
            print(
                f"{result.database}: {count} executor process(es) x {args.threads} threads: "
                f"{result.jobs} jobs in {result.seconds:.2f} s = "
                f"{result.jobs_per_second:.0f} jobs/s",
                flush=True,
            )
        lat = latency(args.db, args.timers, args.spread)
        results.append(lat)
        print(
            f"{lat.database}: {lat.timers} timers fired late by p50 {lat.p50_ms:.0f} ms, "
            f"p99 {lat.p99_ms:.0f} ms, max {lat.max_ms:.0f} ms",
            flush=True,
        )
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    if args.json:
        with open(args.json, "wb") as out:
            out.write(msgspec.json.encode(results))


if __name__ == "__main__":
    main()
