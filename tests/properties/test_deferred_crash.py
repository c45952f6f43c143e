"""Deferred projection under faults: random commands on generated models (the stateful machine),
with the projector's batches dying part-way and engine processes dying with rows still in memory.
After every step the tables say what the log says; after each death a new process catches up from
the checkpoint and the tables equal a rebuild from the log (verify). A few real kill -9 runs too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import rule, run_state_machine_as_test

from flowledger import Engine
from flowledger.core.state import InstanceState
from flowledger.engine.services.tasks import tasks_in_state
from flowledger.projections.changes import SqlRowStore, WritePlan
from flowledger.projections.deferred import CHECKPOINT
from flowledger.projections.queries import reads
from tests.properties.test_stateful import FAST, EngineMachine, patched_engine  # noqa: F401


class _DyingRows(SqlRowStore):
    """Writes part of a batch's rows, then dies (the transaction rolls back)."""

    def __init__(self, rows: SqlRowStore, fraction: float) -> None:
        super().__init__()
        self._rows = rows
        self._fraction = fraction

    def plan(self, dialect: Any, changes: Any) -> WritePlan:
        return self._rows.plan(dialect, changes)

    def run(self, conn: Any, plan: WritePlan) -> None:  # type: ignore[override]
        self._rows.run(conn, plan[: int(len(plan) * self._fraction)])
        raise OSError("the projector died while writing a batch")


def _checkpoint(engine: Engine) -> int | None:
    with engine._db.read_unchecked() as conn:
        return engine._store.checkpoint(conn, CHECKPOINT)


class DeferredMachine(EngineMachine):
    """The stateful machine with every node projecting deferred, and faults."""

    engine_options: ClassVar[dict[str, object]] = {"projection": "deferred"}

    def node(self) -> Engine:
        """A node whose rows are written by its reads and the faults' batches, in this process
        (a follower process would race the faults; the kill -9 runs below have theirs)."""
        engine = super().node()
        deferred = engine._deferred
        assert deferred is not None
        deferred.stop_follower()
        return engine

    def _check_instance(self, pid: str, state: InstanceState) -> None:
        """... and an instance's task list answered from its state (the deferred engine's fast
        path) is the one its tables answer once the rows are written."""
        super()._check_instance(pid, state)
        with self.engine._db.read() as conn:  # the barrier: the tables at the head
            from_tables = reads.tasks(conn, process_instance_id=pid)
        assert tasks_in_state(state) == from_tables, f"{pid}: task lists differ"

    @rule(fraction=st.sampled_from((0.0, 0.5, 1.0)))
    def batch_dies(self, fraction: float) -> None:
        """A batch dies before, while or after writing its rows, before its checkpoint: the
        transaction takes all of it back, and the rows are written by a later batch."""
        deferred = self.engine._deferred
        assert deferred is not None
        follower = deferred.follower
        rows = follower._rows
        before = _checkpoint(self.engine)
        follower._rows = _DyingRows(rows, fraction)
        try:
            with self.engine._db.write() as conn:
                follower.catch_up(conn, self.clock.now())
        except OSError:
            pass
        finally:
            follower._rows = rows
        assert _checkpoint(self.engine) == before
        self.touched.update(self.instances)

    @rule()
    def process_dies(self) -> None:
        """The current node dies with rows unwritten (as kill -9 leaves it: its follower
        process goes with it); a new process on the database writes them from the log."""
        dead = self.engine
        deferred = dead._deferred
        assert deferred is not None
        dead._deferred = None  # nothing drains on the way out
        dead._history.deferred = None
        dead._db.barrier = None
        dead.close()
        self.engine = self.node()
        self.touched.update(self.instances)


@pytest.mark.usefixtures("patched_engine")
def test_deferred_projection_survives_dying_batches_and_processes() -> None:
    run_state_machine_as_test(DeferredMachine, settings=FAST)


KILLED_WORKER = textwrap.dedent(
    """
    import sys
    from flowledger import Engine
    engine = Engine(sys.argv[1], projection="deferred")
    engine.deploy({"p.bpmn": open(sys.argv[2]).read()})
    i = 0
    while True:
        pi = engine.start_process_instance("p", {"i": i})
        for task in engine.task_service.tasks(process_instance_id=pi.id):
            engine.complete_task(task.id)
        i += 1
        if i % 10 == 0:
            print(i, flush=True)
    """
)
MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="p" isExecutable="true" camunda:historyTimeToLive="30">
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="review"/>
    <userTask id="review"/>
    <sequenceFlow id="f2" sourceRef="review" targetRef="end"/>
    <endEvent id="end"/>
  </process>
</definitions>
"""


@pytest.mark.parametrize("after", [20, 60, 150])
def test_kill_9_loses_no_row(tmp_path: Path, after: int) -> None:
    url = f"sqlite:///{tmp_path / 'killed.db'}"
    model = tmp_path / "p.bpmn"
    model.write_text(MODEL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    worker = subprocess.Popen(
        [sys.executable, "-c", KILLED_WORKER, url, str(model)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert worker.stdout is not None
    deadline = time.monotonic() + 120
    for line in worker.stdout:
        if int(line) >= after or time.monotonic() > deadline:
            break
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    with Engine(url) as engine:  # adopts deferred, writes what the dead process held
        assert engine.projection == "deferred"
        report = engine.verify()
        assert report.problems == []
        with engine.reading() as conn:
            started = conn.exec_driver_sql(
                "SELECT count(*) FROM event_log WHERE command_type = 'StartProcessInstance'"
            ).scalar_one()
            history = conn.exec_driver_sql("SELECT count(*) FROM ACT_HI_PROCINST").scalar_one()
        assert history == started >= after
