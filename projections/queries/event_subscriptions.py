"""Event subscriptions (ACT_RU_EVENT_SUBSCR): Camunda's event subscription query, behind
engine-rest's `/event-subscription`. Reads only: the runtime projection writes the table.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from sqlalchemy.engine import RowMapping

from ..tables import ACT_RU_EVENT_SUBSCR
from .declaration import Search
from .filters import Condition, Spec, equal_fields, tenants, utc

_E = ACT_RU_EVENT_SUBSCR


class EventSubscriptionQuery(msgspec.Struct, rename="camel"):
    """Camunda's event subscription query parameters (7.15 has no JSON form); None means "no
    filter", and its flags filter only when true."""

    event_subscription_id: str | None = None
    event_name: str | None = None
    event_type: str | None = None
    execution_id: str | None = None
    process_instance_id: str | None = None
    activity_id: str | None = None
    tenant_id_in: list[str] | None = None
    without_tenant_id: bool | None = None
    include_event_subscriptions_without_tenant_id: bool | None = None


class EventSubscriptionRow(msgspec.Struct, frozen=True):
    """One ACT_RU_EVENT_SUBSCR row: the fields of Camunda's EventSubscriptionDto in its order."""

    id: str
    event_type: str
    event_name: str | None
    execution_id: str | None
    process_instance_id: str | None
    activity_id: str | None
    created_date: datetime
    tenant_id: str | None


EVENT_SUBSCRIPTION_SORTS: dict[str, Any] = {
    "created": _E.c.CREATED_,
    "tenantId": _E.c.TENANT_ID_,
}

_EVENT_SUBSCRIPTION_EQUAL: Spec = (
    ("event_subscription_id", _E.c.ID_),
    ("event_name", _E.c.EVENT_NAME_),
    ("event_type", _E.c.EVENT_TYPE_),
    ("execution_id", _E.c.EXECUTION_ID_),
    ("process_instance_id", _E.c.PROC_INST_ID_),
    ("activity_id", _E.c.ACTIVITY_ID_),
)


def _event_subscription_conditions(q: EventSubscriptionQuery) -> list[Condition]:
    return [
        *equal_fields(q, _EVENT_SUBSCRIPTION_EQUAL),
        *tenants(
            _E.c.TENANT_ID_,
            q.tenant_id_in,
            q.without_tenant_id,
            q.include_event_subscriptions_without_tenant_id,
        ),
    ]


def _event_subscription_row(m: RowMapping) -> EventSubscriptionRow:
    created = utc(m["CREATED_"])
    assert created is not None  # NOT NULL
    return EventSubscriptionRow(
        id=m["ID_"],
        event_type=m["EVENT_TYPE_"],
        event_name=m["EVENT_NAME_"],
        execution_id=m["EXECUTION_ID_"],
        process_instance_id=m["PROC_INST_ID_"],
        activity_id=m["ACTIVITY_ID_"],
        created_date=created,
        tenant_id=m["TENANT_ID_"],
    )


EVENT_SUBSCRIPTIONS: Search[EventSubscriptionQuery, EventSubscriptionRow] = Search(
    query=EventSubscriptionQuery,
    source=_E,
    columns=(_E,),
    filters=_event_subscription_conditions,
    sorts=EVENT_SUBSCRIPTION_SORTS,
    # Camunda's default order is the id.
    then=(_E.c.ID_,),
    row=_event_subscription_row,
    nulls="low",
    counted=_E,
)
