"""The REST workload of `flowledger bench`: the usertask_gateway model driven over HTTP.

`flowledger serve`'s app (rest.create_app over an Engine on a fresh SQLite file, WAL,
synchronous=NORMAL, history inline) runs on uvicorn in a process of its own, so the server does
not share the interpreter lock with the clients. In the benchmark process, N client threads (one
httpx keep-alive connection each) drive the instances: each one starts an instance with
`POST /process-definition/key/{key}/start`, lists its task with `GET /task?processInstanceId=`
and completes it with `POST /task/{id}/complete`. Timed: the client phase, from the first request
to the last answer. Measured: requests/s, instances/s, and the latency of each request type.

SpiffWorkflow has no REST API, so the peer takes no part in this workload.

`python -m tools.bench.rest_workload --serve DB` is the server process (it prints its port).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

from flowledger.tools.progress import Progress

from . import flowledger_runner as fl
from .errors import BenchError
from .results import RequestFigures, RestFigures, Spread
from .workloads import Workload, workload

WORKLOAD = "usertask_gateway"
START = "POST /process-definition/key/{key}/start"
TASKS = "GET /task?processInstanceId="
COMPLETE = "POST /task/{id}/complete"
REQUESTS = (START, TASKS, COMPLETE)
SERVER_START_TIMEOUT_S = 60.0
SERVER_STOP_TIMEOUT_S = 60.0
HTTP_TIMEOUT_S = 120.0


# -- the server process -----------------------------------------------------------------------


def serve(database: Path) -> None:
    """Serve the app over a fresh engine on `database` until SIGINT/SIGTERM; the port goes to
    stdout first. The workload's model is deployed before serving (setup, not measured)."""
    import uvicorn

    from flowledger.rest import create_app
    from flowledger.rest.server import http_protocol

    bench = workload(WORKLOAD)
    engine = fl.open_engine(database, fl.MODES[0])
    try:
        fl.deploy(engine, bench)
        # Bound here, handed to uvicorn: the parent learns a port nobody else can take meanwhile.
        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on such sockets, as on the ones
        # `flowledger serve` binds; without it every answer with a body waits ~40 ms (Nagle's
        # algorithm against the client's delayed ACK).
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        sock.listen(1024)
        print(sock.getsockname()[1], flush=True)
        config = uvicorn.Config(
            create_app(engine),
            log_config=None,
            access_log=False,  # the app's own access-log middleware still runs, as when served
            lifespan="on",
            timeout_graceful_shutdown=5,
            server_header=False,
            http=http_protocol(),  # as `flowledger serve` runs it
            loop="auto",
        )
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        engine.close()


@contextmanager
def running_server(database: Path) -> Iterator[str]:
    """The server process on `database`; yields its engine-rest base URL, stops it afterwards
    (gracefully: the engine closes before the database is read)."""
    with tempfile.TemporaryFile(mode="w+") as errors:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flowledger.tools.bench.rest_workload",
                "--serve",
                str(database),
            ],
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            url = _wait_for_port(process, errors)
            yield url
        finally:
            _stop(process)


def _server_output(errors: IO[str]) -> str:
    errors.seek(0)
    lines = errors.read().strip().splitlines()
    return "\n".join(lines[-20:]) or "(no output)"


