"""The ACT_* rows a real engine writes, read back with plain SQL as a Camunda report would.

One abstract test class, run on SQLite, PostgreSQL and MariaDB; nothing here writes a table.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

import pytest
import sqlalchemy as sa

from flowledger import ControllableClock, Engine, TypedValue
from tests.support import deferred_rows_written, fresh_database

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
    xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
    id="order-defs" targetNamespace="http://flowledger.test/orders">
  <bpmn:process id="order" name="Order" isExecutable="true" camunda:historyTimeToLive="30">
    <bpmn:startEvent id="start" name="Order received" />
    <bpmn:sequenceFlow id="to_review" sourceRef="start" targetRef="review" />
    <bpmn:userTask id="review" name="Review order"
        camunda:candidateUsers="alice,bob" camunda:candidateGroups="managers" />
    <bpmn:sequenceFlow id="to_decision" sourceRef="review" targetRef="decision" />
    <bpmn:exclusiveGateway id="decision" name="Approved?" default="rejected_flow" />
    <bpmn:sequenceFlow id="approved_flow" sourceRef="decision" targetRef="fork">
      <bpmn:conditionExpression>${approved}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="rejected_flow" sourceRef="decision" targetRef="rejected" />
    <bpmn:endEvent id="rejected" name="Rejected" />
    <bpmn:parallelGateway id="fork" />
    <bpmn:sequenceFlow id="to_sign" sourceRef="fork" targetRef="sign" />
    <bpmn:sequenceFlow id="to_charge" sourceRef="fork" targetRef="charge" />
    <bpmn:userTask id="sign" name="Sign contract"
        camunda:candidateUsers="carol" camunda:candidateGroups="legal,finance" />
    <bpmn:serviceTask id="charge" name="Charge card"
        camunda:type="external" camunda:topic="payments" />
    <bpmn:sequenceFlow id="signed" sourceRef="sign" targetRef="join" />
    <bpmn:sequenceFlow id="charged" sourceRef="charge" targetRef="join" />
    <bpmn:parallelGateway id="join" />
    <bpmn:sequenceFlow id="to_done" sourceRef="join" targetRef="done" />
    <bpmn:endEvent id="done" name="Done" />
  </bpmn:process>
</bpmn:definitions>
"""

DUE = datetime(2026, 2, 3, 4, 5, 6, 789_000, tzinfo=UTC)
BLOB = b"\x00\x01binary\xfe\xff"
DOC = {"a": 1, "b": [True, None, "x"], "c": {"d": 2.5}}
START_VARIABLES: dict[str, Any] = {
    "text": "hello",
    "empty": "",
    "count": 42,
    "small": TypedValue("Short", 7),
    "ratio": 1234.5678,
    "yes": True,
    "no": False,
    "due": DUE,
    "blob": BLOB,
    "doc": DOC,
    "nothing": None,
}
# Long values are set only after fetch_and_lock: see test_fetch_and_lock_sees_long_variables.
LONG_VARIABLES: dict[str, Any] = {"five": TypedValue("Long", 5), "big": 2**40}
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def expected_columns(text: str = "hello") -> dict[str, tuple[str, dict[str, Any]]]:
    """Camunda's storage of each variable (camunda7.md §2.3): serializer name and columns.

    `BYTES` stands for the ACT_GE_BYTEARRAY row that BYTEARRAY_ID_ points at.
    """
    due_ms = (DUE - EPOCH) // timedelta(milliseconds=1)
    return {
        "text": ("string", {"TEXT_": text}),
        "empty": ("string", {"TEXT2_": "!emptyString!"}),
        "count": ("integer", {"LONG_": 42, "TEXT_": "42"}),
        "small": ("short", {"LONG_": 7, "TEXT_": "7"}),
        "five": ("long", {"LONG_": 5, "TEXT_": "5"}),
        "big": ("long", {"LONG_": 2**40, "TEXT_": str(2**40)}),
        "ratio": ("double", {"DOUBLE_": 1234.5678}),
        "yes": ("boolean", {"LONG_": 1}),
        "no": ("boolean", {"LONG_": 0}),
        "approved": ("boolean", {"LONG_": 1}),
        "due": ("date", {"LONG_": due_ms}),
        "blob": ("bytes", {"BYTES": BLOB}),
        "doc": ("json", {"BYTES": DOC}),
        "nothing": ("null", {}),
    }


