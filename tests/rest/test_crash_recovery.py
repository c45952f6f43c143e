"""kill -9 of `flowledger serve --history-mode async` under load, then a restart on the same
database: nothing acknowledged is lost, nothing is duplicated, history catches up.

A few client threads start instances of a two-task process and complete its tasks through the
REST API, recording every answer they got. Once they have had a few dozen answers the server
process is killed with SIGKILL mid-load (its history follower is left to notice the death of its
parent by itself), and a new server is started on the same database. Every instance and every
task completion a client was told about must then be there, once, in the runtime tables and,
after a bounded wait, in history; `Engine.verify()` finally checks that the log, the replayed
state and every table agree. No process of either server outlives the test.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from flowledger import Engine
from tests.support import BPMN_DIR, fresh_database, selected_kind

from .server import ServedProcess, served_process

MODEL = BPMN_DIR / "rest_task_steps.bpmn"  # start → prepare → serve → end
KEY = "restTaskSteps"
STEPS = ("prepare", "serve")
CLIENTS = 3
INSTANCES_PER_CLIENT = 25  # the load is bounded even if the kill came late
KILL_AFTER_ANSWERS = 45  # acknowledged commands before the crash
LOAD_WAIT = 120.0  # seconds the load may take to reach KILL_AFTER_ANSWERS
FOLLOWER_EXIT_WAIT = 15.0  # seconds the orphaned history follower has to notice
HISTORY_WAIT = 60.0  # seconds history has to catch up after the restart


@dataclass
class Acknowledged:
    """What the server told the clients it did, before it was killed."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    started: dict[str, str] = field(default_factory=dict)  # instance id → business key
    completed: dict[str, tuple[str, str]] = field(default_factory=dict)  # task → (instance, key)
    finished: set[str] = field(default_factory=set)  # instances whose last task was completed
    unexpected: list[str] = field(default_factory=list)  # errors while the server was up
    answers: int = 0

    def count(self) -> int:
        with self.lock:
            return self.answers

    def start(self, instance_id: str, business_key: str) -> None:
        with self.lock:
            self.started[instance_id] = business_key
            self.answers += 1

    def completion(self, task_id: str, instance_id: str, step: str) -> None:
        with self.lock:
            self.completed[task_id] = (instance_id, step)
            if step == STEPS[-1]:
                self.finished.add(instance_id)
            self.answers += 1


class Client(threading.Thread):
    """Starts instances and completes their two tasks, one after the other, until it has done
    `INSTANCES_PER_CLIENT` or the server is gone."""

    def __init__(self, number: int, url: str, acked: Acknowledged, killed: threading.Event):
        super().__init__(name=f"crash-client-{number}", daemon=True)
        self.number = number
        self.url = url
        self.acked = acked
        self.killed = killed

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as http:
            try:
                for i in range(INSTANCES_PER_CLIENT):
                    if not self._one_instance(http, f"crash-{self.number}-{i}"):
                        return
            except httpx.TransportError as exc:
                if not self.killed.is_set():
                    self._unexpected(f"transport error before the kill: {exc!r}")

    def _one_instance(self, http: httpx.Client, business_key: str) -> bool:
        answer = http.post(
            f"/process-definition/key/{KEY}/start", json={"businessKey": business_key}
        )
        if answer.status_code != 200:
            return self._unexpected(f"start {business_key}: {answer.status_code} {answer.text}")
        instance_id = answer.json()["id"]
        self.acked.start(instance_id, business_key)
        for step in STEPS:
            tasks = http.get("/task", params={"processInstanceId": instance_id})
            if tasks.status_code != 200 or [t["taskDefinitionKey"] for t in tasks.json()] != [step]:
                return self._unexpected(f"tasks of {instance_id}: {tasks.status_code} {tasks.text}")
            task_id = tasks.json()[0]["id"]
            done = http.post(f"/task/{task_id}/complete", json={})
            if done.status_code != 204:
                return self._unexpected(f"complete {task_id}: {done.status_code} {done.text}")
            self.acked.completion(task_id, instance_id, step)
        return True

    def _unexpected(self, what: str) -> bool:
        if not self.killed.is_set():
            with self.acked.lock:
                self.acked.unexpected.append(what)
        return False


def run_load_and_crash(server: ServedProcess) -> tuple[Acknowledged, list[int]]:
    """Load the server, kill -9 it mid-load; what was acknowledged, and the processes of its
    group still alive once the follower had FOLLOWER_EXIT_WAIT seconds to notice."""
    acked = Acknowledged()
    killed = threading.Event()
    clients = [Client(n, server.url, acked, killed) for n in range(CLIENTS)]
    for client in clients:
        client.start()
    deadline = time.monotonic() + LOAD_WAIT
    while acked.count() < KILL_AFTER_ANSWERS and any(c.is_alive() for c in clients):
        if time.monotonic() > deadline:
            break
        time.sleep(0.01)
    killed.set()
    server.kill_server()
    for client in clients:
        client.join(60)
    deadline = time.monotonic() + FOLLOWER_EXIT_WAIT
    while server.group and time.monotonic() < deadline:
        time.sleep(0.1)
    return acked, server.group


def historic_instances(http: httpx.Client) -> list[dict[str, Any]]:
    answer = http.get("/history/process-instance", params={"processDefinitionKey": KEY})
    assert answer.status_code == 200, answer.text
    found: list[dict[str, Any]] = answer.json()
    return found


