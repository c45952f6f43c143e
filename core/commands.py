"""Commands: what callers ask the engine to do, as msgspec Structs (imperative names).

Pure data; each is written to the command log (accepted or rejected) for the audit trail.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec

from .instance_migration.plan import MigrationPlan


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    pass


class ResourceInput(msgspec.Struct, frozen=True):
    name: str
    data: bytes


class Deploy(Command, tag=True, frozen=True):
    resources: list[ResourceInput]
    name: str | None = None
    source: str | None = None
    duplicate_filtering: bool = False
    deploy_changed_only: bool = False


class DeleteDeployment(Command, tag=True, frozen=True):
    deployment_id: str
    cascade: bool = False


class EvaluateDecision(Command, tag=True, frozen=True):
    """Evaluate the latest version of the decision `key`, or the definition `definition_id`."""

    key: str | None = None
    definition_id: str | None = None
    variables: dict[str, Any] = {}


class DeleteHistoricDecisionInstance(Command, tag=True, frozen=True):
    """History cleanup's: the evaluation over the API whose evaluated decision this is."""

    decision_instance_id: str
    cleanup: bool = True


class StartProcessInstance(Command, tag=True, frozen=True):
    """Start at the process's start event, or where `instructions` say (Camunda's
    startBeforeActivity … of createProcessInstanceById), then skipping listeners and I/O
    mappings if asked."""

    key: str | None = None
    definition_id: str | None = None
    business_key: str | None = None
    variables: dict[str, Any] = {}
    instructions: list[StartInstruction] = []
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False


class CompleteTask(Command, tag=True, frozen=True):
    task_id: str
    variables: dict[str, Any] = {}


class HandleTaskEscalation(Command, tag=True, frozen=True):
    """taskService.handleEscalation: the user task raises an escalation where it waits."""

    task_id: str
    escalation_code: str
    variables: dict[str, Any] = {}


class HandleTaskBpmnError(Command, tag=True, frozen=True):
    """taskService.handleBpmnError: the user task throws a BPMN error where it waits."""

    task_id: str
    error_code: str
    error_message: str | None = None
    variables: dict[str, Any] = {}


class AddTaskComment(Command, tag=True, frozen=True):
    """taskService.createComment: a comment on an open task, written by the command's actor."""

    task_id: str
    message: str


class ClaimTask(Command, tag=True, frozen=True):
    task_id: str
    user_id: str


class UnclaimTask(Command, tag=True, frozen=True):
    task_id: str


class SetAssignee(Command, tag=True, frozen=True):
    task_id: str
    user_id: str | None


class SetVariables(Command, tag=True, frozen=True, kw_only=True):
    """Of an execution (runtimeService) or, naming `task_id` instead, of a task (taskService)."""

    execution_id: str | None = None
    variables: dict[str, Any]
    local: bool = False
    task_id: str | None = None


class RemoveVariables(Command, tag=True, frozen=True, kw_only=True):
    """Of an execution or, naming `task_id` instead, of a task."""

    execution_id: str | None = None
    names: list[str]
    local: bool = False
    task_id: str | None = None


class Trigger(Command, tag=True, frozen=True):
    execution_id: str
    variables: dict[str, Any] = {}


class DeleteProcessInstance(Command, tag=True, frozen=True):
    process_instance_id: str
    reason: str | None = None
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False


class RecordSigningKey(Command, tag=True, frozen=True):
    """Record in the log the key heads are signed with, when it is not the one recorded last."""

    key_hash: str
    name: str
    public_key: str  # raw Ed25519, base64
    origin: str | None = None


class ErasePersonalData(Command, tag=True, frozen=True):
    """Destroy the keys an instance's personal values of one data subject are sealed with, and
    record it (`flowledger erase`): one command per instance stream of the subject."""

    process_instance_id: str
    key_ids: list[str]
    reason: str


class DeleteHistoricProcessInstance(Command, tag=True, frozen=True):
    process_instance_id: str
    cleanup: bool = False  # history cleanup's, not a user's


class TopicRequest(msgspec.Struct, frozen=True):
    topic_name: str
    lock_duration: int  # milliseconds


class FetchAndLock(Command, tag=True, frozen=True):
    worker_id: str
    topics: list[TopicRequest]
    max_tasks: int = 1
    use_priority: bool = False
    task_ids: list[str] | None = None  # lock only among these (the REST topic filters chose them)


class CompleteExternalTask(Command, tag=True, frozen=True):
    external_task_id: str
    worker_id: str
    variables: dict[str, Any] = {}
    local_variables: dict[str, Any] = {}