@dataclass
class Run:
    """What the scenario did: instance ids, definition ids and the moments that matter."""

    flow: Engine
    clock: ControllableClock
    sql: sa.Engine
    definitions: list[str]
    deployments: list[str]
    done: str  # approved, forked, joined, completed
    middle: str  # approved, forked: `sign` open, `charge` locked by worker-2
    rejected: str  # not approved: ended at the exclusive gateway's default flow
    started: dict[str, datetime]
    locked_at: datetime

    def rows(self, query: str, **params: Any) -> list[dict[str, Any]]:
        """Rows of a plain SQL query, column names upper-cased (PostgreSQL folds them), read past
        the engine: deferred rows are written first."""
        deferred_rows_written(self.flow)
        with self.sql.connect() as conn:
            result = conn.execute(sa.text(query), params)
            return [{k.upper(): v for k, v in row._mapping.items()} for row in result]


def at(value: Any) -> datetime | None:
    """A timestamp column as a naive UTC datetime (SQLite hands raw SQL text back)."""
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


def naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


def millis(start: Any, end: Any) -> int:
    s, e = at(start), at(end)
    assert s is not None and e is not None
    return (e - s) // timedelta(milliseconds=1)


def flag(value: Any) -> bool:
    """A boolean column: True/False on PostgreSQL, 1/0 on SQLite and MariaDB."""
    assert value in (0, 1), value
    return bool(value)


def blob(value: Any) -> bytes:
    return bytes(value)