def history_lag(http: httpx.Client) -> int:
    """Events the history follower has still to project (the server's health report)."""
    health = httpx.get(str(http.base_url).removesuffix("/engine-rest/") + "/actuator/health")
    lag: int = health.json()["components"]["history"]["details"]["lag"]
    return lag


def caught_up(http: httpx.Client, acked: Acknowledged) -> list[dict[str, Any]]:
    """Historic instances once every acknowledged start and finish shows and the follower has
    nothing left (a task completed in an instance still running ends in a later batch than the
    instance's start), or HISTORY_WAIT."""
    deadline = time.monotonic() + HISTORY_WAIT
    while True:
        history = historic_instances(http)
        states = {h["id"]: h["state"] for h in history}
        complete = (
            set(acked.started) <= set(states)
            and all(states.get(i) == "COMPLETED" for i in acked.finished)
            and history_lag(http) == 0
        )
        if complete or time.monotonic() > deadline:
            return history
        time.sleep(0.2)


def check_runtime(http: httpx.Client, acked: Acknowledged, history: list[dict[str, Any]]) -> None:
    """Acknowledged starts still run, each waiting in exactly one task, or have finished;
    acknowledged completions are gone from the task list. A command in flight at the kill
    (at most one per client) may have committed without its answer: an instance may have
    finished though its last completion was not acknowledged."""
    states = {h["id"]: h["state"] for h in history}
    lost: list[tuple[str, object]] = []
    finished_unacknowledged = []
    for instance_id in acked.started:
        status = http.get(f"/process-instance/{instance_id}").status_code
        if instance_id in acked.finished:
            if status != 404:
                lost.append((instance_id, f"finished, but answers {status}"))
        elif status == 404 and states.get(instance_id) == "COMPLETED":
            finished_unacknowledged.append(instance_id)
        elif status != 200:
            lost.append((instance_id, f"running, but answers {status}"))
        else:
            tasks = http.get("/task", params={"processInstanceId": instance_id}).json()
            if len(tasks) != 1:
                lost.append((instance_id, [t["taskDefinitionKey"] for t in tasks]))
    reopened = [t for t in acked.completed if http.get(f"/task/{t}").status_code != 404]
    assert not lost, f"acknowledged instances not as acknowledged: {lost}"
    assert not reopened, f"acknowledged task completions undone: {reopened}"
    assert len(finished_unacknowledged) <= CLIENTS, finished_unacknowledged


def check_history(http: httpx.Client, acked: Acknowledged, history: list[dict[str, Any]]) -> None:
    """Every acknowledged instance is in history once, with its completed tasks ended and no
    activity twice."""
    ids = Counter(h["id"] for h in history)
    keys = Counter(h["businessKey"] for h in history)
    assert [i for i, n in ids.items() if n > 1] == [], "historic instances listed twice"
    assert [k for k, n in keys.items() if n > 1] == [], "an instance started twice"
    states = {h["id"]: h["state"] for h in history}
    missing = [i for i in acked.started if i not in states]
    unfinished = [i for i in acked.finished if states.get(i) != "COMPLETED"]
    assert not missing, f"acknowledged instances missing from history after restart: {missing}"
    assert not unfinished, f"acknowledged completions not COMPLETED in history: {unfinished}"
    # a start in flight at the kill may have committed without its answer: one per client
    unacknowledged = set(states) - set(acked.started)
    assert len(unacknowledged) <= CLIENTS, f"instances nobody started: {unacknowledged}"
    for instance_id in acked.started:
        activities = http.get(
            "/history/activity-instance", params={"processInstanceId": instance_id}
        ).json()
        twice = [a for a, n in Counter(a["activityId"] for a in activities).items() if n > 1]
        assert not twice, f"activities of {instance_id} recorded twice in history: {twice}"
        tasks = http.get("/history/task", params={"processInstanceId": instance_id}).json()
        ended = {t["id"] for t in tasks if t["endTime"] is not None}
        acked_here = {t for t, (i, _) in acked.completed.items() if i == instance_id}
        assert acked_here <= ended, f"acknowledged completions of {instance_id} not in history"
        assert len({t["id"] for t in tasks}) == len(tasks), f"tasks of {instance_id} twice"


def test_kill_9_under_load_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    with fresh_database(selected_kind(), tmp_path) as url:
        with served_process(url, "--history-mode", "async", log=log) as first:
            deployed = httpx.post(
                f"{first.url}/deployment/create",
                data={"deployment-name": "crash"},
                files={"model": (MODEL.name, MODEL.read_bytes(), "text/xml")},
            )
            assert deployed.status_code == 200, deployed.text
            acked, survivors = run_load_and_crash(first)
        assert not acked.unexpected, acked.unexpected
        assert acked.answers >= KILL_AFTER_ANSWERS, "the load never reached the crash point"
        assert not survivors, f"processes of the killed server still run: {survivors}"

        with (
            served_process(url, "--history-mode", "async", log=log) as second,
            httpx.Client(base_url=second.url, timeout=30) as http,
        ):
            history = caught_up(http, acked)
            check_runtime(http, acked, history)
            check_history(http, acked, history)
            status = second.stop()
        assert status == 0, log.read_text()[-3000:]

        with Engine(url) as engine:  # inline history: projects whatever async left behind
            report = engine.verify()
        assert report.ok, report.problems
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
