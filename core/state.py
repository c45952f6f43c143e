"""The state of one process instance, as folded from its events by `core.evolve`.

Pure data (msgspec Structs, so equality and snapshots come for free). Only evolve mutates it.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from .events import IdentityLink
from .variables import StoredValue

# Bump when the shape or the meaning of the state changes: stored snapshots are then ignored.
# 2: `history_deleted`; a failure report without details keeps the earlier details (Camunda's).
STATE_SCHEMA = 2


class Execution(msgspec.Struct):
    """A token or a scope, as Camunda's ACT_RU_EXECUTION row sees it."""

    id: str
    parent_id: str | None
    is_scope: bool
    is_concurrent: bool
    is_active: bool = True
    activity_id: str | None = None
    activity_instance_id: str | None = None
    # The activity instance of the scope this execution stands for (process, subprocess, ...).
    scope_activity_instance_id: str | None = None
    scope_activity_id: str | None = None
    children: list[str] = []


class ActivityInstance(msgspec.Struct):
    id: str
    activity_id: str
    activity_type: str
    activity_name: str | None
    execution_id: str
    parent_id: str
    start_time: datetime


class Variable(msgspec.Struct):
    id: str
    name: str
    execution_id: str
    value: StoredValue
    created: datetime
    task_id: str | None = None
    revision: int = 0


class UserTask(msgspec.Struct):
    id: str
    execution_id: str
    activity_instance_id: str
    task_definition_key: str
    name: str | None
    created: datetime
    last_updated: datetime | None = None
    description: str | None = None
    assignee: str | None = None
    owner: str | None = None
    candidates: list[IdentityLink] = []
    due_date: datetime | None = None
    follow_up_date: datetime | None = None
    priority: int = 50
    form_key: str | None = None


class ExternalTask(msgspec.Struct):
    id: str
    execution_id: str
    activity_instance_id: str
    activity_id: str
    topic: str
    priority: int
    created: datetime
    worker_id: str | None = None
    lock_expiration: datetime | None = None
    retries: int | None = None
    error_message: str | None = None
    error_details: str | None = None


class InstanceState(msgspec.Struct):
    """Everything the engine knows about one running (or ended) process instance."""

    id: str
    definition_id: str
    definition_key: str
    definition_version: int
    deployment_id: str
    business_key: str | None
    start_time: datetime
    start_activity_id: str | None = None
    start_user_id: str | None = None
    root_process_instance_id: str | None = None
    super_process_instance_id: str | None = None
    status: str = "ACTIVE"  # ACTIVE | COMPLETED | EXTERNALLY_TERMINATED | INTERNALLY_TERMINATED
    end_time: datetime | None = None
    end_activity_id: str | None = None
    delete_reason: str | None = None
    # Its ACT_HI_* rows were deleted (the log keeps its events): a second deletion finds nothing.
    history_deleted: bool = False
    executions: dict[str, Execution] = {}
    activity_instances: dict[str, ActivityInstance] = {}
    variables: dict[str, Variable] = {}
    tasks: dict[str, UserTask] = {}
    external_tasks: dict[str, ExternalTask] = {}
    version: int = 0  # number of events folded into this state

    @property
    def ended(self) -> bool:
        return self.status != "ACTIVE"


class DeploymentState(msgspec.Struct):
    id: str
    name: str | None
    source: str | None
    time: datetime
    version: int = 0


_state_encoder = msgspec.msgpack.Encoder()
_state_decoder = msgspec.msgpack.Decoder(InstanceState)


def encode_state(state: InstanceState) -> bytes:
    return _state_encoder.encode(state)


def decode_state(data: bytes) -> InstanceState:
    return _state_decoder.decode(data)


def copy_state(state: InstanceState) -> InstanceState:
    return _state_decoder.decode(_state_encoder.encode(state))
