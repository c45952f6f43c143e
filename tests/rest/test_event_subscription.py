"""Event subscriptions over HTTP: `/event-subscription` lists ACT_RU_EVENT_SUBSCR as Camunda's
EventSubscriptionDto, filters, counts, sorts and pages it.

The engine does not write subscriptions yet: the module's rows are inserted into the server's
database directly (SUBSCRIPTIONS), and each test only reads them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger.projections.tables import ACT_RU_EVENT_SUBSCR

from .server import LiveServer

FIELDS = {
    "id",
    "eventType",
    "eventName",
    "executionId",
    "processInstanceId",
    "activityId",
    "createdDate",
    "tenantId",
}


def _row(
    id: str,
    event_type: str,
    name: str | None,
    execution: str,
    instance: str,
    activity: str,
    created: datetime,
    tenant: str | None,
) -> dict[str, Any]:
    return {
        "ID_": id,
        "REV_": 1,
        "EVENT_TYPE_": event_type,
        "EVENT_NAME_": name,
        "EXECUTION_ID_": execution,
        "PROC_INST_ID_": instance,
        "ACTIVITY_ID_": activity,
        "CONFIGURATION_": None,
        "CREATED_": created,  # naive UTC, as the tables hold moments
        "TENANT_ID_": tenant,
        "ACT_INST_ID_": f"{activity}:{id}",
    }


# Ids in an order that is none of the orders tested (created, tenant), so that a sorting that
# is ignored (the default order is the id) fails.
SUBSCRIPTIONS = [
    _row("es-3", "message", "orderPaid", "ex-1", "pi-1", "waitPayment",
         datetime(2026, 1, 1, 10, 0, 0, 250_000), None),
    _row("es-1", "message", "orderShipped", "ex-2", "pi-1", "waitShipping",
         datetime(2026, 1, 1, 11, 0), "tenantA"),
    _row("es-5", "signal", "alarm", "ex-3", "pi-2", "catchAlarm",
         datetime(2026, 1, 1, 9, 0), "tenantB"),
    _row("es-2", "compensate", None, "ex-4", "pi-2", "undo",
         datetime(2026, 1, 1, 12, 0), None),
    _row("es-4", "conditional", "orderPaid", "ex-5", "pi-3", "waitPayment",
         datetime(2026, 1, 1, 8, 0), "tenantA"),
]  # fmt: skip
BY_CREATED = ["es-4", "es-5", "es-3", "es-1", "es-2"]


@pytest.fixture(scope="module", autouse=True)
def subscriptions(rest: LiveServer) -> None:
    db = sa.create_engine(rest.engine.url)
    try:
        with db.begin() as conn:
            conn.execute(sa.insert(ACT_RU_EVENT_SUBSCR), SUBSCRIPTIONS)
    finally:
        db.dispose()


def get(rest: LiveServer, path: str, **params: Any) -> Any:
    response = rest.client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def query_string(params: dict[str, str]) -> str:
    return "&".join(f"{k}={v}" for k, v in params.items())


def ids(rest: LiveServer, **params: Any) -> list[str]:
    return [s["id"] for s in get(rest, "/event-subscription", **params)]


def test_a_subscription_is_camundas_dto(rest: LiveServer) -> None:
    (subscription,) = get(rest, "/event-subscription", eventSubscriptionId="es-3")
    assert set(subscription) == FIELDS
    assert subscription == {
        "id": "es-3",
        "eventType": "message",
        "eventName": "orderPaid",
        "executionId": "ex-1",
        "processInstanceId": "pi-1",
        "activityId": "waitPayment",
        "createdDate": "2026-01-01T10:00:00.250+0000",
        "tenantId": None,
    }
    (compensation,) = get(rest, "/event-subscription", eventSubscriptionId="es-2")
    assert compensation["eventName"] is None


def test_without_filters_every_subscription_in_id_order(rest: LiveServer) -> None:
    assert ids(rest) == ["es-1", "es-2", "es-3", "es-4", "es-5"]
    assert get(rest, "/event-subscription/count") == {"count": 5}


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"eventSubscriptionId": "es-5"}, {"es-5"}),
        ({"eventSubscriptionId": "es-9"}, set()),
        ({"eventName": "orderPaid"}, {"es-3", "es-4"}),
        ({"eventName": "orderpaid"}, set()),
        ({"eventType": "message"}, {"es-3", "es-1"}),
        ({"eventType": "signal"}, {"es-5"}),
        ({"eventType": "compensate"}, {"es-2"}),
        ({"eventType": "conditional"}, {"es-4"}),
        ({"executionId": "ex-2"}, {"es-1"}),
        ({"processInstanceId": "pi-2"}, {"es-5", "es-2"}),
        ({"activityId": "waitPayment"}, {"es-3", "es-4"}),
        ({"eventName": "orderPaid", "eventType": "message"}, {"es-3"}),
        ({"processInstanceId": "pi-1", "activityId": "waitShipping"}, {"es-1"}),
        ({"tenantIdIn": "tenantA"}, {"es-1", "es-4"}),
        ({"tenantIdIn": "tenantA,tenantB"}, {"es-1", "es-4", "es-5"}),
        ({"tenantIdIn": "nobody"}, set()),
        ({"withoutTenantId": "true"}, {"es-3", "es-2"}),
        ({"withoutTenantId": "false"}, {"es-1", "es-2", "es-3", "es-4", "es-5"}),
        (
            {"tenantIdIn": "tenantB", "includeEventSubscriptionsWithoutTenantId": "true"},
            {"es-5", "es-3", "es-2"},
        ),
        (
            {"tenantIdIn": "tenantB", "includeEventSubscriptionsWithoutTenantId": "false"},
            {"es-5"},
        ),
    ],
    ids=lambda value: query_string(value) if isinstance(value, dict) else None,
)
def test_filters_and_their_counts(
    rest: LiveServer, params: dict[str, str], expected: set[str]
) -> None:
    found = ids(rest, **params)
    assert len(found) == len(set(found))
    assert set(found) == expected
    assert get(rest, "/event-subscription/count", **params) == {"count": len(expected)}


def test_sorted_by_created_and_by_tenant(rest: LiveServer) -> None:
    assert ids(rest, sortBy="created", sortOrder="asc") == BY_CREATED
    assert ids(rest, sortBy="created", sortOrder="desc") == BY_CREATED[::-1]
    # No tenant sorts below every tenant (as for incidents); ties in id order.
    assert ids(rest, sortBy="tenantId", sortOrder="asc") == ["es-2", "es-3", "es-1", "es-4", "es-5"]
    assert ids(rest, sortBy="tenantId", sortOrder="desc") == [
        "es-5",
        "es-1",
        "es-4",
        "es-2",
        "es-3",
    ]
    assert ids(rest, sortBy="created", sortOrder="desc", eventType="message") == ["es-1", "es-3"]


def test_paged(rest: LiveServer) -> None:
    created = {"sortBy": "created", "sortOrder": "asc"}
    assert ids(rest, **created, firstResult=1, maxResults=2) == BY_CREATED[1:3]
    assert ids(rest, **created, firstResult=3) == BY_CREATED[3:]
    assert ids(rest, **created, maxResults=1) == BY_CREATED[:1]
    assert ids(rest, **created, firstResult=5) == []
    assert ids(rest, firstResult=4, maxResults=10) == ["es-5"]


@pytest.mark.parametrize(
    "params",
    [
        {"sortBy": "eventName", "sortOrder": "asc"},
        {"sortBy": "createdDate", "sortOrder": "asc"},
        {"sortBy": "created"},
        {"sortBy": "created", "sortOrder": "up"},
        {"firstResult": "-1"},
        {"maxResults": "many"},
    ],
)
def test_bad_queries_are_refused(rest: LiveServer, params: dict[str, str]) -> None:
    response = rest.client.get("/event-subscription", params=params)
    assert response.status_code == 400, response.text
    assert response.json()["type"] == "InvalidRequestException"


def test_no_post_query_and_no_single_subscription(rest: LiveServer) -> None:
    # Camunda 7.15 has neither.
    assert rest.client.post("/event-subscription", json={}).status_code == 405
    assert rest.client.get("/event-subscription/es-1").status_code == 404
