"""What the facade returns: read-only msgspec Structs shaped like Camunda's Java/REST objects.

Pure data; built from projection rows or from the log by the engine facade.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from .errors import ProcessEngineError
from .variables import StoredValue


class ProcessDefinition(msgspec.Struct, frozen=True):
    id: str
    key: str
    version: int
    deployment_id: str
    resource_name: str
    name: str | None = None
    version_tag: str | None = None
    history_time_to_live: int | None = None
    category: str | None = None
    startable_in_tasklist: bool = True
    suspended: bool = False


class DecisionDefinition(msgspec.Struct, frozen=True):
    id: str
    key: str
    version: int
    deployment_id: str
    resource_name: str
    name: str | None = None
    category: str | None = None
    version_tag: str | None = None
    history_time_to_live: int | None = None
    decision_requirements_definition_id: str | None = None
    decision_requirements_definition_key: str | None = None


class DecisionRequirementsDefinition(msgspec.Struct, frozen=True):
    id: str
    key: str
    version: int
    deployment_id: str
    resource_name: str
    name: str | None = None
    category: str | None = None


class Deployment(msgspec.Struct, frozen=True):
    id: str
    name: str | None
    source: str | None
    deployment_time: datetime
    process_definitions: list[ProcessDefinition] = []
    resource_names: list[str] = []
    decision_definitions: list[DecisionDefinition] = []
    decision_requirements_definitions: list[DecisionRequirementsDefinition] = []
    # What deploys but will fail when it runs (a timer literal that is no ISO 8601 value), as
    # the deployment's answer says; not kept in the repository tables (the log keeps it).
    warnings: list[DeploymentWarning] = []


class DeploymentWarning(msgspec.Struct, frozen=True):
    """A warning of a deployment: its message, where it is (resource, element id, line)."""

    message: str
    resource: str | None = None
    element_id: str | None = None
    line: int | None = None


class DecisionResult(msgspec.Struct, frozen=True):
    """What an evaluation returned: one entry map per rule the result is made of (Camunda's
    DmnDecisionResult), and what the log recorded of it. `entries` hold the values as their
    Camunda types store them (`core.variables.StoredValue`), `values` the same as Python values;
    `matched_rules` are the evaluated decision's rules the result is made of."""

    decision_instance_id: str
    decision_definition_id: str
    values: list[dict[str, Any]]
    entries: list[dict[str, Any]]
    matched_rules: list[str] = []
    collect_value: Any = None

    # Camunda's DmnDecisionResult views of the result.

    def result_list(self) -> list[dict[str, Any]]:
        return self.values

    def single_result(self) -> dict[str, Any] | None:
        """The one result (None when no rule matched); more than one is an error."""
        if len(self.values) > 1:
            raise ProcessEngineError(
                "Unable to get single decision result as it has more than one result: "
                f"{self.values}"
            )
        return self.values[0] if self.values else None

    def single_entry(self) -> Any:
        """The one entry of the one result (None when no rule matched)."""
        single = self.single_result()
        if single is None:
            return None
        if len(single) > 1:
            raise ProcessEngineError(
                "Unable to get single decision result entry as it has more than one entry: "
                f"{single}"
            )
        return next(iter(single.values()), None)

    def collect_entries(self, name: str) -> list[Any]:
        """The entry `name` of every result that has it."""
        return [row[name] for row in self.values if name in row]


class ProcessInstance(msgspec.Struct, frozen=True):
    id: str
    definition_id: str
    definition_key: str
    business_key: str | None
    ended: bool
    suspended: bool = False


class Task(msgspec.Struct, frozen=True):
    id: str
    name: str | None
    task_definition_key: str
    process_instance_id: str
    execution_id: str
    process_definition_id: str
    created: datetime
    assignee: str | None = None
    owner: str | None = None
    description: str | None = None
    priority: int = 50
    due: datetime | None = None
    follow_up: datetime | None = None
    last_updated: datetime | None = None
    form_key: str | None = None
    candidate_users: list[str] = []
    candidate_groups: list[str] = []
    suspended: bool = False


class Execution(msgspec.Struct, frozen=True):
    id: str
    process_instance_id: str
    parent_id: str | None
    activity_id: str | None
    activity_instance_id: str | None
    is_active: bool
    is_concurrent: bool
    is_scope: bool


