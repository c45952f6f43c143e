"""The http-connector over REST: a Camunda client starting an instance whose service task calls
out sees Camunda's answer (the response in `withVariablesInReturn`, or a failure that committed
nothing), a connector may call the engine's own server without deadlocking it, and a model that
needs a connector the server has not enabled is refused at deploy with the way to enable it."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from flowledger import Engine, OutboundPolicy
from tests.support import fresh_database, selected_kind

from .server import LiveServer, live_server


def model(key: str, url: str) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
<process id="{key}" isExecutable="true">
  <startEvent id="start"/>
  <sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
  <serviceTask id="call"><extensionElements><camunda:connector>
    <camunda:connectorId>http-connector</camunda:connectorId><camunda:inputOutput>
      <camunda:inputParameter name="url">{url}</camunda:inputParameter>
      <camunda:inputParameter name="method">GET</camunda:inputParameter>
      <camunda:outputParameter name="status">${{statusCode}}</camunda:outputParameter>
      <camunda:outputParameter name="body">${{response}}</camunda:outputParameter>
    </camunda:inputOutput></camunda:connector></extensionElements></serviceTask>
  <sequenceFlow id="f2" sourceRef="call" targetRef="after"/>
  <userTask id="after"/>
  <sequenceFlow id="f3" sourceRef="after" targetRef="end"/>
  <endEvent id="end"/>
</process>
</definitions>""".encode()


@pytest.fixture(scope="module")
def rest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    policy = OutboundPolicy(connectors=frozenset({"http"}), http_allow=("127.0.0.1",))
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("connector")) as url,
        Engine(url, outbound=policy) as engine,
        live_server(engine) as server,
    ):
        yield server


def deploy(rest: LiveServer, name: str, source: bytes) -> None:
    response = rest.client.post(
        "/deployment/create",
        data={"deployment-name": name},
        files=[("data", (f"{name}.bpmn", source, "text/xml"))],
    )
    assert response.status_code == 200, response.text


def test_a_connector_calling_its_own_server_answers_with_the_response(rest: LiveServer) -> None:
    """The call runs with no lock of the engine held: the server answers it while the start
    that made it waits (on SQLite this call waited 30 s for the writer the start held)."""
    deploy(rest, "self", model("selfCall", f"{rest.url}/engine"))
    response = rest.client.post(
        "/process-definition/key/selfCall/start", json={"withVariablesInReturn": True}
    )
    assert response.status_code == 200, response.text
    variables = response.json()["variables"]
    assert variables["status"]["value"] == 200
    assert '"name":"default"' in variables["body"]["value"].replace(" ", "")


def test_a_failed_call_fails_the_start_and_commits_nothing(rest: LiveServer) -> None:
    deploy(rest, "down", model("downCall", "http://127.0.0.1:1/nothing"))
    response = rest.client.post("/process-definition/key/downCall/start", json={})
    assert response.status_code == 500
    assert "the http-connector of 'call' failed" in response.json()["message"]
    instances = rest.client.get(
        "/history/process-instance", params={"processDefinitionKey": "downCall"}
    )
    assert instances.json() == []


def test_a_host_off_the_allow_list_is_refused(rest: LiveServer) -> None:
    deploy(rest, "far", model("farCall", "http://169.254.169.254/latest/meta-data/"))
    response = rest.client.post("/process-definition/key/farCall/start", json={})
    assert response.status_code == 500
    assert (
        "169.254.169.254:80 is not on the http-connector's allow-list" in response.json()["message"]
    )


def test_a_server_without_the_connector_refuses_the_model_at_deploy(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("plain")) as url,
        Engine(url) as engine,
        live_server(engine) as plain,
    ):
        response = plain.client.post(
            "/deployment/create",
            data={"deployment-name": "x"},
            files=[("data", ("x.bpmn", model("x", "http://127.0.0.1/"), "text/xml"))],
        )
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "ParseException"
    assert "--connector http" in body["message"]
    (errors,) = [r["errors"] for r in body["details"].values()]
    assert errors[0]["mainElementId"] == "call"


def test_the_health_endpoint_shows_the_outbound_policy_and_what_it_stopped(
    rest: LiveServer,
) -> None:
    deploy(rest, "meta", model("metaCall", "http://169.254.169.254/latest/"))
    assert rest.client.post("/process-definition/key/metaCall/start", json={}).status_code == 500
    health = httpx.get(rest.url.removesuffix("/engine-rest") + "/actuator/health", timeout=10)
    assert health.status_code == 200
    outbound = health.json()["components"]["outbound"]
    assert outbound["status"] == "UP"
    details = outbound["details"]
    assert details["connectors"] == ["http"] and details["httpAllow"] == ["127.0.0.1"]
    assert details["deadlineSeconds"] == 10 and details["maxResponseBytes"] == 10 * 1024 * 1024
    assert details["refused"] >= 1
    assert "169.254.169.254" in details["lastProblem"]
    budget = health.json()["components"]["commandBudget"]["details"]
    assert budget["seconds"] == 1 and budget["exceeded"] == 0
