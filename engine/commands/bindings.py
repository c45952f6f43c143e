"""Which deployed version a binding names (Camunda's calledElementBinding, decisionRefBinding):
the latest, the one in the caller's deployment, a version number, or the newest with a version
tag. Shared by call activities and business rule tasks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar


class Versioned(Protocol):
    @property
    def version(self) -> int: ...
    @property
    def version_tag(self) -> str | None: ...
    @property
    def deployment_id(self) -> str: ...


V = TypeVar("V", bound=Versioned)


def bound(
    candidates: Sequence[V],
    binding: str,
    *,
    version: int | None,
    version_tag: str | None,
    deployment_id: str | None,
) -> V | None:
    """The newest of the versions of one key that `binding` (not `latest`: the caller looks
    that up directly) allows, or None."""
    if binding == "deployment":
        allowed = [d for d in candidates if d.deployment_id == deployment_id]
    elif binding == "version":
        allowed = [d for d in candidates if d.version == version]
    else:
        allowed = [d for d in candidates if d.version_tag == version_tag]
    return max(allowed, key=lambda d: d.version) if allowed else None


def which(binding: str, version: int | None, version_tag: str | None, caller: str) -> str:
    """How a message says which version was looked for (empty for the latest)."""
    return {
        "latest": "",
        "deployment": f" in {caller} deployment",
        "version": f" in version {version}",
        "versionTag": f" with version tag '{version_tag}'",
    }[binding]
