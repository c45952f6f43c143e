"""Deploy what Camunda deploys (3): an event-based gateway with a single outgoing flow (Camunda's
BpmnParse counts none: the token waits for that one event), and `camunda:list` / `camunda:map`
nested at any depth in input and output parameters, maps sorted by key as Camunda's TreeMap
(IoMappingTest's nested list and map scenarios).
"""

from __future__ import annotations

import pytest

from flowledger import Engine, ModelError
from tests.core.test_jobs import chain, process


def test_an_event_based_gateway_with_one_event_waits_for_it(engine: Engine) -> None:
    engine.deploy(
        process(
            '<startEvent id="start"/><eventBasedGateway id="only"/>'
            '<intermediateCatchEvent id="paid"><messageEventDefinition messageRef="Paid"/>'
            '</intermediateCatchEvent><userTask id="ship"/>'
            '<sequenceFlow id="f0" sourceRef="start" targetRef="only"/>'
            '<sequenceFlow id="f1" sourceRef="only" targetRef="paid"/>'
            '<sequenceFlow id="f2" sourceRef="paid" targetRef="ship"/>'
        ).replace("</definitions>", '<message id="Paid" name="paid"/></definitions>')
    )
    pi = engine.start_process_instance("p")
    assert [e.activity_id for e in engine.runtime_service.executions(pi.id)] == ["only"]
    (subscription,) = engine.runtime_service.event_subscriptions()
    assert (subscription.event_type, subscription.event_name) == ("message", "paid")
    engine.runtime_service.correlate_message("paid")
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["ship"]
    types = {a.activity_id: a.activity_type for a in engine.historic_activity_instances(pi.id)}
    assert types["only"] == "eventBasedGateway"
    assert types["paid"] == "intermediateMessageCatch"


def test_an_event_based_gateway_without_outgoing_flows_is_refused(engine: Engine) -> None:
    with pytest.raises(ModelError) as refused:
        engine.deploy(
            process(
                '<startEvent id="start"/><eventBasedGateway id="nowhere"/>'
                '<sequenceFlow id="f0" sourceRef="start" targetRef="nowhere"/>'
            )
        )
    assert [p.element_id for p in refused.value.problems] == ["nowhere"]


NESTED = """
<userTask id="review"><extensionElements><camunda:inputOutput>
  <camunda:inputParameter name="nestedList"><camunda:list>
    <camunda:value>plain</camunda:value>
    <camunda:list><camunda:value>${amount}</camunda:value><camunda:value/></camunda:list>
    <camunda:map>
      <camunda:entry key="zeta">z</camunda:entry>
      <camunda:entry key="alpha"><camunda:list><camunda:value>a</camunda:value>
      </camunda:list></camunda:entry>
    </camunda:map>
  </camunda:list></camunda:inputParameter>
  <camunda:inputParameter name="nestedMap"><camunda:map>
    <camunda:entry key="b"><camunda:map>
      <camunda:entry key="y">  ${amount + 1}  </camunda:entry>
      <camunda:entry key="x"><camunda:map><camunda:entry key="deep">3</camunda:entry>
      </camunda:map></camunda:entry>
    </camunda:map></camunda:entry>
    <camunda:entry key="a"><camunda:list><camunda:list><camunda:value>in</camunda:value>
    </camunda:list></camunda:list></camunda:entry>
  </camunda:map></camunda:inputParameter>
  <camunda:outputParameter name="summary"><camunda:map>
    <camunda:entry key="verdict">${verdict}</camunda:entry>
    <camunda:entry key="by"><camunda:list><camunda:value>${reviewer}</camunda:value>
    <camunda:map><camunda:entry key="k">v</camunda:entry></camunda:map></camunda:list>
    </camunda:entry>
  </camunda:map></camunda:outputParameter>
</camunda:inputOutput></extensionElements></userTask>
"""


def test_lists_and_maps_nest_at_any_depth_maps_sorted_by_key(engine: Engine) -> None:
    engine.deploy(process(chain(NESTED)))
    pi = engine.start_process_instance("p", {"amount": 41})
    (task,) = engine.tasks(process_instance_id=pi.id)
    local = engine.runtime_service.get_variables(task.execution_id, local=True)
    assert local["nestedList"] == ["plain", [41, None], {"alpha": ["a"], "zeta": "z"}]
    nested_map = local["nestedMap"]
    assert nested_map == {"a": [["in"]], "b": {"x": {"deep": "3"}, "y": 42}}
    # sorted by key at every level, as Camunda's TreeMap holds them
    assert list(nested_map) == ["a", "b"]
    assert list(nested_map["b"]) == ["x", "y"]
    assert list(local["nestedList"][2]) == ["alpha", "zeta"]
    engine.complete_task(task.id, {"verdict": "ok", "reviewer": "ada"})
    final = {v.name: v.value for v in engine.history_service.historic_variable_instances(pi.id)}
    assert final["summary"] == {"by": ["ada", {"k": "v"}], "verdict": "ok"}
    assert list(final["summary"]) == ["by", "verdict"]
    assert engine.verify().problems == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "<camunda:list/><camunda:map/>",
            "holds 2 elements: a parameter or map entry holds at most one",
        ),
        (
            '<camunda:map><camunda:entry key="">x</camunda:entry></camunda:map>',
            "a map entry of the inputParameter 'v' needs a key",
        ),
        (
            "<camunda:list><camunda:list><camunda:other/></camunda:list></camunda:list>",
            "camunda:other is not a value of the inputParameter 'v' (list item 1) (list item 1)",
        ),
    ],
)
def test_a_malformed_nested_value_is_refused_naming_the_task(
    engine: Engine, value: str, message: str
) -> None:
    task = (
        '<userTask id="t"><extensionElements><camunda:inputOutput>'
        f'<camunda:inputParameter name="v">{value}</camunda:inputParameter>'
        "</camunda:inputOutput></extensionElements></userTask>"
    )
    with pytest.raises(ModelError) as refused:
        engine.deploy(process(chain(task)))
    (problem,) = refused.value.problems
    assert message in problem.message
    assert problem.element_id == "t"
