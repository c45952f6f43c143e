"""Jobs and incidents in the ACT_* tables: hand-built event sequences folded and projected as the
engine projects a command's events, the rows read back with plain SQL as a user would.

ACT_RU_JOB and ACT_RU_INCIDENT follow the state (a job's stack trace in a runtime byte array,
leases ended by every projected write), ACT_HI_INCIDENT and ACT_HI_JOB_LOG the events at level
full; a rebuild reproduces every row but the lease, which comparisons skip; deleting an
instance's history takes its incidents, job log and their byte arrays along. Runs on the
database FLOWLEDGER_TEST_DB selects.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import migrations
from flowledger.core import events as ev
from flowledger.core.state import InstanceState
from flowledger.engine import lookups
from flowledger.projections.changes import (
    ChangeSet,
    MemoryRowStore,
    SqlRowStore,
    diff_rows,
    normalise,
    read_table,
)
from flowledger.projections.compare import ShadowTables, compare_tables
from flowledger.projections.history import HistoryProjector
from flowledger.projections.jobs import job_stacktrace_bytearray_id
from flowledger.projections.queries import job_reads as job_queries
from flowledger.projections.queries import reads as queries
from flowledger.projections.replay import project_events
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_INCIDENT,
    ACT_HI_JOB_LOG,
    ACT_HI_PROCINST,
    ACT_RU_INCIDENT,
    ACT_RU_JOB,
    HISTORY_TABLES,
    REPOSITORY_TABLES,
    RUNTIME_TABLES,
)

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
PI = "pi-1"
DEFINITION = "asyncProcess:1:d1"
ALL_TABLES = (*REPOSITORY_TABLES, *RUNTIME_TABLES, *HISTORY_TABLES)
TRACE = "java.lang.RuntimeException: boom\n\tat charge(Charge.java:12)"


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


class Projected:
    """An instance's commits projected into a migrated database (and into memory, as a rebuild
    would): each `commit` is one command's events."""

    def __init__(self, url: str, level: str = "full") -> None:
        self.db = sa.create_engine(url)
        migrations.upgrade(self.db)
        self.history = HistoryProjector(level)
        self.state: InstanceState | None = None
        self.store = SqlRowStore()
        self.memory = MemoryRowStore(ALL_TABLES)
        self.commits: list[ChangeSet] = []
        self.log: list[tuple[ev.Event, ...]] = []

    def commit(self, *events: ev.Event) -> None:
        changes = ChangeSet()
        self.state = project_events(
            events, self.state, changes, history=self.history, runtime=True, repository=True
        )
        self.commits.append(changes)
        self.log.append(events)
        self.memory.apply(changes)
        with self.db.begin() as conn:
            self.store.apply(conn, changes)

    def rows(self, table: sa.Table, **where: Any) -> list[dict[str, Any]]:
        """The rows of `table` whose columns have the values `where` gives, in key order."""
        stmt = sa.select(table).where(*(table.c[k] == v for k, v in where.items()))
        with self.db.connect() as conn:
            found = conn.execute(stmt.order_by(table.c.ID_)).mappings()
            return [{c.name: normalise(m[c]) for c in table.columns} for m in found]

    def one(self, table: sa.Table, **where: Any) -> dict[str, Any]:
        found = self.rows(table, **where)
        assert len(found) == 1, found
        return found[0]

    def execute(self, sql: str, **params: Any) -> None:
        with self.db.begin() as conn:
            conn.execute(sa.text(sql), params)


@pytest.fixture
def projected(db_url: str) -> Iterator[Projected]:
    p = Projected(db_url)
    p.commit(*started())
    yield p
    p.db.dispose()


def started() -> list[ev.Event]:
    return [
        ev.ProcessInstanceStarted(
            process_instance_id=PI,
            definition_id=DEFINITION,
            definition_key="asyncProcess",
            definition_version=1,
            deployment_id="dep-1",
            business_key="order-7",
            start_activity_id="start",
            time=T0,
        ),
        ev.ActivityStarted(
            activity_instance_id="charge:1",
            activity_id="charge",
            activity_type="serviceTask",
            activity_name="Charge card",
            execution_id=PI,
            parent_activity_instance_id=PI,
            time=T0,
        ),
        job_created("job-1"),
    ]


