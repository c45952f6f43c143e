"""The timeline shows variable values as a person reads them, the same way the replay view does:
a date as ISO text (not epoch milliseconds), bytes by their size, Json decoded."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from flowledger import Engine

INVOICE = Path(__file__).resolve().parents[2] / "tools" / "examples" / "invoice.bpmn"


def test_dates_bytes_and_json_read_as_in_the_replay_view(engine: Engine) -> None:
    engine.deploy(INVOICE)
    instance = engine.start_process_instance(
        "invoice",
        {
            "amount": 10,
            "invoiceNumber": "INV-1",
            "due": datetime(2026, 12, 24, 9, 30, tzinfo=UTC),
            "scan": b"\x00\x01\x02",
            "lines": [{"sku": "A", "qty": 2}],
        },
    )

    (started,) = [
        e
        for e in engine.audit_service.timeline(instance.id)
        if e.what.startswith("instance started")
    ]

    assert started.variables["due"] == "2026-12-24T09:30:00.000+00:00"
    assert started.variables["scan"] == "<3 bytes>"
    assert started.variables["lines"] == [{"sku": "A", "qty": 2}]
