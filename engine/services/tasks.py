"""Camunda's TaskService: open user tasks, their assignment and completion, and their
variables (the task's own, and those it sees from its execution)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.errors import NotFound
from flowledger.core.state import InstanceState
from flowledger.core.variables import StoredValue, from_stored
from flowledger.engine.services.base import Caller, EngineParts, Service
from flowledger.engine.services.runtime import RuntimeService
from flowledger.projections.queries import comments, reads
from flowledger.projections.queries.comments import CommentRow
from flowledger.projections.runtime import link_row, task_row


class TaskService(Service):
    def __init__(self, parts: EngineParts, caller: Caller, runtime: RuntimeService) -> None:
        super().__init__(parts, caller)
        self._runtime = runtime  # the variables a task sees from its execution

    def tasks(self, **filters: Any) -> list[views.Task]:
        """Open user tasks. Filters: process_instance_id, assignee, candidate_user,
        candidate_group, candidate_groups, task_definition_key, name, unassigned, task_id,
        include_assigned_tasks."""
        instance = filters.get("process_instance_id")
        if instance is not None and len(filters) == 1 and self._parts.history.deferred:
            in_state = self._tasks_in_state(instance)
            if in_state is not None:
                return in_state
        with self._parts.db.read() as conn:
            return reads.tasks(conn, **filters)

    def _tasks_in_state(self, instance_id: str) -> list[views.Task] | None:
        """One instance's open tasks from its state at the head of its stream, which this
        engine holds (the rows the deferred projection writes for it, computed here): a read
        right after a command on the instance need not wait for the follower. None when the
        engine does not hold the instance's current state."""
        db = self._parts.db
        with db.lock, db.read_unchecked() as conn:
            state = self._parts.streams.current_state(conn, instance_id)
            return None if state is None else tasks_in_state(state)

    def task(self, task_id: str) -> views.Task:
        found = self.tasks(task_id=task_id)
        if not found:
            raise NotFound("Task", task_id)
        return found[0]

    def form_keys(self, tasks: Mapping[str, str]) -> dict[str, str | None]:
        """Task id -> its `camunda:formKey` as evaluated when the task was created, for open tasks
        given as {task id: process instance id}. No table holds it (Camunda resolves it from the
        definition on request): it is in the instance's state, cached for active instances."""
        streams = self._parts.streams
        wanted: dict[str, list[str]] = {}
        for task_id, instance_id in tasks.items():
            wanted.setdefault(instance_id, []).append(task_id)
        keys: dict[str, str | None] = {}
        # Not under the engine lock (a task list would wait for a commit group): a command may
        # evolve a state we hold in place, but a task's form key never changes once it exists,
        # and one lookup in the task map sees the task either open or gone.
        stale: dict[str, list[str]] = {}
        for instance_id, task_ids in wanted.items():
            # A cached state holding the task answers without a query, however old it is: the
            # list came from the task table, and a task's form key never changes.
            cached = streams.cache.peek(instance_id)
            open_tasks = cached.state.tasks if cached is not None else {}
            # One lookup per task: a command may be ending one of them meanwhile.
            found = {t: task for t in task_ids if (task := open_tasks.get(t)) is not None}
            if len(found) == len(task_ids):
                keys.update((t, task.form_key) for t, task in found.items())
            else:
                stale[instance_id] = task_ids
        if not stale:
            return keys
        with self._parts.db.read() as conn:
            for instance_id, task_ids in stale.items():
                loaded = streams.load_fresh(conn, instance_id)
                open_tasks = loaded.state.tasks if loaded is not None else {}
                for task_id in task_ids:
                    task = open_tasks.get(task_id)
                    keys[task_id] = task.form_key if task is not None else None
        return keys

    def complete(
        self,
        task_id: str,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        command = cmd.CompleteTask(task_id=task_id, variables=dict(variables or {}))
        self._run(command, command_id, actor)

    def handle_escalation(
        self,
        task_id: str,
        escalation_code: str,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's handleEscalation: the task raises `escalation_code` where it waits (after
        setting `variables` from its execution); the nearest escalation boundary event or event
        subprocess catches it, in this instance or one that called it. Refused (and nothing
        changes) when nothing catches it."""
        command = cmd.HandleTaskEscalation(
            task_id=task_id, escalation_code=escalation_code, variables=dict(variables or {})
        )
        self._run(command, command_id, actor)

    def handle_bpmn_error(
        self,
        task_id: str,
        error_code: str,
        error_message: str | None = None,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's handleBpmnError: the task throws the BPMN error `error_code` where it waits
        (after setting `variables` from its execution), caught as a delegate's error is."""
        command = cmd.HandleTaskBpmnError(
            task_id=task_id,
            error_code=error_code,
            error_message=error_message,
            variables=dict(variables or {}),
        )
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

    # -- comments --------------------------------------------------------------------------

    def add_comment(
        self,
        task_id: str,
        message: str,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> str:
        """Camunda's createComment on an open task, written by the actor; the comment's id.
        It is an event of the task's instance, shown in history (ACT_HI_COMMENT)."""
        command = cmd.AddTaskComment(task_id=task_id, message=message)
        return str(self._run(command, command_id, actor))

    def comments(self, task_id: str) -> list[CommentRow]:
        """The task's comments, newest first (empty at history level none)."""
        with self._parts.db.read() as conn:
            return comments.task_comments(conn, task_id)

    def comment(self, task_id: str, comment_id: str) -> CommentRow | None:
        with self._parts.db.read() as conn:
            return comments.task_comment(conn, task_id, comment_id)

    def task_known(self, task_id: str) -> bool:
        """Whether the task exists, open or completed (in history)."""
        with self._parts.db.read() as conn:
            return comments.task_known(conn, task_id)

    # -- variables -------------------------------------------------------------------------

    def set_variables(
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

    def get_variable_values(self, task_id: str, *, local: bool = False) -> dict[str, StoredValue]:
        """Variables of a task as stored: its own (task-local) ones, and unless `local` those
        visible from its execution underneath."""
        with self._parts.db.read() as conn:
            task = reads.tasks(conn, task_id=task_id)
            if not task:
                raise NotFound("Task", task_id)
            own = {n: v for n, v, _e, _t in reads.variable_rows(conn, task_id=task_id)}
        if local:
            return dict(sorted(own.items()))
        merged = self._runtime.get_variable_values(task[0].execution_id)
        merged.update(own)
        return dict(sorted(merged.items()))

    def get_variables(self, task_id: str, *, local: bool = False) -> dict[str, Any]:
        values = self.get_variable_values(task_id, local=local)
        return {n: from_stored(v) for n, v in values.items()}


def tasks_in_state(state: InstanceState) -> list[views.Task]:
    """`tasks(process_instance_id=...)` answered from the instance's state at the head of its
    stream: the rows the runtime projector writes for it (`task_row`, `link_row`), in the
    query's order — what ACT_RU_TASK holds once the projection has reached that head."""
    rows = sorted(
        (task_row(state, t) for t in state.tasks.values()),
        key=lambda r: (r["CREATE_TIME_"], r["ID_"]),
    )
    users: dict[str, list[str]] = {}
    groups: dict[str, list[str]] = {}
    for task in state.tasks.values():
        links = sorted((link_row(task, link) for link in task.candidates), key=lambda r: r["ID_"])
        candidates = [r for r in links if r["TYPE_"] == "candidate"]
        users[task.id] = [r["USER_ID_"] for r in candidates if r["USER_ID_"] is not None]
        groups[task.id] = [r["GROUP_ID_"] for r in candidates if r["GROUP_ID_"] is not None]
    return reads.task_views(rows, users, groups)
