"""Events of the log as CloudEvents 1.0 (structured mode, JSON): the one mapping every exporter
target writes.

Pure: no I/O, no clock, no database. `event_data` is the single place where an event's fields
become the data a target receives: the erasure of personal data (crypto-shredding) plugs in
there, so that an export never carries a value the log holds encrypted.

Must not: read anything but the commit and its decoded events, or drop an event (a consumer
counts on one message per log position).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import msgspec

from flowledger.core.events.base import to_dict
from flowledger.eventlog.records import StoredCommit

SPEC_VERSION = "1.0"
TYPE_PREFIX = "org.flowledger."
CONTENT_TYPE = "application/cloudevents+json"
BATCH_CONTENT_TYPE = "application/cloudevents-batch+json"


class CloudEvent(msgspec.Struct, omit_defaults=True):
    """One event as a CloudEvent. Extension attributes are lowercase alphanumeric, as the spec
    requires; `position` is the event's place in the log, the key a consumer deduplicates by."""

    specversion: str
    id: str  # <origin>/<position>: unique per event of this log
    source: str  # the log's origin, as its signed heads name it
    type: str  # org.flowledger.<EventType>
    subject: str  # the stream: a process instance or deployment id
    time: str  # when the event's commit was recorded, UTC
    position: int
    streamid: str
    streamversion: int
    commandid: str
    commandtype: str
    datacontenttype: str
    data: dict[str, Any]
    actor: str | None = None
    via: str | None = None


# An event's fields -> the data exported. Replaced by the erasure work to decrypt personal
# values whose key still exists and to write them as erased when it does not.
DataHook = Callable[[StoredCommit, int, dict[str, Any]], dict[str, Any]]


def event_data(commit: StoredCommit, index: int, fields: dict[str, Any]) -> dict[str, Any]:
    """The data of the `index`-th event of `commit` as exported: its stored fields, the type tag
    left out (it is the CloudEvent's type). THE place where personal data is decrypted or shown
    as erased before it leaves the engine: every target goes through here."""
    return fields


def _time(moment: datetime) -> str:
    aware = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return aware.strftime("%Y-%m-%dT%H:%M:%S.") + f"{aware.microsecond // 1000:03d}Z"


def from_commit(
    origin: str,
    commit: StoredCommit,
    events: list[Any],
    *,
    after: int = 0,
    data: DataHook = event_data,
) -> Iterator[CloudEvent]:
    """The CloudEvents of one commit's decoded `events`, in order, leaving out the positions up
    to `after` (those a target already holds)."""
    time = _time(commit.recorded_at)
    for index, event in enumerate(events):
        position = commit.first_position + index
        if position <= after:
            continue
        fields = to_dict(event)
        kind = str(fields.pop("type"))
        yield CloudEvent(
            specversion=SPEC_VERSION,
            id=f"{origin}/{position}",
            source=origin,
            type=TYPE_PREFIX + kind,
            subject=commit.stream_id,
            time=time,
            position=position,
            streamid=commit.stream_id,
            streamversion=commit.first_version + index,
            commandid=commit.command_id,
            commandtype=commit.command_type,
            actor=commit.actor,
            via=commit.via,
            datacontenttype="application/json",
            data=data(commit, index, fields),
        )


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(CloudEvent)


def encode(event: CloudEvent) -> bytes:
    return _encoder.encode(event)


def decode(data: bytes) -> CloudEvent:
    return _decoder.decode(data)
