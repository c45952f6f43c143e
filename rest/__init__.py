"""Camunda 7 compatible HTTP API (engine-rest) over the engine: parse, call, answer in JSON.

Thin on purpose: a handler validates its input with msgspec, calls the `core.Engine` facade or a
read query of `projections.queries`, and shapes the answer as Camunda's DTO. No engine logic here.
"""

from .app import create_app

__all__ = ["create_app"]