def job_created(job_id: str, **changed: Any) -> ev.JobCreated:
    values: dict[str, Any] = {
        "job_id": job_id,
        "job_type": "message",
        "handler_type": "async-continuation",
        "handler_configuration": "activity-start-create-scope",
        "job_definition_id": "jobdef-1",
        "execution_id": PI,
        "activity_id": "charge",
        "activity_instance_id": None,
        "due_date": None,
        "retries": 3,
        "priority": 5,
        "exclusive": True,
        "time": T0,
    }
    values.update(changed)
    return ev.JobCreated(**values)


def failed(job_id: str, retries: int, seconds: int, trace: str | None = TRACE) -> ev.JobFailed:
    return ev.JobFailed(
        job_id=job_id,
        retries=retries,
        error_message=f"boom {retries}",
        stacktrace=trace,
        failed_activity_id="charge",
        due_date=at(seconds + 300),
        time=at(seconds),
    )


def incident_created(incident_id: str = "inc-1", seconds: int = 30) -> ev.IncidentCreated:
    return ev.IncidentCreated(
        incident_id=incident_id,
        incident_type="failedJob",
        configuration="job-1",
        execution_id=PI,
        activity_id="charge",
        failed_activity_id="charge",
        message="boom 0",
        time=at(seconds),
        job_definition_id="jobdef-1",
    )


# -- runtime --------------------------------------------------------------------------------------


def test_a_created_job_is_a_row_with_camundas_columns(projected: Projected) -> None:
    row = projected.one(ACT_RU_JOB, ID_="job-1")
    assert {k: v for k, v in row.items() if v is not None} == {
        "ID_": "job-1",
        "REV_": 1,
        "TYPE_": "message",
        "EXCLUSIVE_": True,
        "EXECUTION_ID_": PI,
        "ROOT_PROC_INST_ID_": PI,
        "PROCESS_INSTANCE_ID_": PI,
        "PROCESS_DEF_ID_": DEFINITION,
        "PROCESS_DEF_KEY_": "asyncProcess",
        "RETRIES_": 3,
        "REPEAT_OFFSET_": 0,
        "HANDLER_TYPE_": "async-continuation",
        "HANDLER_CFG_": "activity-start-create-scope",
        "DEPLOYMENT_ID_": "dep-1",
        "SUSPENSION_STATE_": 1,
        "JOB_DEF_ID_": "jobdef-1",
        "PRIORITY_": 5,
        "CREATE_TIME_": naive(T0),
        "ACT_ID_": "charge",
    }


def test_a_timer_keeps_its_due_date_and_repeat(projected: Projected) -> None:
    projected.commit(
        job_created(
            "timer-1",
            job_type="timer",
            handler_type="timer-transition",
            handler_configuration="charge",
            activity_instance_id="charge:1",
            due_date=at(3600),
            repeat="R3/2026-03-01T09:00:00Z/PT1H",
            exclusive=False,
        )
    )
    row = projected.one(ACT_RU_JOB, ID_="timer-1")
    assert (row["TYPE_"], row["DUEDATE_"], row["REPEAT_"], row["EXCLUSIVE_"]) == (
        "timer",
        naive(at(3600)),
        "R3/2026-03-01T09:00:00Z/PT1H",
        False,
    )


