"""The domain's one table from a command on an existing instance to its decision: a command that
needs more than one instance is refused by name, and no command has two decisions.
"""

from __future__ import annotations

import pytest

from flowledger.core import commands as cmd
from flowledger.core.decide import INSTANCE_DECISIONS, decides
from tests.domain.harness import Scenario, bpmn

WAIT = bpmn(
    "wait",
    """
    <startEvent id="start"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="work"/>
    <userTask id="work"/>
    """,
)


def test_a_command_beyond_one_instance_is_not_decided_on_one(scenario: Scenario) -> None:
    started = scenario.given(WAIT).when(cmd.StartProcessInstance(key="wait"))
    assert cmd.DeleteHistoricProcessInstance not in INSTANCE_DECISIONS
    with pytest.raises(TypeError, match="DeleteHistoricProcessInstance is not a command on one"):
        started.when(cmd.DeleteHistoricProcessInstance(process_instance_id=started.instance_id))


def test_a_command_gets_one_decision() -> None:
    with pytest.raises(ValueError, match="two decisions for ClaimTask"):
        decides(cmd.ClaimTask)(lambda session, command: None)
