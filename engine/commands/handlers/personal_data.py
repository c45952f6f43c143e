"""Handler of erasure (`ErasePersonalData`): find what in the instance's stream holds a value
sealed with the subject's keys, record the erasure, and destroy the keys with it.

Reads the stream as the log keeps it (values sealed): which values a key sealed is known only
there. The keys are destroyed in the same transaction as the event that says so.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial

from sqlalchemy import delete, update
from sqlalchemy.engine import Connection

from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core.erasure import erase as record_erasure
from flowledger.core.errors import NotFound
from flowledger.core.personal_data import is_sealed, sealing_key
from flowledger.core.variables import StoredValue
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.unit_of_work import UnitOfWork
from flowledger.eventlog.tables import instance_snapshot, subject_key


def erase(unit: UnitOfWork, command: cmd.ErasePersonalData) -> int:
    """Returns how many values it erased (variables, history details, decision values)."""
    instance_id = command.process_instance_id
    try:
        session = unit.instance(instance_id, ended_ok=True)
    except NotFound:
        raise NotFound("Process instance", instance_id) from None
    keys = set(command.key_ids)
    current: dict[str, bool] = {}  # variable id -> its last value is sealed with one of `keys`
    details: list[str] = []
    decisions: list[ev.ErasedDecision] = []

    def sealed_here(value: StoredValue) -> bool:
        return is_sealed(value) and sealing_key(value) in keys

    for commit in unit.store.read_stream(unit.conn, instance_id):
        for event in unit.codec.decode_sealed(commit.events):
            if type(event) is ev.VariableSet:
                current[event.variable_id] = sealed_here(event.value)
                if current[event.variable_id]:
                    details.append(event.detail_id)
            elif type(event) is ev.ActivityDecisionEvaluated:
                for decision in event.decisions:
                    inputs = [i for i, x in enumerate(decision.inputs) if sealed_here(x.value)]
                    outputs = [i for i, x in enumerate(decision.outputs) if sealed_here(x.value)]
                    if inputs or outputs:
                        decisions.append(
                            ev.ErasedDecision(decision.decision_instance_id, inputs, outputs)
                        )
    variables = [vid for vid, sealed in current.items() if sealed]
    record_erasure(
        session,
        sorted(keys),
        command.reason,
        variable_ids=variables,
        detail_ids=details,
        decisions=decisions,
    )
    unit.writes.append(
        partial(_destroy, sorted(keys), instance_id, unit.ctx.now, unit.ctx.actor, command.reason)
    )
    return len(details) + sum(len(d.inputs) + len(d.outputs) for d in decisions)


def _destroy(
    key_ids: list[str],
    stream_id: str,
    now: datetime,
    actor: str | None,
    reason: str,
    conn: Connection,
) -> None:
    """The keys are gone, and so is the stream's snapshot (a cache holding plaintext state)."""
    conn.execute(
        update(subject_key)
        .where(subject_key.c.key_id.in_(key_ids))
        .values(key_material=None, erased_at=now, erased_by=actor, reason=reason)
    )
    conn.execute(delete(instance_snapshot).where(instance_snapshot.c.stream_id == stream_id))


HANDLERS = (Handler(cmd.ErasePersonalData, erase, result=int),)
