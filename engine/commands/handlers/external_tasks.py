"""Handlers of the external task commands: fetch and lock, complete, fail, throw a BPMN error,
extend or release a lock, set retries and priority.

Each finds the instance that owns the task and lets the domain's `decide_on` read the command;
fetch and lock chooses its candidates from the runtime table first, then locks them one by one,
skipping a candidate whose instance another node ended meanwhile (never NotFound for the fetch).
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core import decide, views
from flowledger.core.errors import NotFound
from flowledger.core.limits import check_fetch
from flowledger.core.scope import visible_variables
from flowledger.core.session import InstanceSession
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.on_instance import decided_on
from flowledger.engine.commands.unit_of_work import UnitOfWork

ExternalTaskCommand = (
    cmd.CompleteExternalTask
    | cmd.HandleExternalTaskFailure
    | cmd.HandleExternalTaskBpmnError
    | cmd.ExtendExternalTaskLock
    | cmd.UnlockExternalTask
    | cmd.SetExternalTaskRetries
    | cmd.SetExternalTaskPriority
)


def _owner(unit: UnitOfWork, command: ExternalTaskCommand) -> InstanceSession:
    return unit.instance_owning("External task", command.external_task_id)


def fetch_and_lock(unit: UnitOfWork, command: cmd.FetchAndLock) -> list[views.ExternalTask]:
    durations = {t.topic_name: t.lock_duration for t in command.topics}
    check_fetch(command.worker_id, durations, command.max_tasks, unit.ctx.now)
    if command.max_tasks == 0 or not command.topics:
        return []
    candidates = lookups.fetchable_external_tasks(
        unit.conn,
        list(durations),
        unit.ctx.now,
        command.max_tasks * 2 + 5,
        command.use_priority,
        only=command.task_ids,
    )
    locked: list[str] = []
    for task_id, instance_id, topic in candidates:
        if len(locked) >= command.max_tasks:
            break
        try:
            session = unit.instance(instance_id)
        except NotFound:
            # Ended or deleted by another node since the candidates were read: Camunda skips
            # the task, and so do we; the fetch answers with the others.
            continue
        if decide.lock_external_task(session, task_id, command.worker_id, durations[topic]):
            locked.append(task_id)
    return [_locked_view(unit, task_id) for task_id in locked]


def _locked_view(unit: UnitOfWork, task_id: str) -> views.ExternalTask:
    """The task as the worker receives it, from the state the lock was decided on."""
    for session, _v, _h, _b in unit.instances.values():
        ext = session.state.external_tasks.get(task_id)
        if ext is None:
            continue
        state = session.state
        return views.ExternalTask(
            id=ext.id,
            topic_name=ext.topic,
            activity_id=ext.activity_id,
            activity_instance_id=ext.activity_instance_id,
            execution_id=ext.execution_id,
            process_instance_id=state.id,
            process_definition_id=state.definition_id,
            process_definition_key=state.definition_key,
            priority=ext.priority,
            created=ext.created,
            worker_id=ext.worker_id,
            lock_expiration_time=ext.lock_expiration,
            retries=ext.retries,
            error_message=ext.error_message,
            business_key=state.business_key,
            variables=visible_variables(session, ext.execution_id),
        )
    raise NotFound("External task", task_id)


HANDLERS = (
    # Every candidate taken by other nodes on every attempt: nothing locked, as Camunda answers.
    Handler(cmd.FetchAndLock, fetch_and_lock, result=list[views.ExternalTask], lost_race=list),
    decided_on(cmd.CompleteExternalTask, _owner),
    decided_on(cmd.HandleExternalTaskFailure, _owner),
    decided_on(cmd.HandleExternalTaskBpmnError, _owner),
    decided_on(cmd.ExtendExternalTaskLock, _owner),
    decided_on(cmd.UnlockExternalTask, _owner),
    decided_on(cmd.SetExternalTaskRetries, _owner),
    decided_on(cmd.SetExternalTaskPriority, _owner),
)
