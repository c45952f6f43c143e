"""The list-pages benchmark's scenario: four process models and each instance's fate.

Pure data and a seeded generator: what the database will hold, decided before anything runs;
no engine, no database.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

# Bump when the builder writes something else: the cache key and the marker deployment change.
BUILD_VERSION = 2
SPAN = timedelta(days=100)  # the instances start evenly over this time
EPOCH = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
MARKER = "list-pages"  # the name of the benchmark's first deployment starts with it

GROUP_USERS: dict[str, tuple[str, ...]] = {
    "accounting": ("mary", "peter"),
    "sales": ("john", "demo"),
    "management": ("demo",),
    "support": ("lisa", "tom"),
    "logistics": ("lisa", "tom", "kermit"),
}
INVOICE_GROUPS = ("accounting", "accounting", "sales", "management", "support")
REVIEWERS = ("demo", "john", "mary", "peter", "lisa", "tom", "kermit", "fozzie")

_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
    'targetNamespace="http://flowledger.dev/bench/list-pages">\n'
)


def invoice(version_name: str) -> str:
    return _HEAD + (
        f'  <process id="invoice" name="{version_name}" isExecutable="true" '
        'camunda:historyTimeToLive="P180D">\n'
        '    <startEvent id="received" name="Invoice received"/>\n'
        '    <userTask id="approve" name="Approve invoice" camunda:candidateGroups="${group}" '
        'camunda:formKey="embedded:app:forms/approve.html"/>\n'
        '    <serviceTask id="archive" name="Archive invoice" camunda:type="external" '
        'camunda:topic="archive"/>\n'
        '    <endEvent id="processed" name="Invoice processed"/>\n'
        '    <sequenceFlow id="f1" sourceRef="received" targetRef="approve"/>\n'
        '    <sequenceFlow id="f2" sourceRef="approve" targetRef="archive"/>\n'
        '    <sequenceFlow id="f3" sourceRef="archive" targetRef="processed"/>\n'
        "  </process>\n</definitions>\n"
    )


REVIEW = _HEAD + (
    '  <process id="review" name="Document review" isExecutable="true" '
    'camunda:historyTimeToLive="P180D">\n'
    '    <startEvent id="submitted" name="Document submitted"/>\n'
    '    <userTask id="check" name="Review document" camunda:assignee="${reviewer}"/>\n'
    '    <exclusiveGateway id="verdict" name="Approved?" default="f_rejected"/>\n'
    '    <endEvent id="accepted" name="Accepted"/>\n'
    '    <endEvent id="rejected" name="Rejected"/>\n'
    '    <sequenceFlow id="f1" sourceRef="submitted" targetRef="check"/>\n'
    '    <sequenceFlow id="f2" sourceRef="check" targetRef="verdict"/>\n'
    '    <sequenceFlow id="f_accepted" sourceRef="verdict" targetRef="accepted">\n'
    '      <conditionExpression xsi:type="tFormalExpression">${approved}</conditionExpression>\n'
    "    </sequenceFlow>\n"
    '    <sequenceFlow id="f_rejected" sourceRef="verdict" targetRef="rejected"/>\n'
    "  </process>\n</definitions>\n"
)

SHIPMENT = _HEAD + (
    '  <process id="shipment" name="Shipment" isExecutable="true" '
    'camunda:historyTimeToLive="P180D">\n'
    '    <startEvent id="ordered" name="Order placed"/>\n'
    '    <serviceTask id="ship" name="Ship goods" camunda:type="external" '
    'camunda:topic="shipping"/>\n'
    '    <userTask id="confirm" name="Confirm delivery" camunda:candidateGroups="logistics"/>\n'
    '    <endEvent id="delivered" name="Delivered"/>\n'
    '    <sequenceFlow id="f1" sourceRef="ordered" targetRef="ship"/>\n'
    '    <sequenceFlow id="f2" sourceRef="ship" targetRef="confirm"/>\n'
    '    <sequenceFlow id="f3" sourceRef="confirm" targetRef="delivered"/>\n'
    "  </process>\n</definitions>\n"
)


@dataclass(frozen=True)
class Fate:
    """What happens to one instance, drawn from the seeded generator before anything runs."""

    model: str  # invoice, review, shipment
    business_key: str
    variables: dict[str, Any]
    claim_after: timedelta | None  # a candidate claims the user task this long after it exists
    claimer: str | None
    task_after: timedelta | None  # the user task is completed this long after it exists
    external_after: timedelta | None  # the external task is done this long after it exists
    external_fails: bool = False  # ... or fails then with no retries left: an open incident


def _hours(rng: random.Random, low: float, high: float) -> timedelta:
    return timedelta(hours=rng.uniform(low, high))


def fate(i: int, rng: random.Random) -> Fate:
    """Instance `i`'s model, business key, variables and timings. About one in five is left
    waiting at its user task (half of those claimed), a few at their external task, one in fifty
    of those with an external task stays there with an incident; the rest finish within days, so
    the newest ones are still running too."""
    draw = rng.random()
    lying = rng.random() < 0.2
    fails = rng.random() < 0.02
    amount = rng.randrange(10, 20_000)
    customer = f"customer-{rng.randrange(2_000):04d}"
    if draw < 0.35:
        group = rng.choice(INVOICE_GROUPS)
        claimed = rng.random() < (0.5 if lying else 0.7)
        return Fate(
            model="invoice",
            business_key=f"INV-{i:07d}",
            variables={"amount": amount, "customer": customer, "group": group},
            claim_after=_hours(rng, 0.1, 24) if claimed else None,
            claimer=rng.choice(GROUP_USERS[group]) if claimed else None,
            task_after=None if lying else _hours(rng, 24, 96),
            external_after=None if rng.random() < 0.03 else _hours(rng, 0.02, 6),
            external_fails=fails,
        )
    if draw < 0.75:
        return Fate(
            model="review",
            business_key=f"REV-{i:07d}",
            variables={"amount": amount, "customer": customer, "reviewer": rng.choice(REVIEWERS)},
            claim_after=None,
            claimer=None,
            task_after=None if lying else _hours(rng, 1, 120),
            external_after=None,
        )
    claimed = rng.random() < 0.5
    return Fate(
        model="shipment",
        business_key=f"SHP-{i:07d}",
        variables={"amount": amount, "customer": customer, "priority": rng.randrange(3)},
        claim_after=_hours(rng, 0.5, 12) if claimed else None,
        claimer=rng.choice(GROUP_USERS["logistics"]) if claimed else None,
        task_after=None if lying else _hours(rng, 13, 48),
        external_after=None if rng.random() < 0.03 else _hours(rng, 0.2, 48),
        external_fails=fails,
    )


# One instance with a long past among the others: the cockpit's slider over 10,000 events.
LONG_BUSINESS_KEY = "INV-LONG"
LONG_COMMANDS = 1_000  # each sets 10 variables: 10,000 events and a few
LONG_VARIABLES = 10
