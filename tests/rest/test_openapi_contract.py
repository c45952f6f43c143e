"""The served OpenAPI document against Camunda 7.15's: same operations, no invented fields.

Every route the app serves must be a Camunda operation (same path, path parameters compared by
name, same method), and every field name of every response schema we document must exist in
Camunda's response schema of the same operation and status (top-level properties of objects, of
array items and of map values; `$ref`, `allOf`, `oneOf`/`anyOf` followed in both documents). A
success status Camunda does not document is wrong; an error status it does not document is
compared with Camunda's `ExceptionDto`, the body of every Camunda error. flowledger's own
operations are documented in the same document under `/flowledger/v1`, where none of this applies.

Camunda 7.15's OpenAPI document leaves out some operations its REST API has (historic tasks,
variables, details, incidents, decision instances and the job log, and the decision requirements
definitions): those are compared with the field lists of the REST reference
(shared/reference/camunda7.md §4.3, and Camunda's REST documentation for the historic incident,
job log, user operation log, job definition, historic decision instance and decision
requirements definition DTOs), listed in DOCUMENTED_ELSEWHERE.

Camunda's document is read from tests/reference/camunda-rest-7.15-subset.json: the operations
we serve and the schemas they reference, cut from the full document by
tests/reference/extract_openapi.py (its README says how to regenerate it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest

from flowledger.rest import session
from flowledger.rest.paths import BASE_PATH, EXTENSIONS_PATH
from flowledger.rest.resources import EXTENSIONS, MODULES
from tests.support import REFERENCE_DIR

from .server import LiveServer

REFERENCE_SPEC = REFERENCE_DIR / "camunda-rest-7.15-subset.json"
HTTP_METHODS = ("get", "put", "post", "delete", "patch")
# The subset holds the operations served when it was cut: a newly served one is missing until
# the subset is cut again, and this test is what says so.
STALE = (
    f" (or, if Camunda 7.15 has it, {REFERENCE_SPEC.name} predates it: run"
    " `.venv/bin/python -m tests.reference.extract_openapi`, see tests/reference/README.md)"
)

# Field lists of Camunda's REST reference for operations its 7.15 OpenAPI document lacks.
HISTORIC_TASK = frozenset(
    [
        "id",
        "processDefinitionKey",
        "processDefinitionId",
        "processInstanceId",
        "executionId",
        "caseDefinitionKey",
        "caseDefinitionId",
        "caseInstanceId",
        "caseExecutionId",
        "activityInstanceId",
        "name",
        "description",
        "deleteReason",
        "owner",
        "assignee",
        "startTime",
        "endTime",
        "duration",
        "taskDefinitionKey",
        "priority",
        "due",
        "parentTaskId",
        "followUp",
        "tenantId",
        "removalTime",
        "rootProcessInstanceId",
        "taskState",
    ]
)
HISTORIC_VARIABLE = frozenset(
    [
        "id",
        "name",
        "type",
        "value",
        "valueInfo",
        "processDefinitionKey",
        "processDefinitionId",
        "processInstanceId",
        "executionId",
        "activityInstanceId",
        "caseDefinitionKey",
        "caseDefinitionId",
        "caseInstanceId",
        "caseExecutionId",
        "taskId",
        "errorMessage",
        "tenantId",
        "state",
        "createTime",
        "removalTime",
        "rootProcessInstanceId",
    ]
)
# HistoricDetailDto, with its variableUpdate and formField kinds.
HISTORIC_DETAIL = frozenset(
    [
        "id",
        "type",
        "processDefinitionKey",
        "processDefinitionId",
        "processInstanceId",
        "activityInstanceId",
        "executionId",
        "caseDefinitionKey",
        "caseDefinitionId",
        "caseInstanceId",
        "caseExecutionId",
        "taskId",
        "tenantId",
        "userOperationId",
        "time",
        "removalTime",
        "rootProcessInstanceId",
        "variableName",
        "variableInstanceId",
        "variableType",
        "value",
        "valueInfo",
        "initial",
        "revision",
        "errorMessage",
        "fieldId",
        "fieldValue",
    ]
)
# HistoricIncidentDto and HistoricJobLogDto.
HISTORIC_INCIDENT = frozenset(
    [
        "id",
        "processDefinitionKey",
        "processDefinitionId",
        "processInstanceId",
        "executionId",
        "rootProcessInstanceId",
        "createTime",
        "endTime",
        "removalTime",
        "incidentType",
        "activityId",
        "failedActivityId",
        "causeIncidentId",
        "rootCauseIncidentId",
        "configuration",
        "historyConfiguration",
        "incidentMessage",
        "tenantId",
        "jobDefinitionId",
        "open",
        "deleted",
        "resolved",
        "annotation",
    ]
)
HISTORIC_JOB_LOG = frozenset(
    [
        "id",
        "timestamp",
        "removalTime",
        "jobId",
        "jobDueDate",
        "jobRetries",
        "jobPriority",
        "jobExceptionMessage",
        "jobDefinitionId",
        "jobDefinitionType",
        "jobDefinitionConfiguration",
        "activityId",
        "failedActivityId",
        "executionId",
        "processInstanceId",
        "processDefinitionId",
        "processDefinitionKey",
        "deploymentId",
        "rootProcessInstanceId",
        "tenantId",
        "hostname",
        "creationLog",
        "failureLog",
        "successLog",
        "deletionLog",
    ]
)
# JobDto, which `POST /history/cleanup` answers (the operation is newer than 7.15's document).
JOB = frozenset(
    [
        "id",
        "jobDefinitionId",
        "dueDate",
        "processInstanceId",
        "executionId",
        "processDefinitionId",
        "processDefinitionKey",
        "retries",
        "exceptionMessage",
        "failedActivityId",
        "suspended",
        "priority",
        "tenantId",
        "createTime",
    ]
)
JOB_DEFINITION = frozenset(
    [
        "id",
        "processDefinitionId",
        "processDefinitionKey",
        "activityId",
        "jobType",
        "jobConfiguration",
        "overridingJobPriority",
        "suspended",
        "tenantId",
        "deploymentId",
    ]
)
# Camunda's HistoricActivityStatisticsDto (its REST reference; 7.15's document lacks the path).
HISTORIC_ACTIVITY_STATISTICS = frozenset(
    [
        "id",
        "instances",
        "canceled",
        "finished",
        "completeScope",
        "openIncidents",
        "resolvedIncidents",
        "deletedIncidents",
    ]
)
COUNT = frozenset({"count"})
# Fields of a later Camunda 7 than 7.15 that we serve under their names: 7.22's
# HistoricProcessInstanceDto.restartedProcessInstanceId (its column is 7.7's).
# Camunda's MigrationPlanDto and MigrationPlanReportDto (dto/migration/ in Camunda's source;
# 7.15's document lacks /migration): `variables` and `variableReports` came with Camunda 7.17.
MIGRATION_PLAN = frozenset(
    {"sourceProcessDefinitionId", "targetProcessDefinitionId", "instructions", "variables"}
)
MIGRATION_PLAN_REPORT = frozenset({"instructionReports", "variableReports"})
# BatchDto's startTime (7.19) and executionStartTime (7.20) came after 7.15.
LATER_CAMUNDA_FIELDS = frozenset({"restartedProcessInstanceId", "startTime", "executionStartTime"})
BINARY: frozenset[str] = frozenset()
# UserOperationLogEntryDto (Camunda's REST reference; no tenantId, unlike the table).
USER_OPERATION = frozenset(
    [
        "id",
        "deploymentId",
        "processDefinitionId",
        "processDefinitionKey",
        "processInstanceId",
        "executionId",
        "caseDefinitionId",
        "caseInstanceId",
        "caseExecutionId",
        "taskId",
        "jobId",
        "jobDefinitionId",
        "batchId",
        "userId",
        "timestamp",
        "operationId",
        "externalTaskId",
        "operationType",
        "entityType",
        "property",
        "orgValue",
        "newValue",
        "removalTime",
        "rootProcessInstanceId",
        "category",
        "annotation",
    ]
)
# DecisionRequirementsDefinitionDto, its XML, and HistoricDecisionInstanceDto (whose inputs and
# outputs are lists of HistoricDecisionInputInstanceDto and ...OutputInstanceDto).
DECISION_REQUIREMENTS = frozenset(
    ["id", "key", "name", "category", "version", "resource", "deploymentId", "tenantId"]
)
DMN_XML = frozenset(["id", "dmnXml"])
HISTORIC_DECISION_INSTANCE = frozenset(
    [
        "id",
        "decisionDefinitionId",
        "decisionDefinitionKey",
        "decisionDefinitionName",
        "evaluationTime",
        "removalTime",
        "processDefinitionId",
        "processDefinitionKey",
        "processInstanceId",
        "caseDefinitionId",
        "caseDefinitionKey",
        "caseInstanceId",
        "activityId",
        "activityInstanceId",
        "tenantId",
        "userId",
        "inputs",
        "outputs",
        "collectResultValue",
        "rootDecisionInstanceId",
        "rootProcessInstanceId",
        "decisionRequirementsDefinitionId",
        "decisionRequirementsDefinitionKey",
    ]
)
# HistoricBatchDto (Camunda's REST reference; 7.15's document lacks /history/batch).
HISTORIC_BATCH = frozenset(
    [
        "id",
        "type",
        "totalJobs",
        "batchJobsPerSeed",
        "invocationsPerBatchJob",
        "seedJobDefinitionId",
        "monitorJobDefinitionId",
        "batchJobDefinitionId",
        "tenantId",
        "createUserId",
        "startTime",
        "endTime",
        "removalTime",
        "executionStartTime",
    ]
)
# BatchDto (7.15's schema, plus its later startTime and executionStartTime), for the batch
# operations 7.15's document lacks the path of.
BATCH = frozenset(
    {
        "id",
        "type",
        "totalJobs",
        "jobsCreated",
        "batchJobsPerSeed",
        "invocationsPerBatchJob",
        "seedJobDefinitionId",
        "monitorJobDefinitionId",
        "batchJobDefinitionId",
        "suspended",
        "tenantId",
        "createUserId",
        "startTime",
        "executionStartTime",
    }
)
DOCUMENTED_ELSEWHERE: dict[tuple[str, str], frozenset[str]] = {
    ("POST", "/modification/executeAsync"): BATCH,
    ("GET", "/history/batch"): HISTORIC_BATCH,
    ("GET", "/history/batch/count"): COUNT,
    ("GET", "/history/batch/{id}"): HISTORIC_BATCH,
    ("DELETE", "/history/batch/{id}"): frozenset(),
    # Camunda's REST reference (ModificationDto); 7.15's document lacks the path. 204, no body.
    ("POST", "/modification/execute"): frozenset(),
    ("POST", "/migration/generate"): MIGRATION_PLAN,
    ("POST", "/migration/validate"): MIGRATION_PLAN_REPORT,
    # MigrationExecutionDto in; 204, no body (a refusal: the exception DTO with its report)
    ("POST", "/migration/execute"): frozenset(),
    ("POST", "/migration/executeAsync"): BATCH,
    # Camunda 7.24's set-removal-time batches and decision deletion batch (issue 37): BatchDto
    ("POST", "/history/process-instance/set-removal-time"): BATCH,
    ("POST", "/history/decision-instance/set-removal-time"): BATCH,
    ("POST", "/history/batch/set-removal-time"): BATCH,
    ("POST", "/history/decision-instance/delete"): BATCH,
    # Camunda 7.16's CorrelationMessageAsyncDto in, a BatchDto out
    ("POST", "/process-instance/message-async"): BATCH,
    ("GET", "/history/process-definition/{id}/statistics"): HISTORIC_ACTIVITY_STATISTICS,
    ("GET", "/history/user-operation"): USER_OPERATION,
    ("GET", "/history/user-operation/count"): COUNT,
    ("GET", "/history/task"): HISTORIC_TASK,
    ("POST", "/history/task"): HISTORIC_TASK,
    ("GET", "/history/task/count"): COUNT,
    ("POST", "/history/task/count"): COUNT,
    ("GET", "/history/variable-instance"): HISTORIC_VARIABLE,
    ("POST", "/history/variable-instance"): HISTORIC_VARIABLE,
    ("GET", "/history/variable-instance/count"): COUNT,
    ("POST", "/history/variable-instance/count"): COUNT,
    ("GET", "/history/variable-instance/{id}"): HISTORIC_VARIABLE,
    ("GET", "/history/variable-instance/{id}/data"): BINARY,
    ("GET", "/history/detail"): HISTORIC_DETAIL,
    ("POST", "/history/detail"): HISTORIC_DETAIL,
    ("GET", "/history/detail/count"): COUNT,
    ("GET", "/history/detail/{id}"): HISTORIC_DETAIL,
    ("GET", "/history/detail/{id}/data"): BINARY,
    ("GET", "/history/incident"): HISTORIC_INCIDENT,
    ("GET", "/history/incident/count"): COUNT,
    ("GET", "/history/job-log"): HISTORIC_JOB_LOG,
    ("POST", "/history/job-log"): HISTORIC_JOB_LOG,
    ("GET", "/history/job-log/count"): COUNT,
    ("POST", "/history/job-log/count"): COUNT,
    ("GET", "/history/job-log/{id}"): HISTORIC_JOB_LOG,
    ("GET", "/history/job-log/{id}/stacktrace"): BINARY,
    # 7.15's document lacks the job definition resource: Camunda's REST reference has it.
    ("GET", "/job-definition"): JOB_DEFINITION,
    ("POST", "/job-definition"): JOB_DEFINITION,
    ("GET", "/job-definition/count"): COUNT,
    ("POST", "/job-definition/count"): COUNT,
    ("GET", "/job-definition/{id}"): JOB_DEFINITION,
    ("POST", "/history/cleanup"): JOB,
    ("GET", "/decision-requirements-definition"): DECISION_REQUIREMENTS,
    ("GET", "/decision-requirements-definition/count"): COUNT,
    ("GET", "/decision-requirements-definition/{id}"): DECISION_REQUIREMENTS,
    ("GET", "/decision-requirements-definition/key/{key}"): DECISION_REQUIREMENTS,
    ("GET", "/decision-requirements-definition/{id}/xml"): DMN_XML,
    ("GET", "/decision-requirements-definition/key/{key}/xml"): DMN_XML,
    ("GET", "/decision-requirements-definition/{id}/diagram"): BINARY,
    ("GET", "/decision-requirements-definition/key/{key}/diagram"): BINARY,
    ("GET", "/history/decision-instance"): HISTORIC_DECISION_INSTANCE,
    ("GET", "/history/decision-instance/count"): COUNT,
    ("GET", "/history/decision-instance/{id}"): HISTORIC_DECISION_INSTANCE,
}

Schema = dict[str, Any]
Document = dict[str, Any]


def _camunda_path(path: str) -> str:
    """`/task/{id:str}` → `/task/{id}`: Litestar's typed parameters, by name only."""
    return re.sub(r"\{([^}:]+)(?::[^}]*)?\}", r"{\1}", path)


