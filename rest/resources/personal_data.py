"""flowledger extension for erasure of personal data (crypto-shredding): what the engine keeps of
a data subject, and the erasure itself, as `flowledger personal-data` / `flowledger erase` do.
Served under `/flowledger/v1` (rest/app.py).

Thin: parse the body, ask the engine's personal data service.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from flowledger.engine import Engine

from ..errors import invalid
from ..formats import format_date
from ..listing import AnyRequest


class SubjectKeyDto(msgspec.Struct, rename="camel"):
    process_instance_id: str
    created: str
    erased: str | None
    erased_by: str | None
    reason: str | None


class SubjectDto(msgspec.Struct, rename="camel"):
    subject: str
    keys: list[SubjectKeyDto]


class ErasureRequestDto(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    subject: str
    reason: str


class ErasureDto(msgspec.Struct, rename="camel"):
    subject: str
    process_instance_ids: list[str]
    values: int
    already_erased: bool
    wal_truncated: bool


def _date(value: datetime | None) -> str | None:
    return None if value is None else format_date(value)


@get("/personal-data", sync_to_thread=True)
def get_subject(engine: NamedDependency[Engine], request: AnyRequest) -> SubjectDto:
    """`subject` (query): the data subject (a business key, a subject variable's value or a
    process instance id). Its keys, one per instance, never their bytes; 404 when none."""
    subject = request.query_params.get("subject")
    if subject is None:
        raise invalid("Query parameter 'subject' is required")
    found = engine.personal_data_service.subject(subject)
    return SubjectDto(
        found.subject,
        [
            SubjectKeyDto(
                k.process_instance_id,
                format_date(k.created_at) or "",
                _date(k.erased_at),
                k.erased_by,
                k.reason,
            )
            for k in found.keys
        ],
    )


@post("/personal-data/erasure", sync_to_thread=True, status_code=200)
def erase_subject(engine: NamedDependency[Engine], data: JSONBody[ErasureRequestDto]) -> ErasureDto:
    """Erase a data subject: destroy its keys, record who and why in each instance's stream."""
    done = engine.personal_data_service.erase(data.subject, data.reason)
    return ErasureDto(
        done.subject,
        done.process_instance_ids,
        done.values,
        done.already_erased,
        done.wal_truncated,
    )


routes: list[Any] = [get_subject, erase_subject]
