"""Message and signal start events in the command path: subscribed when their definition is
deployed (the earlier versions of its key unsubscribed, in their deployments' streams),
unsubscribed when their deployment is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from itertools import groupby
from typing import Any

from flowledger.core import events as ev
from flowledger.core import start_events
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.model import ProcessModel
from flowledger.core.session import InstanceSession
from flowledger.engine import lookups
from flowledger.engine.commands.handlers.guards import still_deployed
from flowledger.engine.commands.handlers.start_timers import append_to_deployment
from flowledger.engine.commands.unit_of_work import UnitOfWork


def subscribed(
    unit: UnitOfWork, created: ev.DeploymentCreated, models: Mapping[str, ProcessModel]
) -> list[ev.Event]:
    """The start event subscriptions of a new deployment's definitions, for its own first
    commit; the earlier versions of their keys lose theirs (the latest version's start)."""
    keys = sorted({d.key for d in created.process_definitions})
    names = sorted({name for model in models.values() for name in model.message_starts})
    taken = (
        lookups.start_subscriptions(unit.conn, names=names, event_type="message") if names else []
    )
    start_events.check_names(
        models, {s.message_name: s.definition_key for s in taken if s.definition_key not in keys}
    )
    earlier = sorted(
        lookups.start_subscriptions(unit.conn, keys=keys), key=lambda s: s.deployment_id
    )
    for deployment_id, found in groupby(earlier, key=lambda s: s.deployment_id):
        ids = [s.subscription_id for s in found]
        append_to_deployment(unit, deployment_id, start_events.unsubscribe(ids, unit.ctx.now))
    events: list[ev.Event] = []
    for definition in created.process_definitions:
        model = models[definition.id]
        events += start_events.subscribe(model, definition.id, unit.ctx.now, unit.ctx.new_id)
    return events


def removed_with(unit: UnitOfWork, deployment_id: str) -> list[ev.Event]:
    """The removals of a deployment's start event subscriptions, for the commit deleting it."""
    found = lookups.start_subscriptions(unit.conn, deployment_id=deployment_id)
    return start_events.unsubscribe([s.subscription_id for s in found], unit.ctx.now)


def start_at(
    unit: UnitOfWork,
    start: lookups.StartSubscription,
    business_key: str | None,
    variables: Mapping[str, Any],
) -> InstanceSession:
    """A new instance of the subscription's definition, started at its start event (a message
    correlated, a signal broadcast)."""
    definition = lookups.process_definition(unit.conn, start.definition_id)
    if definition is None:
        raise NotFound("Process definition", start.definition_id)
    if definition.suspended:
        raise Rejected(f"Process definition '{definition.id}' is suspended")
    unit.guards.append(partial(still_deployed, definition.id))
    return unit.start_instance(
        unit.repository.model(unit.conn, definition.id),
        definition_id=definition.id,
        definition_version=definition.version,
        deployment_id=definition.deployment_id,
        business_key=business_key,
        variables=variables,
        start_activity_id=start.activity_id,
        triggered=True,
    )