def implemented_operations() -> list[tuple[str, str]]:
    """(METHOD, path) of every route of every resource module, without the base path."""
    found: set[tuple[str, str]] = set()
    for module in MODULES:
        for handler in module.routes:
            for path in handler.paths:
                for method in handler.http_methods:
                    if method.lower() in HTTP_METHODS:
                        found.add((method.upper(), _camunda_path(path)))
    return sorted(found, key=lambda op: (op[1], op[0]))


OPERATIONS = implemented_operations()
IDS = [f"{method} {path}" for method, path in OPERATIONS]


@cache
def reference() -> Document:
    document: Document = json.loads(REFERENCE_SPEC.read_text())
    return document


@pytest.fixture(scope="module")
def served(rest: LiveServer) -> Document:
    response = rest.client.get("/openapi/openapi.json")
    assert response.status_code == 200, response.text
    document: Document = response.json()
    return document


def served_operation(document: Document, method: str, path: str) -> Schema:
    item = document.get("paths", {}).get(BASE_PATH + path)
    if item is None or method.lower() not in item:
        pytest.fail(f"{method} {path} is served but missing from our OpenAPI document")
    operation: Schema = item[method.lower()]
    return operation


# -- schemas --------------------------------------------------------------------------------


def resolve(document: Document, schema: Schema) -> Schema:
    seen: set[str] = set()
    while "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/") or ref in seen:
            raise AssertionError(f"cannot follow $ref {ref!r}")
        seen.add(ref)
        target: Any = document
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        schema = target
    return schema


