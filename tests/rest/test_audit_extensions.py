"""flowledger's extensions under `/flowledger/v1` as a time-travel front end and an auditor use
them: an instance's events page by page, its state at a position or a moment, its trail, what a
claim changed, why an event happened and which condition chose the path, the timeline's chain
status, the audit package as a download, the log's anchor verified (at once or in the
background); errors in Camunda's shape; behind the same authentication as engine-rest, and
never under `/engine-rest` nor in its document."""

from __future__ import annotations

import io
import re
import time
import zipfile
from collections.abc import Iterator
from typing import Any, NamedTuple

import httpx
import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.rest.auth import Users, hash_password
from flowledger.rest.paths import BASE_PATH, EXTENSIONS_PATH
from tests.support import bpmn, fresh_database, selected_kind

from .server import LiveServer, live_server

CAMUNDA_DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$")
EVENT_FIELDS = {
    "position",
    "streamVersion",
    "type",
    "recordedAt",
    "commandId",
    "commandType",
    "actor",
    "via",
    "payload",
}


class Claimed(NamedTuple):
    """An instance of rest_task_steps.bpmn whose first task kermit claimed through the API."""

    instance_id: str
    task_id: str
    before: int  # the instance's last position before the claim
    claim: int  # the position of the claim's event


def _extensions(server: LiveServer) -> httpx.Client:
    return httpx.Client(base_url=server.url.removesuffix(BASE_PATH) + EXTENSIONS_PATH, timeout=60)


@pytest.fixture(scope="module")
def ext(rest: LiveServer) -> Iterator[httpx.Client]:
    with _extensions(rest) as client:
        yield client


def _events(ext: httpx.Client, instance_id: str, **params: Any) -> list[dict[str, Any]]:
    response = ext.get(f"/process-instance/{instance_id}/events", params=params)
    assert response.status_code == 200, response.text
    events: list[dict[str, Any]] = response.json()
    return events


@pytest.fixture(scope="module")
def claimed(rest: LiveServer, ext: httpx.Client) -> Claimed:
    rest.deploy(bpmn("rest_task_steps.bpmn"), name="audit-extensions")
    started = rest.client.post("/process-definition/key/restTaskSteps/start", json={})
    assert started.status_code == 200, started.text
    instance_id = str(started.json()["id"])
    [task] = rest.client.get("/task", params={"processInstanceId": instance_id}).json()
    before = _events(ext, instance_id)[-1]["position"]
    claim = rest.client.post(f"/task/{task['id']}/claim", json={"userId": "kermit"})
    assert claim.status_code == 204, claim.text
    after = _events(ext, instance_id)
    assert after[-1]["type"] == "TaskClaimed"
    return Claimed(instance_id, str(task["id"]), before, after[-1]["position"])


def _state(ext: httpx.Client, instance_id: str, at: str | int | None) -> dict[str, Any]:
    params = {} if at is None else {"at": str(at)}
    response = ext.get(f"/process-instance/{instance_id}/state", params=params)
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()
    return state


def _assert_error(response: httpx.Response, status: int, *words: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"type", "message"}
    assert body["type"] == "InvalidRequestException"
    for word in words:
        assert word in body["message"]