def test_a_failure_ends_the_lease_and_keeps_the_stacktrace_in_a_byte_array(
    projected: Projected,
) -> None:
    # The job executor leases the row by itself: the projection never writes these columns.
    projected.execute(
        "UPDATE ACT_RU_JOB SET LOCK_OWNER_ = 'executor-1', LOCK_EXP_TIME_ = :until WHERE ID_ = :id",
        until=naive(at(600)),
        id="job-1",
    )
    projected.commit(failed("job-1", retries=2, seconds=10))

    row = projected.one(ACT_RU_JOB, ID_="job-1")
    blob_id = job_stacktrace_bytearray_id("job-1")
    assert (row["LOCK_OWNER_"], row["LOCK_EXP_TIME_"]) == (None, None)
    assert row["REV_"] == 2
    assert (row["RETRIES_"], row["EXCEPTION_MSG_"], row["FAILED_ACT_ID_"]) == (
        2,
        "boom 2",
        "charge",
    )
    assert row["DUEDATE_"] == naive(at(310))
    assert row["EXCEPTION_STACK_ID_"] == blob_id
    blob = projected.one(ACT_GE_BYTEARRAY, ID_=blob_id)
    assert bytes(blob["BYTES_"]).decode() == TRACE
    assert (blob["TYPE_"], blob["NAME_"], blob["REV_"]) == (2, "job.exceptionByteArray", 1)
    assert blob["ROOT_PROC_INST_ID_"] == PI

    with projected.db.connect() as conn:
        assert job_queries.job_stacktrace(conn, "job-1") == (True, TRACE)
        assert job_queries.job_stacktrace(conn, "no-such-job") == (False, None)
        job = job_queries.job(conn, "job-1")
    assert job is not None
    assert (job.retries, job.exception_message, job.lock_owner) == (2, "boom 2", None)


def test_the_byte_array_changes_with_the_stacktrace_and_goes_with_the_job(
    projected: Projected,
) -> None:
    blob_id = job_stacktrace_bytearray_id("job-1")
    projected.commit(failed("job-1", retries=2, seconds=10))
    projected.commit(failed("job-1", retries=1, seconds=20, trace=TRACE + "\nagain"))
    assert (
        bytes(projected.one(ACT_GE_BYTEARRAY, ID_=blob_id)["BYTES_"]).decode() == TRACE + "\nagain"
    )
    assert projected.one(ACT_GE_BYTEARRAY, ID_=blob_id)["REV_"] == 2

    projected.commit(ev.JobRetriesSet(job_id="job-1", retries=5, time=at(30)))
    assert projected.one(ACT_GE_BYTEARRAY, ID_=blob_id)["REV_"] == 2  # the text did not change
    assert projected.one(ACT_RU_JOB, ID_="job-1")["RETRIES_"] == 5

    projected.commit(ev.JobExecuted(job_id="job-1", time=at(40)))
    assert projected.rows(ACT_RU_JOB, ID_="job-1") == []
    assert projected.rows(ACT_GE_BYTEARRAY, ID_=blob_id) == []


def test_new_retries_and_due_dates_are_projected_writes(projected: Projected) -> None:
    projected.execute("UPDATE ACT_RU_JOB SET LOCK_OWNER_ = 'executor-1' WHERE ID_ = 'job-1'")
    projected.commit(ev.JobDueDateSet(job_id="job-1", due_date=at(99), time=at(5)))
    row = projected.one(ACT_RU_JOB, ID_="job-1")
    assert (row["DUEDATE_"], row["LOCK_OWNER_"], row["REV_"]) == (naive(at(99)), None, 2)


def test_an_incident_is_a_root_incident_until_resolved(projected: Projected) -> None:
    projected.commit(failed("job-1", retries=0, seconds=10), incident_created())
    row = projected.one(ACT_RU_INCIDENT, ID_="inc-1")
    assert {k: v for k, v in row.items() if v is not None} == {
        "ID_": "inc-1",
        "REV_": 1,
        "INCIDENT_TIMESTAMP_": naive(at(30)),
        "INCIDENT_MSG_": "boom 0",
        "INCIDENT_TYPE_": "failedJob",
        "EXECUTION_ID_": PI,
        "ACTIVITY_ID_": "charge",
        "FAILED_ACTIVITY_ID_": "charge",
        "PROC_INST_ID_": PI,
        "PROC_DEF_ID_": DEFINITION,
        "CAUSE_INCIDENT_ID_": "inc-1",
        "ROOT_CAUSE_INCIDENT_ID_": "inc-1",
        "CONFIGURATION_": "job-1",
        "JOB_DEF_ID_": "jobdef-1",
    }
    with projected.db.connect() as conn:
        assert lookups.instance_of_incident(conn, "inc-1") == PI
        assert [i.id for i in job_queries.incidents(conn, configuration="job-1")] == ["inc-1"]
        assert job_queries.incidents(conn, incident_type="failedExternalTask") == []

    projected.commit(
        ev.JobRetriesSet(job_id="job-1", retries=1, time=at(40)),
        ev.IncidentResolved(incident_id="inc-1", time=at(40)),
    )
    assert projected.rows(ACT_RU_INCIDENT) == []


