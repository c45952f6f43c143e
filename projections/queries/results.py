"""Result rows: a search's result Struct read from a row of its SELECT.

A field reads the column `COLUMNS` names for it (one vocabulary for every ACT_* table searched
here), unless the caller gives its value (derived values: flags, stored variable values, labels
of joined columns); a datetime comes back aware UTC (table timestamps are naive UTC).
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, TypeVar

import msgspec
from sqlalchemy.engine import RowMapping

from .filters import utc

S = TypeVar("S", bound=msgspec.Struct)

# Result field name -> column name, across ACT_RU_*, ACT_HI_* and ACT_RE_* tables.
COLUMNS: dict[str, str] = {
    "id": "ID_",
    "name": "NAME_",
    "description": "DESCRIPTION_",
    "business_key": "BUSINESS_KEY_",
    "state": "STATE_",
    "tenant_id": "TENANT_ID_",
    # process definitions and instances
    "definition_id": "PROC_DEF_ID_",
    "definition_key": "PROC_DEF_KEY_",
    "process_definition_id": "PROC_DEF_ID_",
    "process_definition_key": "PROC_DEF_KEY_",
    "process_definition_name": "DEF_NAME_",
    "process_definition_version": "DEF_VERSION_",
    "process_instance_id": "PROC_INST_ID_",
    "root_process_instance_id": "ROOT_PROC_INST_ID_",
    "super_process_instance_id": "SUPER_PROCESS_INSTANCE_ID_",
    "restarted_process_instance_id": "RESTARTED_PROC_INST_ID_",
    "super_case_instance_id": "SUPER_CASE_INSTANCE_ID_",
    "start_user_id": "START_USER_ID_",
    "start_activity_id": "START_ACT_ID_",
    "end_activity_id": "END_ACT_ID_",
    "delete_reason": "DELETE_REASON_",
    # executions and activities
    "execution_id": "EXECUTION_ID_",
    "parent_id": "PARENT_ID_",
    "activity_id": "ACT_ID_",
    "activity_name": "ACT_NAME_",
    "activity_type": "ACT_TYPE_",
    "activity_instance_id": "ACT_INST_ID_",
    "parent_activity_instance_id": "PARENT_ACT_INST_ID_",
    "called_process_instance_id": "CALL_PROC_INST_ID_",
    "called_case_instance_id": "CALL_CASE_INST_ID_",
    # cases (never set here, but Camunda's rows carry them)
    "case_definition_id": "CASE_DEF_ID_",
    "case_definition_key": "CASE_DEF_KEY_",
    "case_instance_id": "CASE_INST_ID_",
    "case_execution_id": "CASE_EXECUTION_ID_",
    # tasks
    "task_id": "TASK_ID_",
    "parent_task_id": "PARENT_TASK_ID_",
    "task_definition_key": "TASK_DEF_KEY_",
    "task_state": "TASK_STATE_",
    "assignee": "ASSIGNEE_",
    "owner": "OWNER_",
    "priority": "PRIORITY_",
    "delegation_state": "DELEGATION_",
    "due": "DUE_DATE_",
    "follow_up": "FOLLOW_UP_DATE_",
    "created": "CREATE_TIME_",
    "last_updated": "LAST_UPDATED_",
    # external tasks
    "topic_name": "TOPIC_NAME_",
    "worker_id": "WORKER_ID_",
    "retries": "RETRIES_",
    "error_message": "ERROR_MSG_",
    "lock_expiration_time": "LOCK_EXP_TIME_",
    # variables and their updates
    "variable_name": "NAME_",
    "variable_instance_id": "VAR_INST_ID_",
    "batch_id": "BATCH_ID_",
    "revision": "REV_",
    "user_operation_id": "OPERATION_ID_",
    # times
    "start_time": "START_TIME_",
    "end_time": "END_TIME_",
    "create_time": "CREATE_TIME_",
    "removal_time": "REMOVAL_TIME_",
    "time": "TIME_",
    "duration": "DURATION_",
    "duration_in_millis": "DURATION_",
}


@cache
def _fields(cls: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    return tuple((name, COLUMNS.get(name, "")) for name in cls.__struct_fields__)


def _value(m: RowMapping, column: str) -> Any:
    value = m[column]
    return utc(value) if isinstance(value, datetime) else value


def from_row(cls: type[S], m: RowMapping, **given: Any) -> S:
    """The Struct `cls` from row `m`: the fields in `given` as given, every other one from its
    column in `COLUMNS`."""
    read = {name: _value(m, column) for name, column in _fields(cls) if name not in given}
    return cls(**read, **given)
