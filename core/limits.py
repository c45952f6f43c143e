"""The limits of user input: what Camunda's columns (and this engine's types) can hold.

Pure: no I/O, no SQLAlchemy. Commands check their input here before anything is written, so a
value is refused alike on SQLite, PostgreSQL and MariaDB instead of failing on one of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import msgspec

from .errors import InvalidValue

__all__ = [
    "MAX_BUSINESS_KEY",
    "MAX_COMMAND_ID",
    "MAX_DELETE_REASON",
    "MAX_DEPLOYMENT_NAME",
    "MAX_DEPLOYMENT_SOURCE",
    "MAX_ERROR_CODE",
    "MAX_ERROR_MESSAGE",
    "MAX_HISTORY_TTL_DAYS",
    "MAX_JSON_NESTING",
    "MAX_LIST_FILTER",
    "MAX_MESSAGE_NAME",
    "MAX_RESOURCE_NAME",
    "MAX_STACKTRACE",
    "MAX_TEXT",
    "MAX_TOPIC_NAME",
    "MAX_USER_ID",
    "MAX_VARIABLES_PER_COMMAND",
    "MAX_VARIABLE_NAME",
    "MAX_VIA",
    "MAX_WORKER_ID",
    "check_deployment",
    "check_expiry",
    "check_fetch",
    "check_java_int",
    "check_java_long",
    "check_text",
    "check_variable_count",
    "external_error_message",
    "json_nesting_exceeds",
    "recordable_actor",
    "refuse_nul_in_events",
    "refuse_nul_in_ids",
    "strings_in",
]

# Column widths of Camunda's schema (varchar(n)), for values a caller hands in.
MAX_BUSINESS_KEY = 255  # ACT_RU_EXECUTION / ACT_HI_PROCINST.BUSINESS_KEY_
MAX_VARIABLE_NAME = 255  # ACT_RU_VARIABLE / ACT_HI_VARINST / ACT_HI_DETAIL.NAME_
MAX_TEXT = 4000  # TEXT_ of a String variable
# instances one modification or restart command changes or starts: a bound on its size
MAX_INSTANCES_PER_COMMAND = 1000
MAX_STACKTRACE = 64 * 1024  # characters of a failed job's stack trace the log keeps
MAX_USER_ID = 255  # ACT_RU_TASK.ASSIGNEE_ / OWNER_, ACT_RU_IDENTITYLINK.USER_ID_ / GROUP_ID_
MAX_WORKER_ID = 255  # ACT_RU_EXT_TASK.WORKER_ID_ (and command_log.actor, which records it)
MAX_HISTORY_TTL_DAYS = 36_500  # a century: later removal times would overflow a timestamp
MAX_VIA = 32  # event_log.via / command_log.via: the channel a command came through
MAX_TOPIC_NAME = 255  # ACT_RU_EXT_TASK.TOPIC_NAME_
MAX_DELETE_REASON = 4000  # ACT_HI_PROCINST / ACT_HI_TASKINST / ACT_HI_ACTINST.DELETE_REASON_
MAX_DEPLOYMENT_NAME = 255  # ACT_RE_DEPLOYMENT.NAME_
MAX_DEPLOYMENT_SOURCE = 255  # ACT_RE_DEPLOYMENT.SOURCE_
MAX_RESOURCE_NAME = 255  # ACT_GE_BYTEARRAY.NAME_ (ACT_RE_PROCDEF.RESOURCE_NAME_ is wider)
MAX_COMMAND_ID = 64  # command_log.command_id / event_log.command_id (a caller's idempotency key)
MAX_MESSAGE_NAME = 255  # ACT_RU_EVENT_SUBSCR.EVENT_NAME_
MAX_ERROR_CODE = 255  # a BPMN error code, as ACT_RU_EVENT_SUBSCR / incident configuration
# Camunda's ExternalTaskEntity.setErrorMessage cuts the message to 666 characters (its
# MAX_EXCEPTION_MESSAGE_LENGTH) instead of refusing it; ERROR_MSG_ is varchar(4000).
MAX_ERROR_MESSAGE = 666

# Limits of this engine, not of a column.
# A command holds the write path while it writes its variables: 10,000 (what Camunda users
# send) hold it well under a second on SQLite; 100,000 held it 18 s (stall_figures).
MAX_VARIABLES_PER_COMMAND = 10_000
# Json/Object values and request bodies: deeper nesting is refused. Python's recursion limit
# (1,000 frames) is what msgspec's encoder and decoder count against; 100 levels leave room
# for the stack they are called from and exceed any document a process needs.
MAX_JSON_NESTING = 100
# Values of one list filter of a query (`processInstanceIds`, `taskIdIn`, ...): each becomes a
# bind parameter, and PostgreSQL takes at most 65,535 per statement, SQLite 32,766.
MAX_LIST_FILTER = 10_000

JAVA_INT = (-(2**31), 2**31 - 1)  # RETRIES_, PRIORITY_ of tasks: Camunda's int columns
JAVA_LONG = (-(2**63), 2**63 - 1)  # PRIORITY_ of jobs: a bigint
_LATEST = datetime(9999, 12, 31, 23, 59, 59)  # MySQL's DATETIME ends here; so do Python's


def check_text(field: str, value: str | None, limit: int | None = None) -> None:
    """Refuse a text that holds NUL (no text column of PostgreSQL can) or is longer than
    `limit` characters. The message names the field and the limit, never the value itself
    (it may be huge, and a NUL in it could not be recorded in the command log)."""
    if value is None:
        return
    if "\x00" in value:
        raise InvalidValue(f"{field} must not contain NUL characters")
    if limit is not None and len(value) > limit:
        raise InvalidValue(
            f"{field} may hold at most {limit} characters (got {len(value)})", field, limit
        )


def check_deployment(name: str | None, source: str | None, resource_names: Iterable[str]) -> None:
    """A deployment's name, source and resource names, as ACT_RE_DEPLOYMENT and
    ACT_GE_BYTEARRAY hold them."""
    check_text("deployment name", name, MAX_DEPLOYMENT_NAME)
    check_text("deployment source", source, MAX_DEPLOYMENT_SOURCE)
    for resource in resource_names:
        check_text("resource name", resource, MAX_RESOURCE_NAME)


def external_error_message(message: str | None) -> str | None:
    """An external task's error message as Camunda keeps it: NUL refused, cut to 666 chars."""
    check_text("errorMessage", message)
    return None if message is None else message[:MAX_ERROR_MESSAGE]