def test_jobs_and_incidents_move_with_their_execution(projected: Projected) -> None:
    projected.commit(failed("job-1", retries=0, seconds=10), incident_created())
    # A non-interrupting event forks beside the waiting token: tree expansion.
    projected.commit(
        ev.ExecutionCreated(
            execution_id="concurrent-1",
            parent_id=PI,
            is_scope=False,
            is_concurrent=True,
            replaces=PI,
        )
    )
    assert projected.one(ACT_RU_JOB, ID_="job-1")["EXECUTION_ID_"] == "concurrent-1"
    assert projected.one(ACT_RU_INCIDENT)["EXECUTION_ID_"] == "concurrent-1"


def test_an_ended_instance_takes_its_jobs_incidents_and_byte_arrays_along(
    projected: Projected,
) -> None:
    projected.commit(failed("job-1", retries=0, seconds=10), incident_created())
    projected.commit(ev.ProcessInstanceTerminated(reason="canceled", externally=True, time=at(50)))
    assert projected.rows(ACT_RU_JOB) == []
    assert projected.rows(ACT_RU_INCIDENT) == []
    assert projected.rows(ACT_GE_BYTEARRAY, ID_=job_stacktrace_bytearray_id("job-1")) == []


def test_job_lists_and_the_executors_due_jobs(projected: Projected) -> None:
    projected.commit(
        job_created("timer-late", job_type="timer", due_date=at(7200)),
        job_created("timer-soon", job_type="timer", due_date=at(60)),
        job_created("job-spent", execution_id=PI),
    )
    projected.commit(failed("job-spent", retries=0, seconds=5))
    with projected.db.connect() as conn:
        everything = [j.id for j in job_queries.jobs(conn)]
        # without a due date first, then by due date (a failure's retry is due later)
        assert everything == ["job-1", "timer-soon", "job-spent", "timer-late"]
        assert [j.id for j in job_queries.jobs(conn, timers=True)] == [
            "timer-soon",
            "timer-late",
        ]
        assert [j.id for j in job_queries.jobs(conn, messages=True)] == ["job-1", "job-spent"]
        assert [j.id for j in job_queries.jobs(conn, with_retries_left=True)] == [
            "job-1",
            "timer-soon",
            "timer-late",
        ]
        assert [j.id for j in job_queries.jobs(conn, no_retries_left=True)] == ["job-spent"]
        assert [j.id for j in job_queries.jobs(conn, with_exception=True)] == ["job-spent"]
        assert [j.id for j in job_queries.jobs(conn, executable=True, now=at(120))] == [
            "job-1",
            "timer-soon",
        ]
        assert job_queries.jobs(conn, activity_id="elsewhere") == []
        assert queries.due_jobs(conn, at(120), 10) == [("job-1", PI), ("timer-soon", PI)]
        assert queries.due_jobs(conn, at(120), 1) == [("job-1", PI)]
        assert queries.due_jobs(conn, at(9000), 10)[-1] == ("timer-late", PI)
        assert lookups.instance_of_job(conn, "timer-late") == PI
        assert lookups.instance_of_job(conn, "no-such-job") is None
        with pytest.raises(ValueError, match="executable"):
            job_queries.jobs(conn, executable=True)
    # A suspended job is not due (the executor would skip it too).
    projected.execute("UPDATE ACT_RU_JOB SET SUSPENSION_STATE_ = 2 WHERE ID_ = 'job-1'")
    with projected.db.connect() as conn:
        assert queries.due_jobs(conn, at(120), 10) == [("timer-soon", PI)]


# -- history --------------------------------------------------------------------------------------


def log_of(projected: Projected, job_id: str) -> list[dict[str, Any]]:
    """The job's log rows in the order they were written."""
    rows = projected.rows(ACT_HI_JOB_LOG, JOB_ID_=job_id)
    return sorted(rows, key=lambda r: (r["TIMESTAMP_"], r["SEQUENCE_COUNTER_"]))