class ProjectionContract:
    """The projections of one scenario, asserted on a database of `kind`."""

    kind: ClassVar[str]

    @pytest.fixture
    def url(self, tmp_path: Path) -> Iterator[str]:
        with fresh_database(self.kind, tmp_path) as url:
            yield url

    @pytest.fixture
    def flow(self, url: str, clock: ControllableClock) -> Iterator[Engine]:
        # The contract covers every history table, ACT_HI_DETAIL too.
        with Engine(url, clock=clock, history_level="full") as engine:
            yield engine

    @pytest.fixture
    def sql(self, url: str) -> Iterator[sa.Engine]:
        db = sa.create_engine(url)
        try:
            yield db
        finally:
            db.dispose()

    @pytest.fixture
    def run(self, flow: Engine, clock: ControllableClock, sql: sa.Engine) -> Run:
        first = flow.deploy(MODEL.encode(), "orders", deployment_source="tests")
        clock.advance(seconds=1)
        second = flow.deploy({"order.bpmn": MODEL}, "orders", deployment_source="tests")
        clock.advance(seconds=1)

        started: dict[str, datetime] = {}
        started["done"] = clock.now()
        done = flow.start_process_instance("order", START_VARIABLES, business_key="order-A").id
        clock.advance(milliseconds=1250)
        started["middle"] = clock.now()
        middle = flow.start_process_instance("order", START_VARIABLES, business_key="order-B").id
        clock.advance(milliseconds=2345)

        review = flow.tasks(process_instance_id=done)[0].id
        flow.claim(review, "alice")
        clock.advance(milliseconds=1111)
        flow.complete_task(review, {"approved": True, "text": "updated"})
        clock.advance(milliseconds=500)
        [locked] = flow.external_task_service.fetch_and_lock("worker-1", {"payments": 30_000})
        assert locked.process_instance_id == done
        flow.runtime_service.set_variables(done, LONG_VARIABLES)
        clock.advance(milliseconds=2020)
        flow.external_task_service.complete(locked.id, "worker-1")
        clock.advance(milliseconds=3003)
        flow.complete_task(flow.tasks(process_instance_id=done)[0].id)
        clock.advance(milliseconds=777)

        flow.complete_task(flow.tasks(process_instance_id=middle)[0].id, {"approved": True})
        clock.advance(milliseconds=100)
        locked_at = clock.now()
        [locked] = flow.external_task_service.fetch_and_lock("worker-2", {"payments": 45_000})
        assert locked.process_instance_id == middle
        flow.runtime_service.set_variables(middle, LONG_VARIABLES)
        clock.advance(milliseconds=250)

        started["rejected"] = clock.now()
        rejected = flow.start_process_instance("order", {"approved": False}).id
        clock.advance(milliseconds=4321)
        flow.complete_task(flow.tasks(process_instance_id=rejected)[0].id)
        clock.advance(seconds=1)

        return Run(
            flow=flow,
            clock=clock,
            sql=sql,
            definitions=[d.process_definitions[0].id for d in (first, second)],
            deployments=[first.id, second.id],
            done=done,
            middle=middle,
            rejected=rejected,
            started=started,
            locked_at=locked_at,
        )

    # -- repository ------------------------------------------------------------------------

    def test_definitions_deployments_and_resources(self, run: Run) -> None:
        procdefs = run.rows(
            "select ID_, KEY_, VERSION_, DEPLOYMENT_ID_, RESOURCE_NAME_, NAME_, HISTORY_TTL_, "
            "SUSPENSION_STATE_ from ACT_RE_PROCDEF where KEY_ = :k order by VERSION_",
            k="order",
        )
        assert [(p["ID_"], p["KEY_"], p["VERSION_"], p["DEPLOYMENT_ID_"]) for p in procdefs] == [
            (run.definitions[0], "order", 1, run.deployments[0]),
            (run.definitions[1], "order", 2, run.deployments[1]),
        ]
        assert all(p["ID_"].startswith(f"order:{p['VERSION_']}:") for p in procdefs)
        assert [(p["NAME_"], p["HISTORY_TTL_"], p["SUSPENSION_STATE_"]) for p in procdefs] == [
            ("Order", 30, 1)
        ] * 2

        deployments = run.rows(
            "select ID_, NAME_, SOURCE_, DEPLOY_TIME_ from ACT_RE_DEPLOYMENT order by DEPLOY_TIME_"
        )
        assert [(d["ID_"], d["NAME_"], d["SOURCE_"]) for d in deployments] == [
            (run.deployments[0], "orders", "tests"),
            (run.deployments[1], "orders", "tests"),
        ]
        assert millis(deployments[0]["DEPLOY_TIME_"], deployments[1]["DEPLOY_TIME_"]) == 1000

        resources = run.rows(
            "select DEPLOYMENT_ID_, NAME_, BYTES_, TYPE_ from ACT_GE_BYTEARRAY "
            "where DEPLOYMENT_ID_ is not null order by NAME_"
        )
        by_deployment = {r["DEPLOYMENT_ID_"]: r for r in resources}
        assert len(resources) == 2 and set(by_deployment) == set(run.deployments)
        for resource in resources:
            assert resource["TYPE_"] == 1
            assert blob(resource["BYTES_"]) == MODEL.encode()
        assert by_deployment[run.deployments[1]]["NAME_"] == "order.bpmn"
        assert [
            p["PROC_DEF_ID_"] for p in run.rows("select PROC_DEF_ID_ from ACT_HI_PROCINST")
        ] == [run.definitions[1]] * 3

    # -- history ---------------------------------------------------------------------------

    def test_process_instance_history(self, run: Run) -> None:
        rows = {
            r["ID_"]: r
            for r in run.rows(
                "select ID_, PROC_INST_ID_, BUSINESS_KEY_, PROC_DEF_KEY_, STATE_, START_TIME_, "
                "END_TIME_, DURATION_, START_ACT_ID_, END_ACT_ID_, ROOT_PROC_INST_ID_, "
                "DELETE_REASON_ from ACT_HI_PROCINST"
            )
        }
        done, middle, rejected = rows[run.done], rows[run.middle], rows[run.rejected]
        assert (done["STATE_"], done["BUSINESS_KEY_"], done["END_ACT_ID_"]) == (
            "COMPLETED",
            "order-A",
            "done",
        )
        assert (middle["STATE_"], middle["END_TIME_"], middle["DURATION_"]) == (
            "ACTIVE",
            None,
            None,
        )
        assert (rejected["STATE_"], rejected["END_ACT_ID_"]) == ("COMPLETED", "rejected")
        for key, row in (("done", done), ("middle", middle), ("rejected", rejected)):
            assert row["PROC_INST_ID_"] == row["ID_"] == row["ROOT_PROC_INST_ID_"]
            assert (row["PROC_DEF_KEY_"], row["START_ACT_ID_"]) == ("order", "start")
            assert row["DELETE_REASON_"] is None
            assert at(row["START_TIME_"]) == naive(run.started[key])
        # start 1250 later, review after 2345 + 1111, external task 500 + 2020, sign 3003 later
        assert done["DURATION_"] == millis(done["START_TIME_"], done["END_TIME_"])
        assert done["DURATION_"] == 1250 + 2345 + 1111 + 500 + 2020 + 3003
        assert (
            rejected["DURATION_"] == millis(rejected["START_TIME_"], rejected["END_TIME_"]) == 4321
        )

    def test_activity_instance_history(self, run: Run) -> None:
        query = (
            "select ID_, ACT_ID_, ACT_TYPE_, ACT_NAME_, START_TIME_, END_TIME_, DURATION_, "
            "ACT_INST_STATE_, TASK_ID_, ASSIGNEE_, PARENT_ACT_INST_ID_, EXECUTION_ID_ "
            "from ACT_HI_ACTINST where PROC_INST_ID_ = :p order by START_TIME_, SEQUENCE_COUNTER_"
        )
        done = run.rows(query, p=run.done)
        assert Counter((r["ACT_ID_"], r["ACT_TYPE_"]) for r in done) == Counter(
            {
                ("start", "startEvent"): 1,
                ("review", "userTask"): 1,
                ("decision", "exclusiveGateway"): 1,
                ("fork", "parallelGateway"): 1,
                ("sign", "userTask"): 1,
                ("charge", "serviceTask"): 1,
                ("join", "parallelGateway"): 2,  # one per arriving token, as in Camunda
                ("done", "noneEndEvent"): 1,
            }
        )
        order = [r["ACT_ID_"] for r in done]
        assert order[:4] == ["start", "review", "decision", "fork"]
        assert sorted(order[4:6]) == ["charge", "sign"]
        assert order[6:] == ["join", "join", "done"]
        for row in done:
            assert row["END_TIME_"] is not None, row
            assert row["DURATION_"] == millis(row["START_TIME_"], row["END_TIME_"])
            # 1 = scopeComplete: the end event that completes the process; 0 = default
            assert row["ACT_INST_STATE_"] == (1 if row["ACT_ID_"] == "done" else 0), row
            assert row["PARENT_ACT_INST_ID_"] == run.done
            assert row["ID_"].startswith(row["ACT_ID_"] + ":")
        by_id = {r["ACT_ID_"]: r for r in done}
        assert by_id["review"]["DURATION_"] == 1250 + 2345 + 1111
        assert by_id["review"]["ASSIGNEE_"] == "alice"
        assert by_id["review"]["ACT_NAME_"] == "Review order"
        assert by_id["charge"]["DURATION_"] == 500 + 2020
        assert by_id["sign"]["DURATION_"] == 500 + 2020 + 3003
        tasks = {t["TASK_DEF_KEY_"]: t["ID_"] for t in self._tasks(run, run.done)}
        assert (by_id["review"]["TASK_ID_"], by_id["sign"]["TASK_ID_"]) == (
            tasks["review"],
            tasks["sign"],
        )
        assert by_id["charge"]["TASK_ID_"] is None

        middle = run.rows(query, p=run.middle)
        open_ = sorted(r["ACT_ID_"] for r in middle if r["END_TIME_"] is None)
        assert open_ == ["charge", "sign"]
        assert all(r["DURATION_"] is None for r in middle if r["END_TIME_"] is None)
        assert sorted(r["ACT_ID_"] for r in middle if r["END_TIME_"] is not None) == [
            "decision",
            "fork",
            "review",
            "start",
        ]
        branch_executions = {r["EXECUTION_ID_"] for r in middle if r["END_TIME_"] is None}
        assert len(branch_executions) == 2 and run.middle not in branch_executions

        rejected = run.rows(query, p=run.rejected)
        assert [(r["ACT_ID_"], r["ACT_TYPE_"]) for r in rejected][:2] == [
            ("start", "startEvent"),
            ("review", "userTask"),
        ]
        assert sorted((r["ACT_ID_"], r["ACT_TYPE_"]) for r in rejected[2:]) == [
            ("decision", "exclusiveGateway"),
            ("rejected", "noneEndEvent"),
        ]

    @staticmethod
    def _tasks(run: Run, process_instance_id: str) -> list[dict[str, Any]]:
        return run.rows(
            "select ID_, TASK_DEF_KEY_, NAME_, ASSIGNEE_, START_TIME_, END_TIME_, DURATION_, "
            "DELETE_REASON_, TASK_STATE_, PROC_DEF_ID_, ACT_INST_ID_ from ACT_HI_TASKINST "
            "where PROC_INST_ID_ = :p order by START_TIME_",
            p=process_instance_id,
        )

    def test_task_history(self, run: Run) -> None:
        done = self._tasks(run, run.done)
        assert [(t["TASK_DEF_KEY_"], t["NAME_"]) for t in done] == [
            ("review", "Review order"),
            ("sign", "Sign contract"),
        ]
        for task in done:
            assert (task["DELETE_REASON_"], task["TASK_STATE_"]) == ("completed", "Completed")
            assert task["DURATION_"] == millis(task["START_TIME_"], task["END_TIME_"]) > 0
            assert task["PROC_DEF_ID_"] == run.definitions[1]
            assert task["ACT_INST_ID_"].startswith(task["TASK_DEF_KEY_"] + ":")
        assert [t["ASSIGNEE_"] for t in done] == ["alice", None]

        middle = self._tasks(run, run.middle)
        assert [(t["TASK_DEF_KEY_"], t["DELETE_REASON_"]) for t in middle] == [
            ("review", "completed"),
            ("sign", None),
        ]
        assert (middle[1]["END_TIME_"], middle[1]["DURATION_"]) == (None, None)
        [open_task] = run.rows(
            "select ID_, NAME_, TASK_DEF_KEY_, EXECUTION_ID_, PRIORITY_, SUSPENSION_STATE_ "
            "from ACT_RU_TASK where PROC_INST_ID_ = :p",
            p=run.middle,
        )
        assert open_task["ID_"] == middle[1]["ID_"]
        assert (open_task["TASK_DEF_KEY_"], open_task["PRIORITY_"]) == ("sign", 50)
        assert open_task["SUSPENSION_STATE_"] == 1

    # -- variables -------------------------------------------------------------------------

    def _assert_typed(
        self,
        run: Run,
        rows: list[dict[str, Any]],
        type_column: str,
        expected: dict[str, tuple[str, dict[str, Any]]],
        bytearray_type: int,
    ) -> None:
        assert sorted(r["NAME_"] for r in rows) == sorted(expected)
        for row in rows:
            name = row["NAME_"]
            serializer, columns = expected[name]
            assert row[type_column] == serializer, name
            for column in ("TEXT_", "TEXT2_", "LONG_", "DOUBLE_"):
                assert row[column] == columns.get(column), (name, column, row[column])
            if "BYTES" not in columns:
                assert row["BYTEARRAY_ID_"] is None, name
                continue
            [stored] = run.rows(
                "select BYTES_, TYPE_, NAME_ from ACT_GE_BYTEARRAY where ID_ = :id",
                id=row["BYTEARRAY_ID_"],
            )
            assert (stored["TYPE_"], stored["NAME_"]) == (bytearray_type, name)
            data = blob(stored["BYTES_"])
            want = columns["BYTES"]
            assert (data if isinstance(want, bytes) else json.loads(data)) == want, name

    def test_runtime_variables_typed_storage(self, run: Run) -> None:
        rows = run.rows(
            "select NAME_, TYPE_, TEXT_, TEXT2_, LONG_, DOUBLE_, BYTEARRAY_ID_, EXECUTION_ID_, "
            "VAR_SCOPE_, TASK_ID_ from ACT_RU_VARIABLE where PROC_INST_ID_ = :p",
            p=run.middle,
        )
        self._assert_typed(run, rows, "TYPE_", expected_columns(), bytearray_type=2)
        for row in rows:
            assert row["EXECUTION_ID_"] == row["VAR_SCOPE_"] == run.middle
            assert row["TASK_ID_"] is None

    def test_historic_variables_typed_storage(self, run: Run) -> None:
        query = (
            "select ID_, NAME_, VAR_TYPE_, TEXT_, TEXT2_, LONG_, DOUBLE_, BYTEARRAY_ID_, STATE_ "
            "from ACT_HI_VARINST where PROC_INST_ID_ = :p"
        )
        done = run.rows(query, p=run.done)
        self._assert_typed(run, done, "VAR_TYPE_", expected_columns("updated"), bytearray_type=3)
        middle = run.rows(query, p=run.middle)
        self._assert_typed(run, middle, "VAR_TYPE_", expected_columns(), bytearray_type=3)
        assert {r["STATE_"] for r in done + middle} == {"CREATED"}

    def test_variable_updates_in_detail_history(self, run: Run) -> None:
        details = run.rows(
            "select ID_, TYPE_, NAME_, VAR_TYPE_, VAR_INST_ID_, TEXT_, INITIAL_, TIME_ "
            "from ACT_HI_DETAIL where PROC_INST_ID_ = :p order by TIME_",
            p=run.done,
        )
        sets = [e for e in run.flow.events(run.done) if e.type == "VariableSet"]
        assert len(details) == len(sets) == len(expected_columns()) + 1  # `text` twice
        assert {d["TYPE_"] for d in details} == {"VariableUpdate"}
        assert Counter(d["NAME_"] for d in details) == Counter(
            {**dict.fromkeys(expected_columns(), 1), "text": 2}
        )
        text = [d for d in details if d["NAME_"] == "text"]
        assert [(flag(d["INITIAL_"]), d["TEXT_"]) for d in text] == [
            (True, "hello"),
            (False, "updated"),
        ]
        assert text[0]["VAR_INST_ID_"] == text[1]["VAR_INST_ID_"]
        assert at(text[0]["TIME_"]) == naive(run.started["done"])
        assert all(flag(d["INITIAL_"]) for d in details if d["NAME_"] != "text")
        variables = {
            r["ID_"]: r["NAME_"]
            for r in run.rows(
                "select ID_, NAME_ from ACT_HI_VARINST where PROC_INST_ID_ = :p", p=run.done
            )
        }
        assert all(variables[d["VAR_INST_ID_"]] == d["NAME_"] for d in details)
        for name, want in (("blob", BLOB), ("doc", DOC)):
            [stored] = run.rows(
                "select b.BYTES_, b.TYPE_ from ACT_HI_DETAIL d "
                "join ACT_GE_BYTEARRAY b on b.ID_ = d.BYTEARRAY_ID_ "
                "where d.PROC_INST_ID_ = :p and d.NAME_ = :n",
                p=run.done,
                n=name,
            )
            data = blob(stored["BYTES_"])
            assert stored["TYPE_"] == 3
            assert (data if isinstance(want, bytes) else json.loads(data)) == want

    # -- runtime ---------------------------------------------------------------------------

    def test_candidate_identity_links(self, run: Run) -> None:
        [task] = run.rows("select ID_ from ACT_RU_TASK where PROC_INST_ID_ = :p", p=run.middle)
        links = run.rows(
            "select TYPE_, USER_ID_, GROUP_ID_, TASK_ID_ from ACT_RU_IDENTITYLINK "
            "where TASK_ID_ = :t",
            t=task["ID_"],
        )
        assert Counter((lk["TYPE_"], lk["USER_ID_"], lk["GROUP_ID_"]) for lk in links) == Counter(
            [
                ("candidate", "carol", None),
                ("candidate", None, "legal"),
                ("candidate", None, "finance"),
            ]
        )
        # the links of completed tasks left with them: only the open task's remain
        everything = run.rows("select TASK_ID_ from ACT_RU_IDENTITYLINK")
        assert {lk["TASK_ID_"] for lk in everything} == {task["ID_"]}

    def test_external_task_after_fetch_and_lock(self, run: Run) -> None:
        [ext] = run.rows(
            "select TOPIC_NAME_, WORKER_ID_, LOCK_EXP_TIME_, ACT_ID_, EXECUTION_ID_, RETRIES_, "
            "PROC_DEF_KEY_, SUSPENSION_STATE_, PRIORITY_ from ACT_RU_EXT_TASK "
            "where PROC_INST_ID_ = :p",
            p=run.middle,
        )
        assert (ext["TOPIC_NAME_"], ext["WORKER_ID_"], ext["ACT_ID_"]) == (
            "payments",
            "worker-2",
            "charge",
        )
        assert at(ext["LOCK_EXP_TIME_"]) == naive(run.locked_at) + timedelta(milliseconds=45_000)
        assert (ext["RETRIES_"], ext["PROC_DEF_KEY_"], ext["SUSPENSION_STATE_"]) == (
            None,
            "order",
            1,
        )
        assert ext["PRIORITY_"] == 0
        [charge] = run.rows(
            "select ID_ from ACT_RU_EXECUTION where PROC_INST_ID_ = :p and ACT_ID_ = 'charge'",
            p=run.middle,
        )
        assert ext["EXECUTION_ID_"] == charge["ID_"]

    def test_execution_tree_while_forked(self, run: Run) -> None:
        rows = run.rows(
            "select ID_, PARENT_ID_, PROC_INST_ID_, ACT_ID_, BUSINESS_KEY_, IS_ACTIVE_, "
            "IS_CONCURRENT_, IS_SCOPE_, PROC_DEF_ID_ from ACT_RU_EXECUTION "
            "where PROC_INST_ID_ = :p",
            p=run.middle,
        )
        [root] = [r for r in rows if r["PARENT_ID_"] is None]
        assert root["ID_"] == run.middle
        assert root["BUSINESS_KEY_"] == "order-B"
        assert (flag(root["IS_CONCURRENT_"]), flag(root["IS_SCOPE_"])) == (False, True)
        assert not flag(root["IS_ACTIVE_"])  # it waits for its concurrent children
        children = sorted(
            (r for r in rows if r["PARENT_ID_"] is not None), key=lambda r: r["ACT_ID_"]
        )
        assert [(c["ACT_ID_"], c["PARENT_ID_"]) for c in children] == [
            ("charge", run.middle),
            ("sign", run.middle),
        ]
        for child in children:
            assert flag(child["IS_CONCURRENT_"]) and not flag(child["IS_SCOPE_"])
            assert flag(child["IS_ACTIVE_"])
            assert child["BUSINESS_KEY_"] is None
        assert {r["PROC_DEF_ID_"] for r in rows} == {run.definitions[1]}
        [task] = run.rows(
            "select EXECUTION_ID_ from ACT_RU_TASK where PROC_INST_ID_ = :p", p=run.middle
        )
        assert task["EXECUTION_ID_"] == children[1]["ID_"]

    def test_runtime_rows_gone_after_the_end(self, run: Run) -> None:
        for ended in (run.done, run.rejected):
            for table in ("ACT_RU_EXECUTION", "ACT_RU_TASK", "ACT_RU_VARIABLE", "ACT_RU_EXT_TASK"):
                count = run.rows(
                    f"select count(*) as N from {table} where PROC_INST_ID_ = :p", p=ended
                )[0]["N"]
                assert count == 0, (table, ended)
            runtime_blobs = run.rows(
                "select ID_ from ACT_GE_BYTEARRAY where TYPE_ = 2 and ROOT_PROC_INST_ID_ = :p",
                p=ended,
            )
            assert runtime_blobs == []
        # the middle instance still has its runtime value rows: one per Bytes/Json variable
        live_blobs = run.rows(
            "select NAME_ from ACT_GE_BYTEARRAY where TYPE_ = 2 and ROOT_PROC_INST_ID_ = :p",
            p=run.middle,
        )
        assert sorted(b["NAME_"] for b in live_blobs) == ["blob", "doc"]

    # -- the log agrees with the tables ----------------------------------------------------

    def test_verify_finds_no_problems(self, run: Run) -> None:
        report = run.flow.verify()
        assert report.problems == []
        assert report.streams_checked == 3
        assert report.rows_compared > 50

    def test_replay_equals_live_state_and_goes_back_in_time(self, run: Run) -> None:
        flow = run.flow
        for instance in (run.done, run.middle, run.rejected):
            assert flow.replay(instance) == flow._repository.cache[instance].state
        events = flow.events(run.middle)
        started = max(e.position for e in events if e.command_type == "StartProcessInstance")
        then = flow.replay(run.middle, until_position=started)
        assert [t.task_definition_key for t in then.tasks.values()] == ["review"]
        assert then.external_tasks == {}
        now = flow.replay(run.middle)
        assert [t.task_definition_key for t in now.tasks.values()] == ["sign"]
        assert [x.activity_id for x in now.external_tasks.values()] == ["charge"]
        # positions are global: the instance's own events are not numbered from one
        assert events[0].position > 1 and events[0].stream_version == 1

    # -- two engines (nodes) on one database ----------------------------------------------

    def test_concurrent_deployments_on_two_engines_get_distinct_versions(
        self, url: str, flow: Engine, clock: ControllableClock, sql: sa.Engine
    ) -> None:
        with Engine(url, clock=clock) as other:
            barrier = threading.Barrier(2)

            def deploy_three(engine: Engine) -> list[int]:
                barrier.wait()
                return [
                    engine.deploy(MODEL, "orders").process_definitions[0].version for _ in "abc"
                ]

            with ThreadPoolExecutor(2) as pool:
                versions = list(pool.map(deploy_three, (flow, other)))
        assert sorted(versions[0] + versions[1]) == [1, 2, 3, 4, 5, 6]
        with sql.connect() as conn:
            stored = conn.execute(
                sa.text(
                    "select VERSION_ from ACT_RE_PROCDEF where KEY_ = 'order' order by VERSION_"
                )
            ).scalars()
            assert list(stored) == [1, 2, 3, 4, 5, 6]

    def test_two_engines_completing_both_branches_at_once_join_once(
        self, url: str, flow: Engine, clock: ControllableClock, sql: sa.Engine
    ) -> None:
        flow.deploy(MODEL, "orders")
        instance = flow.start_process_instance("order", {"approved": True}).id
        flow.complete_task(flow.tasks(process_instance_id=instance)[0].id)
        [locked] = flow.external_task_service.fetch_and_lock("worker-1", {"payments": 30_000})
        sign = flow.tasks(process_instance_id=instance)[0].id
        with Engine(url, clock=clock) as other:
            # both engines now hold the forked state: the later writer must detect the conflict
            assert other.runtime_service.activity_instance_tree(
                instance
            ) == flow.runtime_service.activity_instance_tree(instance)
            barrier = threading.Barrier(2)

            def complete(step: int) -> None:
                barrier.wait()
                if step == 0:
                    flow.complete_task(sign)
                else:
                    other.external_task_service.complete(locked.id, "worker-1")

            with ThreadPoolExecutor(2) as pool:
                list(pool.map(complete, (0, 1)))
        with sql.connect() as conn:
            state = conn.execute(
                sa.text("select STATE_ from ACT_HI_PROCINST where ID_ = :p"), {"p": instance}
            ).scalar_one()
            ends = conn.execute(
                sa.text(
                    "select ACT_ID_, count(*) from ACT_HI_ACTINST where PROC_INST_ID_ = :p "
                    "and ACT_ID_ in ('join', 'done') group by ACT_ID_ order by ACT_ID_"
                ),
                {"p": instance},
            ).all()
            left = conn.execute(
                sa.text("select count(*) from ACT_RU_EXECUTION where PROC_INST_ID_ = :p"),
                {"p": instance},
            ).scalar_one()
        assert state == "COMPLETED"
        assert [tuple(r) for r in ends] == [("done", 1), ("join", 2)]
        assert left == 0
        with Engine(url, clock=clock) as fresh:  # no cache: log against tables only
            assert fresh.verify().problems == []

    def test_a_second_engine_sees_the_changes_of_the_first(
        self, url: str, flow: Engine, clock: ControllableClock
    ) -> None:
        flow.deploy(MODEL, "orders")
        instance = flow.start_process_instance("order", {"approved": True}).id
        with Engine(url, clock=clock) as other:
            before = other.runtime_service.activity_instance_tree(instance)
            assert [a.activity_id for a in before.child_activity_instances] == ["review"]
            flow.complete_task(flow.tasks(process_instance_id=instance)[0].id)
            assert [t.task_definition_key for t in other.tasks(process_instance_id=instance)] == [
                "sign"
            ]
            after = other.runtime_service.activity_instance_tree(instance)
            assert sorted(a.activity_id for a in after.child_activity_instances) == [
                "charge",
                "sign",
            ]
            assert other.verify().problems == []

    def test_fetch_and_lock_sees_long_variables(self, flow: Engine) -> None:
        flow.deploy(MODEL, "orders")
        instance = flow.start_process_instance("order", {"approved": True, **LONG_VARIABLES}).id
        flow.complete_task(flow.tasks(process_instance_id=instance)[0].id)
        [locked] = flow.external_task_service.fetch_and_lock("worker-1", {"payments": 30_000})
        assert locked.variables["five"] == 5
        assert locked.variables["big"] == 2**40


class TestProjectionsSQLite(ProjectionContract):
    kind = "sqlite"


class TestProjectionsPostgreSQL(ProjectionContract):
    kind = "postgresql"


class TestProjectionsMariaDB(ProjectionContract):
    kind = "mariadb"
