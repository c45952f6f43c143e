"""Timer definitions (`timeDate`, `timeDuration`, `timeCycle`) and the due dates they give.

A definition is parsed once (`parse_timer`) and refused with a TimerError naming the value when
Camunda 7 would refuse it; the engine then asks for the first due date at the timer's creation
and, for a cycle, the next one each time it fires. Due dates are decided once and recorded in the
events: replay never recomputes them, and nothing here reads a clock (the caller passes `now`).

Cycles come in two notations, told apart as Camunda does: a value starting with `R` is an
ISO 8601 repeating interval (`iso.Cycle`), anything else a cron expression (`cron.Cron`, seconds
first), read as Quartz (Camunda through 7.23) when it holds a `?` or a year and as Spring 5.3
(Camunda 7.24 on) otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from .cron import Cron, CronError, parse_cron
from .iso import Cycle, Duration, TimerError, parse_cycle, parse_date, parse_duration
from .retries import RetryCycle, parse_retry_cycle

__all__ = [
    "KINDS",
    "Cron",
    "Cycle",
    "Duration",
    "RetryCycle",
    "TimerDefinition",
    "TimerError",
    "TimerKind",
    "parse_retry_cycle",
    "parse_timer",
]

TimerKind = Literal["timeDate", "timeDuration", "timeCycle"]
KINDS: tuple[TimerKind, ...] = ("timeDate", "timeDuration", "timeCycle")


@dataclass(frozen=True)
class TimerDefinition:
    """A parsed timer value: when it first fires, and for a cycle when it fires again."""

    kind: TimerKind
    text: str
    # timeDate (a datetime, or a Duration for a date written `P...`) | timeDuration | timeCycle
    schedule: datetime | Duration | Cycle | Cron

    @property
    def repeats(self) -> bool:
        return isinstance(self.schedule, Cycle | Cron)

    def first_due(self, created: datetime) -> datetime | None:
        """The first due date of a timer created at `created` (timezone-aware); None when a
        cycle has no firing left (a grid wholly in the past, a cron year gone by)."""
        schedule = self.schedule
        if isinstance(schedule, datetime):
            return schedule
        if isinstance(schedule, Duration):
            return _moved(schedule, created, self.text)
        if isinstance(schedule, Cycle):
            return schedule.anchored(created).next_after(created)
        return schedule.next_after(created)

    def anchored_text(self, created: datetime) -> str | None:
        """What a repeating timer records as its cycle (ACT_RU_JOB.REPEAT_): an ISO cycle
        without dates gets its creation as start, as Camunda anchors `R3/PT2H` to
        `R3/<created>/PT2H`, so every later firing counts on the same grid. None when the timer
        does not repeat."""
        schedule = self.schedule
        if isinstance(schedule, Cron):
            return self.text
        if not isinstance(schedule, Cycle):
            return None
        if schedule.start is not None or schedule.end is not None:
            return self.text
        count, _, period = self.text.partition("/")
        return f"{count}/{created.isoformat(timespec='milliseconds')}/{period}"

    def next_due(self, created: datetime, fired: datetime) -> datetime | None:
        """After a firing at `fired`, the next due date of a cycle created at `created` (the
        anchor of a cycle without dates, so that `R3/PT10M` fires three times however late
        each firing ran), or None: the cycle is over, or the timer does not repeat."""
        schedule = self.schedule
        if isinstance(schedule, Cycle):
            return schedule.anchored(created).next_after(fired)
        if isinstance(schedule, Cron):
            return schedule.next_after(fired)
        return None


def parse_timer(kind: str, text: str) -> TimerDefinition:
    """The definition `<kind>text</kind>`; TimerError names the value and what is wrong. An
    expression (`${...}`) is evaluated by the engine first and its result parsed here."""
    value = text.strip()
    if not value:
        raise TimerError(f"{kind} is empty")
    try:
        if kind == "timeDate":
            if value.startswith("P"):
                # Camunda's DueDateBusinessCalendar: a date that is a duration counts from now.
                return TimerDefinition("timeDate", value, parse_duration(value))
            return TimerDefinition("timeDate", value, parse_date(value))
        if kind == "timeDuration":
            return TimerDefinition("timeDuration", value, parse_duration(value))
        if kind == "timeCycle":
            if value.startswith("R"):
                return TimerDefinition("timeCycle", value, parse_cycle(value))
            return TimerDefinition("timeCycle", value, parse_cron(value))
    except CronError as exc:
        raise TimerError(f"timeCycle '{value}' is not a valid cron expression: {exc}") from None
    except TimerError as exc:
        raise TimerError(f"{kind} {exc}") from None
    raise TimerError(f"unknown timer definition <{kind}> (expected one of {', '.join(KINDS)})")


def _moved(duration: Duration, moment: datetime, text: str) -> datetime:
    try:
        return duration.added_to(moment)
    except OverflowError:
        raise TimerError(f"timeDuration {text} runs past the year 9999") from None
