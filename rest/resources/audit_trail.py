"""flowledger extensions for auditors and time-travel front ends: an instance's events, its
timeline (with each commit's hash-chain status), its state at any point of the log, its trail
(activities passed, flows taken), what changed between two points, why an event happened (with
the conditions that chose the path), its audit package as a download; the log's anchor and its
verification, at once or as a background task. Served under `/flowledger/v1` (rest/app.py),
never under `/engine-rest` nor in its OpenAPI document: Camunda clients do not see them.

Thin: parse the parameters, ask the engine's audit service, convert its answer. Replaying,
describing and diffing live in `core.audit_trail`, `core.instance_view`, `core.instance_trail`
and `core.why_conditions`, not here.
"""

from __future__ import annotations

import os
import tempfile
from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar import get, post
from litestar.background_tasks import BackgroundTask
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody
from litestar.response import File

from flowledger.core import InvalidValue, NotFound, audit_trail, instance_trail, views
from flowledger.core.instance_view import Change
from flowledger.core.why_conditions import ConditionCheck
from flowledger.engine import Engine
from flowledger.engine.audit.inspection import PointInTime
from flowledger.engine.audit.verify_tasks import VerifyTask

from ..dto import FIRST, Added, derived, to_dto
from ..errors import RestError, invalid
from ..formats import format_date, parse_date
from ..listing import AnyRequest
from ..params import page, paging

INSTANCE = "/process-instance/{id:str}"
STARTED = "ProcessInstanceStarted"  # the type of a process instance stream's first event


# -- DTOs ----------------------------------------------------------------------------------------


@derived(views.RecordedEvent, omit=("stream_id",))
class EventDto(msgspec.Struct):
    """One recorded event of the instance; `payload` is the event at its current schema version
    (an older stored version is read through its upcaster)."""


@derived(audit_trail.TimelineEntry)
class TimelineEntryDto(msgspec.Struct):
    """One step of the instance's timeline: when, where, what, who, the variables it changed."""


@derived(ConditionCheck)
class ConditionDto(msgspec.Struct):
    """A condition on a flow leaving `gatewayId`, evaluated again on the state of then:
    `result` true/false, or "not evaluated: <why>"; `variables` it read, with their values."""


@derived(audit_trail.Cause, omit=("conditions",), add=(Added("conditions", list[ConditionDto]),))
class CauseDto(msgspec.Struct):
    """One link of the chain of commands behind an event, with the conditions that chose the
    paths its token moves took."""


@derived(instance_trail.ActivityPass)
class ActivityPassDto(msgspec.Struct):
    """An activity the instance entered `count` times; `active` while a token is in it."""


class TrailDto(msgspec.Struct, rename="camel"):
    """What the instance passed up to `position`: activities and the sequence flows taken."""

    position: int
    activities: list[ActivityPassDto]
    sequence_flows: list[str]


class VerifyTaskIdDto(msgspec.Struct):
    id: str


class VerifyTaskDto(msgspec.Struct):
    """A background verify: `checked` of `total` commits read; `report` once `done`."""

    id: str
    state: str
    checked: int
    total: int
    report: VerificationReportDto | None
    error: str | None = None


@derived(views.LogHead)
class LogHeadDto(msgspec.Struct):
    """The log's anchor (`POSITION:DIGEST`) and what the log's own checks found."""


@derived(views.VerificationReport, add=(Added("ok", bool, False, after=FIRST),))
class VerificationReportDto(msgspec.Struct):
    """What verification found; `ok` when `problems` is empty."""


class PointDto(msgspec.Struct, rename="camel"):
    """A point of the instance's log: the position of its event there, and when it was recorded."""

    position: int
    recorded_at: str | None


class StateDto(msgspec.Struct, rename="camel"):
    """The instance as it was at a point: `instance` is core.instance_view's InstanceView."""

    position: int
    recorded_at: str | None
    instance: dict[str, Any]


class ChangeDto(msgspec.Struct):
    """One difference (core.instance_view.Change): `section` names the instance's field it is
    in (`instance` for the instance's own fields); `before`/`after` hold the fields that differ,
    or the whole item added or removed."""

    section: str
    key: str
    kind: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


class DiffDto(msgspec.Struct, rename={"from_": "from"}):
    """What changed between two points of the instance's log, in the order core's diff gives."""

    from_: PointDto
    to: PointDto
    changes: list[ChangeDto]


class VerifyDto(msgspec.Struct):
    """`against`: an anchor kept from an earlier head or verify (`POSITION:DIGEST`)."""

    against: str | None = None


# -- conversions ---------------------------------------------------------------------------------