def test_events_in_log_order_and_by_page(ext: httpx.Client, claimed: Claimed) -> None:
    events = _events(ext, claimed.instance_id)
    assert all(set(event) == EVENT_FIELDS for event in events)
    positions = [event["position"] for event in events]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert [event["streamVersion"] for event in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "ProcessInstanceStarted"
    assert events[0]["commandType"] == "StartProcessInstance"
    assert events[0]["via"] == "rest"
    assert all(CAMUNDA_DATE.match(event["recordedAt"]) for event in events)
    assert events[-1]["payload"]["assignee"] == "kermit"  # the event at its current version

    page = _events(ext, claimed.instance_id, afterPosition=positions[1], maxResults=2)
    assert page == events[2:4]
    assert _events(ext, claimed.instance_id, afterPosition=positions[-1]) == []
    assert _events(ext, claimed.instance_id, maxResults=0) == []


def test_state_at_a_position_shows_the_open_task_and_its_assignee(
    ext: httpx.Client, claimed: Claimed
) -> None:
    then = _state(ext, claimed.instance_id, claimed.before)
    assert then["position"] == claimed.before
    assert CAMUNDA_DATE.match(then["recordedAt"])
    [task] = then["instance"]["tasks"]
    assert task["id"] == claimed.task_id
    assert task["taskDefinitionKey"] == "prepare"
    assert task["assignee"] is None
    assert CAMUNDA_DATE.match(task["created"])

    now = _state(ext, claimed.instance_id, claimed.claim)
    assert now["position"] == claimed.claim
    assert now["instance"]["tasks"][0]["assignee"] == "kermit"
    assert now["instance"]["status"] == then["instance"]["status"]
    assert _state(ext, claimed.instance_id, None) == now  # no `at`: as it is now


def test_state_at_a_moment(ext: httpx.Client, claimed: Claimed) -> None:
    claim = _events(ext, claimed.instance_id)[-1]
    # Camunda's format, as the events give it, and ISO 8601 with `Z`
    at_claim = _state(ext, claimed.instance_id, claim["recordedAt"])
    assert at_claim["position"] == claimed.claim
    assert at_claim["instance"]["tasks"][0]["assignee"] == "kermit"
    iso = re.sub(r"\.\d{3}\+0000$", ".999Z", claim["recordedAt"])
    assert _state(ext, claimed.instance_id, iso)["position"] == claimed.claim


def test_diff_before_and_after_a_claim_names_the_assignee(
    ext: httpx.Client, claimed: Claimed
) -> None:
    response = ext.get(
        f"/process-instance/{claimed.instance_id}/diff",
        params={"from": claimed.before, "to": claimed.claim},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["from"]["position"] == claimed.before
    assert body["to"]["position"] == claimed.claim
    assert CAMUNDA_DATE.match(body["to"]["recordedAt"])
    assert body["changes"] == [
        {
            "section": "tasks",
            "key": claimed.task_id,
            "kind": "changed",
            "before": {"assignee": None},
            "after": {"assignee": "kermit"},
        }
    ]


def test_why_a_claim_happened(ext: httpx.Client, claimed: Claimed) -> None:
    response = ext.get(f"/process-instance/{claimed.instance_id}/why/{claimed.claim}")
    assert response.status_code == 200, response.text
    chain = response.json()
    assert [cause["commandType"] for cause in chain] == ["ClaimTask", "StartProcessInstance"]
    assert chain[0]["events"] == ["TaskClaimed"]
    assert chain[0]["becauseOf"] == f"task {claimed.task_id}"
    assert all(CAMUNDA_DATE.match(cause["recordedAt"]) for cause in chain)


def test_timeline(ext: httpx.Client, claimed: Claimed) -> None:
    response = ext.get(f"/process-instance/{claimed.instance_id}/timeline")
    assert response.status_code == 200, response.text
    timeline = response.json()
    assert timeline[0]["what"] == "instance started"
    assert timeline[-1]["what"] == "task claimed by kermit"
    assert timeline[-1]["activityId"] == "prepare"
    assert timeline[-1]["position"] == claimed.claim
    assert all(CAMUNDA_DATE.match(entry["time"]) for entry in timeline)


def test_the_heads_anchor_verifies(ext: httpx.Client, claimed: Claimed) -> None:
    head = ext.get("/log/head")
    assert head.status_code == 200, head.text
    anchor = head.json()
    assert anchor["problems"] == []
    assert anchor["position"] >= claimed.claim
    assert anchor["anchor"].startswith(f"{anchor['position']}:")

    report = ext.post("/log/verify", json={"against": anchor["anchor"]})
    assert report.status_code == 200, report.text
    body = report.json()
    assert body["ok"] is True and body["problems"] == []
    assert body["commitsChecked"] >= anchor["commits"]
    assert ext.post("/log/verify").json()["ok"] is True  # no body: no anchor to compare


def test_a_rewritten_anchor_is_reported_not_refused(ext: httpx.Client, claimed: Claimed) -> None:
    position = ext.get("/log/head").json()["position"]
    report = ext.post("/log/verify", json={"against": f"{position}:{'0' * 64}"})
    assert report.status_code == 200, report.text
    assert report.json()["ok"] is False and report.json()["problems"]


@pytest.mark.parametrize("against", ["nonsense", "12:abc", f"1:{'g' * 64}", ""])
def test_a_malformed_anchor_is_a_400(ext: httpx.Client, against: str) -> None:
    _assert_error(ext.post("/log/verify", json={"against": against}), 400, "against")


@pytest.mark.parametrize(
    "path",
    ["events", "timeline", "state", "state?at=1", "diff?from=1&to=2", "why/1", "trail", "package"],
)
def test_an_unknown_instance_is_a_404(ext: httpx.Client, path: str) -> None:
    _assert_error(ext.get(f"/process-instance/no-such-instance/{path}"), 404, "no-such-instance")


def test_a_deployment_is_no_instance(rest: LiveServer, ext: httpx.Client) -> None:
    deployment = rest.deploy(bpmn("rest_task_steps.bpmn"), name="not-an-instance")
    _assert_error(ext.get(f"/process-instance/{deployment['id']}/events"), 404, "deployment")


def test_a_point_outside_the_log_is_a_400_naming_the_parameter(
    ext: httpx.Client, claimed: Claimed
) -> None:
    instance = f"/process-instance/{claimed.instance_id}"
    beyond = ext.get("/log/head").json()["position"] + 1000
    _assert_error(ext.get(f"{instance}/state", params={"at": beyond}), 400, "'at'", "outside")
    _assert_error(ext.get(f"{instance}/state", params={"at": "0"}), 400, "'at'")
    before = {"from": "2000-01-01T00:00:00Z", "to": str(claimed.claim)}
    _assert_error(ext.get(f"{instance}/diff", params=before), 400, "'from'", "began")
    _assert_error(ext.get(f"{instance}/diff", params={"from": "1"}), 400, "'to'", "required")
    _assert_error(ext.get(f"{instance}/why/{beyond}"), 400, "'position'")


@pytest.mark.parametrize(
    ("path", "parameter"),
    [
        ("state?at=yesterday", "'at'"),
        ("state?at=-1", "'at'"),
        ("state?at=0001-01-01T00:00:00%2B01:00", "'at'"),
        ("diff?from=1&to=soon", "'to'"),
        ("events?afterPosition=x", "'afterPosition'"),
        ("events?maxResults=-1", "'maxResults'"),
        ("why/first", "'position'"),
        ("trail?position=x", "'position'"),
        ("state?position=later", "'position'"),
    ],
)
def test_a_malformed_point_is_a_400_naming_the_parameter(
    ext: httpx.Client, claimed: Claimed, path: str, parameter: str
) -> None:
    _assert_error(ext.get(f"/process-instance/{claimed.instance_id}/{path}"), 400, parameter)


def test_only_under_its_own_prefix_and_documented_there(rest: LiveServer, claimed: Claimed) -> None:
    assert rest.client.get(f"/process-instance/{claimed.instance_id}/events").status_code == 404
    assert rest.client.get("/log/head").status_code == 404
    document = rest.client.get("/openapi/openapi.json").json()
    assert not [p for p in document["paths"] if p.startswith(BASE_PATH) and "/log/" in p]
    assert f"{EXTENSIONS_PATH}/log/head" in document["paths"]
    assert f"{EXTENSIONS_PATH}/process-instance/{{id}}/events" in document["paths"]


def test_behind_the_same_authentication(tmp_path_factory: pytest.TempPathFactory) -> None:
    users = Users({"kermit": hash_password("frog")})
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("audit-auth")) as url,
        Engine(url) as engine,
        live_server(engine, users=users) as server,
        _extensions(server) as client,
    ):
        refused = client.get("/log/head")
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"].startswith("Basic")
        assert refused.json()["type"] == "AuthenticationException"
        assert client.post("/log/verify").status_code == 401
        assert client.get("/log/head", auth=("kermit", "wrong")).status_code == 401
        assert client.get("/log/head", auth=("kermit", "frog")).status_code == 200


