"""Camunda's ExternalTaskService: workers fetch and lock external tasks by topic, then complete
them or report a failure or a BPMN error; operators unlock them and set retries and priority.

A worker's commands are recorded as issued by the worker, unless the engine is a view acting
as a user (`Engine.acting_as`): then by that user.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.batches.model import SET_EXTERNAL_TASK_RETRIES
from flowledger.core.errors import NotFound, Rejected
from flowledger.engine.services.base import Service
from flowledger.engine.services.management import ManagementService
from flowledger.projections.queries import reads
from flowledger.projections.queries.batches import Batch


class ExternalTaskService(Service):
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
        with self._parts.db.read() as conn:
            return reads.external_tasks(conn, **filters)

    def complete(
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

    def handle_failure(
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

    def handle_bpmn_error(
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

    def set_retries(
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

    def set_priority(
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

    def error_details(self, external_task_id: str) -> str | None:
        """The error details of the task's last failure report that had any (Camunda's
        getExternalTaskErrorDetails), read from its ACT_GE_BYTEARRAY row; None if never."""
        with self._parts.db.read() as conn:
            exists, details = reads.external_task_error_details(conn, external_task_id)
        if not exists:
            raise NotFound("External task", external_task_id)
        return details

    def _run_for_worker(self, command: cmd.Command, command_id: str | None, worker_id: str) -> Any:
        return self._run(command, command_id, worker_id if self._caller.actor is None else None)

    def set_retries_async(
        self,
        external_task_ids: Sequence[str],
        retries: int,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> Batch:
        """externalTaskService.setRetriesAsync: a batch setting each task's retries as
        `set_retries` does (the caller resolves its queries to ids)."""
        if not external_task_ids:
            raise Rejected("externalTaskIds is empty")
        if retries < 0:
            raise Rejected("The number of retries cannot be negative")
        management = ManagementService(self._parts, self._caller)
        return management.create_batch(
            SET_EXTERNAL_TASK_RETRIES,
            external_task_ids,
            {"retries": retries},
            command_id=command_id,
            actor=actor,
        )
