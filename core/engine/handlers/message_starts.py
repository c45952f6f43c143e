"""Message start events in the command path: subscribed when their definition is deployed (the
earlier versions of its key unsubscribed, in their deployments' streams), unsubscribed when their
deployment is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import groupby

from flowledger.core import events as ev
from flowledger.core import message_starts
from flowledger.core.model import ProcessModel
from flowledger.projections import message_queries

from ..unit_of_work import UnitOfWork
from .start_timers import append_to_deployment


def subscribed(
    unit: UnitOfWork, created: ev.DeploymentCreated, models: Mapping[str, ProcessModel]
) -> list[ev.Event]:
    """The message start subscriptions of a new deployment's definitions, for its own first
    commit; the earlier versions of their keys lose theirs (the latest version's start)."""
    keys = sorted({d.key for d in created.process_definitions})
    names = sorted({name for model in models.values() for name in model.message_starts})
    taken = message_queries.start_subscriptions(unit.conn, names=names) if names else []
    message_starts.check_names(
        models, {s.message_name: s.definition_key for s in taken if s.definition_key not in keys}
    )
    earlier = sorted(
        message_queries.start_subscriptions(unit.conn, keys=keys), key=lambda s: s.deployment_id
    )
    for deployment_id, found in groupby(earlier, key=lambda s: s.deployment_id):
        ids = [s.subscription_id for s in found]
        append_to_deployment(unit, deployment_id, message_starts.unsubscribe(ids, unit.ctx.now))
    events: list[ev.Event] = []
    for definition in created.process_definitions:
        model = models[definition.id]
        events += message_starts.subscribe(model, definition.id, unit.ctx.now, unit.ctx.new_id)
    return events


def removed_with(unit: UnitOfWork, deployment_id: str) -> list[ev.Event]:
    """The removals of a deployment's message start subscriptions, for the commit deleting it."""
    found = message_queries.start_subscriptions(unit.conn, deployment_id=deployment_id)
    return message_starts.unsubscribe([s.subscription_id for s in found], unit.ctx.now)
