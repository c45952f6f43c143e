"""Event schema evolution: TaskClaimed v2 names the claiming user `assignee`; v1 events, as logs
written before the change hold them, are lifted by the engine's upcaster when read. (The golden
logs in tests/golden hold real v1 events; this pins the step itself.)"""

from __future__ import annotations

from datetime import datetime

import msgspec

from flowledger.core import events as ev
from flowledger.engine.storage.codec import make_codec

V1 = {
    "type": "TaskClaimed",
    "v": 1,
    "task_id": "t1",
    "user_id": "kermit",
    "time": "2026-12-04T10:00:00",
}


def test_a_v1_event_reads_as_v2() -> None:
    (event,) = make_codec().decode(msgspec.json.encode([V1]))

    assert event == ev.TaskClaimed(task_id="t1", assignee="kermit", time=datetime(2026, 12, 4, 10))
    assert event.v == 2


def test_new_events_are_written_as_v2_and_read_back_beside_v1_ones() -> None:
    codec = make_codec()
    written = codec.encode(
        [ev.TaskClaimed(task_id="t2", assignee="gonzo", time=datetime(2026, 12, 4))]
    )
    stored = msgspec.json.decode(written)

    assert stored[0]["v"] == 2 and stored[0]["assignee"] == "gonzo" and "user_id" not in stored[0]
    mixed = msgspec.json.encode([V1, stored[0]])
    assert [e.assignee for e in codec.decode(mixed)] == ["kermit", "gonzo"]
