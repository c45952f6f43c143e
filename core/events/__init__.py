"""The event vocabulary: every fact the engine records, as msgspec Structs in one tagged union.

Pure data. Names are past-tense facts; each has exactly one applier in `core.evolve`. New fields get
defaults (msgspec schema evolution); structural changes bump `v` and register an upcaster.

The Structs live in one module per area (deployments, start events, decisions, instances, flow,
variables, tasks, jobs, subscriptions); this package assembles them into `EngineEvent`, whose
order is the codec's, and re-exports every name: `from flowledger.core.events import X` is the
way to reach any of them. A new event is declared in its area's module and added to the union
here (the appliers' test names one that is not).
"""

from __future__ import annotations

from typing import get_args

import msgspec

from .base import (
    Event,
    to_dict,
)
from .batches import (
    BATCH_EVENTS,
    BatchActivated,
    BatchCompleted,
    BatchCreated,
    BatchDeleted,
    BatchJob,
    BatchJobCompleted,
    BatchJobFailed,
    BatchJobLogged,
    BatchJobRetriesSet,
    BatchJobsCreated,
    BatchMonitorRescheduled,
    BatchSuspended,
    BatchVariable,
    EndedBatchJob,
    HistoricBatchDeleted,
    HistoricBatchRemovalTimeSet,
    LoggedOperation,
)
from .compensation import (
    CompensationScopeClosed,
    CompensationScopeReopened,
    CompensationScopeRetained,
    CompensationStarted,
)
from .conditions import ConditionalEventOccurred
from .decisions import (
    ActivityDecisionEvaluated,
    DecisionEvaluated,
    DecisionInputValue,
    DecisionOutputValue,
    EvaluatedDecision,
    HistoricDecisionInstanceDeleted,
)
from .deployments import (
    DeployedDecisionDefinition,
    DeployedDecisionRequirements,
    DeployedJobDefinition,
    DeployedProcessDefinition,
    DeployedResource,
    DeploymentCreated,
    DeploymentDeleted,
    DeploymentWarning,
    ProcessDefinitionActivated,
    ProcessDefinitionSuspended,
)
from .escalations import EscalationThrown
from .flow import (
    ActivityCanceled,
    ActivityCompleted,
    ActivityStarted,
    BpmnErrorThrown,
    ExecutionCreated,
    ExecutionRemoved,
    ExecutionReplaced,
    TokenWaitingAtJoin,
)
from .instances import (
    CalledInstanceStarted,
    HistoricProcessInstanceDeleted,
    ProcessInstanceActivated,
    ProcessInstanceCompleted,
    ProcessInstanceModified,
    ProcessInstanceStarted,
    ProcessInstanceSuspended,
    ProcessInstanceTerminated,
)
from .jobs import (
    IncidentCreated,
    IncidentDeleted,
    IncidentResolved,
    JobActivated,
    JobCreated,
    JobDeleted,
    JobDueDateSet,
    JobExecuted,
    JobFailed,
    JobPrioritySet,
    JobRetriesSet,
    JobSuspended,
)
from .log_keys import SIGNING_KEYS_STREAM, SigningKeyIntroduced
from .migration import (
    MigratedActivityInstance,
    MigratedExecution,
    MigratedExternalTask,
    MigratedIncident,
    MigratedJob,
    MigratedSubscription,
    MigratedTask,
    MovedVariable,
    ProcessInstanceMigrated,
)
from .removal_time import (
    HistoricDecisionInstancesDeleted,
    HistoricDecisionRemovalTimeSet,
    HistoricRemovalTimeSet,
    InstanceDecisionRemovalTimeSet,
)
from .start_events import (
    START_SUBSCRIPTION_EVENTS,
    START_TIMER_EVENTS,
    StartEventSubscribed,
    StartEventUnsubscribed,
    StartTimerDueDateSet,
    StartTimerFailed,
    StartTimerFired,
    StartTimerJob,
    StartTimerRemoved,
    StartTimerRetriesSet,
    StartTimerScheduled,
)
from .subscriptions import (
    EventSubscriptionCreated,
    EventSubscriptionDeleted,
    MessageCorrelated,
    SignalReceived,
    SignalThrown,
)
from .tasks import (
    ExternalTaskBpmnErrorReported,
    ExternalTaskCanceled,
    ExternalTaskCompleted,
    ExternalTaskCreated,
    ExternalTaskFailed,
    ExternalTaskLocked,
    ExternalTaskLockExtended,
    ExternalTaskPrioritySet,
    ExternalTaskRetriesSet,
    ExternalTaskUnlocked,
    IdentityLink,
    TaskAssigned,
    TaskClaimed,
    TaskCommentAdded,
    TaskCompleted,
    TaskDeleted,
    TaskUnclaimed,
    UserTaskCreated,
)
from .variables import (
    ErasedDecision,
    PersonalDataErased,
    VariableDeleted,
    VariableSet,
)

