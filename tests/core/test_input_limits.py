"""Input the tables cannot hold is refused before anything is written, alike on every database.

Each limit of `core.limits` from the Python API: just below it passes, just above it is refused
with the field and the limit named, and only the command's rejected row reaches the database.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
import sqlalchemy as sa

from flowledger.core import TypedValue, events
from flowledger.core import limits as limits_module
from flowledger.core.errors import InvalidValue, Rejected
from flowledger.core.limits import (
    MAX_BUSINESS_KEY,
    MAX_DELETE_REASON,
    MAX_ERROR_MESSAGE,
    MAX_JSON_NESTING,
    MAX_TEXT,
    MAX_USER_ID,
    MAX_VARIABLE_NAME,
    MAX_VARIABLES_PER_COMMAND,
    MAX_WORKER_ID,
    check_deployment,
    json_nesting_exceeds,
    refuse_nul_in_events,
)
from flowledger.engine import Engine

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">\n'
)
# Starts and ends in one command: what async history used to choke on.
STRAIGHT = (
    HEAD + '<process id="straight" isExecutable="true"><startEvent id="s"/>'
    '<sequenceFlow id="f" sourceRef="s" targetRef="e"/><endEvent id="e"/></process></definitions>'
)
WAIT = (
    HEAD + '<process id="wait" isExecutable="true"><startEvent id="s"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="t"/><userTask id="t"/>'
    '<sequenceFlow id="f2" sourceRef="t" targetRef="e"/><endEvent id="e"/></process></definitions>'
)
EXTERNAL = (
    HEAD + '<process id="ext" isExecutable="true"><startEvent id="s"/>'
    '<sequenceFlow id="f1" sourceRef="s" targetRef="w"/>'
    '<serviceTask id="w" camunda:type="external" camunda:topic="work"/>'
    '<sequenceFlow id="f2" sourceRef="w" targetRef="e"/><endEvent id="e"/></process></definitions>'
)
TABLES = ("event_log", "ACT_RU_EXECUTION", "ACT_RU_VARIABLE", "ACT_RU_TASK", "ACT_RU_EXT_TASK")


@pytest.fixture
def models(engine: Engine) -> None:
    engine.deploy({"straight.bpmn": STRAIGHT, "wait.bpmn": WAIT, "ext.bpmn": EXTERNAL})


def _counts(db_url: str) -> dict[str, int]:
    db = sa.create_engine(db_url)
    try:
        with db.connect() as conn:
            counts = {
                table: int(conn.execute(sa.text(f"select count(*) from {table}")).scalar_one())
                for table in TABLES
            }
            counts["rejected"] = int(
                conn.execute(
                    sa.text("select count(*) from command_log where status = 'rejected'")
                ).scalar_one()
            )
            return counts
    finally:
        db.dispose()


@pytest.fixture
def refused(engine: Engine, db_url: str) -> Callable[..., InvalidValue]:
    """Run a command that must be refused: the error (matching every word given), and nothing
    written but one rejected row in the command log."""

    def run(command: Callable[[], Any], *words: str) -> InvalidValue:
        before = _counts(db_url)
        with pytest.raises(InvalidValue) as caught:
            command()
        message = str(caught.value)
        for word in words:
            assert word in message
        assert "\x00" not in message
        assert _counts(db_url) == before | {"rejected": before["rejected"] + 1}
        return caught.value

    return run


def _task(engine: Engine) -> str:
    instance = engine.start_process_instance("wait")
    return engine.tasks(process_instance_id=instance.id)[0].id


def _locked(engine: Engine, worker: str = "w1") -> str:
    engine.start_process_instance("ext")
    [task] = engine.external_task_service.fetch_and_lock(worker, {"work": 60_000})
    return task.id


# -- text that reaches a column -------------------------------------------------------------------


def test_a_business_key_up_to_255_characters_is_kept(engine: Engine, models: None) -> None:
    key = "k" * MAX_BUSINESS_KEY
    instance = engine.start_process_instance("straight", business_key=key)
    assert engine.history_service.historic_process_instance(instance.id).business_key == key


@pytest.mark.parametrize(
    ("business_key", "words"),
    [
        ("k" * (MAX_BUSINESS_KEY + 1), ("businessKey", "255", "256")),
        ("a\x00b", ("businessKey", "NUL")),
    ],
)
def test_a_business_key_the_column_cannot_hold_is_refused(
    engine: Engine,
    models: None,
    refused: Callable[..., InvalidValue],
    business_key: str,
    words: tuple[str, ...],
) -> None:
    refused(lambda: engine.start_process_instance("straight", business_key=business_key), *words)


def test_variable_names_up_to_255_characters_are_kept(engine: Engine, models: None) -> None:
    name = "n" * MAX_VARIABLE_NAME
    instance = engine.start_process_instance("wait", {name: 1})
    assert engine.runtime_service.get_variables(instance.id) == {name: 1}


@pytest.mark.parametrize(
    ("name", "words"),
    [("n" * (MAX_VARIABLE_NAME + 1), ("Variable name", "255", "256")), ("a\x00", ("NUL",))],
)
def test_a_variable_name_the_column_cannot_hold_is_refused(
    engine: Engine,
    models: None,
    refused: Callable[..., InvalidValue],
    name: str,
    words: tuple[str, ...],
) -> None:
    refused(lambda: engine.start_process_instance("straight", {name: 1}), *words)


def test_string_values_up_to_4000_characters_are_kept(engine: Engine, models: None) -> None:
    instance = engine.start_process_instance("wait", {"s": "x" * MAX_TEXT})
    assert engine.runtime_service.get_variable(instance.id, "s") == "x" * MAX_TEXT


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("x" * (MAX_TEXT + 1), ("'s'", "4000", "4001")),
        ("a\x00b", ("'s'", "NUL")),
        (TypedValue("String", "a\x00b"), ("'s'", "NUL")),
    ],
)
def test_a_string_value_the_column_cannot_hold_is_refused(
    engine: Engine,
    models: None,
    refused: Callable[..., InvalidValue],
    value: Any,
    words: tuple[str, ...],
) -> None:
    refused(lambda: engine.start_process_instance("straight", {"s": value}), *words)


def test_user_ids_up_to_255_characters_are_kept(engine: Engine, models: None) -> None:
    task_id = _task(engine)
    engine.claim(task_id, "u" * MAX_USER_ID)
    assert engine.task_service.task(task_id).assignee == "u" * MAX_USER_ID
    engine.task_service.set_assignee(task_id, "v" * MAX_USER_ID)
    assert engine.task_service.task(task_id).assignee == "v" * MAX_USER_ID


def test_user_ids_the_columns_cannot_hold_are_refused(
    engine: Engine, models: None, refused: Callable[..., InvalidValue]
) -> None:
    task_id = _task(engine)
    too_long = "u" * (MAX_USER_ID + 1)
    refused(lambda: engine.claim(task_id, too_long), "userId", "255")
    refused(lambda: engine.task_service.set_assignee(task_id, too_long), "userId", "255")
    refused(lambda: engine.claim(task_id, "kermit\x00"), "userId", "NUL")
    assert engine.task_service.task(task_id).assignee is None


def test_delete_reasons_up_to_4000_characters_are_kept(engine: Engine, models: None) -> None:
    instance = engine.start_process_instance("wait")
    engine.runtime_service.delete_process_instance(instance.id, "r" * MAX_DELETE_REASON)
    assert (
        engine.history_service.historic_process_instance(instance.id).delete_reason
        == "r" * MAX_DELETE_REASON
    )


def test_a_delete_reason_the_column_cannot_hold_is_refused(
    engine: Engine, models: None, refused: Callable[..., InvalidValue]
) -> None:
    instance = engine.start_process_instance("wait")
    refused(
        lambda: engine.runtime_service.delete_process_instance(
            instance.id, "r" * (MAX_DELETE_REASON + 1)
        ),
        "deleteReason",
        "4000",
    )
    refused(
        lambda: engine.runtime_service.delete_process_instance(instance.id, "\x00"),
        "deleteReason",
        "NUL",
    )
    assert engine.runtime_service.process_instance(instance.id) is not None


# -- external tasks -------------------------------------------------------------------------------


def test_a_worker_id_up_to_255_characters_locks_and_completes(engine: Engine, models: None) -> None:
    worker = "w" * MAX_WORKER_ID
    task_id = _locked(engine, worker)
    engine.external_task_service.complete(task_id, worker)
    assert engine.external_task_service.external_tasks(external_task_id=task_id) == []


def test_a_worker_id_the_column_cannot_hold_is_refused(
    engine: Engine, models: None, refused: Callable[..., InvalidValue]
) -> None:
    task_id = _locked(engine)
    refused(
        lambda: engine.external_task_service.complete(task_id, "w" * (MAX_WORKER_ID + 1)),
        "workerId",
        "255",
    )
    refused(lambda: engine.external_task_service.complete(task_id, "w1\x00"), "workerId", "NUL")


def test_an_error_message_is_cut_to_666_characters_as_camunda_does(
    engine: Engine, models: None
) -> None:
    task_id = _locked(engine)
    engine.external_task_service.handle_failure(task_id, "w1", "e" * 5000, retries=1)
    [task] = engine.external_task_service.external_tasks(external_task_id=task_id)
    assert task.error_message == "e" * MAX_ERROR_MESSAGE


def test_failure_input_the_tables_cannot_hold_is_refused(
    engine: Engine, models: None, refused: Callable[..., InvalidValue]
) -> None:
    task_id = _locked(engine)
    fail = engine.external_task_service.handle_failure
    refused(lambda: fail(task_id, "w1", "boom\x00"), "errorMessage", "NUL")
    refused(lambda: fail(task_id, "w1", "boom", error_details="at\x00"), "errorDetails", "NUL")
    refused(lambda: fail(task_id, "w1", "boom", retries=2**31), "retries", "2147483647")
    refused(lambda: fail(task_id, "w1", "boom", retry_timeout=10**17), "retryTimeout", "9999")
    refused(
        lambda: engine.external_task_service.extend_lock(task_id, "w1", 10**17),
        "newDuration",
        "9999",
    )
    refused(
        lambda: engine.external_task_service.handle_bpmn_error(task_id, "w1", "E" * 256),
        "errorCode",
        "255",
    )


# -- typed values ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (TypedValue("Integer", 7), 7),
        (TypedValue("Integer", 7.0), 7),
        (TypedValue("Integer", "12"), 12),
        (TypedValue("Long", "-5"), -5),
        (TypedValue("Double", "1.5"), 1.5),
        (TypedValue("Double", 2), 2.0),
        (TypedValue("Boolean", "TRUE"), True),
        (TypedValue("String", ""), ""),
        (TypedValue("Bytes", base64.b64encode(b"\x00\x01").decode()), b"\x00\x01"),
        (TypedValue("Bytes", bytearray(b"ab")), b"ab"),
        (
            TypedValue("Date", "2026-12-02T16:31:40.000+0000"),
            datetime(2026, 12, 2, 16, 31, 40, tzinfo=UTC),
        ),
        (TypedValue("Json", '{"a": [1]}'), {"a": [1]}),
        (TypedValue("Null", None), None),
    ],
)
def test_typed_values_of_their_type_are_kept(
    engine: Engine, models: None, value: TypedValue, expected: Any
) -> None:
    instance = engine.start_process_instance("wait", {"v": value})
    assert engine.runtime_service.get_variable(instance.id, "v") == expected


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (TypedValue("Integer", 1.5), ("1.5", "Integer")),
        (TypedValue("Integer", "1_000"), ("Integer",)),
        (TypedValue("Integer", True), ("Integer",)),
        (TypedValue("Short", 40_000), ("range", "Short")),
        (TypedValue("String", {}), ("String", "object")),
        (TypedValue("String", 5), ("String", "number")),
        (TypedValue("Boolean", "yes"), ("Boolean",)),
        (TypedValue("Boolean", 1), ("Boolean",)),
        (TypedValue("Double", "NaN"), ("Double",)),
        (TypedValue("Double", [1.0]), ("Double",)),
        (TypedValue("Date", "tomorrow"), ("Date", "yyyy-MM-dd")),
        (TypedValue("Date", 5), ("Date",)),
        (TypedValue("Bytes", 100_000_000), ("Bytes", "base64")),
        (TypedValue("Bytes", -3), ("Bytes",)),
        (TypedValue("Bytes", 1.5), ("Bytes",)),
        (TypedValue("Bytes", {}), ("Bytes", "object")),
        (TypedValue("Bytes", [1, 2]), ("Bytes", "list")),
        (TypedValue("Bytes", "not base64!"), ("Bytes", "base64")),
        (TypedValue("Json", "{oops"), ("JSON",)),
        (TypedValue("Null", 5), ("Null",)),
    ],
)
def test_typed_values_not_of_their_type_are_refused(
    engine: Engine,
    models: None,
    refused: Callable[..., InvalidValue],
    value: TypedValue,
    words: tuple[str, ...],
) -> None:
    refused(lambda: engine.start_process_instance("straight", {"v": value}), "'v'", *words)


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_json_nested_up_to_the_limit_is_kept(engine: Engine, models: None) -> None:
    instance = engine.start_process_instance("wait", {"deep": _nested(MAX_JSON_NESTING)})
    assert engine.runtime_service.get_variable(instance.id, "deep") == _nested(MAX_JSON_NESTING)


@pytest.mark.parametrize(
    "value",
    [
        _nested(MAX_JSON_NESTING + 1),
        TypedValue("Json", "[" * (MAX_JSON_NESTING + 1) + "]" * (MAX_JSON_NESTING + 1)),
        TypedValue("Object", {"a": _nested(MAX_JSON_NESTING)}),
        # deeper than msgspec can decode at all: a refusal, not a RecursionError
        TypedValue("Json", "[" * 5000 + "]" * 5000),
    ],
)
def test_json_nested_deeper_than_the_limit_is_refused(
    engine: Engine, models: None, refused: Callable[..., InvalidValue], value: Any
) -> None:
    refused(lambda: engine.start_process_instance("straight", {"deep": value}), "'deep'", "100")


# -- variables per command ------------------------------------------------------------------------


def test_more_variables_than_the_limit_in_one_command_are_refused(
    engine: Engine, models: None, refused: Callable[..., InvalidValue]
) -> None:
    many = {f"v{i}": i for i in range(MAX_VARIABLES_PER_COMMAND + 1)}
    limit, over = str(MAX_VARIABLES_PER_COMMAND), str(MAX_VARIABLES_PER_COMMAND + 1)
    refused(lambda: engine.start_process_instance("straight", many), limit, over)


def test_the_variable_limit_counts_every_map_of_a_command(
    engine: Engine,
    models: None,
    refused: Callable[..., InvalidValue],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(limits_module, "MAX_VARIABLES_PER_COMMAND", 3)
    task_id = _task(engine)
    refused(lambda: engine.complete_task(task_id, {"a": 1, "b": 2, "c": 3, "d": 4}), "at most 3")
    engine.complete_task(task_id, {"a": 1, "b": 2, "c": 3})
    ext_id = _locked(engine)
    refused(
        lambda: engine.external_task_service.complete(
            ext_id, "w1", {"a": 1, "b": 2}, {"c": 3, "d": 4}
        ),
        "at most 3",
    )
    engine.external_task_service.complete(ext_id, "w1", {"a": 1, "b": 2}, {"c": 3})


# -- the pure checks ------------------------------------------------------------------------------


def test_deployment_names_sources_and_resource_names_are_checked() -> None:
    check_deployment("n" * 255, "s" * 255, ["r" * 255])
    for name, source, resources, words in (
        ("n" * 256, None, [], ("deployment name", "255")),
        (None, "s" * 256, [], ("deployment source", "255")),
        (None, None, ["r" * 256 + ".bpmn"], ("resource name", "255")),
        ("a\x00", None, [], ("deployment name", "NUL")),
    ):
        with pytest.raises(InvalidValue) as caught:
            check_deployment(name, source, resources)
        assert all(word in str(caught.value) for word in words)


def test_nesting_is_measured_without_recursion() -> None:
    assert not json_nesting_exceeds({"a": [1, {"b": 2}]}, limit=3)
    assert json_nesting_exceeds({"a": [1, {"b": []}]}, limit=3)
    assert json_nesting_exceeds(_nested(100_000))


def _started(business_key: str) -> events.ProcessInstanceStarted:
    return events.ProcessInstanceStarted(
        process_instance_id="p",
        definition_id="d",
        definition_key="k",
        definition_version=1,
        deployment_id="dep",
        business_key=business_key,
        start_activity_id="s",
        time=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_the_commit_backstop_names_the_field_holding_a_nul() -> None:
    bad = [_started("a\x00b")]
    with pytest.raises(Rejected, match=r"ProcessInstanceStarted\.business_key.*NUL"):
        refuse_nul_in_events(msgspec.json.encode(bad), bad)
    # a backslash followed by "u0000" is text, not a NUL: encoded as \\u0000, it passes
    fine = [_started("a\\u0000b")]
    assert b"\\u0000" in msgspec.json.encode(fine)
    refuse_nul_in_events(msgspec.json.encode(fine), fine)


def test_with_async_history_a_refused_start_leaves_the_follower_nothing_to_choke_on(
    db_url: str, clock: Any
) -> None:
    with Engine(db_url, clock=clock, history_mode="async") as engine:
        engine.deploy({"straight.bpmn": STRAIGHT})
        for key in ("k" * (MAX_BUSINESS_KEY + 1), "a\x00b"):
            with pytest.raises(InvalidValue, match="businessKey"):
                engine.start_process_instance("straight", business_key=key)
        instance = engine.start_process_instance("straight", business_key="k" * MAX_BUSINESS_KEY)
        engine.flush_history()
        assert engine.history_service.history_lag() == 0
        assert engine.history_service.historic_process_instance(instance.id).end_time is not None


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda e: e.claim("task\x00id", "kermit"), ("taskId", "NUL")),
        (lambda e: e.complete_task("task\x00id"), ("taskId", "NUL")),
        (lambda e: e.start_process_instance("straight\x00"), ("key", "NUL")),
        (lambda e: e.runtime_service.set_variables("exec\x00", {"a": 1}), ("executionId", "NUL")),
    ],
)
def test_an_id_with_a_nul_character_is_refused_before_any_query(
    engine: Engine,
    models: None,
    refused: Callable[..., InvalidValue],
    call: Callable[[Engine], Any],
    words: tuple[str, ...],
) -> None:
    """From Python an id can hold NUL (REST refuses it in paths): PostgreSQL cannot compare
    such text, so it is refused before a query runs, on every database alike."""
    refused(lambda: call(engine), *words)


def test_a_command_id_the_command_log_cannot_hold_is_refused_and_not_recorded(
    engine: Engine, models: None, db_url: str
) -> None:
    before = _counts(db_url)
    with pytest.raises(InvalidValue, match="command id may hold at most 64 characters"):
        engine.start_process_instance("straight", command_id="c" * 65)
    assert _counts(db_url) == before  # no row can hold it, a rejected one neither
    started = engine.start_process_instance("straight", command_id="c" * 64)
    again = engine.start_process_instance("straight", command_id="c" * 64)
    assert started.id == again.id  # the idempotency key works up to its width