def _types(schema: Schema) -> set[str]:
    kind = schema.get("type")
    return set(kind) if isinstance(kind, list) else {kind} if kind else set()


def field_names(document: Document, schema: Schema) -> set[str]:
    """Top-level field names of a response body: of the object, of array items, of map values
    (for a map of objects such as Camunda's variables map)."""
    schema = resolve(document, schema)
    names: set[str] = set()
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key, []):
            names |= field_names(document, part)
    if "array" in _types(schema) or "items" in schema:
        names |= field_names(document, schema.get("items", {}))
    names |= set(schema.get("properties", {}))
    values = schema.get("additionalProperties")
    if isinstance(values, dict) and not schema.get("properties"):
        names |= field_names(document, values)
    return names


def body_schema(response: Schema) -> Schema | None:
    content = response.get("content") or {}
    if not content:
        return None
    media = content.get("application/json") or next(iter(content.values()))
    schema: Schema | None = media.get("schema")
    return schema


def reference_operation(method: str, path: str) -> Schema | None:
    item = reference()["paths"].get(path)
    if item is None or method.lower() not in item:
        return None
    operation: Schema = item[method.lower()]
    return operation


def _is_error(status: str) -> bool:
    return status.startswith(("4", "5"))


def response_problems(
    ours: Document, operation: Schema, camunda: Document, theirs: Schema, *, errors: bool
) -> Iterator[str]:
    """Each way our documented success (or error) responses differ from Camunda's."""
    for status, response in operation.get("responses", {}).items():
        if _is_error(status) != errors:
            continue
        expected = theirs.get("responses", {}).get(status)
        if expected is None:
            if not errors:
                documented = ", ".join(theirs.get("responses", {}))
                yield f"status {status} is not Camunda's (Camunda documents {documented})"
                continue
            expected = {
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/ExceptionDto"}}
                }
            }
        ours_schema = body_schema(resolve(ours, response))
        if ours_schema is None:
            continue
        theirs_schema = body_schema(resolve(camunda, expected))
        names = field_names(ours, ours_schema)
        known = field_names(camunda, theirs_schema) if theirs_schema is not None else set()
        unknown = sorted(names - known - LATER_CAMUNDA_FIELDS)
        if unknown:
            yield f"status {status}: fields {unknown} are not in Camunda's schema {sorted(known)}"


