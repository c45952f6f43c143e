"""What every service shares: the engine's parts, and who is calling.

A service is a door for one family of verbs, as in Camunda's `ProcessEngine`. It builds a
command and hands it to the bus, or opens a read connection and asks `projections.queries`;
it decides nothing and reads no stream itself (the audit service's readers do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flowledger.core import commands as cmd
from flowledger.core.clock import Clock
from flowledger.engine.audit.inspection import Inspection
from flowledger.engine.audit.log_reader import Audit
from flowledger.engine.audit.packages import Packages
from flowledger.engine.audit.rebuild import Rebuild
from flowledger.engine.commands.bus import CommandBus
from flowledger.engine.outbound import Outbound
from flowledger.engine.personal_data.keys import SubjectKeys
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.streams import Repository
from flowledger.engine.workers.history_lifecycle import HistoryLifecycle
from flowledger.engine.workers.job_runs import JobRuns
from flowledger.eventlog import EventStore


@dataclass(frozen=True)
class EngineParts:
    """The engine's components, built once by the composition root (`engine.root.Engine`)."""

    db: Connections
    store: EventStore
    streams: Repository
    bus: CommandBus
    history: HistoryLifecycle
    audit: Audit
    inspection: Inspection
    packages: Packages
    rebuild: Rebuild
    jobs: JobRuns
    outbound: Outbound
    clock: Clock
    personal_keys: SubjectKeys


@dataclass(frozen=True)
class Caller:
    """Who the commands of an engine (or of a view of it, `Engine.acting_as`) are recorded as
    issued by, unless a call names its own `actor=`, and the channel they came through."""

    actor: str | None
    via: str


class Service:
    """A family of verbs over the engine's parts, on behalf of one caller."""

    def __init__(self, parts: EngineParts, caller: Caller) -> None:
        self._parts = parts
        self._caller = caller

    def _run(
        self,
        command: cmd.Command,
        command_id: str | None,
        actor: str | None,
        via: str | None = None,
    ) -> Any:
        """Hand the command to the bus, recorded as issued by `actor` or else the caller."""
        return self._parts.bus.execute(
            command,
            command_id=command_id,
            actor=self._caller.actor if actor is None else actor,
            via=self._caller.via if via is None else via,
        )
