"""Errors as Camunda's REST API answers them: `{"type": "...Exception", "message": "..."}`.

One table maps the engine's typed errors to Camunda's exception names and statuses; anything
unexpected reaches the client as a plain 500 message; every 5xx is logged here with the request
id: a fault at ERROR with its traceback, a refusal Camunda answers with a 500 (a claimed task, a
form value a constraint refuses) at WARNING.
`error_body` is the same shape for answers given below the application (rest/server.py).
"""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import Request, Response
from litestar.exceptions import ClientException, HTTPException, ValidationException
from sqlalchemy.exc import DataError

from flowledger.core import (
    InvalidValue,
    JobFailure,
    ModelError,
    NotFound,
    ProcessEngineError,
    ProjectionBehind,
    Rejected,
    SchemaMismatch,
    TaskAlreadyClaimed,
)
from flowledger.core.errors import MigrationPlanInvalid
from flowledger.core.instance_migration.instance_validation import MigratingInstanceInvalid
from flowledger.core.limits import MAX_JSON_NESTING
from flowledger.engine import ConcurrencyError
from flowledger.eventlog import CorruptStream

from .migration_plans import (
    MigratingProcessInstanceValidationReportDto,
    MigrationPlanReportDto,
    instance_report_to_dto,
    report_to_dto,
)
from .request_ids import printable, request_id

log = logging.getLogger("flowledger.rest")


