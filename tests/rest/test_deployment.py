"""The deployment resource: multipart create, list/count with Camunda's filters, one deployment,
its resources and their bytes, delete."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from flowledger.rest.formats import format_date
from tests.support import BPMN_DIR

from .server import LiveServer

REVIEW = BPMN_DIR / "rest_repo_review.bpmn"
STRAIGHT = BPMN_DIR / "rest_repo_straight.bpmn"

DEPLOYMENT_KEYS = {"links", "id", "name", "source", "deploymentTime", "tenantId"}
CREATED_KEYS = DEPLOYMENT_KEYS | {
    "deployedProcessDefinitions",
    "deployedCaseDefinitions",
    "deployedDecisionDefinitions",
    "deployedDecisionRequirementsDefinitions",
}
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


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def review_model(key: str) -> bytes:
    """The review process under its own key, so that each test numbers its own versions."""
    return REVIEW.read_bytes().replace(b'id="restRepoReview"', f'id="{key}"'.encode())


def create(
    rest: LiveServer,
    files: list[tuple[str, bytes]],
    **fields: str,
) -> httpx.Response:
    """POST /deployment/create as pycamunda sends it: text parts, then `resource-N` files."""
    data = {"deployment-name": unique("deployment")} | {
        k.replace("_", "-"): v for k, v in fields.items()
    }
    parts = [
        (f"resource-{i}", (name, content, "application/octet-stream"))
        for i, (name, content) in enumerate(files)
    ]
    return rest.client.post("/deployment/create", data=data, files=parts)


def created(rest: LiveServer, files: list[tuple[str, bytes]], **fields: str) -> dict[str, Any]:
    response = create(rest, files, **fields)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


# -- POST /deployment/create ----------------------------------------------------------------------


def test_create_answers_the_deployment_with_its_definitions(rest: LiveServer) -> None:
    key = unique("review").replace("-", "_")
    name = unique("invoices")
    body = created(
        rest,
        [("review.bpmn", review_model(key))],
        deployment_name=name,
        deployment_source="process application",
        enable_duplicate_filtering="False",
        deploy_changed_only="False",
    )

    assert set(body) == CREATED_KEYS
    assert body["name"] == name
    assert body["source"] == "process application"
    assert body["tenantId"] is None
    assert body["deploymentTime"].endswith("+0000")
    assert body["links"] == [
        {"method": "GET", "href": f"{rest.url}/deployment/{body['id']}", "rel": "self"}
    ]
    assert body["deployedCaseDefinitions"] is None
    assert body["deployedDecisionDefinitions"] is None
    assert body["deployedDecisionRequirementsDefinitions"] is None
    [(definition_id, definition)] = body["deployedProcessDefinitions"].items()
    assert set(definition) == DEFINITION_KEYS
    assert definition["id"] == definition_id
    assert definition["key"] == key
    assert definition["name"] == "Review a document"
    assert definition["version"] == 1
    assert definition["versionTag"] == "1.0.0"
    assert definition["historyTimeToLive"] == 30
    assert definition["category"] == "http://flowledger.test/repository"
    assert definition["resource"] == "review.bpmn"
    assert definition["deploymentId"] == body["id"]
    assert definition["suspended"] is False
    assert definition["startableInTasklist"] is True
    # The engine knows the definition: it can start it.
    assert [d.id for d in rest.engine.repository_service.process_definitions(key)] == [
        definition_id
    ]


def test_a_resource_that_is_not_bpmn_is_deployed_without_definitions(rest: LiveServer) -> None:
    body = created(rest, [("notes.txt", b"just some notes")])

    assert body["deployedProcessDefinitions"] is None
    resources = rest.client.get(f"/deployment/{body['id']}/resources").json()
    assert [r["name"] for r in resources] == ["notes.txt"]


def test_an_invalid_model_is_a_parse_exception_naming_the_resource(rest: LiveServer) -> None:
    name = unique("broken")
    response = create(rest, [("broken.bpmn", b"<definitions><process")], deployment_name=name)

    assert response.status_code == 400
    error = response.json()
    assert error["type"] == "ParseException"
    assert "broken.bpmn" in error["details"]
    assert error["details"]["broken.bpmn"]["errors"]
    assert rest.client.get("/deployment/count", params={"name": name}).json() == {"count": 0}


def test_a_resource_part_without_a_file_name_is_refused(rest: LiveServer) -> None:
    response = rest.client.post(
        "/deployment/create", data={"deployment-name": "x", "resource-0": "<definitions/>"}
    )

    assert response.status_code == 400
    assert response.json()["type"] == "InvalidRequestException"
    assert "resource-0" in response.json()["message"]


def test_a_form_without_resources_is_refused(rest: LiveServer) -> None:
    response = rest.client.post("/deployment/create", data={"deployment-name": "empty"})

    assert response.status_code == 400
    assert "No deployment resources" in response.json()["message"]


def test_a_tenant_is_refused(rest: LiveServer) -> None:
    response = create(rest, [("straight.bpmn", STRAIGHT.read_bytes())], tenant_id="acme")

    assert response.status_code == 400
    assert "tenant" in response.json()["message"]


def test_a_future_activation_time_is_refused(rest: LiveServer) -> None:
    later = format_date(datetime.now(UTC) + timedelta(days=1))
    assert later is not None
    response = create(
        rest, [("straight.bpmn", STRAIGHT.read_bytes())], deployment_activation_time=later
    )

    assert response.status_code == 400
    assert "deployment-activation-time" in response.json()["message"]


def test_an_activation_time_that_is_not_a_date_is_refused(rest: LiveServer) -> None:
    response = create(
        rest, [("straight.bpmn", STRAIGHT.read_bytes())], deployment_activation_time="soon"
    )

    assert response.status_code == 400
    assert "deployment-activation-time" in response.json()["message"]


def test_duplicate_filtering_answers_the_existing_deployment(rest: LiveServer) -> None:
    key = unique("dup").replace("-", "_")
    name = unique("dup")
    files = [("review.bpmn", review_model(key))]
    first = created(rest, files, deployment_name=name, enable_duplicate_filtering="true")

    again = created(rest, files, deployment_name=name, enable_duplicate_filtering="TRUE")

    assert again["id"] == first["id"]
    assert again["deployedProcessDefinitions"] is None
    assert rest.client.get("/deployment/count", params={"name": name}).json() == {"count": 1}


def test_without_duplicate_filtering_a_redeploy_is_a_new_version(rest: LiveServer) -> None:
    key = unique("redeploy").replace("-", "_")
    name = unique("redeploy")
    files = [("review.bpmn", review_model(key))]
    first = created(rest, files, deployment_name=name, enable_duplicate_filtering="False")

    again = created(rest, files, deployment_name=name, enable_duplicate_filtering="False")

    assert again["id"] != first["id"]
    [definition] = again["deployedProcessDefinitions"].values()
    assert definition["version"] == 2


def test_deploy_changed_only_deploys_the_changed_resources(rest: LiveServer) -> None:
    key = unique("changed").replace("-", "_")
    name = unique("changed")
    straight = ("straight.bpmn", STRAIGHT.read_bytes())
    created(rest, [("review.bpmn", review_model(key)), straight], deployment_name=name)
    changed = review_model(key).replace(b'name="Read"', b'name="Read twice"')

    body = created(
        rest,
        [("review.bpmn", changed), straight],
        deployment_name=name,
        enable_duplicate_filtering="true",
        deploy_changed_only="true",
    )

    [definition] = body["deployedProcessDefinitions"].values()
    assert definition["key"] == key
    assert definition["version"] == 2
    resources = rest.client.get(f"/deployment/{body['id']}/resources").json()
    assert [r["name"] for r in resources] == ["review.bpmn"]


# -- GET /deployment, /deployment/count ----------------------------------------------------------


def test_list_filters_by_name_and_source(rest: LiveServer) -> None:
    name = unique("listed")
    one = created(rest, [("a.txt", b"a")], deployment_name=name, deployment_source="cockpit")
    other = created(rest, [("b.txt", b"b")], deployment_name=name)

    by_name = rest.client.get("/deployment", params={"name": name}).json()
    by_source = rest.client.get(
        "/deployment", params={"nameLike": f"{name}%", "source": "cockpit"}
    ).json()
    without_source = rest.client.get(
        "/deployment", params={"name": name, "withoutSource": "true"}
    ).json()

    assert sorted(d["id"] for d in by_name) == sorted([one["id"], other["id"]])
    assert all(set(d) == DEPLOYMENT_KEYS for d in by_name)
    assert [d["id"] for d in by_source] == [one["id"]]
    assert [d["id"] for d in without_source] == [other["id"]]
    count = rest.client.get("/deployment/count", params={"name": name})
    assert count.json() == {"count": 2}


def test_list_filters_by_id_and_deployment_time(rest: LiveServer) -> None:
    body = created(rest, [("a.txt", b"a")])
    deployed = body["deploymentTime"]
    just_before = format_date(
        datetime.strptime(deployed, "%Y-%m-%dT%H:%M:%S.%f%z") - timedelta(seconds=1)
    )
    just_after = format_date(
        datetime.strptime(deployed, "%Y-%m-%dT%H:%M:%S.%f%z") + timedelta(seconds=1)
    )

    def ids(**params: Any) -> list[str]:
        found = rest.client.get("/deployment", params={"id": body["id"], **params})
        assert found.status_code == 200, found.text
        return [d["id"] for d in found.json()]

    assert ids() == [body["id"]]
    assert ids(after=just_before) == [body["id"]]
    assert ids(before=just_after) == [body["id"]]
    assert ids(after=just_after) == []
    assert ids(before=just_before) == []


def test_list_tenant_filters_see_deployments_without_tenant(rest: LiveServer) -> None:
    name = unique("tenants")
    created(rest, [("a.txt", b"a")], deployment_name=name)

    def count(**params: str) -> int:
        found = rest.client.get("/deployment/count", params={"name": name, **params})
        return int(found.json()["count"])

    assert count(tenantIdIn="acme,globex") == 0
    assert count(tenantIdIn="acme", includeDeploymentsWithoutTenantId="true") == 1
    assert count(withoutTenantId="true") == 1


def test_list_sorts_and_pages(rest: LiveServer) -> None:
    prefix = unique("sorted")
    ids = [created(rest, [("a.txt", b"a")], deployment_name=f"{prefix}-{n}")["id"] for n in "abc"]

    def page(**params: str) -> list[str]:
        query = {"nameLike": f"{prefix}%", "sortBy": "name", **params}
        found = rest.client.get("/deployment", params=query)
        assert found.status_code == 200, found.text
        return [d["id"] for d in found.json()]

    assert page(sortOrder="asc") == ids
    assert page(sortOrder="desc") == ids[::-1]
    assert page(sortOrder="asc", firstResult="1", maxResults="1") == ids[1:2]


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"sortBy": "color", "sortOrder": "asc"}, "sortBy"),
        ({"sortOrder": "asc"}, "sortBy"),
        ({"sortBy": "name", "sortOrder": "up"}, "sortOrder"),
        ({"maxResults": "many"}, "maxResults"),
        ({"firstResult": "-1"}, "firstResult"),
        ({"after": "yesterday"}, "after"),
    ],
)
def test_list_refuses_invalid_parameters(
    rest: LiveServer, params: dict[str, str], named: str
) -> None:
    response = rest.client.get("/deployment", params=params)

    assert response.status_code == 400
    assert response.json()["type"] == "InvalidRequestException"
    assert named in response.json()["message"]


def test_count_refuses_an_invalid_date(rest: LiveServer) -> None:
    response = rest.client.get("/deployment/count", params={"before": "2026-13-45"})

    assert response.status_code == 400
    assert "before" in response.json()["message"]


# -- GET /deployment/{id} and its resources -------------------------------------------------------


def test_get_one_deployment(rest: LiveServer) -> None:
    body = created(rest, [("a.txt", b"a")], deployment_source="test")

    response = rest.client.get(f"/deployment/{body['id']}")

    assert response.status_code == 200
    assert response.json() == {
        "links": [],
        "id": body["id"],
        "name": body["name"],
        "source": "test",
        "deploymentTime": body["deploymentTime"],
        "tenantId": None,
    }


def test_get_an_unknown_deployment_is_404(rest: LiveServer) -> None:
    response = rest.client.get("/deployment/no-such-deployment")

    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"
    assert "no-such-deployment" in response.json()["message"]


def test_resources_of_a_deployment_and_their_bytes(rest: LiveServer) -> None:
    model = STRAIGHT.read_bytes()
    body = created(rest, [("straight.bpmn", model), ("readme.txt", b"read me")])

    resources = rest.client.get(f"/deployment/{body['id']}/resources").json()

    assert [(r["name"], r["deploymentId"]) for r in resources] == [
        ("readme.txt", body["id"]),
        ("straight.bpmn", body["id"]),
    ]
    by_name = {r["name"]: r for r in resources}
    one = rest.client.get(f"/deployment/{body['id']}/resources/{by_name['straight.bpmn']['id']}")
    assert one.json() == by_name["straight.bpmn"]
    data = rest.client.get(
        f"/deployment/{body['id']}/resources/{by_name['straight.bpmn']['id']}/data"
    )
    assert data.status_code == 200
    assert data.content == model
    assert data.headers["content-type"].startswith("application/xml")
    text = rest.client.get(f"/deployment/{body['id']}/resources/{by_name['readme.txt']['id']}/data")
    assert text.content == b"read me"
    assert text.headers["content-type"].startswith("text/plain")


def test_binary_resources_come_back_byte_for_byte(rest: LiveServer) -> None:
    image = bytes(range(256)) * 4
    body = created(rest, [("diagram.png", image), ("blob", b"\xff\x00")])
    resources = rest.client.get(f"/deployment/{body['id']}/resources").json()
    by_name = {r["name"]: r["id"] for r in resources}

    png = rest.client.get(f"/deployment/{body['id']}/resources/{by_name['diagram.png']}/data")
    blob = rest.client.get(f"/deployment/{body['id']}/resources/{by_name['blob']}/data")

    assert png.content == image
    assert png.headers["content-type"] == "image/png"
    assert blob.content == b"\xff\x00"
    assert blob.headers["content-type"] == "application/octet-stream"


def test_resources_of_an_unknown_deployment_are_404(rest: LiveServer) -> None:
    response = rest.client.get("/deployment/no-such-deployment/resources")

    assert response.status_code == 404
    assert "no-such-deployment" in response.json()["message"]


def test_an_unknown_resource_is_404(rest: LiveServer) -> None:
    body = created(rest, [("a.txt", b"a")])

    one = rest.client.get(f"/deployment/{body['id']}/resources/no-such-resource")
    data = rest.client.get(f"/deployment/{body['id']}/resources/no-such-resource/data")

    assert one.status_code == 404
    assert "no-such-resource" in one.json()["message"]
    assert data.status_code == 404
    assert data.json()["type"] == "InvalidRequestException"


def test_a_resource_of_another_deployment_is_404(rest: LiveServer) -> None:
    one = created(rest, [("a.txt", b"a")])
    other = created(rest, [("b.txt", b"b")])
    [resource] = rest.client.get(f"/deployment/{one['id']}/resources").json()

    response = rest.client.get(f"/deployment/{other['id']}/resources/{resource['id']}/data")

    assert response.status_code == 404


# -- DELETE /deployment/{id} ----------------------------------------------------------------------


def test_delete_removes_the_deployment_and_its_definitions(rest: LiveServer) -> None:
    key = unique("deleted").replace("-", "_")
    body = created(rest, [("review.bpmn", review_model(key))])

    response = rest.client.delete(f"/deployment/{body['id']}")

    assert response.status_code == 204
    assert response.content == b""
    assert rest.client.get(f"/deployment/{body['id']}").status_code == 404
    assert rest.client.get(f"/process-definition/key/{key}").status_code == 404
    assert rest.engine.repository_service.process_definitions(key) == []


def test_delete_without_cascade_keeps_a_deployment_with_running_instances(
    rest: LiveServer,
) -> None:
    key = unique("running").replace("-", "_")
    body = created(rest, [("review.bpmn", review_model(key))])
    instance = rest.engine.start_process_instance(key)

    response = rest.client.delete(f"/deployment/{body['id']}", params={"cascade": "false"})

    # Camunda refuses with a ProcessEngineException: the deployment and instance stay.
    assert response.status_code == 500
    assert response.json()["type"] == "ProcessEngineException"
    assert "cascading" in response.json()["message"]
    assert rest.client.get(f"/deployment/{body['id']}").status_code == 200
    assert rest.engine.tasks(process_instance_id=instance.id)


def test_delete_with_cascade_removes_running_instances(rest: LiveServer) -> None:
    key = unique("cascade").replace("-", "_")
    body = created(rest, [("review.bpmn", review_model(key))])
    instance = rest.engine.start_process_instance(key)

    response = rest.client.delete(f"/deployment/{body['id']}", params={"cascade": "true"})

    assert response.status_code == 204
    assert rest.client.get(f"/deployment/{body['id']}").status_code == 404
    assert rest.engine.tasks(process_instance_id=instance.id) == []


def test_delete_an_unknown_deployment_is_404(rest: LiveServer) -> None:
    response = rest.client.delete("/deployment/no-such-deployment")

    assert response.status_code == 404
    assert "no-such-deployment" in response.json()["message"]


def test_delete_twice_is_404_the_second_time(rest: LiveServer) -> None:
    body = created(rest, [("a.txt", b"a")])

    assert rest.client.delete(f"/deployment/{body['id']}").status_code == 204
    again = rest.client.delete(f"/deployment/{body['id']}")

    assert again.status_code == 404
    assert again.json()["type"] == "InvalidRequestException"


# -- a real client --------------------------------------------------------------------------------


def test_pycamunda_deploys_lists_and_reads_resources(rest: LiveServer) -> None:
    import pycamunda.deployment

    key = unique("pycamunda").replace("-", "_")
    name = unique("pycamunda")
    create = pycamunda.deployment.Create(rest.url, name=name, source="pycamunda")
    create.add_resource(("review.bpmn", review_model(key), "text/xml"))

    deployed = create()
    listed = pycamunda.deployment.GetList(rest.url, name=name)()
    one = pycamunda.deployment.Get(rest.url, id_=deployed.id_)()
    [resource] = pycamunda.deployment.GetResources(rest.url, id_=deployed.id_)()
    data = pycamunda.deployment.GetResource(
        rest.url, id_=deployed.id_, resource_id=resource.id_, binary=True
    )()

    assert [d.id_ for d in listed] == [deployed.id_]
    assert one.source == "pycamunda"
    assert [d.key for d in deployed.deployed_process_definitions.values()] == [key]
    assert resource.name == "review.bpmn"
    assert data == review_model(key)
