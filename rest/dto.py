"""DTOs shared by several resources; each resource module defines its own beside its handlers."""

from __future__ import annotations

import msgspec


class CountResultDto(msgspec.Struct):
    count: int


class LinkDto(msgspec.Struct):
    method: str
    href: str
    rel: str


def self_link(base_url: str, path: str) -> list[LinkDto]:
    return [LinkDto("GET", f"{base_url.rstrip('/')}{path}", "self")]