class ExternalTask(msgspec.Struct, frozen=True):
    id: str
    topic_name: str
    activity_id: str
    activity_instance_id: str
    execution_id: str
    process_instance_id: str
    process_definition_id: str
    process_definition_key: str
    priority: int
    created: datetime
    worker_id: str | None = None
    lock_expiration_time: datetime | None = None
    retries: int | None = None
    error_message: str | None = None
    business_key: str | None = None
    variables: dict[str, Any] = {}


class Job(msgspec.Struct, frozen=True):
    """A timer or asynchronous continuation (ACT_RU_JOB), as Camunda's JobDto and a bit more."""

    id: str
    job_definition_id: str | None
    process_instance_id: str | None  # None: a timer start event's (a definition's) job
    process_definition_id: str
    process_definition_key: str
    execution_id: str | None
    activity_id: str | None
    handler_type: str | None
    handler_configuration: str | None
    job_type: str  # timer | message
    exception_message: str | None
    failed_activity_id: str | None
    retries: int
    due_date: datetime | None
    suspended: bool
    priority: int
    create_time: datetime | None
    repeat: str | None = None
    exclusive: bool = True
    lock_owner: str | None = None
    lock_expiration_time: datetime | None = None


class JobDefinition(msgspec.Struct, frozen=True):
    """A kind of job a deployed activity makes (ACT_RU_JOBDEF), as Camunda's JobDefinitionDto."""

    id: str
    process_definition_id: str | None
    process_definition_key: str | None
    activity_id: str | None
    job_type: str
    job_configuration: str | None
    suspended: bool
    deployment_id: str | None


class Incident(msgspec.Struct, frozen=True):
    """An open incident (ACT_RU_INCIDENT), as Camunda's IncidentDto."""

    id: str
    process_definition_id: str
    process_instance_id: str | None  # None for a timer start event's job
    execution_id: str | None
    incident_timestamp: datetime
    incident_type: str
    activity_id: str | None
    failed_activity_id: str | None
    cause_incident_id: str | None
    root_cause_incident_id: str | None
    configuration: str | None
    incident_message: str | None
    job_definition_id: str | None = None
    annotation: str | None = None


class HistoricIncident(msgspec.Struct, frozen=True):
    """An incident, open or ended (ACT_HI_INCIDENT), as Camunda's HistoricIncidentDto."""

    id: str
    process_definition_key: str | None
    process_definition_id: str | None
    process_instance_id: str | None
    root_process_instance_id: str | None
    execution_id: str | None
    create_time: datetime
    end_time: datetime | None
    incident_type: str
    activity_id: str | None
    failed_activity_id: str | None
    cause_incident_id: str | None
    root_cause_incident_id: str | None
    configuration: str | None
    incident_message: str | None
    job_definition_id: str | None
    open: bool
    resolved: bool
    deleted: bool
    annotation: str | None = None
    removal_time: datetime | None = None


class HistoricJobLog(msgspec.Struct, frozen=True):
    """One entry of a job's history (ACT_HI_JOB_LOG), as Camunda's HistoricJobLogDto."""

    id: str
    timestamp: datetime
    job_id: str
    job_due_date: datetime | None
    job_retries: int | None
    job_priority: int
    job_exception_message: str | None
    job_definition_id: str | None
    job_definition_type: str | None
    job_definition_configuration: str | None
    activity_id: str | None
    failed_activity_id: str | None
    execution_id: str | None
    root_process_instance_id: str | None
    process_instance_id: str | None
    process_definition_id: str | None
    process_definition_key: str | None
    deployment_id: str | None
    creation_log: bool
    failure_log: bool
    success_log: bool
    deletion_log: bool


class HistoricProcessInstance(msgspec.Struct, frozen=True):
    id: str
    business_key: str | None
    process_definition_id: str
    process_definition_key: str
    start_time: datetime
    end_time: datetime | None
    duration_in_millis: int | None
    start_activity_id: str | None
    end_activity_id: str | None
    delete_reason: str | None
    state: str
    start_user_id: str | None = None


class HistoricActivityInstance(msgspec.Struct, frozen=True):
    id: str
    activity_id: str
    activity_name: str | None
    activity_type: str
    parent_activity_instance_id: str | None
    execution_id: str
    process_instance_id: str
    start_time: datetime
    end_time: datetime | None
    duration_in_millis: int | None
    task_id: str | None
    assignee: str | None
    canceled: bool
    complete_scope: bool
    called_process_instance_id: str | None = None


