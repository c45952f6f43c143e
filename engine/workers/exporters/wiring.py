"""Builds an exporter from its configured target (`serve --export URL`, `Engine.start_exporter`):
the target of its kind, the log's origin, the webhook's outbound policy.

Must not: start anything (the engine starts what this returns).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from flowledger.engine.outbound import Outbound, OutboundPolicy
from flowledger.engine.storage.connections import Connections
from flowledger.eventlog import EventCodec, EventStore
from flowledger.eventlog.signed_heads import origin_of

from .runner import Exporter, ExporterSettings
from .targets import Target, TargetSpec

WEBHOOK_MAX_ANSWER = 1024 * 1024  # an acknowledgement needs no more: a longer answer fails


def make_exporter(
    spec: TargetSpec,
    *,
    db: Connections,
    store: EventStore,
    codec: EventCodec,
    policy: OutboundPolicy,
    origin: str | None = None,
    settings: ExporterSettings | None = None,
) -> Exporter:
    settings = settings or ExporterSettings()
    target: Target
    if spec.kind == "file":
        from .file_target import FileTarget

        target = FileTarget(Path(spec.file_path))
    elif spec.kind == "nats":
        from .nats_target import NatsTarget

        target = NatsTarget(spec.url, settings.deadline_seconds)
    else:
        from .webhook_target import WebhookTarget

        # The exporter is enabled by naming it; where it may call is the operator's allow-list
        # (`--http-allow`), checked as for any outbound call.
        webhook_policy = dataclasses.replace(
            policy,
            connectors=frozenset({"http"}),
            max_response_bytes=min(policy.max_response_bytes, WEBHOOK_MAX_ANSWER),
            deadline_seconds=settings.deadline_seconds,
        )
        target = WebhookTarget(spec.url, Outbound(webhook_policy), spec.name)

    def log_origin() -> str | None:
        if origin is not None:
            return origin
        with db.read_unchecked() as conn:
            first = next(store.read_all(conn, batch_size=1), None)
        return None if first is None else origin_of(first.hash)

    return Exporter(
        spec.name, target, db=db, store=store, codec=codec, origin=log_origin, settings=settings
    )
