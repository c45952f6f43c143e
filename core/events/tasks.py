"""Events of user tasks (created, assigned, claimed, commented, completed, deleted) and of external
tasks
(created, locked, failed, completed, their retries and priority set, cancelled).

Pure data.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from .base import Event

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


class TaskCommentAdded(Event, tag=True, frozen=True):
    """Someone wrote a comment on the task (Camunda's taskService.createComment): `user_id` is
    who (the command's actor), `message` the whole text (ACT_HI_COMMENT.FULL_MSG_)."""

    comment_id: str
    task_id: str
    user_id: str | None
    message: str
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