def recordable_actor(actor: str | None) -> str | None:
    """The actor as command_log.actor (varchar(255)) holds it: a refused command is recorded
    even when its worker id (the actor of external task commands) is what was wrong."""
    if actor is None:
        return None
    return actor.replace("\x00", "\\x00")[:MAX_WORKER_ID]


def check_java_int(field: str, value: int) -> None:
    low, high = JAVA_INT
    if not low <= value <= high:
        raise InvalidValue(f"{field} must be between {low} and {high} (got {value})", field, high)


def check_java_long(field: str, value: int) -> None:
    low, high = JAVA_LONG
    if not low <= value <= high:
        raise InvalidValue(f"{field} must be between {low} and {high} (got {value})", field, high)


def check_expiry(field: str, now: datetime, milliseconds: int) -> datetime:
    """`now` plus a duration a caller gave (lock duration, retry timeout): a date every
    database can store, or a refusal naming the field."""
    room = (_LATEST - now.replace(tzinfo=None)) // timedelta(milliseconds=1)
    if milliseconds > room:
        raise InvalidValue(
            f"{field} of {milliseconds} ms ends after the year 9999 (at most {room} ms from now)",
            field,
            room,
        )
    return now + timedelta(milliseconds=milliseconds)


def check_fetch(worker_id: str, topics: Mapping[str, int], max_tasks: int, now: datetime) -> None:
    """fetchAndLock's input, before any query: the topic names are compared with TOPIC_NAME_
    (PostgreSQL cannot even compare text holding NUL), maxTasks is Camunda's int, and every
    lock must expire at a date the databases can store."""
    check_text("workerId", worker_id, MAX_WORKER_ID)
    check_java_int("maxTasks", max_tasks)
    for topic, duration in topics.items():
        check_text("topicName", topic, MAX_TOPIC_NAME)
        check_expiry(f"lockDuration of topic {topic[:60]!r}", now, duration)


def check_variable_count(*maps: Mapping[str, Any] | None) -> None:
    """One command sets at most MAX_VARIABLES_PER_COMMAND variables (every map counted)."""
    count = sum(len(m) for m in maps if m)
    if count > MAX_VARIABLES_PER_COMMAND:
        raise InvalidValue(
            f"A command may set at most {MAX_VARIABLES_PER_COMMAND} variables (got {count})",
            "variables",
            MAX_VARIABLES_PER_COMMAND,
        )


def json_nesting_exceeds(value: Any, limit: int = MAX_JSON_NESTING) -> bool:
    """Whether lists/dicts in `value` nest deeper than `limit`; iterative, so any depth is
    measured without recursion (recursion is what such a value would break)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Iterable[Any] = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


# -- the backstop: no NUL reaches the log ---------------------------------------------------------

_ESCAPED_NUL = b"\\u0000"  # how msgspec's JSON encoder writes a NUL character


def refuse_nul_in_events(encoded: bytes, events: Sequence[msgspec.Struct]) -> None:
    """Refuse a commit whose events hold a NUL character anywhere: the projections would write
    it into a text column, which PostgreSQL refuses (with async history: forever, in the
    follower). One C-level scan of the encoded commit; the events are walked only on a hit, to
    name the field (a hit may also be an escaped backslash followed by `u0000`: no NUL then)."""
    if _ESCAPED_NUL not in encoded:
        return
    for event in events:
        for path, text in strings_in(event, type(event).__name__):
            if "\x00" in text:
                raise InvalidValue(f"{path} must not contain NUL characters")


def refuse_nul_in_ids(encoded: bytes, command: msgspec.Struct) -> None:
    """Refuse a command whose ids (the fields it looks things up by) hold a NUL character,
    before any query: PostgreSQL cannot even compare such text. `encoded` is the command as
    msgspec JSON: one C-level scan, the fields are looked at only on a hit. Other text fields
    are left to the domain's checks, which name them as Camunda's API does."""
    if _ESCAPED_NUL not in encoded:
        return
    for name in command.__struct_fields__:
        if name != "key" and not name.endswith(("_id", "_ids")):
            continue
        value = getattr(command, name)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and "\x00" in item:
                head, *rest = name.split("_")
                camel = head + "".join(part.title() for part in rest)
                raise InvalidValue(f"{camel} must not contain NUL characters")


def strings_in(root: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string inside a value (Struct fields, dict keys and values, list items), with a
    dotted path naming it; iterative, so a value nested any depth is walked without recursion
    (a recursive walk is what deeply nested input would break)."""
    stack: list[tuple[str, Any]] = [(path, root)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            yield where, value
        elif isinstance(value, msgspec.Struct):
            for name in value.__struct_fields__:
                stack.append((f"{where}.{name}", getattr(value, name)))
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str):
                    yield f"{where} key", key
                stack.append((f"{where}[{key!r}]", item))
        elif isinstance(value, list | tuple):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
