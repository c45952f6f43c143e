"""The personal data service: erase a data subject (`flowledger erase`, REST), and say what the
engine keeps of one.

Decides nothing itself: one `ErasePersonalData` command per instance stream holding the
subject's values; then the projections are brought up to the log and, on SQLite, the WAL is
checkpointed and truncated so that no page of it still holds a destroyed key.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from sqlalchemy import select
from sqlalchemy.engine import Connection

from flowledger.core import commands as cmd
from flowledger.core.errors import InvalidValue, NotFound
from flowledger.core.limits import MAX_TEXT
from flowledger.core.personal_data import MAX_SUBJECT
from flowledger.eventlog.tables import subject_key

from .base import Service

SCRUB_TRIES = 5  # WAL truncations tried after an erasure (each waits for readers to finish)


class SubjectKey(msgspec.Struct, frozen=True):
    process_instance_id: str
    created_at: datetime
    erased_at: datetime | None = None
    erased_by: str | None = None
    reason: str | None = None


class Subject(msgspec.Struct, frozen=True):
    """What the engine keeps of a data subject: one key per instance it has personal data in."""

    subject: str
    keys: list[SubjectKey]


class Erasure(msgspec.Struct, frozen=True):
    subject: str
    process_instance_ids: list[str]
    values: int  # values erased: variables' history details and decision inputs and outputs
    already_erased: bool = False
    wal_truncated: bool = True  # SQLite: no WAL page holds a destroyed key any more


class PersonalDataService(Service):
    def subject(self, subject: str) -> Subject:
        """The subject's keys (never their bytes); NotFound when it has none."""
        _check_subject(subject)
        with self._parts.db.read_unchecked() as conn:
            rows = conn.execute(
                select(subject_key)
                .where(subject_key.c.subject == subject)
                .order_by(subject_key.c.created_at, subject_key.c.stream_id)
            ).all()
        if not rows:
            raise NotFound("Personal data of subject", subject)
        return Subject(
            subject,
            [
                SubjectKey(r.stream_id, r.created_at, r.erased_at, r.erased_by, r.reason)
                for r in rows
            ],
        )

    def erase(self, subject: str, reason: str, *, actor: str | None = None) -> Erasure:
        """Destroy every key of `subject`, recording in each instance's stream who erased it
        and why. Erasing a subject erased before answers `already_erased`."""
        _check_subject(subject)
        reason = reason.strip()
        if not reason:
            raise InvalidValue("an erasure needs a reason (--reason)", "reason")
        if len(reason) > MAX_TEXT:
            raise InvalidValue(f"the reason is longer than {MAX_TEXT:,} characters", "reason")
        with self._parts.db.read_unchecked() as conn:
            by_stream = _active_keys(conn, subject)
        if not by_stream:
            self.subject(subject)  # NotFound when the engine never held any of it
            return Erasure(subject, [], 0, already_erased=True)
        values = 0
        for stream_id, key_ids in sorted(by_stream.items()):
            values += self._run(
                cmd.ErasePersonalData(
                    process_instance_id=stream_id, key_ids=key_ids, reason=reason
                ),
                None,
                actor,
            )
        self._parts.history.flush()  # the rows written behind the log are emptied too
        truncated = self._scrub()
        return Erasure(subject, sorted(by_stream), values, wal_truncated=truncated)

    def _scrub(self) -> bool:
        """SQLite: copy the WAL into the database file and truncate it, so that the pages it
        held before the erasure (a key, a plaintext row) are gone from it as well."""
        db = self._parts.db
        if db.db.dialect.name != "sqlite" or db.memory:
            return True
        for _ in range(SCRUB_TRIES):
            with db.command(), db.db.connect() as conn:
                busy, _log, _done = conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
            if not busy:
                return True
        return False


def _active_keys(conn: Connection, subject: str) -> dict[str, list[str]]:
    rows = conn.execute(
        select(subject_key.c.key_id, subject_key.c.stream_id).where(
            subject_key.c.subject == subject, subject_key.c.key_material.is_not(None)
        )
    ).all()
    found: dict[str, list[str]] = {}
    for row in rows:
        found.setdefault(row.stream_id, []).append(row.key_id)
    return found


def _check_subject(subject: str) -> None:
    if not subject or len(subject) > MAX_SUBJECT:
        raise InvalidValue(
            f"a data subject is 1 to {MAX_SUBJECT} characters (a business key or a process "
            "instance id)",
            "subject",
        )