def elsewhere_problems(ours: Document, operation: Schema, known: frozenset[str]) -> Iterator[str]:
    for status, response in operation.get("responses", {}).items():
        schema = body_schema(resolve(ours, response))
        if _is_error(status) or schema is None:
            continue
        unknown = sorted(field_names(ours, schema) - known)
        if unknown:
            yield f"status {status}: fields {unknown} are not in Camunda's REST reference"


# -- tests ----------------------------------------------------------------------------------


def test_openapi_document_is_served_as_openapi_3_json(rest: LiveServer) -> None:
    response = rest.client.get("/openapi/openapi.json")
    assert response.status_code == 200
    # application/json or OpenAPI's own application/vnd.oai.openapi+json
    media_type = response.headers["content-type"].split(";")[0].strip()
    assert media_type == "application/json" or media_type.endswith("+json"), media_type
    document = json.loads(response.text)
    assert str(document["openapi"]).startswith("3.")
    assert document["info"]["title"]
    assert document["paths"]


def _documented(document: Document, prefix: str) -> set[tuple[str, str]]:
    return {
        (method.upper(), path[len(prefix) :])
        for path, item in document["paths"].items()
        if path.startswith(prefix + "/")
        for method in item
        if method in HTTP_METHODS
    }


def test_every_documented_path_is_served_under_the_base_path(served: Document) -> None:
    """Camunda's operations under /engine-rest, flowledger's own under /flowledger/v1 (the
    comparisons with Camunda's document read the first only), nothing else."""
    assert all(
        path.startswith((BASE_PATH + "/", EXTENSIONS_PATH + "/")) for path in served["paths"]
    )
    assert _documented(served, BASE_PATH) == {(m, p) for m, p in OPERATIONS}
    extensions = {
        (method.upper(), _camunda_path(path))
        for module in (*EXTENSIONS, session)
        for handler in module.routes
        for path in handler.paths
        for method in handler.http_methods
        if method.lower() in HTTP_METHODS
    }
    assert _documented(served, EXTENSIONS_PATH) == extensions


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=IDS)
def test_operation_exists_in_camunda(served: Document, method: str, path: str) -> None:
    served_operation(served, method, path)
    if (method, path) in DOCUMENTED_ELSEWHERE:
        return
    item = reference()["paths"].get(path)
    assert item is not None, f"{path} is not a path of Camunda's engine-rest" + STALE
    methods = sorted(m.upper() for m in item if m in HTTP_METHODS)
    assert method.lower() in item, f"Camunda serves {path} with {methods} only" + STALE


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=IDS)
def test_success_response_fields_are_camunda_fields(
    served: Document, method: str, path: str
) -> None:
    operation = served_operation(served, method, path)
    if (method, path) in DOCUMENTED_ELSEWHERE:
        problems = list(elsewhere_problems(served, operation, DOCUMENTED_ELSEWHERE[method, path]))
    else:
        theirs = reference_operation(method, path)
        if theirs is None:
            pytest.skip(f"{method} {path} is not in Camunda's document (see the test above)")
        problems = list(response_problems(served, operation, reference(), theirs, errors=False))
    assert not problems, f"{method} {path}: " + "; ".join(problems)


def test_error_responses_are_documented_as_camunda_exceptions(served: Document) -> None:
    """Camunda answers every error with ExceptionDto `{type, message}`; so do we, and so must
    the document say (for all operations at once: one cause, one place to fix it)."""
    problems = []
    for method, path in OPERATIONS:
        theirs = reference_operation(method, path) or {"responses": {}}
        operation = served_operation(served, method, path)
        for problem in response_problems(served, operation, reference(), theirs, errors=True):
            problems.append(f"{method} {path}: {problem}")
    assert not problems, f"{len(problems)} error responses:\n" + "\n".join(problems)
