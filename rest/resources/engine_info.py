"""engine-rest: `GET /engine` (the engines this server offers) and `GET /version`."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get

# The Camunda REST API version whose contract this server follows.
API_VERSION = "7.15.0"


class ProcessEngineDto(msgspec.Struct):
    name: str


class VersionDto(msgspec.Struct):
    version: str


@get("/engine", sync_to_thread=False)
def engines() -> list[ProcessEngineDto]:
    return [ProcessEngineDto("default")]


@get("/version", sync_to_thread=False)
def version() -> VersionDto:
    return VersionDto(API_VERSION)


routes: list[Any] = [engines, version]