def test_historic_incidents_go_from_open_to_resolved_or_deleted(projected: Projected) -> None:
    projected.commit(failed("job-1", retries=0, seconds=10), incident_created())
    row = projected.one(ACT_HI_INCIDENT, ID_="inc-1")
    assert (row["INCIDENT_STATE_"], row["END_TIME_"], row["CREATE_TIME_"]) == (
        0,
        None,
        naive(at(30)),
    )
    assert (row["PROC_DEF_KEY_"], row["ROOT_PROC_INST_ID_"], row["CAUSE_INCIDENT_ID_"]) == (
        "asyncProcess",
        PI,
        "inc-1",
    )

    projected.commit(
        ev.JobRetriesSet(job_id="job-1", retries=1, time=at(40)),
        ev.IncidentResolved(incident_id="inc-1", time=at(40)),
    )
    row = projected.one(ACT_HI_INCIDENT, ID_="inc-1")
    assert (row["INCIDENT_STATE_"], row["END_TIME_"]) == (1, naive(at(40)))

    projected.commit(failed("job-1", retries=0, seconds=50), incident_created("inc-2", 50))
    projected.commit(
        ev.IncidentDeleted(incident_id="inc-2", time=at(60)),
        ev.JobDeleted(job_id="job-1", time=at(60)),
    )
    row = projected.one(ACT_HI_INCIDENT, ID_="inc-2")
    assert (row["INCIDENT_STATE_"], row["END_TIME_"]) == (2, naive(at(60)))
    with projected.db.connect() as conn:
        found = job_queries.historic_incidents(conn, process_instance_id=PI)
        assert [(i.id, i.open, i.resolved, i.deleted) for i in found] == [
            ("inc-1", False, True, False),
            ("inc-2", False, False, True),
        ]
        assert [i.id for i in job_queries.historic_incidents(conn, resolved=True)] == ["inc-1"]


def test_the_job_log_has_a_row_per_creation_failure_run_and_deletion(
    projected: Projected,
) -> None:
    projected.commit(failed("job-1", retries=2, seconds=10))
    projected.commit(ev.JobExecuted(job_id="job-1", time=at(20)))
    projected.commit(job_created("job-2", time=at(30)))
    projected.commit(ev.JobDeleted(job_id="job-2", time=at(40)))

    log = log_of(projected, "job-1")
    assert [(r["JOB_STATE_"], r["JOB_RETRIES_"], r["TIMESTAMP_"]) for r in log] == [
        (0, 3, naive(T0)),
        (1, 3, naive(at(10))),  # the job as it ran, with the retries it had
        (2, 2, naive(at(20))),
    ]
    failure = log[1]
    assert (failure["JOB_EXCEPTION_MSG_"], failure["FAILED_ACT_ID_"]) == ("boom 2", "charge")
    assert (failure["ACT_ID_"], failure["JOB_DEF_TYPE_"], failure["JOB_DEF_ID_"]) == (
        "charge",
        "async-continuation",
        "jobdef-1",
    )
    assert (failure["PROCESS_INSTANCE_ID_"], failure["PROCESS_DEF_KEY_"]) == (PI, "asyncProcess")
    assert (failure["DEPLOYMENT_ID_"], failure["JOB_PRIORITY_"]) == ("dep-1", 5)
    blob = projected.one(ACT_GE_BYTEARRAY, ID_=failure["JOB_EXCEPTION_STACK_ID_"])
    assert (blob["TYPE_"], bytes(blob["BYTES_"]).decode()) == (3, TRACE)
    assert log[0]["JOB_EXCEPTION_STACK_ID_"] is None
    assert [r["JOB_STATE_"] for r in log_of(projected, "job-2")] == [0, 3]
    # Unique ids: one row per event, however many there are of one job.
    ids = [r["ID_"] for r in projected.rows(ACT_HI_JOB_LOG)]
    assert len(ids) == len(set(ids)) == 5

    with projected.db.connect() as conn:
        logs = job_queries.historic_job_logs(conn, job_id="job-1")
    assert [(x.creation_log, x.failure_log, x.success_log) for x in logs] == [
        (True, False, False),
        (False, True, False),
        (False, False, True),
    ]


