"""History over REST at the default level, audit: each variable's latest value in
/history/variable-instance, no variable updates in /history/detail (Camunda's audit level)."""

from __future__ import annotations

from pathlib import Path

from flowledger import Engine
from tests.support import bpmn, fresh_database, selected_kind

from .server import live_server


def test_a_default_server_keeps_audit_history(tmp_path: Path) -> None:
    with (
        fresh_database(selected_kind(), tmp_path) as url,
        Engine(url) as engine,
        live_server(engine) as rest,
    ):
        engine.deploy(bpmn("pass_through_activities.bpmn"))
        pi = engine.start_process_instance("passThrough", {"n": 1})
        updated = rest.client.put(
            f"/process-instance/{pi.id}/variables/n", json={"value": 2, "type": "Integer"}
        )
        assert updated.status_code == 204, updated.text

        variables = rest.client.get(
            "/history/variable-instance", params={"processInstanceId": pi.id}
        ).json()
        assert [(v["name"], v["value"]) for v in variables] == [("n", 2)]
        details = rest.client.get("/history/detail", params={"processInstanceId": pi.id})
        assert details.status_code == 200
        assert details.json() == []

        engine.history_service.set_history_level("full")
        details = rest.client.get("/history/detail", params={"processInstanceId": pi.id}).json()
        assert [(d["variableName"], d["value"]) for d in details] == [("n", 1), ("n", 2)]
