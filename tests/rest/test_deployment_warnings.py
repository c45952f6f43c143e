"""POST /deployment/create tells what deployed but will fail when it runs in an HTTP `Warning`
header (code 199; the body stays exactly Camunda's): a timer literal that is no ISO 8601 value
deploys, as in Camunda, and the header names the element, its resource and line."""

from __future__ import annotations

import uuid

from .server import LiveServer
from .test_deployment import CREATED_KEYS, create


def _model(key: str, timer: str) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" targetNamespace="t">
<process id="{key}" isExecutable="true">
<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
<intermediateCatchEvent id="wait"><timerEventDefinition>{timer}</timerEventDefinition>
</intermediateCatchEvent><sequenceFlow id="f2" sourceRef="wait" targetRef="e"/><endEvent id="e"/>
</process></definitions>""".encode()


def test_a_bad_timer_literal_deploys_and_the_answer_warns_of_it(rest: LiveServer) -> None:
    key = f"warned-{uuid.uuid4().hex[:8]}"
    response = create(rest, [("warned.bpmn", _model(key, "<timeDuration>PT5X</timeDuration>"))])
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == CREATED_KEYS
    (definition,) = body["deployedProcessDefinitions"].values()
    assert definition["key"] == key
    warning = response.headers["Warning"]
    assert warning.startswith("199 flowledger \"resource 'warned.bpmn', line 5, element 'wait':")
    assert "timeDuration 'PT5X' is not an ISO 8601 duration" in warning


def test_a_clean_deployment_answers_as_camunda_without_warnings(rest: LiveServer) -> None:
    key = f"clean-{uuid.uuid4().hex[:8]}"
    response = create(rest, [("clean.bpmn", _model(key, "<timeDuration>PT5M</timeDuration>"))])
    assert response.status_code == 200, response.text
    assert set(response.json()) == CREATED_KEYS
    assert "Warning" not in response.headers
