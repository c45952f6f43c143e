"""Deploy what Camunda deploys (7, 8): a call activity's delegate variable mapping
(`camunda:variableMappingClass`, a delegate registered by name, or
`camunda:variableMappingDelegateExpression`) runs after the `camunda:in` / `camunda:out`
mappings: `map_input(execution, variables)` may change the called instance's start variables,
`map_output(execution, sub_variables)` sets the caller's (Camunda's CallActivityTest
DelegateVariableMapping scenarios). A `camunda:caseRef` (CMMN) stays refused, saying so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from flowledger import Engine, ModelError, ProcessEngineError
from tests.core.test_call_activities import CALLED, call, called_instance, task_keys


class OrderMapping:
    """Camunda's DelegateVariableMapping: in and out, each after the camunda:in/out mappings."""

    def __init__(self) -> None:
        self.seen_in: dict[str, Any] = {}

    def map_input(self, execution: Any, variables: dict[str, Any]) -> None:
        self.seen_in = dict(variables)  # what camunda:in made
        variables["inputVar"] = execution.get_variable("amount") * 10
        variables.pop("secret", None)

    def map_output(self, execution: Any, sub_variables: Mapping[str, Any]) -> None:
        execution.set_variable("outputVar", sub_variables["verdict"].upper())


@pytest.mark.parametrize(
    "attribute",
    [
        'camunda:variableMappingClass="mapper"',
        'camunda:variableMappingDelegateExpression="${mapper}"',
    ],
)
def test_a_delegate_variable_mapping_runs_after_the_in_and_out_mappings(
    engine: Engine, attribute: str
) -> None:
    mapper = OrderMapping()
    engine.register_delegate("mapper", mapper)
    engine.deploy(CALLED)
    engine.deploy(
        call(
            attribute,
            mappings='<camunda:in source="amount" target="amount"/>'
            '<camunda:in source="secret" target="secret"/>'
            '<camunda:out source="verdict" target="verdict"/>',
        )
    )
    pi = engine.start_process_instance("caller", {"amount": 3, "secret": "s"})
    assert mapper.seen_in == {"amount": 3, "secret": "s"}
    callee = called_instance(engine, pi.id)
    assert engine.runtime_service.get_variables(callee) == {"amount": 3, "inputVar": 30}
    (inner,) = engine.tasks(process_instance_id=callee)
    engine.complete_task(inner.id, {"verdict": "ok"})
    assert task_keys(engine, pi.id) == ["after"]
    caller_variables = engine.runtime_service.get_variables(pi.id)
    assert caller_variables["verdict"] == "ok"  # camunda:out
    assert caller_variables["outputVar"] == "OK"  # then the mapping
    assert engine.verify().problems == []


def test_an_unregistered_mapping_class_fails_the_call_naming_it(engine: Engine) -> None:
    engine.deploy(CALLED)
    engine.deploy(call('camunda:variableMappingClass="nobody"'))
    with pytest.raises(ProcessEngineError, match=r"'nobody'.*variableMappingClass of 'call'"):
        engine.start_process_instance("caller")


def test_a_failing_mapping_fails_the_call_naming_it(engine: Engine) -> None:
    class Broken:
        def map_input(self, execution: Any, variables: dict[str, Any]) -> None:
            raise KeyError("customerId")

        def map_output(self, execution: Any, sub_variables: Mapping[str, Any]) -> None:
            """Not reached."""

    engine.register_delegate("broken", Broken())
    engine.deploy(CALLED)
    engine.deploy(call('camunda:variableMappingClass="broken"'))
    with pytest.raises(ProcessEngineError, match=r"variable mapping 'broken' of 'call' failed"):
        engine.start_process_instance("caller")
    assert engine.history_service.historic_process_instances() == []


def test_a_case_ref_is_refused_as_cmmn(engine: Engine) -> None:
    source = call().replace('calledElement="called"', 'camunda:caseRef="oneTaskCase"')
    with pytest.raises(ModelError) as refused:
        engine.deploy(source)
    (problem,) = refused.value.problems
    assert problem.element_id == "call"
    assert "camunda:caseRef 'oneTaskCase' calls a CMMN case: CMMN is not supported" in (
        problem.message
    )
