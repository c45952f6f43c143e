"""The composition root: builds the engine's parts once (database, log, stream store, command
bus and handlers, history lifecycle, audit readers, job runs) and the services over them.

`Engine` is what users hold. Its services carry the verbs, named as Camunda's `ProcessEngine`
names them; the engine itself keeps the lifecycle, configuration and the README's conveniences.
"""

from __future__ import annotations

import atexit
import copy
import warnings
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Connection

from flowledger import migrations
from flowledger.core import views
from flowledger.core.batches.model import BatchSettings
from flowledger.core.budget import COMMAND_SECONDS
from flowledger.core.clock import Clock, SystemClock
from flowledger.core.errors import InvalidValue, SchemaMismatch
from flowledger.core.limits import MAX_HISTORY_TTL_DAYS, MAX_VIA, check_text
from flowledger.core.state import InstanceState
from flowledger.engine.audit.inspection import Inspection
from flowledger.engine.audit.log_reader import Audit
from flowledger.engine.audit.packages import Packages
from flowledger.engine.audit.rebuild import Rebuild
from flowledger.engine.commands.bus import VIA_PYTHON, CommandBus
from flowledger.engine.commands.handlers import AFTER_DECISION, HANDLERS
from flowledger.engine.commands.unit_of_work import Wiring
from flowledger.engine.lookups import deferred_table
from flowledger.engine.outbound import Outbound, OutboundPolicy
from flowledger.engine.personal_data.keys import SubjectKeys
from flowledger.engine.personal_data.opening import Opener
from flowledger.engine.services.audit import AuditService
from flowledger.engine.services.base import Caller, EngineParts
from flowledger.engine.services.decisions import DecisionService
from flowledger.engine.services.external_tasks import ExternalTaskService
from flowledger.engine.services.forms import FormService
from flowledger.engine.services.history import HistoryService
from flowledger.engine.services.management import ManagementService
from flowledger.engine.services.personal_data import PersonalDataService
from flowledger.engine.services.repository import RepositoryService, Source
from flowledger.engine.services.runtime import RuntimeService
from flowledger.engine.services.tasks import TaskService
from flowledger.engine.storage.codec import make_codec
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.database import create_database, is_memory_url, sqlite_file
from flowledger.engine.storage.state_cache import DEFAULT_MAX_BYTES
from flowledger.engine.storage.streams import Repository
from flowledger.engine.workers import head_targets
from flowledger.engine.workers.checkpointer import Checkpointer
from flowledger.engine.workers.deferred_projection import (
    ASYNC_HISTORY,
    DeferredProjection,
    check_projection,
)
from flowledger.engine.workers.exporters import ExporterHealth, ExporterSettings, TargetSpec
from flowledger.engine.workers.exporters import status as exporter_status
from flowledger.engine.workers.exporters.runner import Exporter
from flowledger.engine.workers.exporters.status import ExporterStatus
from flowledger.engine.workers.exporters.wiring import make_exporter
from flowledger.engine.workers.head_publisher import HeadPublisher, HeadPublisherHealth
from flowledger.engine.workers.history_lifecycle import HistoryLifecycle, check_mode, resolve_level
from flowledger.engine.workers.job_executor import JobExecutorSettings
from flowledger.engine.workers.job_runs import JobRuns
from flowledger.engine.workers.tree_follower import TreeFollower, TreeHealth
from flowledger.eventlog import EventStore
from flowledger.projections.changes import SqlRowStore
from flowledger.projections.deferred import DeferredFollower

DEFAULT_URL = "sqlite:///flowledger.db"
HEAD_INTERVAL = 300.0  # seconds between signed heads a server publishes (while the log grows)
# The projection of a new SQLite file when none is asked for (issue 33: it beats inline in the
# benchmark and CI passes in it); server databases and in-memory SQLite start inline.
DEFAULT_SQLITE_PROJECTION = "deferred"


