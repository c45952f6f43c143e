"""Over REST, a broken timer is named by its event (the element the Modeler highlights), not the
timerEventDefinition inside it: as `mainElementId` of a refusal, and in the warning a bad literal
deploys with."""

from __future__ import annotations

from tests.core.test_timer_naming import broken_timer

from .server import LiveServer
from .test_deployment import create


def test_a_bad_timer_is_reported_on_its_event(rest: LiveServer) -> None:
    response = create(rest, [("broken.bpmn", broken_timer("${delay").encode())])

    assert response.status_code == 400
    error = response.json()
    assert error["type"] == "ParseException"
    (problem,) = error["details"]["broken.bpmn"]["errors"]
    assert problem["mainElementId"] == "Timer_Broken"
    assert "${delay" in problem["message"]
    assert "TimerEventDefinition_0x1" in problem["message"]


def test_a_bad_timer_literal_deploys_warning_of_its_event(rest: LiveServer) -> None:
    response = create(rest, [("broken.bpmn", broken_timer("PT5X").encode())])

    assert response.status_code == 200
    warning = response.headers["Warning"]
    assert "Timer_Broken" in warning and "PT5X" in warning
    assert "TimerEventDefinition_0x1" in warning
