"""Erasure over REST, as a client sets a personal value and a data protection officer erases it:
a value marked `personalData` in valueInfo reads back until the subject is erased
(`POST /flowledger/v1/personal-data/erasure`), then reads as null; what the engine keeps of the
subject (`GET /flowledger/v1/personal-data?subject=`) names who erased it and why."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from flowledger.rest.paths import BASE_PATH, EXTENSIONS_PATH
from tests.support import bpmn

from .server import LiveServer


@pytest.fixture(scope="module")
def ext(rest: LiveServer) -> Iterator[httpx.Client]:
    rest.deploy(bpmn("rest_task_steps.bpmn"), name="personal-data")
    base = rest.url.removesuffix(BASE_PATH) + EXTENSIONS_PATH
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def test_a_value_marked_personal_is_erased_with_its_subject(
    rest: LiveServer, ext: httpx.Client
) -> None:
    subject = f"customer-{uuid.uuid4()}"
    started = rest.client.post(
        "/process-definition/key/restTaskSteps/start",
        json={
            "businessKey": subject,
            "variables": {
                "email": {
                    "value": "carol@example.org",
                    "type": "String",
                    "valueInfo": {"personalData": True},
                },
                "plan": {"value": "gold", "type": "String"},
            },
        },
    )
    assert started.status_code == 200, started.text
    pid = started.json()["id"]
    variables = rest.client.get(f"/process-instance/{pid}/variables").json()
    assert variables["email"]["value"] == "carol@example.org"

    erased = ext.post("/personal-data/erasure", json={"subject": subject, "reason": "Art. 17"})
    assert erased.status_code == 200, erased.text
    assert erased.json()["processInstanceIds"] == [pid] and erased.json()["values"] == 1

    variables = rest.client.get(f"/process-instance/{pid}/variables").json()
    assert variables["email"]["value"] is None and variables["plan"]["value"] == "gold"
    kept = ext.get("/personal-data", params={"subject": subject})
    assert kept.status_code == 200, kept.text
    (key,) = kept.json()["keys"]
    assert key["processInstanceId"] == pid and key["reason"] == "Art. 17" and key["erased"]
    again = ext.post("/personal-data/erasure", json={"subject": subject, "reason": "Art. 17"})
    assert again.json()["alreadyErased"] is True


def test_erasure_needs_a_known_subject_and_a_reason(ext: httpx.Client) -> None:
    unknown = ext.post("/personal-data/erasure", json={"subject": "nobody-x", "reason": "r"})
    assert unknown.status_code == 404, unknown.text
    blank = ext.post("/personal-data/erasure", json={"subject": "nobody-x", "reason": " "})
    assert blank.status_code == 400 and "reason" in blank.text
    missing = ext.get("/personal-data")
    assert missing.status_code == 400 and "subject" in missing.json()["message"]
