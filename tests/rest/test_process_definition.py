"""The process-definition resource: list/count with Camunda's filters, one definition by id or
key, its XML, starting instances, statistics."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.support import BPMN_DIR

from .server import LiveServer

REVIEW = BPMN_DIR / "rest_repo_review.bpmn"
STRAIGHT = BPMN_DIR / "rest_repo_straight.bpmn"

DEFINITION_KEYS = {
    "id",
    "key",
    "category",
    "description",
    "name",
    "version",
    "resource",
    "deploymentId",
    "diagram",
    "suspended",
    "tenantId",
    "versionTag",
    "historyTimeToLive",
    "startableInTasklist",
}
INSTANCE_KEYS = {
    "links",
    "id",
    "definitionId",
    "businessKey",
    "caseInstanceId",
    "ended",
    "suspended",
    "tenantId",
}


def unique_key(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def model(path: Any, key: str, **replace: str) -> bytes:
    """A test model under its own process key (each test numbers its own versions)."""
    data = path.read_bytes()
    original = b'id="restRepoReview"' if path == REVIEW else b'id="restRepoStraight"'
    data = data.replace(original, f'id="{key}"'.encode())
    for old, new in replace.items():
        data = data.replace(old.encode(), new.encode())
    return bytes(data)


def deploy(rest: LiveServer, *resources: tuple[str, bytes]) -> dict[str, Any]:
    files = [
        (f"resource-{i}", (name, data, "application/octet-stream"))
        for i, (name, data) in enumerate(resources)
    ]
    response = rest.client.post(
        "/deployment/create", data={"deployment-name": "definitions"}, files=files
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def deploy_review(rest: LiveServer, key: str, **replace: str) -> dict[str, Any]:
    """Deploy the review model as `key`; its process definition DTO."""
    body = deploy(rest, ("review.bpmn", model(REVIEW, key, **replace)))
    [definition] = body["deployedProcessDefinitions"].values()
    assert isinstance(definition, dict)
    return definition


def listed(rest: LiveServer, **params: str) -> list[dict[str, Any]]:
    response = rest.client.get("/process-definition", params=params)
    assert response.status_code == 200, response.text
    found: list[dict[str, Any]] = response.json()
    return found


def ids(rest: LiveServer, **params: str) -> list[str]:
    return [d["id"] for d in listed(rest, **params)]


# -- GET /process-definition, /count --------------------------------------------------------------


def test_list_by_deployment_has_every_field(rest: LiveServer) -> None:
    key = unique_key("listed")
    definition = deploy_review(rest, key)

    [found] = listed(rest, deploymentId=definition["deploymentId"])

    assert set(found) == DEFINITION_KEYS
    assert found == definition
    assert found["key"] == key
    assert found["suspended"] is False
    assert found["tenantId"] is None
    count = rest.client.get(
        "/process-definition/count", params={"deploymentId": definition["deploymentId"]}
    )
    assert count.json() == {"count": 1}


def test_list_filters_by_key_version_and_latest(rest: LiveServer) -> None:
    key = unique_key("versions")
    first = deploy_review(rest, key)
    second = deploy_review(rest, key, **{'name="Read"': 'name="Read again"'})

    assert ids(rest, key=key, sortBy="version", sortOrder="asc") == [first["id"], second["id"]]
    assert ids(rest, key=key, version="1") == [first["id"]]
    assert ids(rest, key=key, latestVersion="true") == [second["id"]]
    assert ids(rest, keysIn=f"{key},nothing", latestVersion="True") == [second["id"]]
    assert ids(rest, keyLike=f"{key[:-3]}%", version="2") == [second["id"]]
    assert ids(rest, processDefinitionIdIn=f"{first['id']},{second['id']}", version="2") == [
        second["id"]
    ]
    assert ids(rest, processDefinitionId=first["id"]) == [first["id"]]
    count = rest.client.get("/process-definition/count", params={"key": key})
    assert count.json() == {"count": 2}


def test_list_filters_by_name_tag_category_and_resource(rest: LiveServer) -> None:
    key = unique_key("named")
    review = deploy_review(rest, key)
    straight_key = unique_key("plain")
    straight = deploy(rest, ("plain.bpmn", model(STRAIGHT, straight_key)))
    [plain] = straight["deployedProcessDefinitions"].values()
    both = {"keysIn": f"{key},{straight_key}"}

    assert ids(rest, **both, name="Review a document") == [review["id"]]
    assert ids(rest, **both, nameLike="Review%") == [review["id"]]
    assert ids(rest, **both, versionTag="1.0.0") == [review["id"]]
    assert ids(rest, **both, versionTagLike="1.%") == [review["id"]]
    assert ids(rest, **both, withoutVersionTag="true") == [plain["id"]]
    assert ids(rest, **both, category="http://flowledger.test/straight") == [plain["id"]]
    assert ids(rest, **both, categoryLike="%repository") == [review["id"]]
    assert ids(rest, **both, resourceName="plain.bpmn") == [plain["id"]]
    assert ids(rest, **both, resourceNameLike="rev%") == [review["id"]]
    assert ids(rest, **both, startableInTasklist="true") == [review["id"]]
    assert ids(rest, **both, notStartableInTasklist="true") == [plain["id"]]


def test_list_filters_by_state_tenant_and_deploy_time(rest: LiveServer) -> None:
    key = unique_key("state")
    definition = deploy_review(rest, key)

    assert ids(rest, key=key, active="true") == [definition["id"]]
    assert ids(rest, key=key, suspended="true") == []
    assert ids(rest, key=key, withoutTenantId="true") == [definition["id"]]
    assert ids(rest, key=key, tenantIdIn="acme") == []
    assert ids(
        rest, key=key, tenantIdIn="acme", includeProcessDefinitionsWithoutTenantId="true"
    ) == [definition["id"]]
    assert ids(rest, key=key, incidentType="failedJob") == []
    assert ids(rest, key=key, deployedAfter="2000-01-01T00:00:00.000+0000") == [definition["id"]]
    assert ids(rest, key=key, deployedAfter="2999-01-01T00:00:00.000+0100") == []


def test_list_sorts_and_pages(rest: LiveServer) -> None:
    key = unique_key("paged")
    versions = [deploy_review(rest, key, **{"1.0.0": f"1.0.{n}"})["id"] for n in range(3)]

    assert ids(rest, key=key, sortBy="version", sortOrder="desc") == versions[::-1]
    assert ids(rest, key=key, sortBy="versionTag", sortOrder="asc") == versions
    assert ids(rest, key=key, sortBy="deployTime", sortOrder="asc") == versions
    assert (
        ids(rest, key=key, sortBy="version", sortOrder="asc", firstResult="1", maxResults="5")
        == versions[1:]
    )


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"sortBy": "color", "sortOrder": "asc"}, "sortBy"),
        ({"sortBy": "key"}, "sortOrder"),
        ({"version": "latest"}, "version"),
        ({"deployedAfter": "yesterday"}, "deployedAfter"),
        ({"maxResults": "-5"}, "maxResults"),
    ],
)
def test_list_refuses_invalid_parameters(
    rest: LiveServer, params: dict[str, str], named: str
) -> None:
    response = rest.client.get("/process-definition", params=params)

    assert response.status_code == 400
    assert response.json()["type"] == "InvalidRequestException"
    assert named in response.json()["message"]


def test_count_refuses_an_invalid_parameter(rest: LiveServer) -> None:
    response = rest.client.get("/process-definition/count", params={"version": "two"})

    assert response.status_code == 400
    assert "version" in response.json()["message"]


# -- one definition, its XML ----------------------------------------------------------------------


def test_get_by_id_and_by_key_answers_the_latest_version(rest: LiveServer) -> None:
    key = unique_key("latest")
    first = deploy_review(rest, key)
    second = deploy_review(rest, key, **{"1.0.0": "2.0.0"})

    by_id = rest.client.get(f"/process-definition/{first['id']}")
    by_key = rest.client.get(f"/process-definition/key/{key}")

    assert by_id.status_code == 200
    assert by_id.json() == first
    assert by_key.status_code == 200
    assert by_key.json() == second
    assert by_key.json()["versionTag"] == "2.0.0"


@pytest.mark.parametrize(
    ("path", "named"),
    [
        ("/process-definition/no-such-definition", "no-such-definition"),
        ("/process-definition/key/noSuchKey", "noSuchKey"),
        ("/process-definition/no-such-definition/xml", "no-such-definition"),
        ("/process-definition/key/noSuchKey/xml", "noSuchKey"),
        ("/process-definition/no-such-definition/statistics", "no-such-definition"),
        ("/process-definition/key/noSuchKey/statistics", "noSuchKey"),
    ],
)
def test_unknown_definitions_are_404(rest: LiveServer, path: str, named: str) -> None:
    response = rest.client.get(path)

    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"
    assert named in response.json()["message"]


def test_a_tenant_is_unknown(rest: LiveServer) -> None:
    key = unique_key("tenant")
    deploy_review(rest, key)

    one = rest.client.get(f"/process-definition/key/{key}/tenant-id/acme")
    xml = rest.client.get(f"/process-definition/key/{key}/tenant-id/acme/xml")
    start = rest.client.post(f"/process-definition/key/{key}/tenant-id/acme/start", json={})

    for response in (one, xml, start):
        assert response.status_code == 404
        assert "acme" in response.json()["message"]
    assert rest.engine.history_service.historic_process_instances(process_definition_key=key) == []


def test_xml_is_the_deployed_resource(rest: LiveServer) -> None:
    key = unique_key("xml")
    data = model(REVIEW, key)
    body = deploy(rest, ("review.bpmn", data))
    [definition_id] = body["deployedProcessDefinitions"]

    by_id = rest.client.get(f"/process-definition/{definition_id}/xml")
    by_key = rest.client.get(f"/process-definition/key/{key}/xml")

    assert by_id.status_code == 200
    assert by_id.json() == {"id": definition_id, "bpmn20Xml": data.decode()}
    assert by_key.json() == by_id.json()


# -- start ----------------------------------------------------------------------------------------


def test_start_by_key_as_pycamunda_sends_it(rest: LiveServer) -> None:
    key = unique_key("start")
    definition = deploy_review(rest, key)

    response = rest.client.post(
        f"/process-definition/key/{key}/start",
        json={
            "variables": {
                "amount": {"value": 42, "type": "Integer", "valueInfo": None},
                "customer": {"value": "ACME", "type": None, "valueInfo": None},
            },
            "businessKey": "order-7",
            "startInstructions": [],
            "skipCustomListeners": False,
            "skipIoMappings": False,
            "withVariablesInReturn": False,
        },
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == INSTANCE_KEYS
    assert body["definitionId"] == definition["id"]
    assert body["businessKey"] == "order-7"
    assert body["ended"] is False
    assert body["suspended"] is False
    assert body["caseInstanceId"] is None
    assert body["tenantId"] is None
    assert body["links"] == [
        {"method": "GET", "href": f"{rest.url}/process-instance/{body['id']}", "rel": "self"}
    ]
    # The engine runs it: both parallel tasks wait, the variables are set.
    tasks = rest.engine.tasks(process_instance_id=body["id"])
    assert sorted(t.task_definition_key for t in tasks) == ["read", "sign"]
    assert rest.engine.runtime_service.get_variables(body["id"]) == {
        "amount": 42,
        "customer": "ACME",
    }


def test_start_by_id_starts_that_version(rest: LiveServer) -> None:
    key = unique_key("byid")
    first = deploy_review(rest, key)
    deploy_review(rest, key, **{"1.0.0": "2.0.0"})

    response = rest.client.post(f"/process-definition/{first['id']}/start", json=None)

    assert response.status_code == 200, response.text
    assert response.json()["definitionId"] == first["id"]
    instance = rest.engine.runtime_service.process_instance(response.json()["id"])
    assert instance is not None
    assert instance.definition_id == first["id"]


def test_start_with_variables_in_return(rest: LiveServer) -> None:
    key = unique_key("vars")
    deploy_review(rest, key)

    response = rest.client.post(
        f"/process-definition/key/{key}/start",
        json={
            "variables": {"approved": {"value": True}, "note": {"value": "ok"}},
            "withVariablesInReturn": True,
        },
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == INSTANCE_KEYS | {"variables"}
    assert body["variables"] == {
        "approved": {"value": True, "type": "Boolean", "valueInfo": {}},
        "note": {"value": "ok", "type": "String", "valueInfo": {}},
    }


def test_an_instance_that_ends_at_once_answers_ended_with_its_variables(
    rest: LiveServer,
) -> None:
    key = unique_key("straight")
    deploy(rest, ("straight.bpmn", model(STRAIGHT, key)))

    response = rest.client.post(
        f"/process-definition/key/{key}/start",
        json={"variables": {"size": {"value": 3, "type": "Long"}}, "withVariablesInReturn": True},
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ended"] is True
    assert body["variables"] == {"size": {"value": 3, "type": "Long", "valueInfo": {}}}
    [historic] = rest.engine.history_service.historic_process_instances(process_definition_key=key)
    assert historic.state == "COMPLETED"


def test_start_of_an_unknown_definition_is_404(rest: LiveServer) -> None:
    by_id = rest.client.post("/process-definition/no-such-definition/start", json={})
    by_key = rest.client.post("/process-definition/key/noSuchKey/start", json={})

    assert by_id.status_code == 404
    assert "no-such-definition" in by_id.json()["message"]
    assert by_key.status_code == 404
    assert "noSuchKey" in by_key.json()["message"]


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({"startInstructions": [{"type": "cancel", "activityId": "read"}]}, "'cancel'"),
        ({"startInstructions": [{"type": "startBeforeActivity", "activityId": "x9"}]}, "x9"),
        ({"startInstructions": [{"type": "startTransition"}]}, "'transitionId' must be set"),
        ({"caseInstanceId": "case-1"}, "caseInstanceId"),
        ({"variables": {"amount": {"value": "many", "type": "Integer"}}}, "amount"),
        ({"variables": {"file": {"value": "x", "type": "File"}}}, "file"),
        ({"businessKey": 7}, "businessKey"),
        ({"variables": []}, "variables"),
    ],
)
def test_start_refuses_invalid_bodies(rest: LiveServer, body: dict[str, Any], named: str) -> None:
    key = unique_key("invalid")
    deploy_review(rest, key)

    response = rest.client.post(f"/process-definition/key/{key}/start", json=body)

    assert response.status_code == 400, response.text
    assert named in response.json()["message"]
    assert rest.engine.history_service.historic_process_instances(process_definition_key=key) == []


def test_start_refuses_a_body_that_is_not_json(rest: LiveServer) -> None:
    key = unique_key("garbage")
    deploy_review(rest, key)

    response = rest.client.post(
        f"/process-definition/key/{key}/start",
        content=b"{not json",
        headers={"Content-Type": "application/json"},
    )

    assert response.status_code == 400
    assert rest.engine.history_service.historic_process_instances(process_definition_key=key) == []


# -- statistics -----------------------------------------------------------------------------------


def test_definition_statistics_count_running_instances(rest: LiveServer) -> None:
    key = unique_key("stats")
    definition = deploy_review(rest, key)
    for _ in range(2):
        rest.engine.start_process_instance(key)

    response = rest.client.get("/process-definition/statistics", params={"failedJobs": "true"})

    assert response.status_code == 200
    [mine] = [s for s in response.json() if s["id"] == definition["id"]]
    assert mine == {
        "id": definition["id"],
        "instances": 2,
        "failedJobs": 0,
        "definition": definition,
        "incidents": [],
    }


def test_activity_statistics_count_instances_per_activity(rest: LiveServer) -> None:
    key = unique_key("activities")
    definition = deploy_review(rest, key)
    instances = [rest.engine.start_process_instance(key) for _ in range(2)]
    [read] = [
        t
        for t in rest.engine.tasks(process_instance_id=instances[0].id)
        if t.task_definition_key == "read"
    ]
    rest.engine.complete_task(read.id)

    by_id = rest.client.get(f"/process-definition/{definition['id']}/statistics")
    by_key = rest.client.get(f"/process-definition/key/{key}/statistics")

    assert by_id.status_code == 200
    assert by_id.json() == [
        {"id": "read", "instances": 1, "failedJobs": 0, "incidents": []},
        {"id": "sign", "instances": 2, "failedJobs": 0, "incidents": []},
    ]
    assert by_key.json() == by_id.json()


def test_statistics_count_failed_jobs_and_incidents(rest: LiveServer) -> None:
    key = unique_key("failing")
    rest.engine.deploy(
        f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="{key}" isExecutable="true">
    <startEvent id="s"/>
    <scriptTask id="divide" scriptFormat="juel" camunda:asyncBefore="true">
      <script>${{1 / missing}}</script>
    </scriptTask>
    <endEvent id="e"/>
    <sequenceFlow id="f1" sourceRef="s" targetRef="divide"/>
    <sequenceFlow id="f2" sourceRef="divide" targetRef="e"/>
  </process>
</definitions>"""
    )
    for _ in range(2):
        rest.engine.start_process_instance(key)
    rest.engine.run_due_jobs()  # both fail three times: out of retries, an incident each
    (definition,) = rest.engine.repository_service.process_definitions(key)

    both = {"failedJobs": "true", "incidents": "true"}
    listed = rest.client.get("/process-definition/statistics", params=both).json()
    [mine] = [s for s in listed if s["id"] == definition.id]
    assert (mine["instances"], mine["failedJobs"]) == (2, 2)
    assert mine["incidents"] == [{"incidentType": "failedJob", "incidentCount": 2}]
    plain = rest.client.get("/process-definition/statistics").json()
    [mine] = [s for s in plain if s["id"] == definition.id]
    assert (mine["failedJobs"], mine["incidents"]) == (0, [])
    per_activity = rest.client.get(
        f"/process-definition/{definition.id}/statistics",
        params={"failedJobs": "true", "incidentsForType": "failedJob"},
    ).json()
    assert per_activity == [
        {
            "id": "divide",
            "instances": 2,
            "failedJobs": 2,
            "incidents": [{"incidentType": "failedJob", "incidentCount": 2}],
        }
    ]
    other_type = rest.client.get(
        f"/process-definition/{definition.id}/statistics",
        params={"incidentsForType": "failedExternalTask"},
    ).json()
    assert other_type == [{"id": "divide", "instances": 2, "failedJobs": 0, "incidents": []}]


