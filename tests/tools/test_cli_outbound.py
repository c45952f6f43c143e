"""What the command line lets the engine call out to: nothing unless `--connector` enables it,
then only the `--http-allow` hosts; a malformed entry is a usage error naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowledger import Engine
from flowledger.tools.cli import main

MODEL = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
<process id="calling" isExecutable="true">
  <startEvent id="start"/>
  <sequenceFlow id="f1" sourceRef="start" targetRef="call"/>
  <serviceTask id="call"><extensionElements><camunda:connector>
    <camunda:connectorId>http-connector</camunda:connectorId><camunda:inputOutput>
      <camunda:inputParameter name="url">http://127.0.0.1:1/</camunda:inputParameter>
    </camunda:inputOutput></camunda:connector></extensionElements></serviceTask>
  <sequenceFlow id="f2" sourceRef="call" targetRef="end"/>
  <endEvent id="end"/>
</process>
</definitions>"""


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "calling.bpmn"
    path.write_text(MODEL)
    return path


def test_a_connector_model_is_refused_unless_the_connector_is_enabled(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    with pytest.raises(SystemExit) as refused:
        main(["--db", db, "deploy", str(model)])
    assert refused.value.code != 0
    assert "--connector http" in capsys.readouterr().err

    main(
        ["--db", db, "--connector", "http", "--http-allow", "api.example.com", "deploy", str(model)]
    )
    with Engine(db) as engine:
        assert [d.key for d in engine.repository_service.process_definitions()] == ["calling"]


def test_the_outbound_settings_reach_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    from flowledger.tools import cli_app as cli

    seen: dict[str, object] = {}
    monkeypatch.setattr(cli, "setting", lambda name: seen.get(name))
    seen.update(
        connector=("http",),
        http_allow=("*.example.com:443",),
        http_deadline=3.0,
        http_max_bytes=1024,
    )
    policy = cli.outbound_policy()
    assert policy.connectors == frozenset({"http"})
    assert policy.http_allow == ("*.example.com:443",)
    assert (policy.deadline_seconds, policy.max_response_bytes) == (3.0, 1024)


def test_a_malformed_allow_entry_is_a_usage_error(
    tmp_path: Path, model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = f"sqlite:///{tmp_path / 'x.db'}"
    with pytest.raises(SystemExit) as refused:
        main(["--db", db, "--connector", "http", "--http-allow", "host:port", "deploy", str(model)])
    assert refused.value.code == 2
    assert "'port' is not a port" in capsys.readouterr().err