def _camel(name: str) -> str:
    """`task_definition_key` → `taskDefinitionKey`, as msgspec's `rename="camel"` writes it."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _wire(value: Any) -> Any:
    """A view as JSON: its fields camelCase, dates as Camunda writes them; the keys of a map
    (variable names, ids) and of a variable's value stay as they are."""
    if isinstance(value, msgspec.Struct):
        return {_camel(f): _wire(getattr(value, f)) for f in value.__struct_fields__}
    if isinstance(value, datetime):
        return format_date(value)
    if isinstance(value, dict):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_wire(item) for item in value]
    return value


def _fields(side: dict[str, Any] | None) -> dict[str, Any] | None:
    """One side of a change: view field names → values, the names camelCase."""
    return None if side is None else {_camel(name): _wire(value) for name, value in side.items()}


def _change(change: Change) -> ChangeDto:
    before, after = _fields(change.before), _fields(change.after)
    return ChangeDto(_camel(change.section), change.key, change.kind, before, after)


# -- parameters ----------------------------------------------------------------------------------


def _whole_number(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _point(text: str, parameter: str) -> dict[str, Any]:
    """`at`, `from`, `to`: a log position, or a moment (ISO 8601 or Camunda's date format)."""
    if _whole_number(text):
        return {"position": int(text)}
    try:
        return {"moment": parse_date(text, parameter).astimezone(UTC)}
    except (RestError, OverflowError):
        raise invalid(
            f"Cannot set query parameter '{parameter}' to value '{text}': expected a log "
            "position (a whole number) or a date such as 2026-12-04T10:00:00Z or "
            "2026-12-04T10:00:00.000+0000"
        ) from None


def _position(text: str, parameter: str, where: str = "query") -> int:
    if not _whole_number(text):
        raise invalid(
            f"Cannot set {where} parameter '{parameter}' to value '{text}': expected a log "
            "position (a whole number)"
        )
    return int(text)


def _state_at(
    engine: Engine, id: str, point: dict[str, Any], parameter: str, text: str | None
) -> PointInTime:
    """The engine's PointInTime at `point` (now when empty); a point outside the instance's log
    is the client's mistake, named by its parameter (an unknown instance stays a 404)."""
    try:
        return engine.audit_service.state_at(id, **point)
    except InvalidValue as exc:
        raise invalid(
            f"Cannot set query parameter '{parameter}' to value '{text}': {exc}"
        ) from None


# -- the instance's log --------------------------------------------------------------------------


@get(f"{INSTANCE}/events", sync_to_thread=True)
def get_events(
    engine: NamedDependency[Engine], id: FromPath[str], request: AnyRequest
) -> list[EventDto]:
    """The instance's events in log order; `afterPosition` and `maxResults` page them."""
    params = request.query_params
    after = params.get("afterPosition")
    first, max_results = paging(params)
    after_position = 0 if not after else _position(after, "afterPosition")
    try:
        recorded = engine.events(id)
    except NotFound:
        raise NotFound("Process instance", id) from None
    if recorded[0].type != STARTED:
        raise NotFound("Process instance", id, "that is a deployment")
    later = [event for event in recorded if event.position > after_position]
    return [to_dto(EventDto, event) for event in page(later, first, max_results)]


@get(f"{INSTANCE}/timeline", sync_to_thread=True)
def get_timeline(engine: NamedDependency[Engine], id: FromPath[str]) -> list[TimelineEntryDto]:
    return [to_dto(TimelineEntryDto, entry) for entry in engine.audit_service.timeline(id)]


@get(f"{INSTANCE}/state", sync_to_thread=True)
def get_state(engine: NamedDependency[Engine], id: FromPath[str], request: AnyRequest) -> StateDto:
    """The instance as it was at `at` (a position or a moment; now without it); `position` is
    the same as `at` given a position."""
    params = request.query_params
    name = "position" if params.get("position") and not params.get("at") else "at"
    at = params.get(name) or None
    if name == "position" and at is not None:
        point: dict[str, Any] = {"position": _position(at, "position")}
    else:
        point = {} if at is None else _point(at, "at")
    then = _state_at(engine, id, point, name, at)
    view = _wire(then.view())
    return StateDto(then.position, format_date(then.recorded_at), view)


@get(f"{INSTANCE}/trail", sync_to_thread=True)
def get_trail(engine: NamedDependency[Engine], id: FromPath[str], request: AnyRequest) -> TrailDto:
    """The activities the instance entered and the flows it took up to `position` (now
    without it), for marking them on its diagram."""
    text = request.query_params.get("position") or None
    position = None if text is None else _position(text, "position")
    try:
        found = engine.audit_service.trail(id, position)
    except InvalidValue as exc:
        raise invalid(f"Cannot set query parameter 'position' to value '{text}': {exc}") from None
    return TrailDto(
        found.position,
        [to_dto(ActivityPassDto, activity) for activity in found.activities],
        found.sequence_flows,
    )


@get(f"{INSTANCE}/diff", sync_to_thread=True)
def get_diff(engine: NamedDependency[Engine], id: FromPath[str], request: AnyRequest) -> DiffDto:
    """What changed from `from` to `to` (each a position or a moment); across the instance's
    end, its variables are those it ended with."""
    params = request.query_params
    for name in ("from", "to"):
        if not params.get(name):
            raise invalid(f"Query parameter '{name}' is required: a log position or a date")
    start, end = _point(params["from"], "from"), _point(params["to"], "to")
    # each point checked on its own, so that a bad one is named by its parameter
    a = _state_at(engine, id, start, "from", params["from"])
    b = _state_at(engine, id, end, "to", params["to"])
    _a, _b, changes = engine.audit_service.diff(
        id, {"position": a.position}, {"position": b.position}
    )
    return DiffDto(
        PointDto(a.position, format_date(a.recorded_at)),
        PointDto(b.position, format_date(b.recorded_at)),
        [_change(change) for change in changes],
    )


@get(f"{INSTANCE}/why/{{position:str}}", sync_to_thread=True)
def get_why(
    engine: NamedDependency[Engine], id: FromPath[str], position: FromPath[str]
) -> list[CauseDto]:
    """The command that wrote the event at `position`, then the commands behind it."""
    at = _position(position, "position", where="path")
    try:
        chain = engine.audit_service.why(id, at)
    except InvalidValue as exc:
        raise invalid(
            f"Cannot set path parameter 'position' to value '{position}': {exc}"
        ) from None
    return [
        to_dto(CauseDto, cause, conditions=[to_dto(ConditionDto, c) for c in cause.conditions])
        for cause in chain
    ]


@get(f"{INSTANCE}/package", sync_to_thread=True)
def get_package(engine: NamedDependency[Engine], id: FromPath[str]) -> File:
    """The instance's audit package (what `flowledger export` writes) as a download: written
    to a temporary file, sent in chunks, removed once sent."""
    handle, name = tempfile.mkstemp(prefix="flowledger-package-", suffix=".zip")
    os.close(handle)
    try:
        engine.audit_service.export_instance(id, name)
    except BaseException:
        os.unlink(name)
        raise
    return File(
        name,
        filename=f"instance-{id}.zip",
        media_type="application/zip",
        content_disposition_type="attachment",
        background=BackgroundTask(os.unlink, name),
    )


# -- the whole log -------------------------------------------------------------------------------


@get("/log/head", sync_to_thread=True)
def get_log_head(engine: NamedDependency[Engine]) -> LogHeadDto:
    return to_dto(LogHeadDto, engine.audit_service.head())


@post("/log/verify", status_code=200, sync_to_thread=True)
def verify_log(
    engine: NamedDependency[Engine], data: JSONBody[VerifyDto | None] = None
) -> VerificationReportDto:
    """Verify the log, state and tables (against an anchor when given): 200 whatever is found,
    `ok` false with the `problems`; a malformed anchor is a 400."""
    against = (data or VerifyDto()).against
    try:
        report = engine.verify(expect_anchor=against)
    except InvalidValue as exc:
        if exc.field != "expect_anchor":
            raise
        raise invalid(f"Invalid 'against': {exc}") from None
    return to_dto(VerificationReportDto, report, ok=report.ok)


def _task(task: VerifyTask) -> VerifyTaskDto:
    report = None
    if task.report is not None:
        report = to_dto(VerificationReportDto, task.report, ok=task.report.ok)
    return VerifyTaskDto(task.id, task.state, task.checked, task.total, report, task.error)


@post("/log/verify-tasks", status_code=202, sync_to_thread=True)
def start_verify_task(engine: NamedDependency[Engine]) -> VerifyTaskIdDto:
    """Start a full verify in the background (the running one's id while one runs); read its
    progress and report at `/log/verify-tasks/{id}`."""
    return VerifyTaskIdDto(engine.audit_service.start_verify().id)


@get("/log/verify-tasks/{task_id:str}", sync_to_thread=True)
def get_verify_task(engine: NamedDependency[Engine], task_id: FromPath[str]) -> VerifyTaskDto:
    return _task(engine.audit_service.verify_task(task_id))


routes: list[Any] = [
    get_events,
    get_timeline,
    get_state,
    get_trail,
    get_diff,
    get_why,
    get_package,
    get_log_head,
    verify_log,
    start_verify_task,
    get_verify_task,
]
