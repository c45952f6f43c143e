"""The engine's reads of event subscriptions (ACT_RU_EVENT_SUBSCR): the waiting catch events a
message may go to, and the subscriptions as `core.views` Structs.

Reads only.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.engine import Connection

from flowledger.core import views

from .search.declaration import find, view
from .search.event_subscriptions import EVENT_SUBSCRIPTIONS, EventSubscriptionQuery
from .search.filters import Condition
from .tables import ACT_RU_EVENT_SUBSCR, ACT_RU_EXECUTION

_S = ACT_RU_EVENT_SUBSCR
MESSAGE = "message"


def waiting(
    conn: Connection,
    message_name: str,
    *,
    process_instance_id: str | None = None,
    business_key: str | None = None,
) -> list[tuple[str, str]]:
    """(subscription id, process instance id) of the catch events waiting for the message, in
    the order they subscribed; narrowed to an instance or a business key."""
    conditions: list[Condition] = [_S.c.EVENT_TYPE_ == MESSAGE, _S.c.EVENT_NAME_ == message_name]
    if process_instance_id is not None:
        conditions.append(_S.c.PROC_INST_ID_ == process_instance_id)
    stmt = select(_S.c.ID_, _S.c.PROC_INST_ID_)
    if business_key is not None:
        e = ACT_RU_EXECUTION
        stmt = stmt.join(e, e.c.ID_ == _S.c.PROC_INST_ID_)
        conditions.append(e.c.BUSINESS_KEY_ == business_key)
    rows = conn.execute(stmt.where(*conditions).order_by(_S.c.CREATED_, _S.c.ID_))
    return [(row[0], row[1]) for row in rows]


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