def test_statistics_refuse_two_ways_of_counting_incidents(rest: LiveServer) -> None:
    response = rest.client.get(
        "/process-definition/statistics",
        params={"incidents": "true", "incidentsForType": "failedJob"},
    )

    assert response.status_code == 400
    assert "incidentsForType" in response.json()["message"]


# -- a real client --------------------------------------------------------------------------------


def test_pycamunda_lists_reads_starts_and_counts(rest: LiveServer) -> None:
    import pycamunda.processdef

    key = unique_key("pycamunda")
    definition = deploy_review(rest, key)

    [listed] = pycamunda.processdef.GetList(rest.url, key=key, latest_version=True)()
    one = pycamunda.processdef.Get(rest.url, key=key)()
    xml = pycamunda.processdef.GetXML(rest.url, id_=definition["id"])()
    start = pycamunda.processdef.StartInstance(
        rest.url, key=key, business_key="from-pycamunda", with_variables_in_return=True
    )
    start.add_variable("amount", 5, "Integer")
    instance = start()
    activities = pycamunda.processdef.GetActivityInstanceStats(rest.url, id_=definition["id"])()
    definitions = pycamunda.processdef.GetProcessInstanceStats(rest.url)()

    assert listed.id_ == one.id_ == definition["id"]
    assert listed.version_tag == "1.0.0"
    assert xml == model(REVIEW, key).decode()
    assert instance.business_key == "from-pycamunda"
    assert instance.variables["amount"].value == 5
    assert sorted((a.id_, a.instances) for a in activities) == [("read", 1), ("sign", 1)]
    [mine] = [d for d in definitions if d.id_ == definition["id"]]
    assert mine.instances == 1


