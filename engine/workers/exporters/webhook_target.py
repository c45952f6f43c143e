"""The HTTP webhook export target: each batch POSTed as a CloudEvents JSON batch
(`application/cloudevents-batch+json`), through the engine's outbound module, so its policy
holds: the host must be on the allow-list (`--http-allow`), every call has its deadline and
its answer a size cap, redirects are checked, proxies ignored.

A 2xx answer acknowledges the batch. Every event carries its `position`, and the batch's first
and last positions are headers (`Flowledger-First-Position`, `Flowledger-Last-Position`): after
a crash the same batch may come again, and the receiver drops what it already has.

Must not: call anywhere but through `Outbound.call`.
"""

from __future__ import annotations

from flowledger.core.outbound import HttpRequest, OutboundFailure
from flowledger.engine.outbound import Outbound

from .cloudevents import BATCH_CONTENT_TYPE
from .targets import Held, Outgoing, TargetError


class WebhookTarget:
    kind = "webhook"

    def __init__(self, url: str, outbound: Outbound, name: str) -> None:
        self.url = url
        self.shown = url.split("?", 1)[0]  # a query may carry a token
        self._outbound = outbound
        self._name = name

    def open(self) -> Held | None:
        return None  # a webhook cannot say what it holds: the stored position is the truth

    def send(self, batch: list[Outgoing]) -> None:
        body = b"[" + b",".join(item.body for item in batch) + b"]"
        request = HttpRequest(
            method="POST",
            url=self.url,
            headers=(
                ("Content-Type", BATCH_CONTENT_TYPE),
                ("Flowledger-First-Position", str(batch[0].position)),
                ("Flowledger-Last-Position", str(batch[-1].position)),
            ),
            body=body,
        )
        answer = self._outbound.call(request, f"exporter:{self._name}")
        if isinstance(answer, OutboundFailure):
            raise TargetError(f"{self.shown}: {answer.message}")
        if not 200 <= answer.status < 300:
            raise TargetError(f"{self.shown} answered {answer.status}: {answer.text[:200]}")

    def close(self) -> None:
        pass