def test_state_takes_the_position_as_position_too(ext: httpx.Client, claimed: Claimed) -> None:
    response = ext.get(
        f"/process-instance/{claimed.instance_id}/state", params={"position": claimed.before}
    )
    assert response.status_code == 200, response.text
    assert response.json() == _state(ext, claimed.instance_id, claimed.before)


def test_the_trail_marks_what_the_instance_passed(ext: httpx.Client, claimed: Claimed) -> None:
    response = ext.get(f"/process-instance/{claimed.instance_id}/trail")
    assert response.status_code == 200, response.text
    assert response.json() == {
        "position": claimed.claim,
        "activities": [
            {"activityId": "start", "count": 1, "active": False},
            {"activityId": "prepare", "count": 1, "active": True},
        ],
        "sequenceFlows": ["f1"],
    }
    first = _events(ext, claimed.instance_id)[0]["position"]
    early = ext.get(f"/process-instance/{claimed.instance_id}/trail", params={"position": first})
    assert early.json() == {"position": first, "activities": [], "sequenceFlows": []}


@pytest.fixture(scope="module")
def routed(rest: LiveServer, ext: httpx.Client) -> tuple[str, list[dict[str, Any]]]:
    """An instance whose exclusive gateway sent it to `large` (amount 1500 > 1000)."""
    rest.deploy(bpmn("exclusive_gateway_default_flow.bpmn"), name="why-conditions")
    started = rest.client.post(
        "/process-definition/key/exclusiveDefault/start",
        json={"variables": {"amount": {"value": 1500, "type": "Integer"}}},
    )
    assert started.status_code == 200, started.text
    instance_id = str(started.json()["id"])
    return instance_id, _events(ext, instance_id)