def _wait_for_port(process: subprocess.Popen[str], errors: IO[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.isdigit():
        process.wait(SERVER_STOP_TIMEOUT_S)
        raise BenchError(f"the REST server did not start:\n{_server_output(errors)}")
    url = f"http://127.0.0.1:{int(line)}/engine-rest"
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while True:
        try:
            if httpx.get(f"{url}/version", timeout=5).status_code == 200:
                return url
        except httpx.TransportError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise BenchError(f"the REST server did not answer:\n{_server_output(errors)}")
        time.sleep(0.05)


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(SERVER_STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()


# -- the clients ------------------------------------------------------------------------------


def typed(variables: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Variables as a Camunda client sends them: `{"name": {"value": v, "type": "Integer"}}`."""
    out: dict[str, dict[str, Any]] = {}
    for name, value in variables.items():
        if isinstance(value, bool):
            kind = "Boolean"
        elif isinstance(value, int):
            kind = "Integer" if -(2**31) <= value < 2**31 else "Long"
        elif isinstance(value, float):
            kind = "Double"
        else:
            kind = "String"
            value = str(value)
        out[name] = {"value": value, "type": kind}
    return out


Samples = dict[str, list[float]]


def _timed(
    samples: Samples, label: str, send: Callable[[], httpx.Response], expected: int
) -> httpx.Response:
    started = time.perf_counter()
    response = send()
    samples[label].append(time.perf_counter() - started)
    if response.status_code != expected:
        raise BenchError(f"{label} answered {response.status_code}: {response.text[:300]}")
    return response


def drive_instance(client: httpx.Client, bench: Workload, i: int, samples: Samples) -> None:
    """One instance through the API: start, list its task, complete it."""
    assert bench.task_variables is not None
    started = _timed(
        samples,
        START,
        lambda: client.post(
            f"/process-definition/key/{bench.process_id}/start",
            json={"variables": typed(bench.start_variables(i)), "businessKey": f"bench-{i}"},
        ),
        200,
    )
    instance_id = started.json()["id"]
    tasks = _timed(
        samples, TASKS, lambda: client.get("/task", params={"processInstanceId": instance_id}), 200
    ).json()
    if len(tasks) != 1:
        raise BenchError(f"{TASKS} answered {len(tasks)} tasks for instance {instance_id}")
    body = {"variables": typed(bench.task_variables(i))}
    task_id = tasks[0]["id"]
    _timed(samples, COMPLETE, lambda: client.post(f"/task/{task_id}/complete", json=body), 204)


def _client(url: str, bench: Workload, indices: Sequence[int]) -> Samples:
    samples: Samples = {label: [] for label in REQUESTS}
    with httpx.Client(base_url=url, timeout=HTTP_TIMEOUT_S) as client:
        for i in indices:
            drive_instance(client, bench, i, samples)
    return samples


def drive(url: str, instances: int, clients: int) -> tuple[float, Samples]:
    """`instances` instances over `clients` concurrent clients; seconds and every latency."""
    bench = workload(WORKLOAD)
    shares = [range(c, instances, clients) for c in range(clients)]
    merged: Samples = {label: [] for label in REQUESTS}
    with ThreadPoolExecutor(max_workers=clients, thread_name_prefix="rest-client") as pool:
        started = time.perf_counter()
        futures = [pool.submit(_client, url, bench, share) for share in shares if share]
        results = [f.result() for f in futures]
        seconds = time.perf_counter() - started
    for samples in results:
        for label, values in samples.items():
            merged[label].extend(values)
    return seconds, merged


# -- figures ----------------------------------------------------------------------------------


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (p99 of 100 values is the 99th smallest)."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    # Rounded first: 0.99 * 300 is 296.99999999999994 in binary floating point.
    rank = max(1, math.ceil(round(len(ordered) * fraction, 9)))
    return ordered[rank - 1]


@dataclass
class _Repetition:
    seconds: float
    samples: Samples


def timed_repetition(path: Path, instances: int, clients: int) -> _Repetition:
    """One repetition on a fresh database file; BenchError if an instance did not end."""
    with running_server(path) as url:
        seconds, samples = drive(url, instances, clients)
    figures = fl.database_figures(path)
    if figures.completed != instances:
        raise BenchError(
            f"{WORKLOAD} over REST: {figures.completed} of {instances} instances reached "
            "COMPLETED in ACT_HI_PROCINST"
        )
    return _Repetition(seconds, samples)


def summarise(figures: RestFigures, repetitions: list[_Repetition]) -> None:
    if not repetitions:
        return
    figures.seconds = [r.seconds for r in repetitions]
    figures.repetitions = len(repetitions)
    figures.requests_per_s = Spread.of(
        [sum(len(v) for v in r.samples.values()) / r.seconds for r in repetitions]
    )
    figures.instances_per_s = Spread.of([figures.instances / r.seconds for r in repetitions])
    by_label = {label: [r.samples[label] for r in repetitions] for label in REQUESTS}
    by_label["all requests"] = [[v for vs in r.samples.values() for v in vs] for r in repetitions]
    figures.requests = [
        RequestFigures(
            request=label,
            count=len(per_rep[0]),
            p50_ms=Spread.of([percentile(v, 0.50) * 1000 for v in per_rep]),
            p99_ms=Spread.of([percentile(v, 0.99) * 1000 for v in per_rep]),
        )
        for label, per_rep in by_label.items()
    ]


def run(
    workdir: Path, instances: int, clients: int, repeat: int, progress: Progress
) -> RestFigures:
    """The REST workload, `repeat` times, each on a fresh database file (the server process
    creates and migrates it, untimed)."""
    figures = RestFigures(clients=clients, instances=instances)
    repetitions: list[_Repetition] = []
    for rep in range(repeat):
        progress.phase(f"REST: {WORKLOAD} x{instances}, {clients} clients ({rep + 1}/{repeat})")
        path = workdir / f"rest-rep{rep}.db"
        try:
            repetitions.append(timed_repetition(path, instances, clients))
        except BenchError as exc:
            figures.completed, figures.reason = False, str(exc)
            progress.tick(repeat - rep)
            break
        finally:
            for file in path.parent.glob(path.name + "*"):
                file.unlink()
        progress.tick()
    if figures.completed is None:
        figures.completed = True
    summarise(figures, repetitions)
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="the REST workload's server process")
    parser.add_argument("--serve", type=Path, required=True, metavar="DB")
    serve(parser.parse_args(argv).serve)


if __name__ == "__main__":
    main()
