"""Input/output mappings (`camunda:inputOutput`) through the public Engine API: inputs become
local variables of the activity when it starts (text, expression, list, map and script values),
outputs are set on the enclosing scope when it completes, and not when it is cancelled.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from flowledger import ControllableClock, Engine, ModelError
from tests.core.test_jobs import chain, process
from tests.support import fresh_database, selected_kind

MAPPED_TASK = """
<userTask id="review"><extensionElements><camunda:inputOutput>
  <camunda:inputParameter name="greeting">hello</camunda:inputParameter>
  <camunda:inputParameter name="doubled">${amount * 2}</camunda:inputParameter>
  <camunda:inputParameter name="nothing"/>
  <camunda:inputParameter name="reviewers"><camunda:list>
    <camunda:value>ada</camunda:value><camunda:value>${owner}</camunda:value>
  </camunda:list></camunda:inputParameter>
  <camunda:inputParameter name="limits"><camunda:map>
    <camunda:entry key="low">1</camunda:entry><camunda:entry key="high">${amount}</camunda:entry>
  </camunda:map></camunda:inputParameter>
  <camunda:inputParameter name="scripted">
    <camunda:script scriptFormat="juel">${amount + 1}</camunda:script>
  </camunda:inputParameter>
  <camunda:outputParameter name="verdict">${decision == 'yes' ? 'approved' : 'rejected'}
  </camunda:outputParameter>
</camunda:inputOutput></extensionElements></userTask>
"""


def test_inputs_are_local_to_the_activity_and_outputs_land_outside(engine: Engine) -> None:
    engine.deploy(process(chain(MAPPED_TASK)))
    pi = engine.start_process_instance("p", {"amount": 21, "owner": "bob"})
    (task,) = engine.tasks(process_instance_id=pi.id)
    assert engine.runtime_service.get_variables(task.execution_id, local=True) == {
        "greeting": "hello",
        "doubled": 42,
        "nothing": None,
        "reviewers": ["ada", "bob"],
        "limits": {"low": "1", "high": 21},
        "scripted": 22,
    }
    assert engine.runtime_service.get_variables(pi.id) == {"amount": 21, "owner": "bob"}
    engine.complete_task(task.id, {"decision": "yes"})
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"
    final = {v.name: v.value for v in engine.history_service.historic_variable_instances(pi.id)}
    assert final["verdict"] == "approved"
    assert "greeting" in final  # the inputs were local variables of the task's execution
    assert engine.verify().problems == []


def test_a_cancelled_activity_maps_no_outputs(engine: Engine, clock: ControllableClock) -> None:
    engine.deploy(
        process(
            chain(MAPPED_TASK)
            + '<boundaryEvent id="late" attachedToRef="review"><timerEventDefinition>'
            "<timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>"
            '<userTask id="escalate"/><sequenceFlow id="x" sourceRef="late" targetRef="escalate"/>'
        )
    )
    pi = engine.start_process_instance("p", {"amount": 1, "owner": "bob", "decision": "yes"})
    clock.advance(hours=1)
    assert engine.run_due_jobs() == 1
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["escalate"]
    assert "verdict" not in engine.runtime_service.get_variables(pi.id)
    assert engine.verify().problems == []


def test_python_script_values_run_only_where_scripts_are_allowed(tmp_path: Path) -> None:
    mapped = process(
        chain(
            '<userTask id="t"><extensionElements><camunda:inputOutput>'
            '<camunda:inputParameter name="total"><camunda:script scriptFormat="python">'
            "sum(items)</camunda:script></camunda:inputParameter>"
            "</camunda:inputOutput></extensionElements></userTask>"
        )
    )
    with fresh_database(selected_kind(), tmp_path) as url:
        with Engine(url) as plain, pytest.raises(ModelError, match="allow_scripts=True"):
            plain.deploy(mapped)
        with Engine(url, allow_scripts=True) as scripting:
            scripting.deploy(mapped)
            pi = scripting.start_process_instance("p", {"items": [1, 2, 3]})
            (task,) = scripting.tasks(process_instance_id=pi.id)
            assert scripting.runtime_service.get_variables(task.execution_id, local=True) == {
                "total": 6
            }


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (
            '<startEvent id="s"><extensionElements><camunda:inputOutput>'
            '<camunda:inputParameter name="a">1</camunda:inputParameter>'
            "</camunda:inputOutput></extensionElements></startEvent>",
            "camunda:inputOutput mapping is not supported on a startEvent",
        ),
        (
            '<startEvent id="s"/><userTask id="t"><extensionElements><camunda:inputOutput>'
            '<camunda:inputParameter name="a"><camunda:script scriptFormat="groovy">1'
            "</camunda:script></camunda:inputParameter></camunda:inputOutput>"
            '</extensionElements></userTask><sequenceFlow id="f" sourceRef="s" targetRef="t"/>',
            "a script in 'groovy': only juel and python scripts run",
        ),
        (
            '<startEvent id="s"/><userTask id="t"><extensionElements><camunda:inputOutput>'
            "<camunda:inputParameter>1</camunda:inputParameter></camunda:inputOutput>"
            '</extensionElements></userTask><sequenceFlow id="f" sourceRef="s" targetRef="t"/>',
            "a camunda:inputParameter needs a name",
        ),
    ],
)
def test_mappings_that_cannot_run_are_refused_at_deploy(
    engine: Engine, body: str, problem: str
) -> None:
    with pytest.raises(ModelError, match=problem):
        engine.deploy(process(body))