class RestError(Exception):
    """An error the REST layer itself raises (bad parameter, unknown resource, ...)."""

    def __init__(self, status: int, type_name: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.type_name = type_name
        self.message = message


def invalid(message: str) -> RestError:
    """400 InvalidRequestException: the request itself is wrong."""
    return RestError(400, "InvalidRequestException", message)


def not_found(message: str) -> RestError:
    """404 InvalidRequestException, as Camunda answers for an unknown id."""
    return RestError(404, "InvalidRequestException", message)


class ErrorBodyDto(msgspec.Struct):
    """What the OpenAPI document says an error answer holds (Camunda's ExceptionDto)."""

    type: str
    message: str


class ExceptionDto(msgspec.Struct, omit_defaults=True):
    type: str
    message: str
    code: int | None = None
    details: dict[str, Any] | None = None


class MigratingProcessInstanceValidationExceptionDto(
    ExceptionDto, omit_defaults=True, rename="camel"
):
    """Camunda's answer to an instance that cannot move by a valid plan."""

    validation_report: MigratingProcessInstanceValidationReportDto | None = None


class MigrationPlanValidationExceptionDto(ExceptionDto, omit_defaults=True, rename="camel"):
    """Camunda's answer to a plan that fails validation: the report beside the message."""

    validation_report: MigrationPlanReportDto | None = None


def _answer(status: int, body: ExceptionDto) -> Response[ExceptionDto]:
    return Response(body, status_code=status, media_type="application/json")


def error_body(type_name: str, message: str) -> bytes:
    """An error answer's JSON body, for code that answers without Litestar."""
    return msgspec.json.encode(ExceptionDto(type_name, message))


def _validation_message(exc: ValidationException) -> str:
    extra = exc.extra if isinstance(exc.extra, list) else []
    parts = []
    for item in extra:
        if isinstance(item, dict):
            key = item.get("key")
            message = item.get("message", "invalid")
            parts.append(f"{key}: {message}" if key else str(message))
    return "; ".join(parts) or str(exc.detail)


def _parse_details(exc: ModelError) -> dict[str, Any]:
    details: dict[str, Any] = {}
    for problem in exc.problems:
        resource = details.setdefault(problem.resource or "", {"errors": [], "warnings": []})
        resource["errors"].append(
            {
                "message": problem.message,
                "line": problem.line,
                "column": None,
                "mainElementId": problem.element_id,
                "elementIds": [problem.element_id] if problem.element_id else [],
            }
        )
    return details


def _body_too_large(exc: Exception) -> bool:
    """Litestar's 413 for a body over `request_max_body_size`."""
    return isinstance(exc, HTTPException) and exc.status_code == 413


def _multipart_limit(exc: Exception) -> bool:
    """Litestar 2 answers a multipart form beyond its parser's limits (part count, header
    length) with 400 "Request Entity Too Large" (a FIXME there says 413 in 3.0)."""
    return (
        isinstance(exc, ClientException)
        and exc.status_code == 400
        and exc.detail == "Request Entity Too Large"
    )


def _too_large(request: Request[Any, Any, Any], exc: Exception) -> str:
    if _body_too_large(exc):
        limit = request.route_handler.resolve_request_max_body_size()
        return f"Request body too large: this server accepts at most {limit} bytes"
    # the multipart parser's own reason, e.g. "Maximum segment count exceeded"
    reason = f": {exc.__context__}" if exc.__context__ is not None else ""
    return f"Multipart form beyond the limits of this server{reason}"


def _data_error(exc: DataError) -> str:
    first = str(exc.orig).strip().splitlines()[0] if exc.orig is not None else "invalid value"
    return f"The database refused a value of the request: {first}"


# Outcomes Camunda answers with a 5xx although nothing broke: a form value a constraint refuses,
# a task claimed by another, a job's own failure, a lost race. Logged as what they are (WARNING,
# no traceback); every other 5xx is a fault to look into.
_ANSWERED_AS_CAMUNDA_DOES = (RestError, TaskAlreadyClaimed, JobFailure, ConcurrencyError)


def to_response(request: Request[Any, Any, Any], exc: Exception) -> Response[ExceptionDto]:
    """Every exception a handler lets escape, as Camunda's error DTO with Camunda's status. A
    5xx is logged with the request id (`X-Request-Id` of the answer), so that an operator finds
    the cause a client reports; the answer holds neither. A fault is logged at ERROR with its
    traceback; a refusal Camunda answers with a 500 at WARNING, without one."""
    response = _response(request, exc)
    if (response.status_code or 500) >= 500:
        expected = isinstance(exc, _ANSWERED_AS_CAMUNDA_DOES)
        log.log(
            logging.WARNING if expected else logging.ERROR,
            "%d %s on %s %s (request %s): %s",
            response.status_code,
            type(exc).__name__,
            printable(request.method),
            printable(request.url.path),
            request_id(request.scope) or "-",
            printable(str(exc)),
            exc_info=None if expected else exc,
        )
    return response


def _response(request: Request[Any, Any, Any], exc: Exception) -> Response[ExceptionDto]:
    if isinstance(exc, RestError):
        return _answer(exc.status, ExceptionDto(exc.type_name, exc.message))
    if isinstance(exc, NotFound):
        return _answer(404, ExceptionDto("InvalidRequestException", str(exc)))
    if isinstance(exc, MigrationPlanInvalid):
        report = report_to_dto(exc.report)
        body = MigrationPlanValidationExceptionDto(
            "MigrationPlanValidationException", str(exc), validation_report=report
        )
        return _answer(400, body)
    if isinstance(exc, MigratingInstanceInvalid):
        return _answer(
            400,
            MigratingProcessInstanceValidationExceptionDto(
                "MigratingProcessInstanceValidationException",
                str(exc),
                validation_report=instance_report_to_dto(exc.report),
            ),
        )
    if isinstance(exc, TaskAlreadyClaimed):
        return _answer(500, ExceptionDto("TaskAlreadyClaimedException", str(exc)))
    if isinstance(exc, ModelError):
        return _answer(400, ExceptionDto("ParseException", str(exc), details=_parse_details(exc)))
    if isinstance(exc, InvalidValue):  # a value the engine cannot hold: Camunda's REST type
        return _answer(400, ExceptionDto("InvalidRequestException", str(exc)))
    if isinstance(exc, Rejected):
        return _answer(400, ExceptionDto("BadUserRequestException", str(exc)))
    if isinstance(exc, RecursionError):
        # msgspec decoding the body (in Litestar, before any handler) gives up near 1,000 levels
        return _answer(
            400,
            ExceptionDto(
                "InvalidRequestException",
                "The request body nests JSON arrays/objects too deeply: values may nest at most "
                f"{MAX_JSON_NESTING} levels",
            ),
        )
    if isinstance(exc, JobFailure):
        # What the job's work raised, as Camunda's JobResource answers a failed executeJob: the
        # failure is recorded on the job; its stack trace is there, not in the answer.
        return _answer(500, ExceptionDto("RestException", exc.message))
    if isinstance(exc, CorruptStream):
        # A damaged stream is no server fault: the operator's to look at (`flowledger verify`).
        return _answer(409, ExceptionDto("CorruptStreamException", str(exc)))
    if isinstance(exc, ConcurrencyError):
        return _answer(500, ExceptionDto("OptimisticLockingException", str(exc), code=1))
    if isinstance(exc, ProjectionBehind):
        # Not an answer from stale tables: the caller may ask again once the projection caught up.
        return _answer(503, ExceptionDto("ProcessEngineException", str(exc)))
    if isinstance(exc, ProcessEngineError | SchemaMismatch):
        return _answer(500, ExceptionDto("ProcessEngineException", str(exc)))
    if isinstance(exc, ValidationException):
        return _answer(400, ExceptionDto("InvalidRequestException", _validation_message(exc)))
    if isinstance(exc, DataError):
        # e.g. PostgreSQL refusing a NUL character or an out-of-range number in a filter
        return _answer(400, ExceptionDto("InvalidRequestException", _data_error(exc)))
    if _body_too_large(exc) or _multipart_limit(exc):
        return _answer(413, ExceptionDto("InvalidRequestException", _too_large(request, exc)))
    if isinstance(exc, HTTPException):
        status = exc.status_code
        kind = "InvalidRequestException" if status < 500 else "RestException"
        return _answer(status, ExceptionDto(kind, str(exc.detail)))
    # The id is what a caller can report; the cause is in the log under it.
    rid = request_id(request.scope)
    reference = f" (request {rid}: see the server's log)" if rid else ""
    return _answer(
        500,
        ExceptionDto("ProcessEngineException", f"Internal error: {type(exc).__name__}{reference}"),
    )


def refuse_nul(request: Request[Any, Any, Any]) -> None:
    """Before every handler: text columns (PostgreSQL's above all) cannot hold NUL characters,
    so a path with one names nothing (404) and a query parameter with one is refused (400)
    before any query runs."""
    if "\x00" in request.url.path:
        # no id holds one, so the path names nothing
        raise not_found("No resource matches a path that contains NUL characters")
    for name, value in request.query_params.items():
        if "\x00" in name or "\x00" in value:
            raise invalid(f"Query parameter '{name}' must not contain NUL characters")
