"""Timer definitions as a Camunda 7 model writes them: what they parse to, when they fire, and
how a value Camunda would refuse is refused (naming the value)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flowledger.core.timers import Cycle, TimerError, parse_timer
from flowledger.core.timers.iso import parse_duration

NOW = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)  # a Thursday


def at(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


# -- timeDate --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("2026-12-24T18:00:00Z", at(2026, 12, 24, 18)),
        ("2026-12-24T18:00:00", at(2026, 12, 24, 18)),  # no offset: UTC
        ("2026-12-24T18:00:00.250+01:00", at(2026, 12, 24, 17, 0, 0, 250_000)),
        ("2026-12-24", at(2026, 12, 24)),
        ("  2026-12-24T18:00Z\n", at(2026, 12, 24, 18)),  # XML text keeps its whitespace
    ],
)
def test_a_date_fires_at_that_moment_in_utc(text: str, due: datetime) -> None:
    assert parse_timer("timeDate", text).first_due(NOW) == due


def test_a_date_in_the_past_is_due_at_once() -> None:
    # Camunda creates the job with the past due date: the executor runs it right away.
    assert parse_timer("timeDate", "2020-01-01T00:00:00Z").first_due(NOW) == at(2020, 1, 1)


# -- timeDuration ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("PT5M", NOW + timedelta(minutes=5)),
        ("PT1H30M", NOW + timedelta(hours=1, minutes=30)),
        ("P2D", NOW + timedelta(days=2)),
        ("P2W", NOW + timedelta(days=14)),
        ("PT0.5S", NOW + timedelta(milliseconds=500)),
        ("P1DT12H", NOW + timedelta(days=1, hours=12)),
        ("-PT1H", NOW - timedelta(hours=1)),
        ("P1Y", at(2027, 12, 3, 10)),
    ],
)
def test_a_duration_counts_from_the_creation(text: str, due: datetime) -> None:
    definition = parse_timer("timeDuration", text)
    assert definition.first_due(NOW) == due
    assert not definition.repeats
    assert definition.next_due(NOW, due) is None


@pytest.mark.parametrize(
    ("start", "text", "due"),
    [
        (at(2027, 1, 31, 9), "P1M", at(2027, 2, 28, 9)),  # the day is clamped to February's
        (at(2028, 1, 31, 9), "P1M", at(2028, 2, 29, 9)),  # a leap year
        (at(2028, 2, 29, 9), "P1Y", at(2029, 2, 28, 9)),
        (at(2027, 1, 31, 9), "P1M1D", at(2027, 3, 1, 9)),  # months first, then days
        (at(2027, 3, 31, 9), "-P1M", at(2027, 2, 28, 9)),
    ],
)
def test_months_and_years_follow_the_calendar(start: datetime, text: str, due: datetime) -> None:
    assert parse_timer("timeDuration", text).first_due(start) == due


# -- timeCycle: ISO 8601 repeating intervals ---------------------------------------------------


def firings(text: str, created: datetime, limit: int = 10) -> list[datetime]:
    """Every firing of a cycle when each fires exactly on time (at most `limit`)."""
    definition = parse_timer("timeCycle", text)
    due = definition.first_due(created)
    seen: list[datetime] = []
    while due is not None and len(seen) < limit:
        seen.append(due)
        due = definition.next_due(created, due)
    return seen


def test_a_cycle_without_dates_is_anchored_at_its_creation_and_keeps_its_count() -> None:
    assert firings("R3/PT10M", NOW) == [
        NOW + timedelta(minutes=10),
        NOW + timedelta(minutes=20),
        NOW + timedelta(minutes=30),
    ]


def test_a_late_firing_does_not_shift_the_cycle_or_add_firings() -> None:
    definition = parse_timer("timeCycle", "R3/PT10M")
    # The first firing ran 4 minutes late: the next is still on the grid of the creation.
    assert definition.next_due(NOW, NOW + timedelta(minutes=14)) == NOW + timedelta(minutes=20)
    # Run after the last point: nothing is left.
    assert definition.next_due(NOW, NOW + timedelta(minutes=31)) is None
    # Missed points are skipped, not fired in a burst.
    assert definition.next_due(NOW, NOW + timedelta(minutes=25)) == NOW + timedelta(minutes=30)


def test_an_unbounded_cycle_keeps_firing() -> None:
    hours = firings("R/PT1H", NOW, limit=50)
    assert len(hours) == 50
    assert hours[-1] == NOW + timedelta(hours=50)


def test_a_cycle_with_a_start_fires_at_the_start_and_then_its_count() -> None:
    # Camunda's DurationHelper: from a start, the start itself and then n periods.
    assert firings("R2/2026-12-24T08:00:00Z/PT1H", NOW) == [
        at(2026, 12, 24, 8),
        at(2026, 12, 24, 9),
        at(2026, 12, 24, 10),
    ]


def test_a_cycle_whose_start_has_passed_joins_its_grid() -> None:
    definition = parse_timer("timeCycle", "R/2026-12-01T00:00:00Z/P1D")
    assert definition.first_due(NOW) == at(2026, 12, 4)


def test_a_cycle_with_an_end_counts_back_from_it() -> None:
    assert firings("R3/PT1H/2026-12-03T20:00:00Z", NOW) == [
        at(2026, 12, 3, 17),
        at(2026, 12, 3, 18),
        at(2026, 12, 3, 19),
        at(2026, 12, 3, 20),
    ]
    # Created later than the grid's first points: the earliest point still ahead.
    assert parse_timer("timeCycle", "R3/PT1H/2026-12-03T20:00:00Z").first_due(
        at(2026, 12, 3, 18, 30)
    ) == at(2026, 12, 3, 19)
    assert parse_timer("timeCycle", "R3/PT1H/2026-12-01T00:00:00Z").first_due(NOW) is None


def test_a_cycle_back_from_an_end_without_a_count_starts_at_the_next_point() -> None:
    assert parse_timer("timeCycle", "R/PT1H/2026-12-03T20:00:00Z").first_due(
        at(2026, 12, 3, 10, 30)
    ) == at(2026, 12, 3, 11)


def test_a_monthly_cycle_back_from_an_end_steps_month_by_month() -> None:
    assert firings("R2/P1M/2027-03-31T00:00:00Z", at(2027, 1, 1)) == [
        at(2027, 1, 28),
        at(2027, 2, 28),
        at(2027, 3, 31),
    ]


def test_a_cycle_between_two_dates_repeats_their_distance() -> None:
    assert firings("R2/2026-12-24T08:00:00Z/2026-12-24T08:30:00Z", NOW) == [
        at(2026, 12, 24, 8),
        at(2026, 12, 24, 8, 30),
        at(2026, 12, 24, 9),
    ]


def test_a_monthly_cycle_drifts_as_camunda_adds_each_month_to_the_last() -> None:
    assert firings("R3/2027-01-31T00:00:00Z/P1M", at(2027, 1, 1)) == [
        at(2027, 1, 31),
        at(2027, 2, 28),
        at(2027, 3, 28),
        at(2027, 4, 28),
    ]


def test_a_per_second_cycle_started_long_ago_is_found_without_walking_it() -> None:
    definition = parse_timer("timeCycle", "R/2000-01-01T00:00:00Z/PT1S")
    assert definition.first_due(NOW) == NOW + timedelta(seconds=1)


@given(
    minutes=st.integers(min_value=1, max_value=600),
    count=st.integers(min_value=1, max_value=20),
    late=st.integers(min_value=0, max_value=59),
)
def test_a_cycle_fires_count_times_on_its_grid_however_late_each_run(
    minutes: int, count: int, late: int
) -> None:
    definition = parse_timer("timeCycle", f"R{count}/PT{minutes}M")
    period = timedelta(minutes=minutes)
    due = definition.first_due(NOW)
    seen = []
    while due is not None:
        seen.append(due)
        # Each firing runs `late` seconds after it was due, but never past the next point.
        ran = due + min(timedelta(seconds=late), period - timedelta(seconds=1))
        due = definition.next_due(NOW, ran)
    assert seen == [NOW + k * period for k in range(1, count + 1)]


# -- timeCycle: cron -------------------------------------------------------------------------


def test_a_cycle_not_starting_with_r_is_a_quartz_cron_expression() -> None:
    definition = parse_timer("timeCycle", "0 0/5 * * * ?")
    assert definition.repeats
    assert definition.first_due(NOW) == NOW + timedelta(minutes=5)
    assert definition.next_due(NOW, NOW + timedelta(minutes=5)) == NOW + timedelta(minutes=10)


# -- refused ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        ("timeDuration", "PT5X", "timeDuration 'PT5X' is not an ISO 8601 duration"),
        ("timeDuration", "P", "'P' is not an ISO 8601 duration"),
        ("timeDuration", "PT", "'PT' is not an ISO 8601 duration"),
        ("timeDuration", "5 minutes", "'5 minutes' is not an ISO 8601 duration"),
        ("timeDuration", "P1.5M", "'P1.5M' is not an ISO 8601 duration"),
        ("timeDuration", "P99999999D", "too long"),
        ("timeDuration", "", "timeDuration is empty"),
        ("timeDate", "tomorrow", "timeDate 'tomorrow' is not an ISO 8601 date"),
        ("timeDate", "2026-13-01T00:00:00Z", "is not an ISO 8601 date"),
        ("timeCycle", "R3", "'R3' is not an ISO 8601 repeating interval"),
        ("timeCycle", "Rx/PT1M", "repetitions 'Rx' must be R or R<count>"),
        ("timeCycle", "R3/PT0S", "the period of a repeating interval must be positive"),
        ("timeCycle", "R3/-PT1M", "must be positive"),
        ("timeCycle", "R3/2026-12-24T08:00:00Z", "must be followed by a period or an end"),
        ("timeCycle", "R/2026-12-24T09:00Z/2026-12-24T08:00Z", "is not after the start"),
        ("timeCycle", "R3/PT1M/PT2M", "is not an ISO 8601 date"),
        ("timeCycle", "PT5M", "timeCycle 'PT5M' is not a valid cron expression"),
        ("timeCycle", "0 0 25 * * ?", "not a valid cron expression"),
        ("timeOfDay", "PT5M", "unknown timer definition <timeOfDay>"),
    ],
)
def test_what_camunda_refuses_is_refused_naming_the_value(
    kind: str, text: str, message: str
) -> None:
    with pytest.raises(TimerError, match=message.replace("(", r"\(").replace("[", r"\[")):
        parse_timer(kind, text)


def test_a_duration_past_the_calendar_is_refused_when_it_is_scheduled() -> None:
    definition = parse_timer("timeDuration", "P999999Y")
    with pytest.raises(TimerError, match="past the year 9999"):
        definition.first_due(NOW)


def test_a_cycle_whose_grid_runs_off_the_calendar_ends() -> None:
    cycle = parse_timer("timeCycle", "R/9999-12-31T00:00:00Z/P1D")
    assert cycle.first_due(at(9999, 12, 31, 12)) is None


def test_durations_parse_to_calendar_fields() -> None:
    duration = parse_duration("P1Y2M3W4DT5H6M7.5S")
    assert (duration.years, duration.months, duration.days) == (1, 2, 25)
    assert float(duration.seconds) == 5 * 3600 + 6 * 60 + 7.5
    assert isinstance(parse_timer("timeCycle", "R/PT1H").schedule, Cycle)