# Events of streams without instance state: a deployment's (the repository projector's), a
# decision evaluated over the API (history's, in a stream of its own), the log's signing keys.
# Replay, verify and the repository's reader never fold them into an instance.
STATELESS_STREAM_EVENTS: tuple[type[Event], ...] = (
    DeploymentCreated,
    DeploymentDeleted,
    *START_TIMER_EVENTS,
    *START_SUBSCRIPTION_EVENTS,
    ProcessDefinitionSuspended,
    ProcessDefinitionActivated,
    DecisionEvaluated,
    HistoricDecisionInstanceDeleted,
    SigningKeyIntroduced,
    *BATCH_EVENTS,
    HistoricDecisionRemovalTimeSet,
)


def not_an_instance(first: Event) -> str:
    """What a stream that is not an instance's is, from its first event (for messages)."""
    if isinstance(first, DecisionEvaluated):
        return "that is a decision evaluation"
    if isinstance(first, SigningKeyIntroduced):
        return "that is the log's record of its signing keys"
    if isinstance(first, BATCH_EVENTS):
        return "that is a batch"
    return "that is a deployment"


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
    | ProcessInstanceModified
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
    | PersonalDataErased
    | UserTaskCreated
    | TaskAssigned
    | TaskClaimed
    | TaskUnclaimed
    | TaskCommentAdded
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
    | CompensationScopeRetained
    | CompensationStarted
    | CompensationScopeReopened
    | CompensationScopeClosed
    | ConditionalEventOccurred
    | CalledInstanceStarted
    | ProcessInstanceSuspended
    | ProcessInstanceActivated
    | ProcessDefinitionSuspended
    | ProcessDefinitionActivated
    | SigningKeyIntroduced
    | EscalationThrown
    | ProcessInstanceMigrated
    | BatchCreated
    | BatchJobsCreated
    | BatchJobCompleted
    | BatchJobFailed
    | BatchJobRetriesSet
    | BatchMonitorRescheduled
    | BatchSuspended
    | BatchActivated
    | BatchCompleted
    | BatchDeleted
    | HistoricBatchDeleted
    | HistoricRemovalTimeSet
    | HistoricDecisionRemovalTimeSet
    | HistoricBatchRemovalTimeSet
    | InstanceDecisionRemovalTimeSet
    | HistoricDecisionInstancesDeleted
)

EVENT_TYPES: tuple[type[Event], ...] = get_args(EngineEvent)

# The schema version new events are written with; the engine's codec (engine/storage/codec.py)
# lifts older versions through its upcasters.
CURRENT_VERSIONS: dict[str, int] = {
    cls.__name__: next(f.default for f in msgspec.structs.fields(cls) if f.name == "v")
    for cls in EVENT_TYPES
}