class Engine:
    """flowledger's public entry point, as Camunda's `ProcessEngine`: its services hold the
    verbs (`engine.runtime_service.start_process_instance(...)`, `engine.task_service.complete(
    ...)`, ...); a few conveniences forward the calls most scripts make.

    `Engine()` keeps everything in `flowledger.db` in the working directory; any SQLAlchemy URL
    for SQLite, PostgreSQL (postgresql+psycopg://) or MySQL/MariaDB (mysql+pymysql://) works.
    """

    repository_service: RepositoryService
    runtime_service: RuntimeService
    task_service: TaskService
    form_service: FormService
    external_task_service: ExternalTaskService
    management_service: ManagementService
    decision_service: DecisionService
    history_service: HistoryService
    audit_service: AuditService

    def __init__(
        self,
        url: str | None = None,
        *,
        clock: Clock | None = None,
        allow_scripts: bool = False,
        history_level: str | None = None,
        history_mode: str = "inline",
        projection: str | None = None,
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
        projection = check_projection(projection, history_mode)
        if projection == ASYNC_HISTORY:
            history_mode = "async"
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
        self._head_publisher: HeadPublisher | None = None
        self._exporters: list[Exporter] = []
        self._tree: TreeFollower | None = None
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
        # Personal values are sealed in the log and opened as it is read (engine/personal_data).
        self.personal_keys = SubjectKeys(self._db.read_unchecked)
        self._codec.opener = Opener(self.personal_keys)
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
        self._deferred = self._deferred_projection(projection, rows, sqlite_synchronous)
        # Before anything projects: the rebuilds and history's own paths drain it first.
        self._history.deferred = self._deferred
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
            deferred=None if self._deferred is None else deferred_table,
            catch_up=None if self._deferred is None else self._deferred.within,
            catch_up_beside=None if self._deferred is None else self._deferred.beside,
            personal_keys=self.personal_keys,
            batches=_batch_settings(job_executor_settings or JobExecutorSettings()),
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
        if self._deferred is not None:
            self._bus.add_commit_listener(self._deferred.committed)
        audit = Audit(self._db, self._store, self._codec, rows, self._repository, self._history)
        rebuild = Rebuild(self._db, self._store, self._repository, self._history)
        self._parts = EngineParts(
            db=self._db,
            store=self._store,
            streams=self._repository,
            bus=self._bus,
            history=self._history,
            audit=audit,
            inspection=Inspection(self._db, self._store, self._repository),
            packages=Packages(self._db, self._store, self._repository, audit),
            rebuild=rebuild,
            jobs=JobRuns(self._bus, self._db, self.clock),
            outbound=self.outbound,
            clock=self.clock,
            personal_keys=self.personal_keys,
        )
        # What the schema revisions applied at this start rebuilt (None: nothing to rebuild).
        self.migration_rebuild = rebuild.after_migration(invalidated)
        self._owner = True  # False for a view (acting_as): it closes nothing
        self._bind(Caller(actor=None, via=VIA_PYTHON))
        started = False
        if self._deferred is not None:
            self._deferred.start()
            self._db.barrier = self._deferred.barrier
            started = True
        if job_executor:
            self.start_job_executor(job_executor_settings)
        if self._history.start() or started:
            # A script that never calls close() still leaves history complete when it exits.
            atexit.register(_close_at_exit, weakref.ref(self))

    def _bind(self, caller: Caller) -> None:
        """The services, acting for `caller`."""
        parts = self._parts
        self._caller = caller
        self.repository_service = RepositoryService(parts, caller)
        self.runtime_service = RuntimeService(parts, caller)
        self.task_service = TaskService(parts, caller, self.runtime_service)
        self.form_service = FormService(parts, caller, self.task_service, self.runtime_service)
        self.external_task_service = ExternalTaskService(parts, caller)
        self.management_service = ManagementService(parts, caller)
        self.decision_service = DecisionService(parts, caller)
        self.history_service = HistoryService(parts, caller)
        self.audit_service = AuditService(parts, caller)
        self.personal_data_service = PersonalDataService(parts, caller)

    # -- lifecycle -------------------------------------------------------------------------

    def publish_heads(
        self,
        signing_key: str | Path,
        target: str | Path,
        *,
        every: float = HEAD_INTERVAL,
        origin: str | None = None,
    ) -> HeadPublisher:
        """Sign the log's tree head with the key in `signing_key` (`flowledger audit keygen`)
        every `every` seconds while the log grows, appending each to the file of published heads
        `target`, or publishing each to a NATS stream when `target` is
        `nats://HOST:PORT/STREAM[/subject]` (what `flowledger serve --signing-key --publish-heads`
        runs). KeyFileError names a key that cannot be used; `head_publisher_health()` says how
        it goes."""
        from flowledger.eventlog import signed_heads  # cryptography, only for those who sign

        key_path = Path(signing_key)
        key = signed_heads.load_private(key_path)
        name = signed_heads.key_name(key_path)
        publisher = HeadPublisher(
            lambda: self.audit_service.signed_head(key, name, origin=origin),
            head_targets.parse(target),
            every,
            self.log_position,
        )
        if self._head_publisher is not None:
            self._head_publisher.stop()
        self._head_publisher = publisher
        publisher.start()
        return publisher

    def start_tree_follower(self) -> TreeFollower:
        """Keep the Merkle tree's stored tiles up to the log in a thread (what `flowledger
        serve` runs), so that proofs read O(log n) tiles; `tree_health()` says how far it is."""
        if self._tree is None:
            self._tree = TreeFollower(self._db, self._store)
            self._bus.add_commit_listener(self._tree.committed)
            self._tree.start()
        return self._tree

    def tree_health(self) -> TreeHealth | None:
        """How the tiles follow the log; None when this engine runs no tree follower."""
        return None if self._tree is None else self._tree.health()

    def head_publisher_health(self) -> HeadPublisherHealth | None:
        """How the publishing of signed heads goes; None when this engine publishes none."""
        return None if self._head_publisher is None else self._head_publisher.health()

    def start_exporter(
        self,
        target: str,
        *,
        origin: str | None = None,
        settings: ExporterSettings | None = None,
    ) -> Exporter:
        """Stream every committed event, in log order, as CloudEvents to `target`: `[NAME=]URL`
        with URL `file:PATH`, `nats://HOST:PORT/STREAM[/subject.prefix]` or `https://…` (on the
        outbound allow-list); what `flowledger serve --export` runs. Its position is stored as
        `exporter:NAME`; `exporters_health()` says how it goes. ValueError names a bad target."""
        spec = TargetSpec.parse(target)
        if any(e.name == spec.name for e in self._exporters):
            raise ValueError(f"an exporter named {spec.name!r} runs already (name it: NAME=URL)")
        exporter = make_exporter(
            spec,
            db=self._db,
            store=self._store,
            codec=self._codec,
            policy=self.outbound.policy,
            origin=origin,
            settings=settings,
        )
        self._bus.add_commit_listener(exporter.committed)
        self._exporters.append(exporter)
        exporter.start()
        return exporter

    def exporters_health(self) -> list[ExporterHealth]:
        """How this engine's exporters go (empty when it runs none)."""
        if not self._exporters:
            return []
        head = self.log_position()
        return [e.health(head) for e in self._exporters]

    def exporters_status(self) -> list[ExporterStatus]:
        """Every exporter's stored position in the database, whichever process runs it."""
        with self._db.read_unchecked() as conn:
            return exporter_status.stored(conn, self._store)

    def close(self) -> None:
        """Stop background work (history is brought up to date first) and release the pool.

        A history follower that stopped at a commit it cannot project does not keep the engine
        from closing: the failure stays recorded for the next start, and is logged again.
        Closing a view (`acting_as`) leaves the engine it views open."""
        if not self._owner:
            return
        if self._head_publisher is not None:
            self._head_publisher.stop()
        for exporter in self._exporters:
            exporter.stop()
        if self._tree is not None:
            self._tree.stop()
        self._parts.jobs.stop()
        if self._deferred is not None:
            self._deferred.stop()  # every row written: readers need no barrier any more
            self._db.barrier = None
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
        view._owner = False
        view._bind(Caller(actor=actor, via=self._caller.via if via is None else via))
        return view

    # -- configuration ---------------------------------------------------------------------

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
        """A read-only connection on the projection tables, for the lists of
        `projections.queries` the services do not offer (the REST API's filtered lists)."""
        with self._db.read() as conn:
            yield conn

    def log_position(self) -> int:
        """Position of the newest event in the log: it moves whenever any engine commits."""
        with self._db.read() as conn:
            return self._store.head_position(conn)

    @property
    def history_mode(self) -> str:
        """`inline` or `async` (`projection` says the same and more: `async-history` is
        `async`); an inline engine joins an asynchronous follower it finds."""
        return self._history.mode

    @property
    def projection(self) -> str:
        """`inline` (commands write every row), `deferred` (a follower writes them behind the
        log, in batches) or `async-history` (commands write runtime rows, a follower history)."""
        if self._deferred is not None:
            return "deferred"
        return ASYNC_HISTORY if self._history.mode == "async" else "inline"

    def _deferred_projection(
        self, asked: str | None, rows: SqlRowStore, sqlite_synchronous: str
    ) -> DeferredProjection | None:
        """The deferred projection of this engine (None: inline), the database converted to
        the mode asked for; without one, the database's own mode."""
        history = self._history
        deferred = DeferredProjection(
            self._db,
            self._store,
            lambda: DeferredFollower(
                self._store, self._codec, history.projector, rows, deferred_table
            ),
            lambda: self._bus.inside_command(),
            url=self.url,
            history_level=lambda: history.level,
            sqlite_synchronous=sqlite_synchronous,
        )
        stored = DeferredProjection.stored_mode(self._db, self._store)
        mode = asked or stored
        if asked is None and stored == "inline" and self._new_sqlite_file():
            mode = DEFAULT_SQLITE_PROJECTION
        if asked == ASYNC_HISTORY:
            mode = "inline"  # runtime rows in each command; the history follower starts later
        if mode == "deferred":
            history.end_async()
            deferred.enable()
            return deferred
        if stored == "deferred":
            deferred.disable()
        return None

    def _new_sqlite_file(self) -> bool:
        """A SQLite file nothing has been committed to yet: it takes the SQLite default. (An
        in-memory database keeps inline: a follower there is a thread of this process, which
        would only take turns with the commands for the interpreter.)"""
        if self._db.db.dialect.name != "sqlite" or self._db.memory:
            return False
        with self._db.read_unchecked() as conn:
            return self._store.head_position(conn) == 0

    def close_early(self) -> None:
        """Release what the constructor opened so far (a refused configuration)."""
        self._db.close()
        if self._checkpointer is not None:
            self._checkpointer.stop()

    @property
    def history_level(self) -> str:
        """The level the history tables are built at ('none', 'activity', 'audit', 'full')."""
        return self._history.level

    # -- conveniences: the calls of the README, forwarded to their service ------------------

    def deploy(self, source: Source, name: str | None = None, **options: Any) -> views.Deployment:
        """`repository_service.deploy`."""
        return self.repository_service.deploy(source, name, **options)

    def start_process_instance(
        self,
        key: str | None = None,
        variables: Mapping[str, Any] | None = None,
        business_key: str | None = None,
        **options: Any,
    ) -> views.ProcessInstance:
        """`runtime_service.start_process_instance`."""
        return self.runtime_service.start_process_instance(key, variables, business_key, **options)

    def tasks(self, **filters: Any) -> list[views.Task]:
        """`task_service.tasks`."""
        return self.task_service.tasks(**filters)

    def claim(self, task_id: str, user_id: str, **options: Any) -> None:
        """`task_service.claim`."""
        self.task_service.claim(task_id, user_id, **options)

    def complete_task(
        self, task_id: str, variables: Mapping[str, Any] | None = None, **options: Any
    ) -> None:
        """`task_service.complete`."""
        self.task_service.complete(task_id, variables, **options)

    def evaluate_decision(
        self, key: str | None = None, variables: Mapping[str, Any] | None = None, **options: Any
    ) -> views.DecisionResult:
        """`decision_service.evaluate_decision`."""
        return self.decision_service.evaluate_decision(key, variables, **options)

    def historic_activity_instances(
        self, process_instance_id: str
    ) -> list[views.HistoricActivityInstance]:
        """`history_service.historic_activity_instances`."""
        return self.history_service.historic_activity_instances(process_instance_id)

    def flush_history(self) -> None:
        """`history_service.flush_history`."""
        self.history_service.flush_history()

    def history_health(self) -> views.HistoryHealth:
        """`history_service.history_health`."""
        return self.history_service.history_health()

    def start_projection_follower(self) -> None:
        """Deferred projection: start the follower process now rather than after the engine's
        first 100 commits (what a long-running server does); nothing inline."""
        if self._deferred is not None:
            self._deferred.start_follower()

    def projection_health(self) -> views.ProjectionHealth:
        """Where runtime and history rows are written, and how far behind the log they are."""
        if self._deferred is None:
            return views.ProjectionHealth("UP", "inline", "inline", 0, None)
        return self._deferred.health()

    def limits_health(self) -> dict[str, Any]:
        """`management_service.limits_health`."""
        return self.management_service.limits_health()

    def start_job_executor(self, settings: JobExecutorSettings | None = None) -> None:
        """`management_service.start_job_executor`."""
        self.management_service.start_job_executor(settings)

    def run_due_jobs(self, *, max_jobs: int = 100_000) -> int:
        """`management_service.run_due_jobs`."""
        return self.management_service.run_due_jobs(max_jobs=max_jobs)

    def events(self, process_instance_id: str) -> list[views.RecordedEvent]:
        """`audit_service.events`."""
        return self.audit_service.events(process_instance_id)

    def replay(self, process_instance_id: str, until_position: int | None = None) -> InstanceState:
        """`audit_service.replay`."""
        return self.audit_service.replay(process_instance_id, until_position)

    def verify(self, **options: Any) -> views.VerificationReport:
        """`audit_service.verify`."""
        return self.audit_service.verify(**options)

    def rebuild_projections(self) -> views.RebuildReport:
        """`audit_service.rebuild_projections`."""
        return self.audit_service.rebuild_projections()

    if not TYPE_CHECKING:
        # The flat names of flowledger 0.1 (`engine.jobs()`, `engine.set_job_retries(...)`, ...)
        # still answer, forwarded to their service with a DeprecationWarning; typed code (and
        # every caller inside flowledger) uses the services.

        def __getattr__(self, name: str) -> Any:
            found = FORMER_NAMES.get(name)
            if found is None or name.startswith("__"):
                raise AttributeError(f"'Engine' object has no attribute {name!r}")
            service, verb = found
            warnings.warn(
                f"Engine.{name} is deprecated: use engine.{service}.{verb}",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(getattr(self, service), verb)


# Flat names of flowledger 0.1 -> (service attribute, verb). The conveniences above are not here.
FORMER_NAMES: dict[str, tuple[str, str]] = {
    **{
        name: ("repository_service", name)
        for name in (
            "delete_deployment",
            "deployment",
            "process_definitions",
            "decision_definitions",
            "decision_definition",
            "suspend_process_definition",
            "activate_process_definition",
        )
    },
    **{
        name: ("runtime_service", name)
        for name in (
            "delete_process_instance",
            "process_instance",
            "executions",
            "activity_instance_tree",
            "trigger",
            "correlate_message",
            "message_event_received",
            "suspend_process_instance",
            "activate_process_instance",
            "set_process_instances_suspended",
            "signal",
            "event_subscriptions",
            "set_variables",
            "remove_variables",
            "get_variables",
            "get_variable",
            "get_variable_values",
            "get_variables_typed",
            "incidents",
            "resolve_incident",
        )
    },
    "task": ("task_service", "task"),
    "task_form_keys": ("task_service", "form_keys"),
    "unclaim": ("task_service", "unclaim"),
    "set_assignee": ("task_service", "set_assignee"),
    "set_task_variables": ("task_service", "set_variables"),
    "remove_task_variables": ("task_service", "remove_variables"),
    "get_task_variables": ("task_service", "get_variables"),
    "get_task_variable_values": ("task_service", "get_variable_values"),
    "fetch_and_lock": ("external_task_service", "fetch_and_lock"),
    "external_tasks": ("external_task_service", "external_tasks"),
    "complete_external_task": ("external_task_service", "complete"),
    "handle_external_task_failure": ("external_task_service", "handle_failure"),
    "handle_external_task_bpmn_error": ("external_task_service", "handle_bpmn_error"),
    "extend_lock": ("external_task_service", "extend_lock"),
    "unlock": ("external_task_service", "unlock"),
    "set_external_task_retries": ("external_task_service", "set_retries"),
    "set_external_task_priority": ("external_task_service", "set_priority"),
    "external_task_error_details": ("external_task_service", "error_details"),
    **{
        name: ("management_service", name)
        for name in (
            "jobs",
            "job_definitions",
            "job",
            "job_stacktrace",
            "execute_job",
            "job_executor_health",
            "set_job_retries",
            "suspend_job",
            "activate_job",
            "set_job_priority",
            "set_job_due_date",
        )
    },
    **{
        name: ("history_service", name)
        for name in (
            "historic_decision_instances",
            "historic_process_instances",
            "historic_process_instance",
            "historic_task_instances",
            "historic_variable_instances",
            "historic_incidents",
            "historic_job_logs",
            "delete_historic_process_instance",
            "cleanup_history",
            "history_lag",
            "set_history_level",
        )
    },
    **{
        name: ("audit_service", name)
        for name in (
            "state_at",
            "timeline",
            "why",
            "export_instance",
            "export_log",
            "import_package",
            "head",
            "rebuild",
            "drop_old_tables",
        )
    },
}


def _batch_settings(settings: JobExecutorSettings) -> BatchSettings:
    """The batch numbers of the job executor's settings, checked (InvalidValue names the one)."""
    try:
        return BatchSettings(
            settings.batch_jobs_per_seed,
            settings.invocations_per_batch_job,
            settings.batch_poll_time,
        )
    except ValueError as exc:
        raise InvalidValue(str(exc)) from None


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
