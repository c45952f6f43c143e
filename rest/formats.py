"""Camunda's wire formats: dates as `yyyy-MM-dd'T'HH:mm:ss.SSSZ`, Java-style booleans, lists."""

from __future__ import annotations

from datetime import UTC, datetime

from .errors import invalid


def format_date(moment: datetime | None) -> str | None:
    """`2026-12-02T16:31:40.000+0000`: milliseconds always, offset without colon (clients parse
    it with `%Y-%m-%dT%H:%M:%S.%f%z` and fail without the milliseconds)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}{moment:%z}"


def parse_date(text: str, parameter: str) -> datetime:
    """A date in Camunda's format (also accepts `+02:00`, `Z`, and no offset meaning UTC)."""
    s = text.strip()
    if len(s) >= 5 and s[-5] in "+-" and s[-4:].isdigit():
        s = s[:-2] + ":" + s[-2:]
    if s.endswith("Z"):
        s = s[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(s)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        # A moment with no UTC equivalent (year 1 east of Greenwich, 9999 west of it) cannot be
        # compared with the tables' UTC times: the client's mistake, not a failure of ours.
        parsed.astimezone(UTC)
    except (ValueError, OverflowError):
        raise invalid(
            f"Cannot set query parameter '{parameter}' to value '{text}': "
            "expected a date like 2026-12-02T16:31:40.000+0000"
        ) from None
    return parsed


def parse_bool(text: str | bool | None) -> bool:
    """Java's Boolean.parseBoolean: "true" in any case is true, anything else false (pycamunda
    sends Python's "False"/"True")."""
    if isinstance(text, bool):
        return text
    return text is not None and text.strip().lower() == "true"


def split_list(text: str) -> list[str]:
    """Camunda's comma-separated list parameters: `processInstanceIds=a,b`."""
    return [part for part in (p.strip() for p in text.split(",")) if part]
