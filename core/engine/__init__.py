"""The engine: runs the domain on a database — commands in, events appended to the log, tables
projected from it; queries, audit and the async history follower.

`facade.Engine` builds a command and hands it to `bus.CommandBus`, which runs its one handler
(`handlers/`, by area) on a `unit_of_work.UnitOfWork`; `repository.Repository` alone reads and
folds streams. Users import `Engine` from `flowledger`; the REST layer and the CLI from here.
"""

from flowledger.core.engine.facade import Engine
from flowledger.eventlog import ConcurrencyError

__all__ = ["ConcurrencyError", "Engine"]
