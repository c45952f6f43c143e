"""Over REST, a broken timer's parse error names its event as `mainElementId` (the element the
Modeler highlights), not the timerEventDefinition inside it."""

from __future__ import annotations

from tests.core.test_timer_naming import broken_timer

from .server import LiveServer
from .test_deployment import create


def test_a_bad_timer_is_reported_on_its_event(rest: LiveServer) -> None:
    response = create(rest, [("broken.bpmn", broken_timer("PT5X").encode())])

    assert response.status_code == 400
    error = response.json()
    assert error["type"] == "ParseException"
    (problem,) = error["details"]["broken.bpmn"]["errors"]
    assert problem["mainElementId"] == "Timer_Broken"
    assert "PT5X" in problem["message"]
    assert "TimerEventDefinition_0x1" in problem["message"]
