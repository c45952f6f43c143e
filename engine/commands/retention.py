"""What history cleanup may remove now: the finished instances, and the decisions evaluated over
the API, whose REMOVAL_TIME_ passed. Reads through `lookups`, which holds the statements."""

from __future__ import annotations

from flowledger.engine.lookups import expired_decisions as expired_decisions
from flowledger.engine.lookups import expired_instances as expired_instances
