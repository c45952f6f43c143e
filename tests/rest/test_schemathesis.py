"""Schemathesis against the live server: no request, however odd, gets a 5xx answer.

Based on Camunda's REFERENCE document (engine-rest OpenAPI 7.15, which schemathesis 4 loads as
it is; tests/reference/ keeps the part of it we serve), filtered to the operations this server
implements, so each operation is fuzzed with the parameters and bodies Camunda documents for
it, not with the ones we happened to declare. Each operation runs twice: with valid data
(positive) and with data that breaks the schema (negative, which must give a 4xx). Half of the
examples aim at real objects: before each operation a fresh instance of
tests/bpmn/rest_e2e_fuzz_target.bpmn waits in a user task and an external task, and `{id}`,
`{key}` and `{varName}` point at it (at a freshly deployed dish decision for
`/decision-definition`, tests/dmn/models.py); the other half use generated ids (404s). The only
check is schemathesis's `not_a_server_error`, except for the few answers where Camunda itself
deliberately says 500 (listed in DELIBERATE_SERVER_ERRORS, each with its reason and the
exception type that must come with it); an unexpected error never passes.

Bounded and deterministic: a few examples per operation, derandomized, no shrinking, no example
database; a long poll (`fetchAndLock` with `asyncResponseTimeout`) is cut to 50 ms.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import hypothesis.strategies as st
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error

from tests.dmn.models import dish
from tests.support import BPMN_DIR

from .server import LiveServer
from .test_openapi_contract import OPERATIONS, REFERENCE_SPEC

MAX_EXAMPLES = int(os.environ.get("FLOWLEDGER_FUZZ_EXAMPLES", "10"))
LONG_POLL_CAP_MS = 50
FUZZ_TARGET = BPMN_DIR / "rest_e2e_fuzz_target.bpmn"
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
# (METHOD, path) → {exception type: why Camunda answers it with a 500 too}.
DELIBERATE_SERVER_ERRORS: dict[tuple[str, str], dict[str, str]] = {
    ("DELETE", "/deployment/{id}"): {
        "ProcessEngineException": "RepositoryService.deleteDeployment without cascade refuses "
        "while instances run; Camunda's REST layer maps that ProcessEngineException to 500",
    },
    ("POST", "/decision-definition/{id}/evaluate"): {
        "RestException": "a decision that fails to evaluate (a violated hit policy, an input "
        "that does not convert to its typeRef); Camunda's DecisionDefinitionResource answers 500",
    },
    ("POST", "/decision-definition/key/{key}/evaluate"): {
        "RestException": "as for evaluating by id",
    },
    ("POST", "/condition"): {
        "ProcessEngineException": "no conditional start event to evaluate (none deployed, or "
        "the named definition declares none): the engine's ProcessEngineException, which "
        "Camunda's REST layer maps to 500",
    },
    ("POST", "/task/{id}/bpmnEscalation"): {
        "ProcessEngineException": "an escalation no boundary event or event subprocess catches; "
        "Camunda's TaskService.handleEscalation throws it (BpmnBehaviorLogger 043), REST: 500",
    },
    ("POST", "/task/{id}/claim"): {
        "TaskAlreadyClaimedException": "a claim of a task someone else holds; Camunda "
        "documents 500 for it",
    },
}


def _shape(path: str) -> str:
    """Paths compared by shape: `{tenant-id}` and `{tenant_id}` are the same slot."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def _load_operations() -> list[Any]:
    schema = schemathesis.openapi.from_path(REFERENCE_SPEC)
    wanted = {(method, _shape(path)) for method, path in OPERATIONS}
    found = []
    for result in schema.get_all_operations():
        operation = result.ok()
        if (operation.method.upper(), _shape(operation.path)) in wanted:
            found.append(operation)
    return sorted(found, key=lambda op: (op.path, op.method))


def _modes(operation: Any) -> tuple[GenerationMode, ...]:
    """Negative data needs something typed to break: a query parameter or a body (a path of
    string parameters alone cannot be made invalid)."""
    if len(operation.query) or len(operation.body):
        return MODES
    return (GenerationMode.POSITIVE,)