def test_start_instructions_start_the_instance_where_they_say(rest: LiveServer) -> None:
    key = unique_key("instructions")
    deploy_review(rest, key)
    body = {
        "businessKey": "doc-7",
        "variables": {"document": {"value": "contract"}},
        "startInstructions": [
            {"type": "startBeforeActivity", "activityId": "sign"},
            {
                # beside `sign`: on a token of its own, where its local variable stays
                "type": "startTransition",
                "transitionId": "f2",
                "variables": {"reader": {"value": "kermit", "local": True}},
            },
        ],
    }
    response = rest.client.post(f"/process-definition/key/{key}/start", json=body)
    assert response.status_code == 200, response.text
    instance = response.json()["id"]
    tasks = rest.client.get("/task", params={"processInstanceId": instance}).json()
    assert sorted(t["taskDefinitionKey"] for t in tasks) == ["read", "sign"]
    [history] = rest.engine.history_service.historic_process_instances(process_definition_key=key)
    assert history.start_activity_id == "sign"  # Camunda's: the first instruction's activity
    assert rest.engine.runtime_service.get_variable(instance, "document") == "contract"
    read = next(t for t in tasks if t["taskDefinitionKey"] == "read")
    assert rest.engine.runtime_service.get_variables(read["executionId"], local=True) == {
        "reader": "kermit"
    }
    assert "reader" not in rest.engine.runtime_service.get_variables(instance, local=True)
