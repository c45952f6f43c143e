"""The engine: runs the domain on a database — commands in, events appended to the log, tables
projected from it; queries, audit and the async history follower.

`facade.Engine` builds a command and hands it to `bus.CommandBus`, which runs its one handler
(`handlers/`, by area) on a `unit_of_work.UnitOfWork`; `repository.Repository` alone reads and
folds streams. Users import `Engine` from `flowledger`; the REST layer and the CLI from here.
"""

from typing import TYPE_CHECKING, Any

from flowledger.eventlog import ConcurrencyError

if TYPE_CHECKING:
    from flowledger.engine.root import Engine


def __getattr__(name: str) -> Any:
    # Loaded on first use: the history follower runs as `python -m
    # flowledger.engine.workers.follower_process`, and the facade imports the workers; importing
    # them with the package would load that module twice (once as __main__), which runpy warns
    # about.
    if name == "Engine":
        from flowledger.engine.root import Engine

        return Engine
    raise AttributeError(f"module 'flowledger.engine' has no attribute {name!r}")


__all__ = ["ConcurrencyError", "Engine"]
