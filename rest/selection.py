"""The process instances a request selects by Camunda's `processInstanceQuery` (as
`GET /process-instance` finds them): shared by every operation on many instances."""

from __future__ import annotations

from typing import Any

import msgspec

from flowledger.engine import Engine
from flowledger.projections.queries import runtime
from flowledger.projections.queries.declaration import find

from .errors import invalid


def matching_instances(engine: Engine, query: dict[str, Any], maximum: int) -> list[str]:
    """The ids of at most `maximum` running instances the query selects."""
    try:
        parsed = msgspec.convert(query, runtime.ProcessInstanceQuery)
    except msgspec.ValidationError as exc:
        raise invalid(f"processInstanceQuery: {exc}") from None
    with engine.reading() as conn:
        rows = find(conn, runtime.PROCESS_INSTANCES, parsed, maximum=maximum)
    return [row.id for row in rows]