class HistoricTaskInstance(msgspec.Struct, frozen=True):
    id: str
    name: str | None
    task_definition_key: str | None
    process_instance_id: str | None
    assignee: str | None
    start_time: datetime
    end_time: datetime | None
    duration: int | None
    delete_reason: str | None
    task_state: str | None


class HistoricVariableInstance(msgspec.Struct, frozen=True):
    id: str
    name: str
    type: str
    value: Any
    process_instance_id: str | None
    execution_id: str | None
    activity_instance_id: str | None
    task_id: str | None
    state: str
    create_time: datetime | None


class HistoricDecisionInput(msgspec.Struct, frozen=True):
    id: str
    decision_instance_id: str
    clause_id: str | None
    clause_name: str | None
    type: str
    value: Any
    create_time: datetime | None
    stored: StoredValue | None = None  # the value as recorded: its type's details
    root_process_instance_id: str | None = None
    removal_time: datetime | None = None


class HistoricDecisionOutput(msgspec.Struct, frozen=True):
    id: str
    decision_instance_id: str
    clause_id: str | None
    clause_name: str | None
    rule_id: str | None
    rule_order: int | None
    variable_name: str | None
    type: str
    value: Any
    create_time: datetime | None
    stored: StoredValue | None = None  # the value as recorded: its type's details
    root_process_instance_id: str | None = None
    removal_time: datetime | None = None


class HistoricDecisionInstance(msgspec.Struct, frozen=True):
    """A decision evaluated (ACT_HI_DECINST); `inputs` and `outputs` when asked for."""

    id: str
    decision_definition_id: str
    decision_definition_key: str
    decision_definition_name: str | None
    evaluation_time: datetime
    process_definition_id: str | None = None
    process_definition_key: str | None = None
    process_instance_id: str | None = None
    root_process_instance_id: str | None = None
    activity_id: str | None = None
    activity_instance_id: str | None = None
    user_id: str | None = None
    collect_result_value: float | None = None
    root_decision_instance_id: str | None = None
    decision_requirements_definition_id: str | None = None
    decision_requirements_definition_key: str | None = None
    removal_time: datetime | None = None
    inputs: list[HistoricDecisionInput] | None = None
    outputs: list[HistoricDecisionOutput] | None = None


class RecordedEvent(msgspec.Struct, frozen=True):
    """One event of the log as an auditor reads it."""

    position: int
    stream_id: str
    stream_version: int
    type: str
    recorded_at: datetime
    command_id: str
    command_type: str
    actor: str | None
    payload: dict[str, Any]
    via: str | None = None  # the channel the command came through: rest, cli, python, ...


class TransitionInstanceNode(msgspec.Struct, frozen=True):
    """A token waiting for its asynchronous continuation before or after an activity (Camunda's
    transition instance): its id is its execution's."""

    id: str
    activity_id: str
    activity_type: str
    activity_name: str | None
    parent_activity_instance_id: str
    execution_id: str
    incident_ids: list[str] = []


class ActivityInstanceNode(msgspec.Struct, frozen=True):
    """The runtime activity instance tree of a process instance (Camunda's getActivityInstance)."""

    id: str
    activity_id: str
    activity_type: str
    activity_name: str | None
    parent_activity_instance_id: str | None
    execution_ids: list[str]
    child_activity_instances: list[ActivityInstanceNode] = []
    child_transition_instances: list[TransitionInstanceNode] = []
    incident_ids: list[str] = []


class CleanupReport(msgspec.Struct, frozen=True):
    """What a history cleanup removed: the instances whose history it deleted, as of `at`, and
    the decisions evaluated over the API it deleted."""

    removed: int
    at: datetime
    decisions_removed: int = 0


class PackageSummary(msgspec.Struct, frozen=True):
    """An audit package written or loaded: where, whose, and what it holds."""

    path: str
    subject: str  # the process instance it was exported for
    streams: list[str]
    commits: int
    commands: int
    first_position: int
    last_position: int
    engine_version: str  # of the engine that exported it
    # SIZE:ROOT of the exporting log's tree its commits are proven in (None: an older package)
    tree_head: str | None = None


