"""The engine's reads of event subscriptions (ACT_RU_EVENT_SUBSCR): the waiting catch events a
message may go to, the message start events of the deployed definitions, and the subscriptions
as `core.views` Structs.

Reads only.
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.engine import Connection

from flowledger.core import views
from flowledger.core.behaviors.subscriptions import MESSAGE

from ..tables import ACT_RE_PROCDEF, ACT_RU_EVENT_SUBSCR, ACT_RU_EXECUTION
from .declaration import find, view
from .event_subscriptions import EVENT_SUBSCRIPTIONS, EventSubscriptionQuery
from .filters import SUSPENDED, Condition

_S = ACT_RU_EVENT_SUBSCR


def waiting(
    conn: Connection,
    message_name: str,
    *,
    process_instance_id: str | None = None,
    business_key: str | None = None,
    event_type: str = MESSAGE,
) -> list[tuple[str, str]]:
    """(subscription id, process instance id) of the catch events waiting for the message (or
    signal), in the order they subscribed; narrowed to an instance or a business key."""
    conditions: list[Condition] = [
        _S.c.EVENT_TYPE_ == event_type,
        _S.c.EVENT_NAME_ == message_name,
        _S.c.EXECUTION_ID_.is_not(None),  # start events' subscriptions wait on no instance
    ]
    if process_instance_id is not None:
        conditions.append(_S.c.PROC_INST_ID_ == process_instance_id)
    stmt = select(_S.c.ID_, _S.c.PROC_INST_ID_)
    if business_key is not None:
        e = ACT_RU_EXECUTION
        stmt = stmt.join(e, e.c.ID_ == _S.c.PROC_INST_ID_)
        conditions.append(e.c.BUSINESS_KEY_ == business_key)
    rows = conn.execute(stmt.where(*conditions).order_by(_S.c.CREATED_, _S.c.ID_))
    return [(row[0], row[1]) for row in rows]


class StartSubscription(NamedTuple):
    """A message or signal start event's subscription (no execution), with its definition."""

    subscription_id: str
    event_type: str
    message_name: str
    activity_id: str
    definition_id: str
    definition_key: str
    deployment_id: str
    suspended: bool


def start_subscriptions(
    conn: Connection,
    *,
    keys: list[str] | None = None,
    deployment_id: str | None = None,
    names: list[str] | None = None,
    event_type: str | None = None,
) -> list[StartSubscription]:
    """The start event subscriptions of these definition keys, this deployment or these event
    names (of this type), by subscription id."""
    d = ACT_RE_PROCDEF
    stmt = select(
        _S.c.ID_,
        _S.c.EVENT_TYPE_,
        _S.c.EVENT_NAME_,
        _S.c.ACTIVITY_ID_,
        d.c.ID_,
        d.c.KEY_,
        d.c.DEPLOYMENT_ID_,
        d.c.SUSPENSION_STATE_,
    ).join(d, d.c.ID_ == _S.c.CONFIGURATION_)
    conditions: list[Condition] = [_S.c.EXECUTION_ID_.is_(None)]
    if event_type is not None:
        conditions.append(_S.c.EVENT_TYPE_ == event_type)
    if keys is not None:
        conditions.append(d.c.KEY_.in_(keys))
    if deployment_id is not None:
        conditions.append(d.c.DEPLOYMENT_ID_ == deployment_id)
    if names is not None:
        conditions.append(_S.c.EVENT_NAME_.in_(names))
    rows = conn.execute(stmt.where(*conditions).order_by(_S.c.ID_))
    return [
        StartSubscription(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7] == SUSPENDED) for r in rows
    ]


def event_subscriptions(
    conn: Connection,
    *,
    process_instance_id: str | None = None,
    execution_id: str | None = None,
    event_name: str | None = None,
    event_type: str | None = None,
    activity_id: str | None = None,
) -> list[views.EventSubscription]:
    """The subscriptions matching every filter given, oldest first (engine-rest's search)."""
    query = EventSubscriptionQuery(
        process_instance_id=process_instance_id,
        execution_id=execution_id,
        event_name=event_name,
        event_type=event_type,
        activity_id=activity_id,
    )
    rows = find(conn, EVENT_SUBSCRIPTIONS, query, [("created", False)])
    return [view(views.EventSubscription, row) for row in rows]