REFERENCE_OPERATIONS = _load_operations()
CASES = [(op, mode) for op in REFERENCE_OPERATIONS for mode in _modes(op)]
CASE_IDS = [f"{mode.value}-{op.method.upper()} {op.path}" for op, mode in CASES]


@dataclass(frozen=True)
class Target:
    """Real objects the fuzzer may aim at."""

    deployment_id: str
    definition_id: str
    definition_key: str
    instance_id: str
    task_id: str
    execution_id: str
    external_task_id: str
    decision_definition_id: str
    decision_key: str

    def path_parameters(self, path: str) -> dict[str, str]:
        """Values for the path's parameters that name these objects (others stay generated)."""
        by_resource = {
            "deployment": self.deployment_id,
            "process-definition": self.definition_id,
            "process-instance": self.instance_id,
            "task": self.task_id,
            "execution": self.execution_id,
            "external-task": self.external_task_id,
            "decision-definition": self.decision_definition_id,
        }
        values: dict[str, str] = {}
        resource = path.split("/")[1]
        if "{id}" in path:
            if path.startswith("/history/process-instance/"):
                values["id"] = self.instance_id
            elif resource in by_resource:
                values["id"] = by_resource[resource]
        if "{key}" in path:
            decision = resource == "decision-definition"
            values["key"] = self.decision_key if decision else self.definition_key
        if "{varName}" in path:
            values["varName"] = "amount"
        return values


@pytest.fixture
def target(rest: LiveServer) -> Target:
    """A fresh deployment and instance per operation: an earlier operation may have completed
    or deleted them (DELETE /deployment/{id}?cascade=true does)."""
    engine = rest.engine
    deployment = engine.deploy(FUZZ_TARGET, name="fuzz")
    definition = deployment.process_definitions[0]
    instance = engine.start_process_instance(definition.key, {"amount": 42})
    task = engine.tasks(process_instance_id=instance.id)[0]
    external = engine.external_task_service.external_tasks(process_instance_id=instance.id)[0]
    [decision] = engine.deploy([("dish.dmn", dish())], name="fuzz").decision_definitions
    return Target(
        deployment_id=deployment.id,
        definition_id=definition.id,
        definition_key=definition.key,
        instance_id=instance.id,
        task_id=task.id,
        execution_id=task.execution_id,
        external_task_id=external.id,
        decision_definition_id=decision.id,
        decision_key=decision.key,
    )


def _deliberate(operation: Any, response: Any) -> bool:
    """A 5xx Camunda gives as well, with the exception type it gives."""
    allowed = DELIBERATE_SERVER_ERRORS.get((operation.method.upper(), operation.path), {})
    if response.status_code < 500 or not allowed:
        return False
    try:
        kind = response.json().get("type")
    except ValueError:
        return False
    return kind in allowed


def _cap_long_poll(case: Any) -> None:
    body = case.body
    if isinstance(body, dict):
        timeout = body.get("asyncResponseTimeout")
        if isinstance(timeout, int | float) and not isinstance(timeout, bool):
            body["asyncResponseTimeout"] = min(timeout, LONG_POLL_CAP_MS)


@pytest.mark.parametrize(("operation", "mode"), CASES, ids=CASE_IDS)
def test_no_server_errors(
    rest: LiveServer, target: Target, operation: Any, mode: GenerationMode
) -> None:
    aimed = operation.as_strategy(
        generation_mode=mode, path_parameters=target.path_parameters(operation.path) or None
    )
    strategy = st.one_of(aimed, operation.as_strategy(generation_mode=mode))

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def fuzz(case: Any) -> None:
        _cap_long_poll(case)
        response = case.call(base_url=rest.url, timeout=30)
        if not _deliberate(operation, response):
            case.validate_response(response, checks=[not_a_server_error])

    try:
        fuzz()
    except Unsatisfiable:
        # Every query parameter is a free string, say: nothing Camunda documents can be broken.
        pytest.skip(f"schemathesis finds no {mode.value} data for {operation.path}")
