"""Call activities over HTTP: the called instance is found from its caller and back by the
process instance queries' `superProcessInstance` / `subProcessInstance` filters, runtime and
history; completing its task lets the caller end."""

from __future__ import annotations

from typing import Any

from tests.support import bpmn

from .server import LiveServer


def get(rest: LiveServer, path: str, **params: Any) -> Any:
    response = rest.client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def test_caller_and_called_instances_find_each_other(rest: LiveServer) -> None:
    rest.deploy(bpmn("rest_call.bpmn"), name="rest-call")
    caller = rest.client.post("/process-definition/key/restCaller/start", json={}).json()["id"]
    (called,) = get(rest, "/process-instance", superProcessInstance=caller)
    assert called["definitionId"].startswith("restCalled:")
    assert [p["id"] for p in get(rest, "/process-instance", subProcessInstance=called["id"])] == [
        caller
    ]
    (historic,) = get(rest, "/history/process-instance", superProcessInstanceId=caller)
    assert historic["id"] == called["id"]
    (task,) = get(rest, "/task", processInstanceId=called["id"])
    assert rest.client.post(f"/task/{task['id']}/complete", json={}).status_code == 204
    assert get(rest, "/history/process-instance", processInstanceId=caller)[0]["state"] == (
        "COMPLETED"
    )