__all__ = [
    "BATCH_EVENTS",
    "CURRENT_VERSIONS",
    "EVENT_TYPES",
    "SIGNING_KEYS_STREAM",
    "START_SUBSCRIPTION_EVENTS",
    "START_TIMER_EVENTS",
    "STATELESS_STREAM_EVENTS",
    "ActivityCanceled",
    "ActivityCompleted",
    "ActivityDecisionEvaluated",
    "ActivityStarted",
    "BatchActivated",
    "BatchCompleted",
    "BatchCreated",
    "BatchDeleted",
    "BatchJob",
    "BatchJobCompleted",
    "BatchJobFailed",
    "BatchJobLogged",
    "BatchJobRetriesSet",
    "BatchJobsCreated",
    "BatchMonitorRescheduled",
    "BatchSuspended",
    "BatchVariable",
    "BpmnErrorThrown",
    "CalledInstanceStarted",
    "CompensationScopeClosed",
    "CompensationScopeReopened",
    "CompensationScopeRetained",
    "CompensationStarted",
    "ConditionalEventOccurred",
    "DecisionEvaluated",
    "DecisionInputValue",
    "DecisionOutputValue",
    "DeployedDecisionDefinition",
    "DeployedDecisionRequirements",
    "DeployedJobDefinition",
    "DeployedProcessDefinition",
    "DeployedResource",
    "DeploymentCreated",
    "DeploymentDeleted",
    "DeploymentWarning",
    "EndedBatchJob",
    "EngineEvent",
    "ErasedDecision",
    "EscalationThrown",
    "EvaluatedDecision",
    "Event",
    "EventSubscriptionCreated",
    "EventSubscriptionDeleted",
    "ExecutionCreated",
    "ExecutionRemoved",
    "ExecutionReplaced",
    "ExternalTaskBpmnErrorReported",
    "ExternalTaskCanceled",
    "ExternalTaskCompleted",
    "ExternalTaskCreated",
    "ExternalTaskFailed",
    "ExternalTaskLockExtended",
    "ExternalTaskLocked",
    "ExternalTaskPrioritySet",
    "ExternalTaskRetriesSet",
    "ExternalTaskUnlocked",
    "HistoricBatchDeleted",
    "HistoricBatchRemovalTimeSet",
    "HistoricDecisionInstanceDeleted",
    "HistoricDecisionInstancesDeleted",
    "HistoricDecisionRemovalTimeSet",
    "HistoricProcessInstanceDeleted",
    "HistoricRemovalTimeSet",
    "IdentityLink",
    "IncidentCreated",
    "IncidentDeleted",
    "IncidentResolved",
    "InstanceDecisionRemovalTimeSet",
    "JobActivated",
    "JobCreated",
    "JobDeleted",
    "JobDueDateSet",
    "JobExecuted",
    "JobFailed",
    "JobPrioritySet",
    "JobRetriesSet",
    "JobSuspended",
    "LoggedOperation",
    "MessageCorrelated",
    "MigratedActivityInstance",
    "MigratedExecution",
    "MigratedExternalTask",
    "MigratedIncident",
    "MigratedJob",
    "MigratedSubscription",
    "MigratedTask",
    "MovedVariable",
    "PersonalDataErased",
    "ProcessDefinitionActivated",
    "ProcessDefinitionSuspended",
    "ProcessInstanceActivated",
    "ProcessInstanceCompleted",
    "ProcessInstanceMigrated",
    "ProcessInstanceModified",
    "ProcessInstanceStarted",
    "ProcessInstanceSuspended",
    "ProcessInstanceTerminated",
    "SignalReceived",
    "SignalThrown",
    "SigningKeyIntroduced",
    "StartEventSubscribed",
    "StartEventUnsubscribed",
    "StartTimerDueDateSet",
    "StartTimerFailed",
    "StartTimerFired",
    "StartTimerJob",
    "StartTimerRemoved",
    "StartTimerRetriesSet",
    "StartTimerScheduled",
    "TaskAssigned",
    "TaskClaimed",
    "TaskCommentAdded",
    "TaskCompleted",
    "TaskDeleted",
    "TaskUnclaimed",
    "TokenWaitingAtJoin",
    "UserTaskCreated",
    "VariableDeleted",
    "VariableSet",
    "not_an_instance",
    "to_dict",
]
