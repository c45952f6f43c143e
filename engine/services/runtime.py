"""Camunda's RuntimeService: process instances and their executions, variables, messages,
signals, suspension of instances, event subscriptions and incidents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.activity_tree import activity_tree
from flowledger.core.batches.model import (
    INSTANCE_DELETION,
    INSTANCE_MIGRATION,
    INSTANCE_SUSPENSION,
)
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.instance_migration.plan import MigrationPlan, batch_parameters
from flowledger.core.variables import StoredValue, from_stored, rest_type_name
from flowledger.engine.services.migration_execution import MigrationExecution
from flowledger.engine.services.migration_plans import MigrationPlanBuilder
from flowledger.engine.services.modification import InstanceModification
from flowledger.engine.services.runtime_batches import RuntimeBatches
from flowledger.projections.queries import reads, subscription_reads
from flowledger.projections.queries.batches import Batch
from flowledger.projections.queries.runtime import ProcessInstanceQuery


class RuntimeService(RuntimeBatches):
    def start_process_instance(
        self,
        key: str | None = None,
        variables: Mapping[str, Any] | None = None,
        business_key: str | None = None,
        *,
        definition_id: str | None = None,
        start_instructions: Sequence[cmd.StartInstruction] = (),
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.ProcessInstance:
        """Start the latest version of the process `key` (or a given definition id), at its
        start event or where `start_instructions` say (then skipping listeners and I/O mappings
        if asked)."""
        if key is None and definition_id is None:
            raise ValueError("start_process_instance needs a process key or a definition_id")
        command = cmd.StartProcessInstance(
            key=key,
            definition_id=definition_id,
            business_key=business_key,
            variables=dict(variables or {}),
            instructions=list(start_instructions),
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
        )
        return cast(views.ProcessInstance, self._run(command, command_id, actor))

    def delete_process_instance(
        self,
        process_instance_id: str,
        reason: str | None = None,
        *,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Cancel the running instance; its activities' end listeners run unless skipped."""
        command = cmd.DeleteProcessInstance(
            process_instance_id=process_instance_id,
            reason=reason,
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
        )
        self._run(command, command_id, actor)

    def delete_process_instances_async(
        self,
        process_instance_ids: Sequence[str] | None = None,
        process_instance_query: ProcessInstanceQuery | None = None,
        delete_reason: str | None = None,
        *,
        skip_custom_listeners: bool = False,
        skip_subprocesses: bool = False,
        skip_io_mappings: bool = False,
        fail_if_not_exists: bool = True,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """runtimeService.deleteProcessInstancesAsync: a batch deleting the instances named and
        those the query finds now (Camunda resolves the query when the batch is created)."""
        targets = self._instance_targets(process_instance_ids, process_instance_query)
        parameters = {
            "deleteReason": delete_reason,
            "skipCustomListeners": skip_custom_listeners,
            "skipSubprocesses": skip_subprocesses,
            "skipIoMappings": skip_io_mappings,
            "failIfNotExists": fail_if_not_exists,
        }
        return self._batch(INSTANCE_DELETION, targets, parameters, command_id, actor)

    def update_process_instances_suspension_state_async(
        self,
        process_instance_ids: Sequence[str] | None = None,
        process_instance_query: ProcessInstanceQuery | None = None,
        *,
        suspended: bool,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """updateProcessInstanceSuspensionState()…suspendAsync()/activateAsync(): a batch
        suspending (or activating) each instance as `suspend_process_instance` does."""
        targets = self._instance_targets(process_instance_ids, process_instance_query)
        parameters = {"suspended": suspended}
        return self._batch(INSTANCE_SUSPENSION, targets, parameters, command_id, actor)

    # -- repair: modification and restart ------------------------------------------------

    def create_process_instance_modification(
        self, process_instance_id: str
    ) -> InstanceModification:
        """Camunda's fluent builder: `.start_before_activity("x").cancel_all_for_activity("y")
        .execute(annotation=...)`."""
        return InstanceModification(self, process_instance_id)

    def modify_process_instance(
        self,
        process_instance_id: str,
        instructions: Sequence[cmd.ModificationInstruction],
        *,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        annotation: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Run the instructions on the instance, in order, as one command; it ends when they
        leave nothing running in it."""
        command = cmd.ModifyProcessInstance(
            process_instance_id=process_instance_id,
            instructions=list(instructions),
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
            annotation=annotation,
        )
        self._run(command, command_id, actor)

    def modify_process_instances(
        self,
        definition_id: str,
        process_instance_ids: Sequence[str],
        instructions: Sequence[cmd.ModificationInstruction],
        *,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        annotation: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """The same instructions on each of these instances of one definition, in one command
        (Camunda's createModification(definitionId).…execute())."""
        command = cmd.ModifyProcessInstances(
            definition_id=definition_id,
            process_instance_ids=list(process_instance_ids),
            instructions=list(instructions),
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
            annotation=annotation,
        )
        self._run(command, command_id, actor)

    def restart_process_instances(
        self,
        definition_id: str,
        process_instance_ids: Sequence[str],
        instructions: Sequence[cmd.StartInstruction],
        *,
        initial_variables: bool = False,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        without_business_key: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> list[str]:
        """Start a new instance of the definition for each ended instance, by the start
        instructions, with its last variables (or its initial ones) read from the log, at any
        history level. Returns the new instances' ids, in the order of `process_instance_ids`."""
        command = cmd.RestartProcessInstances(
            definition_id=definition_id,
            process_instance_ids=list(process_instance_ids),
            instructions=list(instructions),
            initial_variables=initial_variables,
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
            without_business_key=without_business_key,
        )
        return cast(list[str], self._run(command, command_id, actor))

    def migrate_process_instances(
        self,
        plan: MigrationPlan,
        process_instance_ids: Sequence[str],
        *,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Move each instance by the plan, all in one command (Camunda's
        newMigration(plan).processInstanceIds(...).execute()): none moves unless all can."""
        command = cmd.MigrateProcessInstances(
            plan=plan,
            process_instance_ids=list(process_instance_ids),
            skip_custom_listeners=skip_custom_listeners,
            skip_io_mappings=skip_io_mappings,
        )
        self._run(command, command_id, actor)

    # -- repair: migration ---------------------------------------------------------------

    def migrate_process_instances_async(
        self,
        plan: MigrationPlan,
        process_instance_ids: Sequence[str] | None = None,
        process_instance_query: ProcessInstanceQuery | None = None,
        *,
        skip_custom_listeners: bool = False,
        skip_io_mappings: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """newMigration(plan)...executeAsync(): a batch moving the instances named and those the
        query finds now, its jobs a few instances each; the plan is checked when the batch is
        made (MigrationPlanInvalid), each instance when its job runs (a job that cannot move
        its instances fails with the reason, its retries go down)."""
        targets = self._instance_targets(process_instance_ids, process_instance_query)
        parameters = batch_parameters(
            plan, skip_custom_listeners=skip_custom_listeners, skip_io_mappings=skip_io_mappings
        )
        return self._batch(INSTANCE_MIGRATION, targets, parameters, command_id, actor)

    def new_migration(self, plan: MigrationPlan) -> MigrationExecution:
        """Camunda's runtimeService.newMigration(plan): name the instances, then `execute()`."""
        return MigrationExecution(self, plan)

    def create_migration_plan(
        self, source_definition_id: str, target_definition_id: str
    ) -> MigrationPlanBuilder:
        """Camunda's fluent builder: `.map_equal_activities().map_activities("a", "b")
        .build()` gives a plan checked against both definitions (MigrationPlanInvalid)."""
        return MigrationPlanBuilder(self._parts, source_definition_id, target_definition_id)

    def process_instance(self, process_instance_id: str) -> views.ProcessInstance | None:
        with self._parts.db.read() as conn:
            return reads.process_instance(conn, process_instance_id)

    def executions(self, process_instance_id: str) -> list[views.Execution]:
        with self._parts.db.read() as conn:
            return reads.executions(conn, process_instance_id)

    def activity_instance_tree(self, process_instance_id: str) -> views.ActivityInstanceNode:
        """The runtime activity instance tree (Camunda's runtimeService.getActivityInstance)."""
        streams = self._parts.streams
        # Checked out of the cache as a command does: no command evolves it meanwhile (one that
        # wants it reads the log), and the engine's commands do not wait for this read.
        with self._parts.db.read_unchecked() as conn:  # the log: the tables are not read
            cached = streams.checkout(conn, process_instance_id)
            if cached is None:
                raise NotFound("Process instance", process_instance_id)
            try:
                state = cached.state
                if state.ended:
                    raise NotFound("Process instance", process_instance_id, "it has already ended")
                return activity_tree(state, streams.model(conn, state.definition_id))
            finally:
                streams.remember(process_instance_id, cached)

    def trigger(
        self,
        execution_id: str,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Signal an execution waiting in a receive task (Camunda's runtimeService.signal)."""
        command = cmd.Trigger(execution_id=execution_id, variables=dict(variables or {}))
        self._run(command, command_id, actor)

    # -- messages --------------------------------------------------------------------------

    def correlate_message(
        self,
        message_name: str,
        *,
        business_key: str | None = None,
        process_instance_id: str | None = None,
        correlation_keys: Mapping[str, Any] | None = None,
        local_correlation_keys: Mapping[str, Any] | None = None,
        variables: Mapping[str, Any] | None = None,
        variables_local: Mapping[str, Any] | None = None,
        all: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> list[views.MessageCorrelationResult]:
        """Deliver a message to the catch events waiting for `message_name` that the business
        key, instance and correlation keys (process instance variables; local ones: variables of
        the waiting execution) match: to exactly one, or with `all` to every one. `variables` are
        set on the waiting execution as setVariable does, `variables_local` on it.

        Raises MismatchingMessageCorrelation when nothing matches, or more than one without
        `all` (nothing is delivered then)."""
        command = cmd.CorrelateMessage(
            message_name=message_name,
            business_key=business_key,
            process_instance_id=process_instance_id,
            correlation_keys=dict(correlation_keys or {}),
            local_correlation_keys=dict(local_correlation_keys or {}),
            variables=dict(variables or {}),
            variables_local=dict(variables_local or {}),
            all=all,
        )
        return cast(list[views.MessageCorrelationResult], self._run(command, command_id, actor))

    def message_event_received(
        self,
        message_name: str,
        execution_id: str,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """runtimeService.messageEventReceived: the execution's subscription to the message
        fires (refused when it has none)."""
        command = cmd.MessageEventReceived(
            message_name=message_name, execution_id=execution_id, variables=dict(variables or {})
        )
        self._run(command, command_id, actor)

    def suspend_process_instance(
        self, process_instance_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """Nothing of the instance moves until it is activated: its tasks, external tasks and
        jobs refuse work, and messages and signals pass it by."""
        self._set_instance_suspended(process_instance_id, True, command_id, actor)

    def activate_process_instance(
        self, process_instance_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        self._set_instance_suspended(process_instance_id, False, command_id, actor)

    def _set_instance_suspended(
        self, process_instance_id: str, suspended: bool, command_id: str | None, actor: str | None
    ) -> None:
        command = cmd.SetProcessInstanceSuspended(
            process_instance_id=process_instance_id, suspended=suspended
        )
        self._run(command, command_id, actor)

    def set_process_instances_suspended(
        self,
        suspended: bool,
        *,
        process_instance_ids: Sequence[str] = (),
        definition_id: str | None = None,
        key: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Suspend (or activate) these instances, or every running instance of a definition (by
        id, or every version of `key`), in one command; the definitions stay as they are."""
        command = cmd.SetProcessInstancesSuspended(
            suspended=suspended,
            process_instance_ids=list(process_instance_ids),
            definition_id=definition_id,
            key=key,
        )
        self._run(command, command_id, actor)

    def signal(
        self,
        name: str,
        variables: Mapping[str, Any] | None = None,
        *,
        execution_id: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """runtimeService.signalEventReceived: broadcast the signal to every catch and boundary
        event waiting for it and start an instance at every signal start event of the name
        (none waiting is no error); with `execution_id`, deliver it to that execution's own
        subscription only (refused when it has none). `variables` are set on each receiver
        as setVariable does, and are a started instance's variables."""
        command = cmd.ThrowSignal(
            name=name, execution_id=execution_id, variables=dict(variables or {})
        )
        self._run(command, command_id, actor)

    def evaluate_conditions(
        self,
        variables: Mapping[str, Any] | None = None,
        *,
        business_key: str | None = None,
        process_definition_id: str | None = None,
        tenant_id: str | None = None,
        without_tenant_id: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> list[views.ProcessInstance]:
        """Camunda's createConditionEvaluation()...evaluateStartConditions(): start an instance
        at every conditional start event whose condition holds for `variables` (of the latest
        versions, or of `process_definition_id`), with `business_key`; the started instances.

        Raises ProcessEngineError when there is no conditional start event to evaluate."""
        command = cmd.EvaluateConditions(
            variables=dict(variables or {}),
            business_key=business_key,
            process_definition_id=process_definition_id,
            tenant_id=tenant_id,
            without_tenant_id=without_tenant_id,
        )
        return cast(list[views.ProcessInstance], self._run(command, command_id, actor))

    def event_subscriptions(self, **filters: Any) -> list[views.EventSubscription]:
        """Waiting catch events (ACT_RU_EVENT_SUBSCR), oldest first. Filters:
        process_instance_id, execution_id, event_name, event_type, activity_id."""
        with self._parts.db.read() as conn:
            return subscription_reads.event_subscriptions(conn, **filters)

    def set_variables(
        self,
        execution_id: str,
        variables: Mapping[str, Any],
        *,
        local: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Set variables from an execution (or process instance) id, Camunda's scoping rules."""
        command = cmd.SetVariables(
            execution_id=execution_id, variables=dict(variables), local=local
        )
        self._run(command, command_id, actor)

    def remove_variables(
        self,
        execution_id: str,
        names: Sequence[str],
        *,
        local: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.RemoveVariables(execution_id=execution_id, names=list(names), local=local)
        self._run(command, command_id, actor)

    def get_variables(self, execution_id: str, *, local: bool = False) -> dict[str, Any]:
        """Variables visible from an execution or process instance (inner scopes win)."""
        typed = self.get_variables_typed(execution_id, local=local)
        return {name: value for name, (value, _type) in typed.items()}

    def get_variable(self, execution_id: str, name: str) -> Any:
        return self.get_variables(execution_id).get(name)

    def get_variable_values(
        self, execution_id: str, *, local: bool = False
    ) -> dict[str, StoredValue]:
        """Variables visible from an execution or process instance as stored (type + encoded
        value + value info), inner scopes first: what the REST API serialises."""
        with self._parts.db.read() as conn:
            chain = reads.execution_chain(conn, execution_id)
            if not chain:
                raise NotFound("Execution", execution_id, "it does not exist or has ended")
            rows = reads.variable_rows(conn, execution_ids=chain[:1] if local else chain)
        rank = {e: i for i, e in enumerate(chain)}
        best: dict[str, tuple[int, StoredValue]] = {}
        for name, stored, owner, task_id in rows:
            if task_id is not None:
                continue
            r = rank[owner]
            if name not in best or r < best[name][0]:
                best[name] = (r, stored)
        return {n: v for n, (_r, v) in sorted(best.items())}

    def get_variables_typed(
        self, execution_id: str, *, local: bool = False
    ) -> dict[str, tuple[Any, str]]:
        """Like get_variables, with Camunda's type name: {"amount": (5, "Integer")}."""
        values = self.get_variable_values(execution_id, local=local)
        return {n: (from_stored(v), rest_type_name(v.type)) for n, v in values.items()}

    def incidents(self, **filters: Any) -> list[views.Incident]:
        """Open incidents. Filters: incident_id, incident_type, process_instance_id,
        execution_id, activity_id, configuration."""
        with self._parts.db.read() as conn:
            return reads.incidents(conn, **filters)

    def resolve_incident(self, incident_id: str, *, actor: str | None = None) -> None:
        """runtimeService.resolveIncident: only custom incidents are resolved by hand; a failed
        job's is resolved by giving the job retries, a failed external task's likewise."""
        found = self.incidents(incident_id=incident_id)
        if not found:
            raise NotFound("Incident", incident_id)
        raise Rejected(
            f"Cannot resolve an incident of type {found[0].incident_type}: set the retries of "
            f"its {'job' if found[0].incident_type == 'failedJob' else 'external task'} "
            f"'{found[0].configuration}' above 0 instead"
        )