class HandleExternalTaskFailure(Command, tag=True, frozen=True):
    external_task_id: str
    worker_id: str
    error_message: str | None = None
    error_details: str | None = None
    retries: int = 0
    retry_timeout: int = 0  # milliseconds
    variables: dict[str, Any] = {}
    local_variables: dict[str, Any] = {}


class HandleExternalTaskBpmnError(Command, tag=True, frozen=True):
    external_task_id: str
    worker_id: str
    error_code: str
    error_message: str | None = None
    variables: dict[str, Any] = {}


class ExtendExternalTaskLock(Command, tag=True, frozen=True):
    external_task_id: str
    worker_id: str
    new_duration: int  # milliseconds


class UnlockExternalTask(Command, tag=True, frozen=True):
    external_task_id: str


class SetExternalTaskRetries(Command, tag=True, frozen=True):
    external_task_id: str
    retries: int


class SetExternalTaskPriority(Command, tag=True, frozen=True):
    external_task_id: str
    priority: int


class ExecuteJob(Command, tag=True, frozen=True):
    """Run a job now (the job executor's, or managementService.executeJob)."""

    job_id: str


class HandleJobFailure(Command, tag=True, frozen=True):
    """Record that running the job raised (its own work was rolled back): the engine issues it
    after a failed ExecuteJob, with what the failure said."""

    job_id: str
    error_message: str | None = None
    stacktrace: str | None = None
    failed_activity_id: str | None = None


class SetJobRetries(Command, tag=True, frozen=True):
    job_id: str
    retries: int


class SetJobSuspended(Command, tag=True, frozen=True):
    """managementService.suspendJobById / activateJobById."""

    job_id: str
    suspended: bool


class SetJobDueDate(Command, tag=True, frozen=True):
    job_id: str
    due_date: datetime | None = None


class SetJobPriority(Command, tag=True, frozen=True):
    job_id: str
    priority: int


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, int):
        return int(obj)  # Long and other int subclasses
    return repr(obj)


_encoder = msgspec.json.Encoder(enc_hook=_json_safe)


def encode_command(command: Command) -> bytes:
    """The command as JSON for the command log; values JSON cannot hold are kept as their repr."""
    return _encoder.encode(command)


def encode_result(result: Any) -> bytes:
    """A command's outcome as JSON, as the command log keeps it for a repeated command id."""
    return _encoder.encode(result)


class CorrelateMessage(Command, tag=True, frozen=True):
    """runtimeService.createMessageCorrelation(...).correlate / correlateAll: the message goes to
    the waiting subscriptions of its name that match the rest; exactly one unless `all`."""

    message_name: str
    business_key: str | None = None
    process_instance_id: str | None = None
    correlation_keys: dict[str, Any] = {}
    local_correlation_keys: dict[str, Any] = {}
    variables: dict[str, Any] = {}
    variables_local: dict[str, Any] = {}
    all: bool = False


class MessageEventReceived(Command, tag=True, frozen=True):
    """runtimeService.messageEventReceived: the execution's own subscription to the message."""

    message_name: str
    execution_id: str
    variables: dict[str, Any] = {}


class ThrowSignal(Command, tag=True, frozen=True):
    """runtimeService.signalEventReceived: broadcast the signal to every subscription and signal
    start event, or, naming `execution_id`, deliver it to that execution's subscription only."""

    name: str
    execution_id: str | None = None
    variables: dict[str, Any] = {}


class EvaluateConditions(Command, tag=True, frozen=True):
    """runtimeService.createConditionEvaluation()...evaluateStartConditions(): start an instance
    at every conditional start event (of the latest versions, or of `process_definition_id`)
    whose condition holds for `variables`. `tenant_id` / `without_tenant_id` narrow the
    definitions by tenant."""

    variables: dict[str, Any] = {}
    business_key: str | None = None
    process_definition_id: str | None = None
    tenant_id: str | None = None
    without_tenant_id: bool = False


class SetProcessInstanceSuspended(Command, tag=True, frozen=True):
    """runtimeService.suspendProcessInstanceById / activateProcessInstanceById."""

    process_instance_id: str
    suspended: bool


class SetProcessDefinitionSuspended(Command, tag=True, frozen=True):
    """repositoryService.suspendProcessDefinitionById/ByKey (and activate): the definition (all
    versions of a key), and with `include_instances` their running instances too."""

    suspended: bool
    definition_id: str | None = None
    key: str | None = None
    include_instances: bool = False


class SetProcessInstancesSuspended(Command, tag=True, frozen=True):
    """runtimeService.updateProcessInstanceSuspensionState(): these instances, or every running
    instance of a definition (by id, or every version of a key); the definitions stay as they
    are."""

    suspended: bool
    process_instance_ids: list[str] = []
    definition_id: str | None = None
    key: str | None = None


