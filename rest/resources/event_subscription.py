"""engine-rest: the event subscription resource — what waiting catch events are subscribed to:
the query (`GET /event-subscription`, `/count`; 7.15 has no JSON form). Reads only.

The query is `projections.queries.event_subscriptions.EVENT_SUBSCRIPTIONS`. Camunda 7.15 serves
no single subscription by id (`eventSubscriptionId` filters the list), nor a POST query.
"""

from __future__ import annotations

from typing import Any

import msgspec

from flowledger.projections.queries import event_subscriptions as search

from ..dto import derived
from ..listing import list_routes, searched


@derived(search.EventSubscriptionRow)
class EventSubscriptionDto(msgspec.Struct):
    """Camunda's EventSubscriptionDto."""


EVENT_SUBSCRIPTIONS = searched(
    search.EVENT_SUBSCRIPTIONS,
    path="/event-subscription",
    body=None,
    result=EventSubscriptionDto,
)


routes: list[Any] = list_routes(
    EVENT_SUBSCRIPTIONS,
    get_list="get_event_subscriptions",
    get_count="get_event_subscriptions_count",
)
