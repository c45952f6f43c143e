"""The engine facade: flowledger's public entry point and the composition root behind it.

It wires the database, the event store, the repository, the command bus and its handlers, the
query and audit services and the history lifecycle; each public method builds a command for the
bus or asks a service. It decides nothing and reads no stream itself.
"""

from __future__ import annotations

import atexit
import copy
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy.engine import Connection

from flowledger import migrations
from flowledger.core import audit_trail, views
from flowledger.core import commands as cmd
from flowledger.core.budget import COMMAND_SECONDS
from flowledger.core.clock import Clock, SystemClock, truncate_ms
from flowledger.core.errors import InvalidValue, JobFailure, NotFound, Rejected, SchemaMismatch
from flowledger.core.limits import MAX_HISTORY_TTL_DAYS, MAX_VIA, check_text
from flowledger.core.state import InstanceState
from flowledger.core.variables import StoredValue, from_stored, rest_type_name
from flowledger.engine.audit.inspection import Inspection, PointInTime
from flowledger.engine.audit.log_reader import Audit
from flowledger.engine.audit.packages import Packages
from flowledger.engine.audit.rebuild import Rebuild
from flowledger.engine.commands.bus import VIA_JOB_EXECUTOR, VIA_PYTHON, CommandBus
from flowledger.engine.commands.handlers import AFTER_DECISION, HANDLERS
from flowledger.engine.commands.retention import expired_decisions, expired_instances
from flowledger.engine.commands.unit_of_work import Wiring
from flowledger.engine.outbound import Outbound, OutboundPolicy
from flowledger.engine.queries import Queries
from flowledger.engine.storage.codec import make_codec
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.database import create_database, is_memory_url, sqlite_file
from flowledger.engine.storage.state_cache import DEFAULT_MAX_BYTES
from flowledger.engine.storage.streams import Repository
from flowledger.engine.workers.checkpointer import Checkpointer
from flowledger.engine.workers.history_lifecycle import HistoryLifecycle, check_mode, resolve_level
from flowledger.engine.workers.job_executor import (
    JobExecutor,
    JobExecutorHealth,
    JobExecutorSettings,
)
from flowledger.eventlog import EventStore
from flowledger.projections.changes import SqlRowStore

DEFAULT_URL = "sqlite:///flowledger.db"

Source = str | bytes | Path | Mapping[str, bytes | str] | Sequence[tuple[str, bytes | str]]


