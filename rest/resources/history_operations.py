"""engine-rest: `/history/user-operation` (GET list and count), Camunda's user operation log.

The query is `projections.queries.history_operations`; the table is written at history level
full only, for commands with an actor (an authenticated user, or the command line's operating
system user). Camunda 7.15's OpenAPI document lacks these operations; their shapes follow its
REST reference.
"""

from __future__ import annotations

from typing import Any

import msgspec

from flowledger.projections.queries import history_operations as search

from ..dto import derived
from ..listing import list_routes, searched


@derived(search.UserOperationLogRow)
class UserOperationLogEntryDto(msgspec.Struct):
    """Camunda's UserOperationLogEntryDto."""


USER_OPERATIONS = searched(
    search.USER_OPERATIONS,
    path="/history/user-operation",
    body=None,
    result=UserOperationLogEntryDto,
    dates=("afterTimestamp", "beforeTimestamp"),
)

routes: list[Any] = list_routes(
    USER_OPERATIONS,
    get_list="query_user_operation_entries",
    get_count="query_user_operation_entries_count",
)
