"""The event vocabulary: every fact the engine records, as msgspec Structs in one tagged union.

Pure data. Names are past-tense facts; each has exactly one applier in `core.evolve`. New fields get
defaults (msgspec schema evolution); structural changes bump `v` and register an upcaster.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, get_args

import msgspec

from .variables import StoredValue


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of all events; `v` is the schema version the event was written with."""

    v: int = 1


# -- deployment stream ------------------------------------------------------------------------


class DeployedResource(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    name: str
    sha256: str
    text: str | None = None  # the resource when it is UTF-8 text (BPMN always is in practice)
    data: bytes | None = None  # the exact bytes otherwise


class DeployedJobDefinition(msgspec.Struct, frozen=True, omit_defaults=True):
    """One kind of job an activity of a definition makes (ACT_RU_JOBDEF): a timer, or a
    continuation before or after it. `configuration` is Camunda's (`async-before`,
    `async-after`, `DURATION: PT1H`, `CYCLE: R/PT1H`, `DATE: …`)."""

    id: str
    activity_id: str
    job_type: str  # the handler type of its jobs
    configuration: str
    priority: int | None = None


class DeployedProcessDefinition(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    key: str
    version: int
    resource_name: str
    name: str | None = None
    version_tag: str | None = None
    history_ttl: int | None = None
    category: str | None = None
    startable: bool = True
    has_start_form_key: bool = False
    job_definitions: list[DeployedJobDefinition] = []


class DeployedDecisionDefinition(msgspec.Struct, frozen=True, omit_defaults=True):
    """A decision of a DMN resource (ACT_RE_DECISION_DEF); `category` is its DRG's namespace,
    `requirements_id` its decision requirements definition when one was deployed (the DRG has
    more than one decision)."""

    id: str
    key: str
    version: int
    resource_name: str
    name: str | None = None
    version_tag: str | None = None
    history_ttl: int | None = None
    category: str | None = None
    requirements_id: str | None = None
    requirements_key: str | None = None


class DeployedDecisionRequirements(msgspec.Struct, frozen=True, omit_defaults=True):
    """A DMN resource's `definitions` with more than one decision (ACT_RE_DECISION_REQ_DEF)."""

    id: str
    key: str
    version: int
    resource_name: str
    name: str | None = None
    category: str | None = None


class DeploymentCreated(Event, tag=True, frozen=True):
    deployment_id: str
    name: str | None
    source: str | None
    time: datetime
    resources: list[DeployedResource]
    process_definitions: list[DeployedProcessDefinition]
    # How it was asked for (the user operation log says so): with duplicate filtering, and
    # then whether only changed resources were to be deployed.
    duplicate_filtering: bool = False
    deploy_changed_only: bool = False
    decision_definitions: list[DeployedDecisionDefinition] = []
    decision_requirements: list[DeployedDecisionRequirements] = []


class DeploymentDeleted(Event, tag=True, frozen=True):
    """The deployment left the repository (repositoryService.deleteDeployment).

    Its definitions can no longer be started. With `cascade`, the running instances of its
    definitions were deleted first (events on their own streams) and the history of every
    instance of `process_definition_ids` is removed from the projection; the log keeps it all.
    """

    deployment_id: str
    cascade: bool
    process_definition_ids: list[str]
    time: datetime
    decision_definition_ids: list[str] = []
    decision_requirements_ids: list[str] = []


class StartTimerScheduled(Event, tag=True, frozen=True):
    """A timer start event's job (handler `timer-start-event`): due at `due_date`, it starts an
    instance of `definition_id`. Kept in the stream of the definition's deployment, as the
    definition's other facts are; `repeat` is its cycle, anchored at its first scheduling."""

    job_id: str
    job_definition_id: str
    deployment_id: str
    definition_id: str
    definition_key: str
    activity_id: str
    due_date: datetime
    retries: int
    time: datetime
    repeat: str | None = None
    log_id: str | None = None  # its ACT_HI_JOB_LOG row (None in logs written before it had one)


class StartTimerJob(msgspec.Struct, frozen=True):
    """A start timer as it was just before an event changed it: what that event's job log and
    incident rows name (a deployment stream has no state to look it up in)."""

    job_definition_id: str
    deployment_id: str
    definition_id: str
    definition_key: str
    activity_id: str
    due_date: datetime | None
    retries: int


class StartTimerFired(Event, tag=True, frozen=True):
    """The job ran: it started `process_instance_id` (that instance's stream has the rest).
    `had_stacktrace`: an earlier failure's stack trace goes with it; `ended_incident_id`: its
    incident is resolved."""

    job_id: str
    process_instance_id: str
    time: datetime
    had_stacktrace: bool = False
    job: StartTimerJob | None = None
    log_id: str | None = None
    ended_incident_id: str | None = None


class StartTimerFailed(Event, tag=True, frozen=True):
    """Starting the instance raised: nothing of it was kept; the job may run again at
    `due_date` while `retries` remain. Out of retries, it opens `opened_incident_id`."""

    job_id: str
    retries: int
    error_message: str | None
    stacktrace: str | None
    due_date: datetime | None
    time: datetime
    had_stacktrace: bool = False  # an earlier failure's, replaced by this one's
    job: StartTimerJob | None = None
    log_id: str | None = None
    opened_incident_id: str | None = None


class StartTimerRetriesSet(Event, tag=True, frozen=True):
    """Retries set: to 0 it opens `opened_incident_id`; above 0 from 0 it resolves
    `ended_incident_id`."""

    job_id: str
    retries: int
    time: datetime
    job: StartTimerJob | None = None
    opened_incident_id: str | None = None
    ended_incident_id: str | None = None


class StartTimerDueDateSet(Event, tag=True, frozen=True):
    job_id: str
    due_date: datetime | None
    time: datetime


class StartTimerRemoved(Event, tag=True, frozen=True):
    """A newer version of the definition replaced it, or its deployment was deleted (its
    incident, `ended_incident_id`, is deleted with it)."""

    job_id: str
    time: datetime
    had_stacktrace: bool = False
    job: StartTimerJob | None = None
    log_id: str | None = None
    ended_incident_id: str | None = None


class StartEventSubscribed(Event, tag=True, frozen=True):
    """A message or signal start event of `definition_id` waits for `event_name`
    (ACT_RU_EVENT_SUBSCR, no execution, CONFIGURATION_ the definition): a correlated message or
    a broadcast signal starts an instance there. Kept in the stream of the definition's
    deployment; the latest version's subscribe."""

    subscription_id: str
    event_type: str  # message | signal
    definition_id: str
    activity_id: str
    event_name: str
    time: datetime


class StartEventUnsubscribed(Event, tag=True, frozen=True):
    """A newer version of the definition replaced it, or its deployment was deleted."""

    subscription_id: str
    time: datetime


# -- decisions evaluated -----------------------------------------------------------------------


class DecisionInputValue(msgspec.Struct, frozen=True, omit_defaults=True):
    """An input clause's value in one evaluation (ACT_HI_DEC_IN)."""

    clause_id: str
    value: StoredValue
    clause_name: str | None = None


class DecisionOutputValue(msgspec.Struct, frozen=True, omit_defaults=True):
    """An output entry of a rule the result is made of (ACT_HI_DEC_OUT); `rule_order` is the
    rule's place in its table, from 1. A literal expression's value has no clause and no rule."""

    value: StoredValue
    clause_id: str | None = None
    rule_id: str | None = None
    rule_order: int | None = None
    clause_name: str | None = None
    variable_name: str | None = None


class EvaluatedDecision(msgspec.Struct, frozen=True, omit_defaults=True):
    """One decision of an evaluation (a historic decision instance): what went in, which rules
    matched, what came out. A literal expression has no inputs and one output without a rule;
    `collect_value` is a COLLECT aggregation's result."""

    decision_instance_id: str
    definition_id: str
    definition_key: str
    definition_name: str | None = None
    inputs: list[DecisionInputValue] = []
    outputs: list[DecisionOutputValue] = []
    matched_rules: list[str] = []
    collect_value: float | None = None
    deployment_id: str | None = None  # where its DMN resource is (an audit package takes it)


class DecisionEvaluated(Event, tag=True, frozen=True):
    """A decision evaluated over the API (decisionService, REST evaluate), in a stream of its
    own named by the evaluated decision's instance id. `decisions`: the required decisions
    first, in the order they were evaluated, the evaluated decision (the root) last."""

    decisions: list[EvaluatedDecision]
    time: datetime
    user_id: str | None = None
    requirements_id: str | None = None
    requirements_key: str | None = None
    # When history cleanup may remove it: the time plus the decision's historyTimeToLive (or the
    # engine's default); None keeps it.
    removal_time: datetime | None = None

    @property
    def root(self) -> EvaluatedDecision:
        return self.decisions[-1]


class HistoricDecisionInstanceDeleted(Event, tag=True, frozen=True):
    """The history of a decision evaluated over the API was deleted (history cleanup, its
    removal time passed). Only the projection forgets: the evaluation stays in the log.
    `decision_instance_id` is the evaluated decision's (its stream's name)."""

    decision_instance_id: str
    time: datetime
    cleanup: bool = True


class ActivityDecisionEvaluated(Event, tag=True, frozen=True):
    """A decision evaluated by an activity of the instance (a business rule task): the same
    record as `DecisionEvaluated`, in the instance's stream."""

    decisions: list[EvaluatedDecision]
    time: datetime
    activity_id: str
    activity_instance_id: str | None
    execution_id: str
    user_id: str | None = None
    requirements_id: str | None = None
    requirements_key: str | None = None

    @property
    def root(self) -> EvaluatedDecision:
        return self.decisions[-1]


class ProcessDefinitionSuspended(Event, tag=True, frozen=True):
    """No new instance of the definition starts until it is activated (its deployment's stream;
    its instances are suspended by events of their own when asked for)."""

    definition_id: str
    time: datetime
    include_instances: bool = False  # its running instances were suspended with it
    # What the user operation log names (older events lack them: the key is then read from the
    # id, which holds it unless the key was too long for one)
    key: str | None = None
    deployment_id: str | None = None


class ProcessDefinitionActivated(Event, tag=True, frozen=True):
    definition_id: str
    time: datetime
    include_instances: bool = False
    key: str | None = None
    deployment_id: str | None = None


START_TIMER_EVENTS: tuple[type[Event], ...] = (
    StartTimerScheduled,
    StartTimerFired,
    StartTimerFailed,
    StartTimerRetriesSet,
    StartTimerDueDateSet,
    StartTimerRemoved,
)
START_SUBSCRIPTION_EVENTS: tuple[type[Event], ...] = (StartEventSubscribed, StartEventUnsubscribed)
# Events of streams without instance state: a deployment's (the repository projector's) and a
# decision evaluated over the API (history's, in a stream of its own). Replay, verify and the
# repository's reader never fold them into an instance.
STATELESS_STREAM_EVENTS: tuple[type[Event], ...] = (
    DeploymentCreated,
    DeploymentDeleted,
    *START_TIMER_EVENTS,
    *START_SUBSCRIPTION_EVENTS,
    ProcessDefinitionSuspended,
    ProcessDefinitionActivated,
    DecisionEvaluated,
    HistoricDecisionInstanceDeleted,
)


def not_an_instance(first: Event) -> str:
    """What a stream that is not an instance's is, from its first event (for messages)."""
    if isinstance(first, DecisionEvaluated):
        return "that is a decision evaluation"
    return "that is a deployment"


# -- process instance stream: lifecycle -------------------------------------------------------


class ProcessInstanceStarted(Event, tag=True, frozen=True):
    process_instance_id: str
    definition_id: str
    definition_key: str
    definition_version: int
    deployment_id: str
    business_key: str | None
    start_activity_id: str | None
    time: datetime
    start_user_id: str | None = None
    super_process_instance_id: str | None = None
    root_process_instance_id: str | None = None
    super_execution_id: str | None = None  # the caller's execution waiting in a call activity
    # Days its history is kept after it ends: the definition's camunda:historyTimeToLive, else
    # the engine's default when it started (None: kept until deleted). Decided once, here.
    history_ttl_days: int | None = None
    # Started by a message, signal or timer its start event caught, not by a call to start it:
    # no user operation of its own.
    triggered: bool = False
    # How many call activities it is nested under (0: a root instance), so that a call can be
    # refused past the limit from the caller's own state, without walking its callers.
    call_depth: int = 0
    # Camunda's removal-time strategy start: when its history may be removed (its root's start
    # plus the root's time to live; a called instance copies its root's), written on every
    # history row of it as the row is written. None under strategy end, where the root's end
    # stamps its hierarchy. Decided once, here, so that a rebuild writes the same.
    removal_time: datetime | None = None


class ProcessInstanceCompleted(Event, tag=True, frozen=True):
    end_activity_id: str | None
    time: datetime


class ProcessInstanceTerminated(Event, tag=True, frozen=True):
    """Ended before reaching an end: deleted through the API (externally) or by the engine."""

    reason: str | None
    externally: bool
    time: datetime
    # A called instance deleted because its calling activity was cancelled (its caller was
    # deleted, or left the activity): part of that operation, not one of its own.
    by_caller: bool = False


class HistoricProcessInstanceDeleted(Event, tag=True, frozen=True):
    """The finished instance's history rows were deleted (historyService.deleteHistoricProcess-
    Instance, or a cascading deployment deletion). Only the projection forgets: the log keeps
    every event of the instance, this one included."""

    time: datetime
    # Removed by history cleanup (its time to live passed), not by a user: the cleanup takes
    # the instance's user operation log entries along, as Camunda's does by removal time.
    cleanup: bool = False


# -- process instance stream: executions (tokens and scopes) ----------------------------------


class ExecutionCreated(Event, tag=True, frozen=True):
    """A child execution: a scope for a scope activity, or a concurrent token.

    `replaces` names the scope execution whose place the new concurrent execution takes when
    a compacted scope first forks (Camunda's tree expansion).
    """

    execution_id: str
    parent_id: str
    is_scope: bool
    is_concurrent: bool
    replaces: str | None = None


class ExecutionRemoved(Event, tag=True, frozen=True):
    execution_id: str


class ExecutionReplaced(Event, tag=True, frozen=True):
    """The last concurrent child of a scope is folded back into the scope (tree compaction)."""

    execution_id: str
    by_execution_id: str


class TokenWaitingAtJoin(Event, tag=True, frozen=True):
    execution_id: str
    activity_instance_id: str


class ActivityStarted(Event, tag=True, frozen=True):
    activity_instance_id: str
    activity_id: str
    activity_type: str
    activity_name: str | None
    execution_id: str
    parent_activity_instance_id: str
    time: datetime
    flow_id: str | None = None  # the sequence flow the token arrived by


class ActivityCompleted(Event, tag=True, frozen=True):
    activity_instance_id: str
    time: datetime
    completes_scope: bool = False


class ActivityCanceled(Event, tag=True, frozen=True):
    activity_instance_id: str
    time: datetime


class BpmnErrorThrown(Event, tag=True, frozen=True):
    """A BPMN error was raised at an activity; `caught_by` is the boundary event that caught it."""

    activity_instance_id: str
    error_code: str | None
    error_message: str | None
    caught_by: str | None
    time: datetime


# -- variables --------------------------------------------------------------------------------


class VariableSet(Event, tag=True, frozen=True):
    """A variable was created or changed; `variable_id` says which instance of the name."""

    variable_id: str
    name: str
    execution_id: str
    value: StoredValue
    time: datetime
    detail_id: str
    task_id: str | None = None


class VariableDeleted(Event, tag=True, frozen=True):
    variable_id: str
    time: datetime


# -- user tasks -------------------------------------------------------------------------------


class IdentityLink(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    type: str  # candidate | assignee | owner
    user_id: str | None = None
    group_id: str | None = None


class UserTaskCreated(Event, tag=True, frozen=True):
    task_id: str
    execution_id: str
    activity_instance_id: str
    task_definition_key: str
    name: str | None
    time: datetime
    description: str | None = None
    assignee: str | None = None
    owner: str | None = None
    candidates: list[IdentityLink] = []
    due_date: datetime | None = None
    follow_up_date: datetime | None = None
    priority: int = 50
    form_key: str | None = None


class TaskAssigned(Event, tag=True, frozen=True):
    """The assignee was set (or cleared) by an administrator, not claimed by the user."""

    task_id: str
    assignee: str | None
    time: datetime


class TaskClaimed(Event, tag=True, frozen=True, kw_only=True):
    """A user took the task. v2 names the user `assignee`, as TaskAssigned and ASSIGNEE_ do
    (v1 said `user_id`; the engine's codec lifts v1 events when it reads them)."""

    v: int = 2
    task_id: str
    assignee: str
    time: datetime


class TaskUnclaimed(Event, tag=True, frozen=True):
    task_id: str
    time: datetime


class TaskCompleted(Event, tag=True, frozen=True):
    task_id: str
    time: datetime


class TaskDeleted(Event, tag=True, frozen=True):
    task_id: str
    reason: str
    time: datetime


# -- external tasks ---------------------------------------------------------------------------


class ExternalTaskCreated(Event, tag=True, frozen=True):
    external_task_id: str
    execution_id: str
    activity_instance_id: str
    activity_id: str
    topic: str
    priority: int
    time: datetime


class ExternalTaskLocked(Event, tag=True, frozen=True):
    external_task_id: str
    worker_id: str
    lock_expiration: datetime
    time: datetime


class ExternalTaskLockExtended(Event, tag=True, frozen=True):
    external_task_id: str
    lock_expiration: datetime
    time: datetime


class ExternalTaskUnlocked(Event, tag=True, frozen=True):
    external_task_id: str
    time: datetime


class ExternalTaskFailed(Event, tag=True, frozen=True):
    """A worker reported a failure; fetchable again after `retry_at` while retries remain."""

    external_task_id: str
    worker_id: str
    error_message: str | None
    error_details: str | None
    retries: int
    retry_at: datetime
    time: datetime


class ExternalTaskCompleted(Event, tag=True, frozen=True):
    external_task_id: str
    worker_id: str
    time: datetime


class ExternalTaskBpmnErrorReported(Event, tag=True, frozen=True):
    external_task_id: str
    worker_id: str
    error_code: str
    error_message: str | None
    time: datetime


class ExternalTaskRetriesSet(Event, tag=True, frozen=True):
    """An administrator set the retries (externalTaskService.setRetries); 0 = not fetchable."""

    external_task_id: str
    retries: int
    time: datetime


class ExternalTaskPrioritySet(Event, tag=True, frozen=True):
    external_task_id: str
    priority: int
    time: datetime


class ExternalTaskCanceled(Event, tag=True, frozen=True):
    """The task's activity was cancelled (scope interrupted, instance deleted)."""

    external_task_id: str
    time: datetime


# -- jobs: timers and asynchronous continuations ------------------------------------------------


class JobCreated(Event, tag=True, frozen=True):
    """Work for the job executor: a timer (due at `due_date`) or an asynchronous continuation.

    `handler_type` and `handler_configuration` are Camunda's (ACT_RU_JOB.HANDLER_TYPE_/_CFG_);
    the job ends with its `activity_instance_id` (a timer of that activity) or, when that is None,
    with its execution (a continuation waiting before or after an activity). `repeat` is a
    cycle's definition anchored at its first creation, so each firing knows the next."""

    job_id: str
    job_type: str  # timer | message (ACT_RU_JOB.TYPE_)
    handler_type: str
    handler_configuration: str
    job_definition_id: str
    execution_id: str
    activity_id: str
    activity_instance_id: str | None
    due_date: datetime | None
    retries: int
    priority: int
    exclusive: bool
    time: datetime
    repeat: str | None = None


class JobExecuted(Event, tag=True, frozen=True):
    """The job ran to its end: what it did are the events after this one."""

    job_id: str
    time: datetime


class JobDeleted(Event, tag=True, frozen=True):
    """The job went away unexecuted: its activity ended or its scope was cancelled."""

    job_id: str
    time: datetime


class JobFailed(Event, tag=True, frozen=True):
    """Running the job raised: its work was rolled back, this records the failure.

    `due_date` is when it may run again (a retry cycle's interval), `retries` what is left."""

    job_id: str
    retries: int
    error_message: str | None
    stacktrace: str | None
    failed_activity_id: str | None
    due_date: datetime | None
    time: datetime


class JobRetriesSet(Event, tag=True, frozen=True):
    job_id: str
    retries: int
    time: datetime


class JobDueDateSet(Event, tag=True, frozen=True):
    job_id: str
    due_date: datetime | None
    time: datetime


class JobPrioritySet(Event, tag=True, frozen=True):
    """managementService.setJobPriority: the executor's order when it acquires by priority."""

    job_id: str
    priority: int
    time: datetime


class JobSuspended(Event, tag=True, frozen=True):
    """The job stays, but no executor runs it until it is activated again."""

    job_id: str
    time: datetime


class JobActivated(Event, tag=True, frozen=True):
    job_id: str
    time: datetime


# -- event subscriptions ----------------------------------------------------------------------


class EventSubscriptionCreated(Event, tag=True, frozen=True):
    """A catch event waits for a message (`event_type` message) named `event_name`.

    `activity_id` is the catching event (a boundary event's own id); `activity_instance_id` the
    activity instance it ends with: the catch event's own, or the host activity's for a
    boundary event."""

    subscription_id: str
    event_type: str
    event_name: str
    execution_id: str
    activity_id: str
    activity_instance_id: str
    time: datetime


class EventSubscriptionDeleted(Event, tag=True, frozen=True):
    """Its activity ended or was cancelled: nothing waits for the event any more."""

    subscription_id: str
    time: datetime


class MessageCorrelated(Event, tag=True, frozen=True):
    """The message `message_name` arrived at the subscription (what it set and triggered are
    the events after it). An audit record: the state does not change by it."""

    subscription_id: str
    message_name: str
    time: datetime


class ProcessInstanceSuspended(Event, tag=True, frozen=True):
    """Nothing of the instance moves until it is activated: its tasks, external tasks and jobs
    refuse work, messages and signals pass it by."""

    time: datetime


class ProcessInstanceActivated(Event, tag=True, frozen=True):
    time: datetime


class CalledInstanceStarted(Event, tag=True, frozen=True):
    """The call activity (its instance `activity_instance_id`) started the called instance
    `called_process_instance_id` and waits for it."""

    activity_instance_id: str
    called_process_instance_id: str
    time: datetime


class SignalThrown(Event, tag=True, frozen=True):
    """A signal throw or end event broadcast `signal_name` (who received it: the SignalReceived
    events of their streams). An audit record: the state does not change by it."""

    signal_name: str
    activity_id: str
    time: datetime


class SignalReceived(Event, tag=True, frozen=True):
    """The broadcast signal `signal_name` reached the subscription (what it triggered are the
    events after it). An audit record: the state does not change by it."""

    subscription_id: str
    signal_name: str
    time: datetime


# -- incidents ----------------------------------------------------------------------------------


class IncidentCreated(Event, tag=True, frozen=True):
    """Something needs a person: a job or an external task ran out of retries.

    `incident_type` is Camunda's (`failedJob`, `failedExternalTask`); `configuration` the id of
    the job or external task."""

    incident_id: str
    incident_type: str
    configuration: str
    execution_id: str
    activity_id: str | None
    failed_activity_id: str | None
    message: str | None
    time: datetime
    job_definition_id: str | None = None


class IncidentResolved(Event, tag=True, frozen=True):
    """Its cause is gone: retries were set above 0 (HI state resolved)."""

    incident_id: str
    time: datetime


class IncidentDeleted(Event, tag=True, frozen=True):
    """Its job or task went away with its activity or instance (HI state deleted)."""

    incident_id: str
    time: datetime


EngineEvent = (
    DeploymentCreated
    | DeploymentDeleted
    | DecisionEvaluated
    | HistoricDecisionInstanceDeleted
    | ActivityDecisionEvaluated
    | StartTimerScheduled
    | StartTimerFired
    | StartTimerFailed
    | StartTimerRetriesSet
    | StartTimerDueDateSet
    | StartTimerRemoved
    | StartEventSubscribed
    | StartEventUnsubscribed
    | ProcessInstanceStarted
    | ProcessInstanceCompleted
    | ProcessInstanceTerminated
    | HistoricProcessInstanceDeleted
    | ExecutionCreated
    | ExecutionRemoved
    | ExecutionReplaced
    | TokenWaitingAtJoin
    | ActivityStarted
    | ActivityCompleted
    | ActivityCanceled
    | BpmnErrorThrown
    | VariableSet
    | VariableDeleted
    | UserTaskCreated
    | TaskAssigned
    | TaskClaimed
    | TaskUnclaimed
    | TaskCompleted
    | TaskDeleted
    | ExternalTaskCreated
    | ExternalTaskLocked
    | ExternalTaskLockExtended
    | ExternalTaskUnlocked
    | ExternalTaskFailed
    | ExternalTaskCompleted
    | ExternalTaskBpmnErrorReported
    | ExternalTaskRetriesSet
    | ExternalTaskPrioritySet
    | ExternalTaskCanceled
    | JobCreated
    | JobExecuted
    | JobDeleted
    | JobFailed
    | JobRetriesSet
    | JobDueDateSet
    | JobPrioritySet
    | JobSuspended
    | JobActivated
    | IncidentCreated
    | IncidentResolved
    | IncidentDeleted
    | EventSubscriptionCreated
    | EventSubscriptionDeleted
    | MessageCorrelated
    | SignalThrown
    | SignalReceived
    | CalledInstanceStarted
    | ProcessInstanceSuspended
    | ProcessInstanceActivated
    | ProcessDefinitionSuspended
    | ProcessDefinitionActivated
)

EVENT_TYPES: tuple[type[Event], ...] = get_args(EngineEvent)

# The schema version new events are written with; the engine's codec (core/engine/codec.py)
# lifts older versions through its upcasters.
CURRENT_VERSIONS: dict[str, int] = {
    cls.__name__: next(f.default for f in msgspec.structs.fields(cls) if f.name == "v")
    for cls in EVENT_TYPES
}


def to_dict(event: Event) -> dict[str, Any]:
    """The event as its stored JSON object (type tag included)."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    return data