class Engine:
    """flowledger's only public entry point: deploy models, run instances, query, replay, verify.

    `Engine()` keeps everything in `flowledger.db` in the working directory; any SQLAlchemy URL
    for SQLite, PostgreSQL (postgresql+psycopg://) or MySQL/MariaDB (mysql+pymysql://) works.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        clock: Clock | None = None,
        allow_scripts: bool = False,
        history_level: str | None = None,
        history_mode: str = "inline",
        sqlite_synchronous: str = "NORMAL",
        cache_bytes: int = DEFAULT_MAX_BYTES,
        job_executor: bool = False,
        job_executor_settings: JobExecutorSettings | None = None,
        history_time_to_live: int | None = None,
        history_removal_time_strategy: str = "end",
        outbound: OutboundPolicy | None = None,
        command_budget_seconds: float = COMMAND_SECONDS,
    ) -> None:
        check_mode(history_mode)
        if not 0 < command_budget_seconds <= 3600:
            raise InvalidValue("command_budget_seconds must be more than 0 and at most 3,600")
        self.outbound = Outbound(outbound)
        if history_time_to_live is not None and not 0 <= history_time_to_live <= (
            MAX_HISTORY_TTL_DAYS
        ):
            raise InvalidValue(
                f"history_time_to_live must be a number of days from 0 to {MAX_HISTORY_TTL_DAYS:,}"
            )
        if history_removal_time_strategy not in ("end", "start"):
            raise InvalidValue(
                f"history_removal_time_strategy {history_removal_time_strategy!r} is not one of "
                "'end' (a root instance's end stamps its history) or 'start'"
            )
        self.url = url or DEFAULT_URL
        self.clock: Clock = clock or SystemClock()
        self.allow_scripts = allow_scripts
        self._checkpointer = _start_checkpointer(self.url, sqlite_synchronous)
        db = create_database(self.url, sqlite_synchronous, self._checkpointer)
        try:
            invalidated = migrations.upgrade(db)
        except migrations.UnknownSchema as exc:
            db.dispose()
            if self._checkpointer is not None:
                self._checkpointer.stop()
            raise SchemaMismatch(str(exc)) from None
        self._store = EventStore(db.dialect.name)
        self._codec = make_codec()
        rows = SqlRowStore()
        self._delegates: dict[str, Any] = {}
        self._db = Connections(db, is_memory_url(self.url))
        try:
            level = resolve_level(self._db, history_level)
        except BaseException:
            self._db.close()
            if self._checkpointer is not None:
                self._checkpointer.stop()
            raise
        self._repository = Repository(
            self._store, self._codec, allow_scripts=allow_scripts, cache_bytes=cache_bytes
        )
        self._history = HistoryLifecycle(
            self._db,
            self._store,
            self._codec,
            rows,
            level=level,
            mode=history_mode,
            url=self.url,
            sqlite_synchronous=sqlite_synchronous,
        )
        wiring = Wiring(
            self._store,
            self._codec,
            rows,
            self._repository,
            self._history,
            self._delegates,
            allow_scripts,
            history_time_to_live,
            self.outbound.policy.enabled_connector_ids,
            history_removal_time_strategy,
        )
        self._bus = CommandBus(
            HANDLERS,
            self._db,
            wiring,
            self.clock,
            AFTER_DECISION,
            outbound=self.outbound,
            budget_seconds=command_budget_seconds,
        )
        if self._checkpointer is not None:
            self._bus.add_commit_listener(self._checkpointer.committed)
        self._queries = Queries(self._db, self._repository)
        self._audit = Audit(
            self._db, self._store, self._codec, rows, self._repository, self._history
        )
        self._inspection = Inspection(self._db, self._store, self._repository)
        self._packages = Packages(self._db, self._store, self._repository, self._audit)
        self._rebuild = Rebuild(self._db, self._store, self._repository, self._history)
        # What the schema revisions applied at this start rebuilt (None: nothing to rebuild).
        self.migration_rebuild = self._rebuild.after_migration(invalidated)
        self._actor: str | None = None  # recorded with commands that name no actor of their own
        self._via = VIA_PYTHON  # the channel commands came through (`acting_as` changes it)
        self._owner = True  # False for a view (acting_as): it closes nothing
        # Threads that run due jobs in the background (`flowledger serve` turns them on).
        self._job_executor: JobExecutor | None = None
        if job_executor:
            self.start_job_executor(job_executor_settings)
        if self._history.start():
            # A script that never calls close() still leaves history complete when it exits.
            atexit.register(_close_at_exit, weakref.ref(self))

    # -- lifecycle -------------------------------------------------------------------------

    def close(self) -> None:
        """Stop background work (history is brought up to date first) and release the pool.

        A history follower that stopped at a commit it cannot project does not keep the engine
        from closing: the failure stays recorded for the next start, and is logged again.
        Closing a view (`acting_as`) leaves the engine it views open."""
        if not self._owner:
            return
        if self._job_executor is not None:
            self._job_executor.stop()
        self._history.stop()
        if self._checkpointer is not None:
            self._checkpointer.stop()
        self._db.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def acting_as(self, actor: str | None, via: str | None = None) -> Engine:
        """A view of this engine whose commands record `actor` as who issued them, unless a
        call names its own `actor=` (the REST layer's authenticated user, for every endpoint),
        and `via` (`rest`, `cli`, ...; at most 32 characters) as the channel they came through.

        The view shares everything with this engine (bus, repository, caches, connections,
        delegates, listeners) and owns nothing: closing it closes nothing."""
        if via is not None:
            check_text("via", via, MAX_VIA)
        view = copy.copy(self)
        view._actor = actor
        view._via = self._via if via is None else via
        view._owner = False
        return view

    @property
    def history_mode(self) -> str:
        """`inline` or `async`; an inline engine joins an asynchronous follower it finds."""
        return self._history.mode

    # -- history projection ----------------------------------------------------------------

    def flush_history(self) -> None:
        """Bring asynchronous history up to the end of the log now (a no-op for inline).

        Raises ProcessEngineError naming the commit when one cannot be projected, or the
        database error when it failed for a passing reason (nothing moved then)."""
        self._history.flush()

    def history_lag(self) -> int:
        """Events committed to the log but not yet projected into ACT_HI_* (0 when inline)."""
        return self._history.lag()

    def history_health(self) -> views.HistoryHealth:
        """Is history being written? For the REST health endpoint and operators' probes."""
        return self._history.health()

    def limits_health(self) -> dict[str, Any]:
        """What the safety limits stopped so far: commands out of their evaluation budget, and
        the outbound calls made, refused, cut at their deadline or size cap. For the REST health
        endpoint: a limit hit is never silent."""
        budget = self._bus.budget_stats
        policy = self.outbound.policy
        return {
            "commandBudget": {
                "seconds": self._bus.budget_seconds,
                "exceeded": budget.exceeded_count,
                **({"last": budget.last} if budget.last else {}),
            },
            "outbound": {
                "connectors": sorted(policy.connectors),
                "httpAllow": list(policy.http_allow),
                "deadlineSeconds": policy.deadline_seconds,
                "maxResponseBytes": policy.max_response_bytes,
                **self.outbound.stats.as_dict(),
            },
        }

    def register_delegate(self, name: str, delegate: Any) -> None:
        """Make a Python callable (or an object with `execute(execution)`) available to models:
        `camunda:delegateExpression="${name}"`, `camunda:expression="${name.method(...)}"`, or
        `camunda:class="name"`."""
        self._delegates[name] = delegate

    def add_commit_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener()` after every command that appended events (e.g. to wake long polls).

        It runs on the committing thread with the engine lock held: it must be quick and must
        not call back into the engine."""
        self._bus.add_commit_listener(listener)

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A read-only connection on the projection tables, for queries the facade does not
        offer (the REST API's filtered lists run `projections.queries` on it)."""
        with self._db.read() as conn:
            yield conn

    def log_position(self) -> int:
        """Position of the newest event in the log: it moves whenever any engine commits."""
        with self._db.read() as conn:
            return self._store.head_position(conn)

    def _run(
        self,
        command: cmd.Command,
        command_id: str | None,
        actor: str | None,
        via: str | None = None,
    ) -> Any:
        """Hand the command to the bus, recorded as issued by `actor` or else this view's."""
        return self._bus.execute(
            command,
            command_id=command_id,
            actor=self._actor if actor is None else actor,
            via=self._via if via is None else via,
        )

    def _run_for_worker(self, command: cmd.Command, command_id: str | None, worker_id: str) -> Any:
        """An external task worker's command: issued by the worker unless this is a view."""
        return self._bus.execute(
            command,
            command_id=command_id,
            actor=worker_id if self._actor is None else self._actor,
            via=self._via,
        )

    # -- repository ------------------------------------------------------------------------

    def deploy(
        self,
        source: Source,
        name: str | None = None,
        *,
        deployment_source: str | None = None,
        duplicate_filtering: bool = False,
        deploy_changed_only: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.Deployment:
        """Deploy BPMN and DMN resources: a file path, BPMN bytes or XML text, or several named
        resources (a `.dmn` resource deploys its decisions).

        With `duplicate_filtering`, re-deploying byte-identical resources under the same
        deployment name returns the existing deployment and writes nothing.
        """
        command = cmd.Deploy(
            resources=_resources(source),
            name=name,
            source=deployment_source,
            duplicate_filtering=duplicate_filtering or deploy_changed_only,
            deploy_changed_only=deploy_changed_only,
        )
        return cast(views.Deployment, self._run(command, command_id, actor))

    def delete_deployment(
        self,
        deployment_id: str,
        *,
        cascade: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's repositoryService.deleteDeployment(id, cascade): the deployment, its process
        definitions and resources leave the repository tables (the log keeps them).

        Without `cascade` it is refused while an instance of one of its definitions runs. With
        `cascade` those instances are deleted ("deleted deployment"), and the history of every
        instance of its definitions, finished ones too, is removed from the ACT_HI_* tables.
        Starting by key then starts the latest remaining version; the next deployment of the key
        numbers its version after the latest remaining one, as in Camunda.
        """
        command = cmd.DeleteDeployment(deployment_id=deployment_id, cascade=cascade)
        self._run(command, command_id, actor)

    def process_definitions(self, key: str | None = None) -> list[views.ProcessDefinition]:
        return self._queries.process_definitions(key)

    def deployment(self, deployment_id: str) -> views.Deployment | None:
        return self._queries.deployment(deployment_id)

    # -- decisions -------------------------------------------------------------------------

    def evaluate_decision(
        self,
        key: str | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        definition_id: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.DecisionResult:
        """Evaluate the latest version of the decision `key` (or a given definition id) over
        `variables` (decisionService.evaluateDecisionById/ByKey). The evaluation is recorded in
        the log with its inputs, matched rules and outputs; a violated hit policy or a failed
        expression raises and records nothing."""
        if key is None and definition_id is None:
            raise ValueError("evaluate_decision needs a decision key or a definition_id")
        command = cmd.EvaluateDecision(
            key=key, definition_id=definition_id, variables=dict(variables or {})
        )
        return cast(views.DecisionResult, self._run(command, command_id, actor))

    def decision_definitions(self, key: str | None = None) -> list[views.DecisionDefinition]:
        return self._queries.decision_definitions(key)

    def decision_definition(self, definition_id: str) -> views.DecisionDefinition:
        return self._queries.decision_definition(definition_id)

    def historic_decision_instances(
        self, *, include_inputs: bool = False, include_outputs: bool = False, **filters: Any
    ) -> list[views.HistoricDecisionInstance]:
        """Filters: the snake_case names of Camunda's historic decision instance query
        (decision_definition_key, process_instance_id, root_decision_instances_only, ...);
        oldest evaluation first."""
        return self._queries.historic_decision_instances(
            include_inputs=include_inputs, include_outputs=include_outputs, **filters
        )

    # -- process instances -----------------------------------------------------------------

    def start_process_instance(
        self,
        key: str | None = None,
        variables: Mapping[str, Any] | None = None,
        business_key: str | None = None,
        *,
        definition_id: str | None = None,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.ProcessInstance:
        """Start the latest version of the process `key` (or a given definition id)."""
        if key is None and definition_id is None:
            raise ValueError("start_process_instance needs a process key or a definition_id")
        command = cmd.StartProcessInstance(
            key=key,
            definition_id=definition_id,
            business_key=business_key,
            variables=dict(variables or {}),
        )
        return cast(views.ProcessInstance, self._run(command, command_id, actor))

    def delete_process_instance(
        self,
        process_instance_id: str,
        reason: str | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.DeleteProcessInstance(process_instance_id=process_instance_id, reason=reason)
        self._run(command, command_id, actor)

    def cleanup_history(self, *, batch_size: int = 500) -> views.CleanupReport:
        """Camunda's history cleanup: the history of every instance whose removal time (its end
        plus its time to live, `camunda:historyTimeToLive` or `Engine(history_time_to_live=)`)
        has passed is deleted, `batch_size` instances per query; then every decision evaluated
        over the API whose removal time (its evaluation plus its decision's time to live) has
        passed. Each deletion is a command in the log like `delete_historic_process_instance`,
        so a rebuild leaves them deleted and the events themselves stay."""
        if batch_size < 1:
            raise InvalidValue("batch_size must be at least 1", "batch_size")
        now = self.clock.now()
        removed = self._clean(
            now,
            batch_size,
            expired_instances,
            lambda i: cmd.DeleteHistoricProcessInstance(process_instance_id=i, cleanup=True),
        )
        decisions = self._clean(
            now,
            batch_size,
            expired_decisions,
            lambda i: cmd.DeleteHistoricDecisionInstance(decision_instance_id=i, cleanup=True),
        )
        return views.CleanupReport(
            removed=removed, at=truncate_ms(now), decisions_removed=decisions
        )

    def _clean(
        self,
        now: datetime,
        batch_size: int,
        expired: Callable[[Connection, datetime, int], list[str]],
        command: Callable[[str], cmd.Command],
    ) -> int:
        removed = 0
        refused: set[str] = set()  # found again by the query, but not removable: skip them
        while True:
            # Asynchronous history must show the removals of the batch before: the next query
            # would find the same ones again.
            self._history.flush()
            with self._db.read() as conn:
                found = expired(conn, now, batch_size + len(refused))
            due = [i for i in found if i not in refused][:batch_size]
            for entity_id in due:
                try:
                    self._run(command(entity_id), None, None)
                    removed += 1
                except NotFound:
                    refused.add(entity_id)
            if len(due) < batch_size:
                self._history.flush()  # the rows are gone when it returns, history async or not
                return removed

    def delete_historic_process_instance(
        self,
        process_instance_id: str,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's historyService.deleteHistoricProcessInstance: the finished instance's
        ACT_HI_* rows (instance, activities, tasks, variables, details) are deleted.

        The log keeps every event of the instance and appends this deletion to it: `events(id)`
        and `replay(id)` still show everything, and a rebuild leaves the rows deleted."""
        command = cmd.DeleteHistoricProcessInstance(process_instance_id=process_instance_id)
        self._run(command, command_id, actor)

    def process_instance(self, process_instance_id: str) -> views.ProcessInstance | None:
        return self._queries.process_instance(process_instance_id)

    def executions(self, process_instance_id: str) -> list[views.Execution]:
        return self._queries.executions(process_instance_id)

    def activity_instance_tree(self, process_instance_id: str) -> views.ActivityInstanceNode:
        """The runtime activity instance tree (Camunda's runtimeService.getActivityInstance)."""
        return self._queries.activity_instance_tree(process_instance_id)

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

    def suspend_process_definition(
        self,
        definition_id: str | None = None,
        *,
        key: str | None = None,
        include_instances: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """No new instance of the definition (by id, or every version of `key`) starts until
        it is activated; with `include_instances` its running instances are suspended too."""
        self._set_definition_suspended(
            True, definition_id, key, include_instances, command_id, actor
        )

    def activate_process_definition(
        self,
        definition_id: str | None = None,
        *,
        key: str | None = None,
        include_instances: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        self._set_definition_suspended(
            False, definition_id, key, include_instances, command_id, actor
        )

    def _set_definition_suspended(
        self,
        suspended: bool,
        definition_id: str | None,
        key: str | None,
        include_instances: bool,
        command_id: str | None,
        actor: str | None,
    ) -> None:
        command = cmd.SetProcessDefinitionSuspended(
            suspended=suspended,
            definition_id=definition_id,
            key=key,
            include_instances=include_instances,
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

    def event_subscriptions(self, **filters: Any) -> list[views.EventSubscription]:
        """Waiting catch events (ACT_RU_EVENT_SUBSCR), oldest first. Filters:
        process_instance_id, execution_id, event_name, event_type, activity_id."""
        return self._queries.event_subscriptions(**filters)

    # -- variables -------------------------------------------------------------------------

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

    def set_task_variables(
        self,
        task_id: str,
        variables: Mapping[str, Any],
        *,
        local: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.SetVariables(task_id=task_id, variables=dict(variables), local=local)
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

    def remove_task_variables(
        self,
        task_id: str,
        names: Sequence[str],
        *,
        local: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's taskService.removeVariables / removeVariablesLocal. `local` removes the
        task's own variables only; otherwise each name goes where the task sees it: the task's
        own variable, else the innermost execution scope above the task that has it. Names
        that are not there are ignored, as in Camunda."""
        command = cmd.RemoveVariables(task_id=task_id, names=list(names), local=local)
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
        return self._queries.variable_values(execution_id, local=local)

    def get_variables_typed(
        self, execution_id: str, *, local: bool = False
    ) -> dict[str, tuple[Any, str]]:
        """Like get_variables, with Camunda's type name: {"amount": (5, "Integer")}."""
        values = self.get_variable_values(execution_id, local=local)
        return {n: (from_stored(v), rest_type_name(v.type)) for n, v in values.items()}

    def get_task_variable_values(
        self, task_id: str, *, local: bool = False
    ) -> dict[str, StoredValue]:
        """Variables of a task as stored: its own (task-local) ones, and unless `local` those
        visible from its execution underneath."""
        return self._queries.task_variable_values(task_id, local=local)

    def get_task_variables(self, task_id: str, *, local: bool = False) -> dict[str, Any]:
        values = self.get_task_variable_values(task_id, local=local)
        return {n: from_stored(v) for n, v in values.items()}

    # -- user tasks ------------------------------------------------------------------------

    def tasks(self, **filters: Any) -> list[views.Task]:
        """Open user tasks. Filters: process_instance_id, assignee, candidate_user,
        candidate_group, candidate_groups, task_definition_key, name, unassigned, task_id,
        include_assigned_tasks."""
        return self._queries.tasks(**filters)

    def task_form_keys(self, tasks: Mapping[str, str]) -> dict[str, str | None]:
        """Task id -> `camunda:formKey` (evaluated at creation) for open tasks given as
        {task id: process instance id}."""
        return self._queries.task_form_keys(tasks)

    def task(self, task_id: str) -> views.Task:
        found = self.tasks(task_id=task_id)
        if not found:
            raise NotFound("Task", task_id)
        return found[0]

    def complete_task(
        self,
        task_id: str,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.CompleteTask(task_id=task_id, variables=dict(variables or {}))
        self._run(command, command_id, actor)

    def claim(
        self, task_id: str, user_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        self._run(cmd.ClaimTask(task_id=task_id, user_id=user_id), command_id, actor)

    def unclaim(
        self, task_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        self._run(cmd.UnclaimTask(task_id=task_id), command_id, actor)

    def set_assignee(
        self,
        task_id: str,
        user_id: str | None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        self._run(cmd.SetAssignee(task_id=task_id, user_id=user_id), command_id, actor)

    # -- external tasks --------------------------------------------------------------------

    def fetch_and_lock(
        self,
        worker_id: str,
        topics: Sequence[tuple[str, int]] | Mapping[str, int],
        max_tasks: int = 1,
        *,
        use_priority: bool = False,
        task_ids: Sequence[str] | None = None,
        command_id: str | None = None,
    ) -> list[views.ExternalTask]:
        """Lock up to `max_tasks` external tasks of the given topics: {topic: lock duration ms}.

        `task_ids` restricts the choice to those tasks (a caller that filtered candidates by
        more than their topic, such as the REST API's business key or variable filters)."""
        pairs = list(topics.items()) if isinstance(topics, Mapping) else list(topics)
        # Refused before the bus, so not recorded: the request itself is malformed.
        if max_tasks < 0:
            raise Rejected("maxTasks must not be negative")
        command = cmd.FetchAndLock(
            worker_id=worker_id,
            topics=[cmd.TopicRequest(t, d) for t, d in pairs],
            max_tasks=max_tasks,
            use_priority=use_priority,
            task_ids=None if task_ids is None else sorted(task_ids),
        )
        for topic, duration in pairs:
            if duration <= 0:
                raise Rejected(f"lockDuration of topic '{topic}' must be positive")
        return cast(list[views.ExternalTask], self._run_for_worker(command, command_id, worker_id))

    def external_tasks(self, **filters: Any) -> list[views.ExternalTask]:
        """External tasks. Filters: process_instance_id, topic_name, external_task_id."""
        return self._queries.external_tasks(**filters)

    def complete_external_task(
        self,
        external_task_id: str,
        worker_id: str,
        variables: Mapping[str, Any] | None = None,
        local_variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
    ) -> None:
        command = cmd.CompleteExternalTask(
            external_task_id=external_task_id,
            worker_id=worker_id,
            variables=dict(variables or {}),
            local_variables=dict(local_variables or {}),
        )
        self._run_for_worker(command, command_id, worker_id)

    def handle_external_task_failure(
        self,
        external_task_id: str,
        worker_id: str,
        error_message: str | None = None,
        *,
        error_details: str | None = None,
        retries: int = 0,
        retry_timeout: int = 0,
        variables: Mapping[str, Any] | None = None,
        local_variables: Mapping[str, Any] | None = None,
        command_id: str | None = None,
    ) -> None:
        """Report a failure; fetchable again `retry_timeout` ms later while retries remain."""
        command = cmd.HandleExternalTaskFailure(
            external_task_id=external_task_id,
            worker_id=worker_id,
            error_message=error_message,
            error_details=error_details,
            retries=retries,
            retry_timeout=retry_timeout,
            variables=dict(variables or {}),
            local_variables=dict(local_variables or {}),
        )
        self._run_for_worker(command, command_id, worker_id)

    def handle_external_task_bpmn_error(
        self,
        external_task_id: str,
        worker_id: str,
        error_code: str,
        error_message: str | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
    ) -> None:
        command = cmd.HandleExternalTaskBpmnError(
            external_task_id=external_task_id,
            worker_id=worker_id,
            error_code=error_code,
            error_message=error_message,
            variables=dict(variables or {}),
        )
        self._run_for_worker(command, command_id, worker_id)

    def extend_lock(
        self,
        external_task_id: str,
        worker_id: str,
        new_duration: int,
        *,
        command_id: str | None = None,
    ) -> None:
        command = cmd.ExtendExternalTaskLock(
            external_task_id=external_task_id, worker_id=worker_id, new_duration=new_duration
        )
        self._run_for_worker(command, command_id, worker_id)

    def unlock(
        self, external_task_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        self._run(cmd.UnlockExternalTask(external_task_id=external_task_id), command_id, actor)

    def set_external_task_retries(
        self,
        external_task_id: str,
        retries: int,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's externalTaskService.setRetries: negative is refused; at 0 the task is no
        longer fetched and a `failedExternalTask` incident opens, above 0 it is resolved."""
        command = cmd.SetExternalTaskRetries(external_task_id=external_task_id, retries=retries)
        self._run(command, command_id, actor)

    def set_external_task_priority(
        self,
        external_task_id: str,
        priority: int,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's externalTaskService.setPriority (fetch_and_lock with use_priority)."""
        command = cmd.SetExternalTaskPriority(external_task_id=external_task_id, priority=priority)
        self._run(command, command_id, actor)

    def external_task_error_details(self, external_task_id: str) -> str | None:
        """The error details of the task's last failure report that had any (Camunda's
        getExternalTaskErrorDetails), read from its ACT_GE_BYTEARRAY row; None if never."""
        return self._queries.external_task_error_details(external_task_id)

    # -- jobs and incidents ----------------------------------------------------------------

    def jobs(self, **filters: Any) -> list[views.Job]:
        """Timers and asynchronous continuations waiting to run. Filters: job_id,
        process_instance_id, execution_id, activity_id, handler_type, timers, messages,
        with_retries_left, no_retries_left, executable, with_exception."""
        if filters.get("executable"):
            filters["now"] = self.clock.now()
        return self._queries.jobs(**filters)

    def job_definitions(self, **filters: Any) -> list[views.JobDefinition]:
        """The kinds of job deployed activities make (ACT_RU_JOBDEF): a timer, or a continuation
        before or after. Filters: process_definition_id, process_definition_key, activity_id."""
        return self._queries.job_definitions(**filters)

    def job(self, job_id: str) -> views.Job:
        return self._queries.job(job_id)

    def job_stacktrace(self, job_id: str) -> str | None:
        """The stack trace of the job's last failure (managementService.getJobExceptionStack-
        trace); None when it has not failed."""
        return self._queries.job_stacktrace(job_id)

    def execute_job(
        self, job_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """Run the job now, due or not (managementService.executeJob). When its work raises,
        nothing of it is kept, the failure is recorded on the job (retries down, an incident at
        0) and JobFailure is raised to the caller."""
        try:
            self._run(cmd.ExecuteJob(job_id=job_id), command_id, actor)
        except JobFailure as failure:
            self._record_failure(failure, actor)
            raise

    def _record_failure(
        self, failure: JobFailure, actor: str | None, via: str | None = None
    ) -> None:
        command = _failure_command(failure)
        self._run(command, None, actor, via)

    def start_job_executor(self, settings: JobExecutorSettings | None = None) -> None:
        """Run due jobs in background threads from now on (`Engine(job_executor=True)` does this
        at once; an application that registers delegates first starts it after them)."""
        if self._job_executor is not None:
            return
        self._job_executor = JobExecutor(
            self._run_leased_job, self._db.write, self._db.read, self.clock, settings
        )
        self._bus.add_commit_listener(self._job_executor.wake)
        self._job_executor.start()

    def _run_leased_job(self, job_id: str) -> bool:
        """The job executor's way to run a job it leased: False when it failed (recorded)."""
        # Never the actor of this view: the executor is no user (whoever started the engine or
        # called run_due_jobs), and its runs are no user's operations.
        try:
            self._bus.execute(cmd.ExecuteJob(job_id=job_id), actor=None, via=VIA_JOB_EXECUTOR)
        except JobFailure as failure:
            self._bus.execute(_failure_command(failure), actor=None, via=VIA_JOB_EXECUTOR)
            return False
        except NotFound:
            pass  # gone meanwhile: another executor ran it, or its activity ended
        return True

    def job_executor_health(self) -> JobExecutorHealth | None:
        """What the background job executor did so far; None when this engine runs none."""
        return None if self._job_executor is None else self._job_executor.health()

    def run_due_jobs(self, *, max_jobs: int = 100_000) -> int:
        """Run every job that is due by the engine's clock, and those the runs make due, until
        none is left; failures are recorded on their jobs, not raised. For tests and scripts
        on a controllable clock (a serving engine's job executor does this in the background).
        Returns how many jobs ran, failed ones included; stops after `max_jobs`."""
        ran = 0
        while ran < max_jobs:
            due = self._queries.due_jobs(self.clock.now(), min(max_jobs - ran, 1000))
            if not due:
                return ran
            for job_id in due:
                ran += 1
                self._run_leased_job(job_id)
        return ran

    def set_job_retries(
        self,
        job_id: str,
        retries: int,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """managementService.setJobRetries: above 0 a failed job runs again and its incident
        is resolved; 0 opens one."""
        self._run(cmd.SetJobRetries(job_id=job_id, retries=retries), command_id, actor)

    def suspend_job(
        self, job_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """managementService.suspendJobById: no executor runs the job until it is activated."""
        self._run(cmd.SetJobSuspended(job_id=job_id, suspended=True), command_id, actor)

    def activate_job(
        self, job_id: str, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        self._run(cmd.SetJobSuspended(job_id=job_id, suspended=False), command_id, actor)

    def set_job_priority(
        self, job_id: str, priority: int, *, command_id: str | None = None, actor: str | None = None
    ) -> None:
        """managementService.setJobPriority: the order of an executor that acquires by
        priority (JobExecutorSettings.acquire_by_priority)."""
        self._run(cmd.SetJobPriority(job_id=job_id, priority=priority), command_id, actor)

    def set_job_due_date(
        self,
        job_id: str,
        due_date: datetime | None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        if due_date is not None and due_date.tzinfo is None:
            due_date = due_date.replace(tzinfo=UTC)
        command = cmd.SetJobDueDate(
            job_id=job_id, due_date=None if due_date is None else truncate_ms(due_date)
        )
        self._run(command, command_id, actor)

    def incidents(self, **filters: Any) -> list[views.Incident]:
        """Open incidents. Filters: incident_id, incident_type, process_instance_id,
        execution_id, activity_id, configuration."""
        return self._queries.incidents(**filters)

    def resolve_incident(self, incident_id: str, *, actor: str | None = None) -> None:
        """runtimeService.resolveIncident: only custom incidents are resolved by hand; a failed
        job's is resolved by giving the job retries, a failed external task's likewise."""
        found = self._queries.incidents(incident_id=incident_id)
        if not found:
            raise NotFound("Incident", incident_id)
        raise Rejected(
            f"Cannot resolve an incident of type {found[0].incident_type}: set the retries of "
            f"its {'job' if found[0].incident_type == 'failedJob' else 'external task'} "
            f"'{found[0].configuration}' above 0 instead"
        )

    def historic_incidents(self, **filters: Any) -> list[views.HistoricIncident]:
        return self._queries.historic_incidents(**filters)

    def historic_job_logs(self, **filters: Any) -> list[views.HistoricJobLog]:
        return self._queries.historic_job_logs(**filters)

    # -- history ---------------------------------------------------------------------------

    def historic_process_instances(self, **filters: Any) -> list[views.HistoricProcessInstance]:
        """Filters: process_instance_id, process_definition_key, finished."""
        return self._queries.historic_process_instances(**filters)

    def historic_process_instance(self, process_instance_id: str) -> views.HistoricProcessInstance:
        found = self.historic_process_instances(process_instance_id=process_instance_id)
        if not found:
            raise NotFound("Historic process instance", process_instance_id)
        return found[0]

    def historic_activity_instances(
        self, process_instance_id: str
    ) -> list[views.HistoricActivityInstance]:
        return self._queries.historic_activity_instances(process_instance_id)

    def historic_task_instances(
        self, process_instance_id: str | None = None
    ) -> list[views.HistoricTaskInstance]:
        return self._queries.historic_task_instances(process_instance_id)

    def historic_variable_instances(
        self, process_instance_id: str | None = None
    ) -> list[views.HistoricVariableInstance]:
        return self._queries.historic_variable_instances(process_instance_id)

    # -- the log: audit, replay, verification ----------------------------------------------

    def events(self, process_instance_id: str) -> list[views.RecordedEvent]:
        """Every recorded event of an instance (or deployment) stream, in order."""
        return self._audit.events(process_instance_id)

    def replay(self, process_instance_id: str, until_position: int | None = None) -> InstanceState:
        """The instance's state as it was right after the event at `until_position` (or now)."""
        return self._audit.replay(process_instance_id, until_position)

    def state_at(
        self,
        process_instance_id: str,
        *,
        position: int | None = None,
        moment: datetime | None = None,
    ) -> PointInTime:
        """The instance as it was after its last event at or before `position` (a log position)
        or recorded at or before `moment`: the state, and where and when that event is. A
        point beyond the log's end or before the instance began is refused (InvalidValue)."""
        return self._inspection.state_at(process_instance_id, position=position, moment=moment)

    def timeline(self, process_instance_id: str) -> list[audit_trail.TimelineEntry]:
        """What happened to the instance, step by step: when, at which activity, who did it
        (actor and channel) and which variables changed. Read from the log, so it is complete
        at every history level."""
        return self._inspection.timeline(process_instance_id)

    def why(self, process_instance_id: str, position: int) -> list[audit_trail.Cause]:
        """The command that wrote the event at `position`, then the command that created what
        that one acted on (the task, job, subscription, ...), back to the instance's start."""
        return self._inspection.why(process_instance_id, position)

    def verify(
        self,
        *,
        expect_anchor: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        instance: str | None = None,
    ) -> views.VerificationReport:
        """Check the hash chains and the command log, replay every instance, rebuild every
        projection into temporary tables and compare with the live state and tables. An empty
        `problems` list means all agree; `anchor` is the digest of the log as read.

        `expect_anchor`: an anchor an earlier `verify` reported (`POSITION:DIGEST`, kept
        outside the database); the log up to that position must still digest to it.
        `progress(commits done, commits in the log)` is called as the log is read.

        `instance`: only that instance, quickly: its chain, its commands, its replay against
        the state served, and its rows against a rebuild of its own commits (and its
        deployment's). The log-wide checks (gaps, anchor) need the whole log."""
        if instance is not None:
            if expect_anchor is not None:
                raise InvalidValue("an anchor covers the whole log: verify it without instance")
            return self._audit.verify_instance(instance)
        return self._audit.verify(expect_anchor, progress)

    def export_instance(self, process_instance_id: str, path: str | Path) -> views.PackageSummary:
        """Write the instance's audit package to `path`: its commits (and those of the instances
        it called and of their deployments) with hashes and chain heads, their commands, the
        definition files and this engine's version."""
        return self._packages.export(process_instance_id, Path(path))

    def export_log(self, path: str | Path) -> views.PackageSummary:
        """Write the whole log (every stream, every command) as one audit package: a backup
        that loads into a fresh database of any kind, hashes intact."""
        return self._packages.export_log(Path(path))

    def import_package(self, path: str | Path) -> views.PackageSummary:
        """Load an audit package after checking every hash in it (nothing is written when one
        fails), then rebuild the tables: the instance replays, shows its history and verifies
        here as where it was exported. The log must end before the package's first position
        (a fresh database); InvalidValue says what is wrong otherwise."""
        return self._packages.load(Path(path))

    def head(self, progress: Callable[[int, int], None] | None = None) -> views.LogHead:
        """The log's anchor now (`POSITION:DIGEST`): kept outside the database, a later
        `verify(expect_anchor=...)` proves nothing up to it was rewritten since."""
        return self._audit.head(progress)

    def rebuild(
        self,
        projection: str = "all",
        *,
        history_level: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        batch_events: int = 20_000,
    ) -> views.RebuildReport:
        """Rebuild the `runtime`, `history` or `all` projection tables from the log while
        commands go on: into shadow tables in checkpointed batches (an interrupted rebuild goes
        on from its checkpoint when run again with the same options), then swapped in, with the
        commits that arrived meanwhile, in one transaction. The replaced rows stay in
        `old_<table>` tables until `drop_old_tables()`. With `history_level`, history is built
        at that level and the level recorded: raising it fills history for the past."""
        return self._rebuild.run(projection, history_level, progress, batch_events)

    def drop_old_tables(self) -> list[str]:
        """Drop the `old_<table>` copies the last rebuild kept; the names dropped."""
        return self._rebuild.drop_old()

    def rebuild_projections(self) -> views.RebuildReport:
        """Rewrite every ACT_* table from the log, in one transaction: for a schema change, or
        tables someone edited by hand. Commands wait until it is done."""
        return self._audit.rebuild_projections()

    @property
    def history_level(self) -> str:
        """The level the history tables are built at ('none', 'activity', 'audit', 'full'),
        recorded in the database (ACT_GE_PROPERTY historyLevel)."""
        return self._history.level

    def set_history_level(self, level: str) -> views.RebuildReport:
        """Build history at `level` from now on, and for the past: every table is rebuilt from
        the log at the new level, in one transaction, and the level recorded with it. Raising
        it loses nothing (the log holds every change); lowering it drops the rows above it.

        Other engines on the database should be stopped first, as for a schema migration: an
        engine with inline history keeps writing at the level it opened with until it is
        started again (`verify` would report its rows). Asynchronous followers switch by
        themselves with their next batch."""
        return self._audit.rebuild_projections(history_level=level)


def _failure_command(failure: JobFailure) -> cmd.HandleJobFailure:
    return cmd.HandleJobFailure(
        job_id=failure.job_id,
        error_message=failure.message,
        stacktrace=failure.stacktrace,
        failed_activity_id=failure.failed_activity_id,
    )


def _resources(source: Source) -> list[cmd.ResourceInput]:
    def data(value: bytes | str) -> bytes:
        return value.encode() if isinstance(value, str) else bytes(value)

    if isinstance(source, Mapping):
        return [cmd.ResourceInput(name, data(value)) for name, value in source.items()]
    if isinstance(source, Path):
        return [cmd.ResourceInput(source.name, source.read_bytes())]
    if isinstance(source, bytes):
        return [cmd.ResourceInput("process.bpmn", source)]
    if isinstance(source, str):
        if source.lstrip().startswith("<"):
            return [cmd.ResourceInput("process.bpmn", source.encode())]
        path = Path(source)
        if not path.is_file():
            raise NotFound("BPMN file", source)
        return [cmd.ResourceInput(path.name, path.read_bytes())]
    return [cmd.ResourceInput(name, data(value)) for name, value in source]


def _start_checkpointer(url: str, synchronous: str) -> Checkpointer | None:
    """A WAL checkpoint thread for a SQLite file, started; None elsewhere or when it cannot.

    Not with synchronous FULL or EXTRA: there every commit syncs the log, and a checkpoint's
    syncs of the same files beside it cost the commits more than the checkpoints they skip
    (usertask_gateway 10-15 % slower, measured)."""
    path = sqlite_file(url)
    if path is None or synchronous.upper() not in ("OFF", "NORMAL"):
        return None
    checkpointer = Checkpointer(path)
    return checkpointer if checkpointer.start() else None


def _close_at_exit(ref: weakref.ref[Engine]) -> None:
    engine = ref()
    if engine is not None and engine._history.worker is not None:
        engine.close()
