"""The engine's reads of event subscriptions (ACT_RU_EVENT_SUBSCR), as `core.views` Structs.
Reads only: the lookups commands make (waiting catch events, start event subscriptions) are in
`engine.commands.lookups`.
"""

from __future__ import annotations

from sqlalchemy.engine import Connection

from flowledger.core import views

from .declaration import find, view
from .event_subscriptions import EVENT_SUBSCRIPTIONS, EventSubscriptionQuery


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