class LogHead(msgspec.Struct, frozen=True):
    """The anchor of the log up to its last position (`POSITION:DIGEST`), to keep outside the
    database; `problems` are what the log's own checks found on the way (none when intact)."""

    anchor: str
    position: int
    commits: int
    problems: list[str]


class VerifyPhase(msgspec.Struct, frozen=True):
    """One timed part of a verify: `root` (an incremental verify's trusted prefix), `chains`
    (the log's own checks, the command log, the anchor and the tree), `replay` (every stream
    evolved and projected into shadow tables), `tables` (live tables against the shadows)."""

    name: str
    seconds: float
    commits: int = 0
    events: int = 0
    rows: int = 0


class VerificationReport(msgspec.Struct, frozen=True):
    """What `Engine.verify()` found: empty `problems` means the log, state and tables agree."""

    commits_checked: int
    streams_checked: int
    rows_compared: int
    problems: list[str]
    # The digest of the log as read (`POSITION:DIGEST`): kept outside the database, it lets a
    # later `verify(expect_anchor=...)` see a consistently rewritten log.
    anchor: str = ""
    # The Merkle tree head over the commits read (`SIZE:ROOT`, as `flowledger audit head`).
    root: str = ""
    phases: list[VerifyPhase] = []
    # An incremental verify: the head (`SIZE:ROOT`) whose commits were checked by their root
    # only; the replay and the table comparison are not part of it.
    since_head: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


class RebuildReport(msgspec.Struct, frozen=True):
    """What `Engine.rebuild_projections()` did: the log read, the rows written."""

    commits: int
    events: int
    rows_written: int
    # `Engine.rebuild` only: the log position an interrupted rebuild went on from (0: from the
    # start), and the tables swapped in.
    resumed_from: int = 0
    tables: list[str] = []


class HistoryHealth(msgspec.Struct, frozen=True):
    """Where history projection stands (`Engine.history_health()`), for operators and probes.

    `status` is "UP" when history is written inline or a follower is following; "DOWN" when
    the follower stopped at a commit it cannot project (`detail` names it), or died and is
    being restarted."""

    status: str  # UP | DOWN
    mode: str  # inline | async
    follower: str  # inline | running | restarting | failed | stopped | elsewhere
    lag: int  # events committed to the log but not yet in ACT_HI_*
    position: int | None  # the last log position in history (async), None inline
    restarts: int = 0  # follower processes restarted after dying, since the engine started
    detail: str | None = None


class ProjectionHealth(msgspec.Struct, frozen=True):
    """Where runtime and history rows are written (`Engine.projection_health()`): "UP" inline,
    or while the deferred follower runs; "DOWN" when it stopped at a commit it cannot project
    (`detail` names it) or is not running (reads then write the rows they need themselves)."""

    status: str  # UP | DOWN
    mode: str  # inline | deferred
    # inline | running | on demand (no follower process yet: reads and the close write the rows)
    # | standby (another engine process's follower holds the database's lease) | restarting
    # | failed | stopped
    projector: str
    lag: int  # log positions committed but not yet in the runtime and history tables
    position: int | None  # the last log position in the tables (deferred), None inline
    restarts: int = 0  # follower processes restarted after dying, since the engine started
    read_waits: int = 0  # reads that found the tables behind and waited for them
    read_catch_ups: int = 0  # ... and wrote the missing rows themselves
    detail: str | None = None


class EventSubscription(msgspec.Struct, frozen=True):
    """A waiting catch event (ACT_RU_EVENT_SUBSCR), as Camunda's EventSubscriptionDto."""

    id: str
    event_type: str
    event_name: str | None
    execution_id: str | None
    process_instance_id: str | None
    activity_id: str | None
    created_date: datetime
    tenant_id: str | None = None


class MessageCorrelationResult(msgspec.Struct, frozen=True):
    """Where a correlated message went (Camunda's MessageCorrelationResultWithVariables):
    `result_type` Execution (a waiting catch event, `execution_id`) or ProcessDefinition (a
    message start event started `process_instance_id`)."""

    result_type: str
    execution_id: str | None
    process_instance_id: str
    definition_id: str
    business_key: str | None
    process_instance_ended: bool
    variables: dict[str, Any] = {}
