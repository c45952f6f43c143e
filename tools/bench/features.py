"""Which optional engine capabilities this flowledger build has, found by inspection.

The harness measures what exists and reports the rest as "not available"; it never fails because
a capability is missing. Reads the `Engine` class only: creates no engine.
"""

from __future__ import annotations

import inspect
from dataclasses import asdict, dataclass

from flowledger.engine import Engine


@dataclass(frozen=True)
class EngineFeatures:
    async_history: bool  # Engine(url, history_mode="async")
    flush_history: bool  # engine.flush_history(): wait until async history caught up
    rebuild_projections: bool  # engine.rebuild_projections(): rebuild the tables from the log

    def as_dict(self) -> dict[str, bool]:
        return asdict(self)


def detect() -> EngineFeatures:
    parameters = inspect.signature(Engine.__init__).parameters
    return EngineFeatures(
        async_history="history_mode" in parameters,
        flush_history=callable(getattr(Engine, "flush_history", None)),
        rebuild_projections=callable(getattr(Engine, "rebuild_projections", None)),
    )