def test_below_level_full_no_incident_or_job_log_is_written(db_url: str) -> None:
    projected = Projected(db_url, level="audit")
    try:
        projected.commit(*started())
        projected.commit(failed("job-1", retries=0, seconds=10), incident_created())
        assert projected.rows(ACT_HI_INCIDENT) == []
        assert projected.rows(ACT_HI_JOB_LOG) == []
        assert projected.rows(ACT_GE_BYTEARRAY, TYPE_=3) == []
        assert len(projected.rows(ACT_RU_INCIDENT)) == 1
    finally:
        projected.db.dispose()


def test_deleting_the_history_purges_incidents_job_log_and_their_byte_arrays(
    projected: Projected,
) -> None:
    projected.commit(failed("job-1", retries=0, seconds=10), incident_created())
    projected.commit(ev.ProcessInstanceTerminated(reason="gone", externally=True, time=at(50)))
    assert projected.rows(ACT_GE_BYTEARRAY, TYPE_=3)
    projected.commit(ev.HistoricProcessInstanceDeleted(time=at(60)))
    for table in (ACT_HI_INCIDENT, ACT_HI_JOB_LOG, ACT_HI_PROCINST, ACT_GE_BYTEARRAY):
        assert projected.rows(table) == [], table.name
    assert projected.memory.rows["ACT_HI_JOB_LOG"] == {}
    assert projected.memory.rows["ACT_GE_BYTEARRAY"] == {}


# -- replay ---------------------------------------------------------------------------------------


def test_a_rebuild_writes_the_same_rows_and_skips_the_lease(projected: Projected) -> None:
    projected.commit(failed("job-1", retries=1, seconds=10))
    projected.commit(job_created("timer-1", job_type="timer", due_date=at(60)))
    projected.execute(
        "UPDATE ACT_RU_JOB SET LOCK_OWNER_ = 'executor-1', LOCK_EXP_TIME_ = :until",
        until=naive(at(600)),
    )
    shadows = ShadowTables(ALL_TABLES)
    with projected.db.begin() as conn:
        shadows.create(conn)
        try:
            for changes in projected.commits:  # the same change sets, rebuilt from the log
                shadows.apply(conn, changes)
            for table in ALL_TABLES:
                assert compare_tables(conn, table, shadows.of[table])[1] == [], table.name
            conn.execute(sa.text("UPDATE ACT_RU_JOB SET RETRIES_ = 7 WHERE ID_ = 'timer-1'"))
            _count, problems = compare_tables(conn, ACT_RU_JOB, shadows.of[ACT_RU_JOB])
            assert problems == ["ACT_RU_JOB row timer-1: RETRIES_: rebuilt 3 != live 7"]
        finally:
            shadows.drop(conn)

    with projected.db.connect() as conn:
        live = read_table(conn, ACT_RU_JOB)
    assert {r["LOCK_OWNER_"] for r in live.values()} == {"executor-1"}
    rebuilt = projected.memory.rows["ACT_RU_JOB"]
    assert diff_rows("ACT_RU_JOB", rebuilt, live) == [
        "ACT_RU_JOB row timer-1: RETRIES_: rebuilt 3 != live 7"
    ]


def test_replaying_the_events_gives_the_same_ids_and_rows(projected: Projected) -> None:
    projected.commit(failed("job-1", retries=0, seconds=10), incident_created())
    projected.commit(
        ev.JobRetriesSet(job_id="job-1", retries=2, time=at(40)),
        ev.IncidentResolved(incident_id="inc-1", time=at(40)),
    )
    projected.commit(failed("job-1", retries=1, seconds=50))
    projected.commit(ev.JobExecuted(job_id="job-1", time=at(60)))
    again = MemoryRowStore(ALL_TABLES)
    state: InstanceState | None = None
    for events in projected.log:
        changes = ChangeSet()
        state = project_events(
            events,
            state,
            changes,
            history=HistoryProjector("full"),
            runtime=True,
            repository=True,
        )
        again.apply(changes)
    assert again.rows == projected.memory.rows
    assert len(again.rows["ACT_HI_JOB_LOG"]) == 4  # created, failed twice, successful