def test_why_names_the_condition_that_chose_with_the_values_it_read(
    ext: httpx.Client, routed: tuple[str, list[dict[str, Any]]]
) -> None:
    instance_id, events = routed
    [large] = [
        e
        for e in events
        if e["type"] == "ActivityStarted" and e["payload"]["activity_id"] == "large"
    ]
    response = ext.get(f"/process-instance/{instance_id}/why/{large['position']}")
    assert response.status_code == 200, response.text
    [step] = response.json()
    assert step["commandType"] == "StartProcessInstance"
    assert step["conditions"] == [
        {
            "gatewayId": "gw",
            "flowId": "toLarge",
            "expression": "${amount > 1000}",
            "result": True,
            "variables": {"amount": 1500},
        }
    ]
    trail = ext.get(f"/process-instance/{instance_id}/trail").json()
    assert trail["sequenceFlows"] == ["f1", "toLarge"]


def test_each_timeline_entry_names_its_commit_s_chain_status(
    ext: httpx.Client, claimed: Claimed
) -> None:
    timeline = ext.get(f"/process-instance/{claimed.instance_id}/timeline").json()
    assert {entry["chain"] for entry in timeline} == {"verified"}


def test_a_rewritten_commit_is_damaged_on_the_timeline(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("audit-damaged")) as url,
        Engine(url) as engine,
        live_server(engine) as server,
        _extensions(server) as client,
    ):
        server.deploy(bpmn("rest_task_steps.bpmn"), name="damaged")
        instance_id = server.client.post(
            "/process-definition/key/restTaskSteps/start", json={}
        ).json()["id"]
        [task] = server.client.get("/task", params={"processInstanceId": instance_id}).json()
        server.client.post(f"/task/{task['id']}/claim", json={"userId": "kermit"})
        claim = _events(client, instance_id)[-1]["position"]
        sql = sa.create_engine(url)  # someone edits who claimed it, behind the engine
        try:
            with sql.begin() as conn:
                conn.execute(
                    sa.text("UPDATE event_log SET actor = 'gonzo' WHERE first_position = :p"),
                    {"p": claim},
                )
        finally:
            sql.dispose()
        timeline = client.get(f"/process-instance/{instance_id}/timeline").json()
        assert [e["chain"] for e in timeline if e["position"] == claim] == ["damaged"]
        assert {e["chain"] for e in timeline if e["position"] < claim} == {"verified"}


def test_the_audit_package_downloads_as_a_file(ext: httpx.Client, claimed: Claimed) -> None:
    response = ext.get(f"/process-instance/{claimed.instance_id}/package")
    assert response.status_code == 200, response.text
    disposition = response.headers["content-disposition"]
    assert disposition.startswith("attachment")
    assert f'filename="instance-{claimed.instance_id}.zip"' in disposition
    with zipfile.ZipFile(io.BytesIO(response.content)) as package:
        commits = package.read("commits.jsonl").decode()
    assert claimed.instance_id in commits and "TaskClaimed" in commits


def test_a_background_verify_reports_its_progress_and_its_report(
    rest: LiveServer, ext: httpx.Client, claimed: Claimed
) -> None:
    started = ext.post("/log/verify-tasks")
    assert started.status_code == 202, started.text
    task_id = started.json()["id"]
    deadline = time.monotonic() + 120
    while True:
        task = ext.get(f"/log/verify-tasks/{task_id}").json()
        assert task["id"] == task_id and task["state"] in ("running", "done")
        if task["state"] == "done" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert task["state"] == "done"
    assert task["report"]["ok"] is True and task["report"]["problems"] == []
    assert task["checked"] == task["total"] == task["report"]["commitsChecked"] > 0
    health = rest.client.get(rest.url.removesuffix(BASE_PATH) + "/actuator/health").json()
    verify = health["components"]["logVerify"]
    assert verify["details"]["state"] == "done" and verify["details"]["ok"] is True
    assert CAMUNDA_DATE.match(verify["details"]["finished"])


def test_an_unknown_verify_task_is_a_404(ext: httpx.Client) -> None:
    _assert_error(ext.get("/log/verify-tasks/no-such-task"), 404, "no-such-task")