# -- repairing instances: modification and restart (Camunda's ProcessInstanceModificationBuilder)


class Instruction(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", omit_defaults=True):
    """One step of a modification or a restart, in Camunda's REST names (`type`)."""


class StartBeforeActivity(Instruction, tag="startBeforeActivity", frozen=True):
    """A token enters `activity_id`, its missing flow scopes created (the closest existing
    scope, or the one of `ancestor_activity_instance_id`). `variables` are set on the new token
    as `setVariables` would (the scope that holds the name, else the process instance);
    `local_variables` on the new token itself."""

    activity_id: str
    ancestor_activity_instance_id: str | None = None
    variables: dict[str, Any] = {}
    local_variables: dict[str, Any] = {}


class StartAfterActivity(Instruction, tag="startAfterActivity", frozen=True):
    """A token takes the single sequence flow leaving `activity_id`."""

    activity_id: str
    ancestor_activity_instance_id: str | None = None
    variables: dict[str, Any] = {}
    local_variables: dict[str, Any] = {}


class StartTransition(Instruction, tag="startTransition", frozen=True):
    """A token takes the sequence flow `transition_id`."""

    transition_id: str
    ancestor_activity_instance_id: str | None = None
    variables: dict[str, Any] = {}
    local_variables: dict[str, Any] = {}


class CancelActivityInstance(Instruction, tag="cancel", frozen=True):
    """Cancel one activity instance (its scope too, when it was the scope's only content)."""

    activity_instance_id: str


class CancelTransitionInstance(Instruction, tag="cancelTransitionInstance", frozen=True):
    """Cancel a token waiting for its asynchronous continuation."""

    transition_instance_id: str


class CancelAllForActivity(Instruction, tag="cancelAll", frozen=True):
    """Cancel every instance of `activity_id` and its tokens waiting for a continuation; with
    `cancel_current_active_activity_instances_only`, only those that ran when the modification
    began (not what its earlier instructions started)."""

    activity_id: str
    cancel_current_active_activity_instances_only: bool = False


StartInstruction = StartBeforeActivity | StartAfterActivity | StartTransition
ModificationInstruction = (
    StartBeforeActivity
    | StartAfterActivity
    | StartTransition
    | CancelActivityInstance
    | CancelTransitionInstance
    | CancelAllForActivity
)


class ModifyProcessInstance(Command, tag=True, frozen=True):
    """runtimeService.createProcessInstanceModification(id)…execute(): the instructions in
    order, in one command; the instance ends when they leave nothing in it."""

    process_instance_id: str
    instructions: list[ModificationInstruction]
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False
    annotation: str | None = None


class ModifyProcessInstances(Command, tag=True, frozen=True):
    """runtimeService.createModification(definitionId)…execute(): the same instructions on each
    of these instances of one definition, in one command."""

    definition_id: str
    process_instance_ids: list[str]
    instructions: list[ModificationInstruction]
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False
    annotation: str | None = None


class RestartProcessInstances(Command, tag=True, frozen=True):
    """runtimeService.restartProcessInstances(definitionId): a new instance of the definition for
    each ended one, started by the instructions, with the ended instance's last variables (or
    the ones it was started with: `initial_variables`) and business key."""

    definition_id: str
    process_instance_ids: list[str]
    instructions: list[StartInstruction]
    initial_variables: bool = False
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False
    without_business_key: bool = False


class MigrateProcessInstances(Command, tag=True, frozen=True):
    """runtimeService.newMigration(plan).processInstanceIds(...).execute(): every instance moves
    by the plan, in one command (all of them or none); `batch_id` when a batch job runs it."""

    plan: MigrationPlan
    process_instance_ids: list[str]
    skip_custom_listeners: bool = False
    skip_io_mappings: bool = False


class CreateBatch(Command, tag=True, frozen=True):
    """A batch of `batch_type` (Camunda's Batch.TYPE_*, a registered operation) over `targets`,
    resolved by the caller when the batch is created, in order; `parameters`: the operation's."""

    batch_type: str
    targets: list[str]
    parameters: dict[str, Any] = {}
    tenant_id: str | None = None
    # the batch's variables (Camunda's batch variables): set on, or sent with, each target
    variables: dict[str, Any] = {}


class SetBatchSuspended(Command, tag=True, frozen=True):
    batch_id: str
    suspended: bool


class DeleteBatch(Command, tag=True, frozen=True):
    batch_id: str
    cascade: bool = False


class DeleteHistoricBatch(Command, tag=True, frozen=True):
    batch_id: str
