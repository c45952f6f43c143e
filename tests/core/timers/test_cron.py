"""Cron expressions as Camunda 7 evaluates them in a `timeCycle`: Quartz (Camunda <= 7.23, any
expression with a `?` or a year) and Spring 5.3 (Camunda 7.24 on, 6 fields without `?`, and the
`@` macros). When they fire, and how an expression Camunda would refuse is refused (naming the
field and the text).

Expected dates are worked out from the calendar: 2026-12-03 is a Thursday, 2026-12-31 a
Thursday, 2027-01-31 a Sunday, 2027-05-01 and 2027-05-15 Saturdays, 2027-08-15 a Sunday,
2027-08-13 a Friday (the first Friday the 13th after 2026-12-03), 2027-07-31 a Saturday.
Days of the week use Quartz's numbering (1 = Sunday, 2 = Monday ... 7 = Saturday) in Quartz
expressions, Spring's (0 or 7 = Sunday, 1 = Monday ... 6 = Saturday) in Spring ones; a parsed
Cron stores them in Quartz's numbering either way.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from flowledger.core.timers.cron import Cron, CronError, parse_cron

NOW = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)  # a Thursday


def at(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def fires(text: str, after: datetime, count: int = 1) -> list[datetime | None]:
    """The next `count` fire times, each strictly after the one before."""
    cron = parse_cron(text)
    times: list[datetime | None] = []
    moment: datetime | None = after
    for _ in range(count):
        assert moment is not None
        moment = cron.next_after(moment)
        times.append(moment)
    return times


# -- every n seconds / minutes, strictly after -------------------------------------------------


@pytest.mark.parametrize("text", ["0 0/5 * * * ?", "0 */5 * * * *"])  # Quartz, Spring
def test_every_five_minutes(text: str) -> None:
    assert fires(text, at(2026, 12, 3, 10, 2, 30), 3) == [
        at(2026, 12, 3, 10, 5),
        at(2026, 12, 3, 10, 10),
        at(2026, 12, 3, 10, 15),
    ]
    assert fires(text, at(2026, 12, 31, 23, 57)) == [at(2027, 1, 1, 0, 0)]


def test_every_thirty_seconds() -> None:
    assert fires("*/30 * * * * ?", NOW, 3) == [
        at(2026, 12, 3, 10, 0, 30),
        at(2026, 12, 3, 10, 1, 0),
        at(2026, 12, 3, 10, 1, 30),
    ]


def test_a_moment_that_matches_gives_the_next_one() -> None:
    assert fires("0 0 12 * * ?", at(2026, 12, 3, 12)) == [at(2026, 12, 4, 12)]
    assert fires("0 0 10 * * ?", NOW) == [at(2026, 12, 4, 10)]


def test_a_fraction_of_a_second_is_dropped_and_the_next_whole_second_fires() -> None:
    moment = datetime(2026, 12, 3, 10, 0, 0, 500_000, tzinfo=UTC)
    assert fires("* * * * * ?", moment) == [at(2026, 12, 3, 10, 0, 1)]


def test_slash_alone_starts_at_the_fields_first_value_as_in_quartz() -> None:
    assert parse_cron("/20 * * * * ?").seconds == frozenset({0, 20, 40})
    assert parse_cron("0 0 12 /10 * ?").days_of_month == frozenset({1, 11, 21, 31})
    assert parse_cron("5/15 * * * * ?").seconds == frozenset({5, 20, 35, 50})
    # "7/6" in the month field is July only, not every sixth month (Quartz's documented subtlety).
    assert parse_cron("0 0 12 1 7/6 ?").months == frozenset({7})
    assert parse_cron("0 0 1-10/3 * * ?").hours == frozenset({1, 4, 7, 10})


# -- days of the week: Quartz numbering --------------------------------------------------------


def test_office_hours_skip_the_weekend() -> None:
    assert fires("0 0 9-17 ? * MON-FRI", NOW) == [at(2026, 12, 3, 11)]
    # Friday evening to Monday morning.
    assert fires("0 0 9-17 ? * MON-FRI", at(2026, 12, 4, 17)) == [at(2026, 12, 7, 9)]
    assert fires("0 0 9-17 ? * 2-6", at(2026, 12, 5, 12)) == [at(2026, 12, 7, 9)]


def test_office_hours_with_a_day_of_month_too_are_spring_and_fire_on_weekdays() -> None:
    # Quartz demanded '?' in one of the two day fields; without one, it is Spring 5.3 (7.24 on).
    assert parse_cron("0 0 9-17 * * MON-FRI").dialect == "spring"
    assert fires("0 0 9-17 * * MON-FRI", at(2026, 12, 4, 17)) == [at(2026, 12, 7, 9)]
    # With a year it is still Quartz, which refuses both days set.
    with pytest.raises(CronError, match=r"both a day-of-month \('\*'\) and a day-of-week"):
        parse_cron("0 0 9-17 * * MON-FRI 2027")


def test_two_is_monday_and_one_is_sunday() -> None:
    assert fires("0 0 12 ? * 2", NOW) == [at(2026, 12, 7, 12)]  # Monday
    assert fires("0 0 12 ? * 1", NOW) == [at(2026, 12, 6, 12)]  # Sunday
    assert fires("0 0 12 ? * 7", NOW) == [at(2026, 12, 5, 12)]  # Saturday
    assert fires("0 0 12 ? * L", NOW) == [at(2026, 12, 5, 12)]  # `L` alone is 7, Saturday


def test_last_friday_of_the_month() -> None:
    # December 2026 ends on a Thursday, January 2027 on a Sunday.
    assert fires("0 15 10 ? * 6L", NOW, 2) == [at(2026, 12, 25, 10, 15), at(2027, 1, 29, 10, 15)]
    assert fires("0 15 10 ? * FRIL", NOW) == [at(2026, 12, 25, 10, 15)]


def test_third_friday_of_the_month() -> None:
    assert fires("0 15 10 ? * 6#3", NOW, 2) == [at(2026, 12, 18, 10, 15), at(2027, 1, 15, 10, 15)]
    assert fires("0 15 10 ? * FRI#3", NOW) == [at(2026, 12, 18, 10, 15)]


def test_a_month_without_a_fifth_friday_is_skipped() -> None:
    # Fridays: Dec 2026 4-25 (four), Jan 2027 1-29 (five), Feb and Mar 2027 four, Apr 2027 five.
    assert fires("0 15 10 ? * 6#5", NOW, 2) == [at(2027, 1, 29, 10, 15), at(2027, 4, 30, 10, 15)]


# -- days of the month: L, L-n, nW, LW ----------------------------------------------------------


def test_nearest_weekday_to_the_fifteenth() -> None:
    assert fires("0 0 12 15W * ?", NOW) == [at(2026, 12, 15, 12)]  # a Tuesday: the day itself
    assert fires("0 0 12 15W * ?", at(2027, 5, 1)) == [at(2027, 5, 14, 12)]  # Sat 15th: Friday
    assert fires("0 0 12 15W * ?", at(2027, 8, 1)) == [at(2027, 8, 16, 12)]  # Sun 15th: Monday


def test_nearest_weekday_does_not_leave_the_month() -> None:
    # 1 May 2027 is a Saturday: not Friday 30 April but Monday 3 May.
    assert fires("0 0 12 1W * ?", at(2027, 4, 2)) == [at(2027, 5, 3, 12)]
    # 31 January 2027 is a Sunday: not Monday 1 February but Friday 29 January.
    assert fires("0 0 12 31W * ?", at(2027, 1, 2)) == [at(2027, 1, 29, 12)]


def test_nearest_weekday_past_a_short_months_end_as_quartz_computes_it() -> None:
    # Quartz asks the calendar for the weekday of "April 31", gets Saturday 1 May and moves back
    # to Friday 30 April. Reached from the end of March, April 30 fires...
    assert fires("0 0 12 31W * ?", at(2027, 3, 31, 12)) == [at(2027, 4, 30, 12)]
    # ...but when Quartz finds the start month's day already passed, it jumps to "January 29 + a
    # month" = "February 29", which the calendar rolls to 1 March: February 28 is skipped.
    assert fires("0 0 12 29W * ?", at(2025, 2, 1)) == [at(2025, 2, 28, 12)]
    assert fires("0 0 12 29W * ?", at(2025, 1, 29, 12)) == [at(2025, 3, 28, 12)]


def test_last_weekday_of_the_month() -> None:
    assert fires("0 0 12 LW * ?", NOW, 3) == [
        at(2026, 12, 31, 12),  # a Thursday
        at(2027, 1, 29, 12),  # 31 January is a Sunday
        at(2027, 2, 26, 12),  # 28 February is a Sunday
    ]


def test_last_day_of_february_in_leap_and_other_years() -> None:
    assert fires("0 0 12 L * ?", at(2027, 2, 1)) == [at(2027, 2, 28, 12)]
    assert fires("0 0 12 L * ?", at(2028, 2, 1)) == [at(2028, 2, 29, 12)]
    assert fires("0 0 12 L 2 ?", NOW, 2) == [at(2027, 2, 28, 12), at(2028, 2, 29, 12)]


def test_three_days_before_the_last() -> None:
    assert fires("0 0 12 L-3 * ?", NOW) == [at(2026, 12, 28, 12)]
    assert fires("0 0 12 L-3 * ?", at(2028, 2, 1)) == [at(2028, 2, 26, 12)]
    # Once the day has passed, next month's (Camunda's Quartz 1.8 copy answers the 28th: the past).
    assert fires("0 0 12 L-3 * ?", at(2027, 1, 30)) == [at(2027, 2, 25, 12)]


def test_a_leap_day_waits_for_the_next_leap_year() -> None:
    assert fires("0 0 12 29 2 ?", NOW, 2) == [at(2028, 2, 29, 12), at(2032, 2, 29, 12)]


def test_a_day_a_month_never_has_never_fires() -> None:
    assert fires("0 0 12 30 2 ?", NOW) == [None]


def test_the_31st_skips_shorter_months() -> None:
    assert fires("0 0 12 31 * ?", at(2027, 1, 31, 13), 2) == [
        at(2027, 3, 31, 12),
        at(2027, 5, 31, 12),
    ]


# -- ranges, names, years -----------------------------------------------------------------------


def test_reversed_ranges_wrap_around_as_in_quartz() -> None:
    cron = parse_cron("0 0 22-2 ? NOV-FEB FRI-MON")
    assert cron.hours == frozenset({22, 23, 0, 1, 2})
    assert cron.months == frozenset({11, 12, 1, 2})
    assert cron.days_of_week == frozenset({6, 7, 1, 2})
    assert parse_cron("0 0 12 25-5 * ?").days_of_month == frozenset({*range(25, 32), *range(1, 6)})
    assert parse_cron("50-10/5 * * * * ?").seconds == frozenset({50, 55, 0, 5, 10})
    assert fires("0 0 22-2 ? * *", NOW, 6) == [
        at(2026, 12, 3, 22),
        at(2026, 12, 3, 23),
        at(2026, 12, 4, 0),
        at(2026, 12, 4, 1),
        at(2026, 12, 4, 2),
        at(2026, 12, 4, 22),
    ]


def test_month_and_day_names_are_case_insensitive() -> None:
    assert parse_cron("0 0 12 ? jan,Jul,DEC mon-Fri") == parse_cron("0 0 12 ? jan,Jul,DEC mon-Fri")
    lower, numbers = parse_cron("0 0 12 ? jan,Jul,dec mon-Fri"), parse_cron("0 0 12 ? 1,7,12 2-6")
    assert (lower.months, lower.days_of_week) == (numbers.months, numbers.days_of_week)
    assert fires("0 0 12 lw feb ?", NOW) == [at(2027, 2, 26, 12)]
    assert fires("0 0 12 ? * fri#3", NOW) == [at(2026, 12, 18, 12)]


def test_a_year_field_limits_the_years() -> None:
    assert fires("0 0 12 1 1 ? 2030", NOW, 2) == [at(2030, 1, 1, 12), None]
    assert fires("0 0 12 1 1 ? 2028-2029", NOW, 3) == [at(2028, 1, 1, 12), at(2029, 1, 1, 12), None]
    assert fires("0 0 12 1 1 ? 2030/5", at(2031, 6, 1)) == [at(2035, 1, 1, 12)]


def test_a_year_in_the_past_never_fires() -> None:
    assert fires("0 0 12 1 1 ? 2020", NOW) == [None]
    assert fires("0 0 12 * * ? 2000-2025", NOW) == [None]


def test_nothing_fires_after_2199() -> None:
    assert fires("0 0 12 1 1 ?", at(2199, 6, 1)) == [None]
    assert fires("0 0 12 1 1 ?", at(2198, 6, 1)) == [at(2199, 1, 1, 12)]
    assert fires("* * * * * ?", at(2300, 1, 1)) == [None]


def test_far_future_and_sparse_expressions_are_found_without_walking_every_second() -> None:
    # A fifth Monday in February: a leap year whose 1 February is a Monday.
    assert fires("0 0 0 ? 2 2#5 2150-2199", NOW) == [at(2168, 2, 29)]
    assert fires("0 0 0 29 2 ? 2101-2199", NOW) == [at(2104, 2, 29)]  # 2100 is no leap year


# -- time zones -----------------------------------------------------------------------------------


def test_the_result_keeps_the_moments_zone_and_its_wall_clock() -> None:
    plus_two = timezone(timedelta(hours=2))
    result = parse_cron("0 0 12 * * ?").next_after(datetime(2026, 12, 3, 13, tzinfo=plus_two))
    assert result == datetime(2026, 12, 4, 12, tzinfo=plus_two)
    assert result is not None and result.tzinfo is plus_two


def test_daylight_saving_changes_fire_as_camunda_does() -> None:
    berlin = ZoneInfo("Europe/Berlin")  # 2027: clocks forward on 28 March, back on 31 October
    cron = parse_cron("0 30 2 * * ?")
    # 02:30 does not exist on 28 March: that day is skipped.
    forward = cron.next_after(datetime(2027, 3, 27, 12, tzinfo=berlin))
    assert forward is not None and forward.astimezone(UTC) == at(2027, 3, 29, 0, 30)
    # 02:30 happens twice on 31 October: it fires once, at the second (standard time) one.
    back = cron.next_after(datetime(2027, 10, 31, 0, tzinfo=berlin))
    assert back is not None and back.astimezone(UTC) == at(2027, 10, 31, 1, 30)
    later = cron.next_after(back)
    assert later is not None and later.astimezone(UTC) == at(2027, 11, 1, 1, 30)


def test_a_naive_moment_is_refused() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        parse_cron("* * * * * ?").next_after(datetime(2026, 12, 3, 10))


# -- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0 0 12 * * MON 2027", r"both a day-of-month \('\*'\) and a day-of-week \('MON'\)"),
        ("0 0 12 ? * ?", r"cannot both be '\?'"),
        ("0 0 12 * *", r"expected 6 or 7 fields .*, got 5; .*did you mean '0 0 0 12 \* \*'"),
        ("0 0 12 1 1 ? 2030 5", r"expected 6 or 7 fields .*, got 8"),
        ("", r"expected 6 or 7 fields .*, got 0"),
        ("0 0 24 * * ?", r"hour 24 is out of range 0-23"),
        ("0 0 25 * * ?", r"^cron expression '0 0 25 \* \* \?': hour 25 is out of range 0-23$"),
        ("60 * * * * ?", r"second 60 is out of range 0-59"),
        ("0 0 12 32 * ?", r"day-of-month 32 is out of range 1-31"),
        ("0 0 12 ? 13 *", r"month 13 is out of range 1-12"),
        ("0 0 12 ? * 8", r"day-of-week 8 is out of range 1-7"),
        ("0 0 12 ? * 0", r"day-of-week 0 is out of range 1-7"),
        ("0 0 12 1 1 ? 2300", r"year 2300 is out of range 1970-2199"),
        ("0 0 12 ? * 5W", r"day-of-week '5W': 'W' .* only allowed in day-of-month"),
        ("0 0 12 1#2 * ?", r"day-of-month '1#2': '#' .* only allowed in day-of-week"),
        ("0 0 12 ? * 6#6", r"day-of-week '6#6': occurrence 6 .* out of range 1-5"),
        ("0 0 12 ? * 6#0", r"day-of-week '6#0': occurrence 0 .* out of range 1-5"),
        ("0/0 * * * * ?", r"second '0/0': increment 0 is out of range 1-59"),
        ("0 0/0 * * * ?", r"minute '0/0': increment 0 is out of range 1-59"),
        ("*/0 * * * * ?", r"second '\*/0': increment 0"),
        ("*/60 * * * * ?", r"second '\*/60': increment 60 is out of range 1-59"),
        ("0 0 12 ? FOO *", r"month: unknown name 'FOO'"),
        ("0 0 12 ? * FOO", r"day-of-week: unknown name 'FOO'"),
        ("0 0 12 ? * MONDAY", r"day-of-week: unknown name 'MONDAY'"),
        ("0 0 MON * * ?", r"hour 'MON': names are only allowed in month and day-of-week"),
        ("0 0 12 L * 6L 2027", r"both a day-of-month \('L'\)"),
        ("0 0 12 ? * MON-FRI/2", r"increment cannot follow a name"),
        ("0 0 12 15W,20 * ?", r"'15W' must be the whole field"),
        ("0 0 12 L,15 * ?", r"'L' must be the whole field"),
        ("0 0 12 ? * 6#3,2", r"'6#3' must be the whole field"),
        ("0 0 12 ? * 6L,2", r"'6L' must be the whole field"),
        ("0 0 12 1-5W * ?", r"'W' must follow a single day"),
        ("0 0 12 L-31 * ?", r"offset 31 is out of range 0-30"),
        ("0 0 12 L- * ?", r"'L' in day-of-month must be written"),
        ("0 0 12 ? * L-2", r"'L' in day-of-week must be 'L' \(Saturday\) or 'nL'"),
        ("0 0 L * * ?", r"hour 'L': 'L' \(last\) is only allowed in day-of-month and day-of-week"),
        ("? 0 12 * * ?", r"second '\?': '\?' is only allowed in day-of-month and day-of-week"),
        ("0 0 12 ?,5 * SUN", r"day-of-month '\?,5': '\?' must be the whole field"),
        ("1,,2 * * * * ?", r"second '1,,2': empty value"),
        ("5X * * * * ?", r"second '5X': not a value"),
        ("-1 * * * * ?", r"second '-1': not a value"),
        ("0 0 12 ? * MON-5", r"day-of-week 'MON-5': not a value"),
        ("0 0 12 1 1 ? 2030-2020", r"year '2030-2020': the range runs backwards"),
    ],
)
def test_refused_expressions_name_the_field_and_the_text(text: str, message: str) -> None:
    with pytest.raises(CronError, match=message) as refusal:
        parse_cron(text)
    assert str(refusal.value).startswith(f"cron expression '{text}': ")
    assert isinstance(refusal.value, ValueError)


def test_whitespace_around_the_expression_and_tabs_between_fields_are_fine() -> None:
    assert parse_cron("\n  0 0 12 ? * 2\t2027 \n").years == frozenset({2027})
    assert parse_cron("0\t0 12 * * ?").hours == frozenset({12})


def test_what_a_cron_keeps() -> None:
    cron = parse_cron("0 15 10 ? * 6#3")
    assert cron.text == "0 15 10 ? * 6#3"
    assert (cron.day_field, cron.days_of_week, cron.nth_weekday) == ("day-of-week", {6}, 3)
    assert cron.years == frozenset(range(1970, 2200))
    last = parse_cron("0 0 12 L-2W * ?")
    assert (last.day_field, last.last_day_offset, last.nearest_weekday) == ("day-of-month", 2, True)


# -- Spring 5.3 (Camunda 7.24 on): 6 fields without `?`, and the macros ---------------------------


def test_the_dialect_is_quartz_with_a_question_mark_or_a_year_and_spring_otherwise() -> None:
    assert parse_cron("0 0 12 ? * 2").dialect == "quartz"
    assert parse_cron("0 0 12 1 1 ? 2030").dialect == "quartz"
    assert parse_cron("0 0 12 * * 1").dialect == "spring"
    assert parse_cron("0 */5 * * * *").dialect == "spring"
    assert parse_cron("@daily").dialect == "spring"


def test_spring_weekdays_skip_the_weekend() -> None:
    assert fires("0 0 9 * * MON-FRI", NOW, 3) == [
        at(2026, 12, 4, 9),  # Friday
        at(2026, 12, 7, 9),  # Monday
        at(2026, 12, 8, 9),
    ]


def test_spring_one_is_monday_while_quartz_two_is() -> None:
    assert fires("0 0 12 * * 1", NOW) == [at(2026, 12, 7, 12)]  # Spring: Monday
    assert fires("0 0 12 ? * 2", NOW) == [at(2026, 12, 7, 12)]  # Quartz: Monday
    assert fires("0 0 12 * * 6", NOW) == [at(2026, 12, 5, 12)]  # Spring: Saturday
    assert parse_cron("0 0 12 * * 1").days_of_week == parse_cron("0 0 12 ? * 2").days_of_week


def test_spring_zero_and_seven_are_both_sunday() -> None:
    assert fires("0 0 12 * * 0", NOW) == [at(2026, 12, 6, 12)]
    assert fires("0 0 12 * * 7", NOW) == [at(2026, 12, 6, 12)]
    assert fires("0 0 12 * * SUN", NOW) == [at(2026, 12, 6, 12)]


def test_spring_ranges_names_and_increments_of_days_of_the_week() -> None:
    # `SUN-SAT` starts at Sunday 0: every day, stored as no day-of-week restriction at all.
    every_day = parse_cron("0 0 12 * * SUN-SAT")
    assert (every_day.day_field, every_day.days_of_week) == ("day-of-month", frozenset())
    assert parse_cron("0 0 12 * * 7-1").days_of_week == frozenset({1, 2})  # Sunday, Monday
    # Spring's `*` runs Monday to Sunday: `*/2` is MON, WED, FRI, SUN (Quartz numbers 2, 4, 6, 1).
    assert parse_cron("0 0 12 * * */2").days_of_week == frozenset({2, 4, 6, 1})
    assert parse_cron("0 0 12 * * MON-FRI/2").days_of_week == frozenset({2, 4, 6})
    assert parse_cron("0 0 12 * * MON-5").days_of_week == frozenset(range(2, 7))
    assert parse_cron("0 0 12 * * mon,wed").days_of_week == frozenset({2, 4})


def test_spring_and_quartz_forms_of_the_same_schedule_agree() -> None:
    spring, quartz = parse_cron("0 0 9 * * MON-FRI"), parse_cron("0 0 9 ? * MON-FRI")
    assert (spring.dialect, quartz.dialect) == ("spring", "quartz")
    assert spring == replace(quartz, text=spring.text, dialect="spring")


def test_spring_last_friday_of_the_month() -> None:
    assert fires("0 0 12 * * 5L", NOW, 2) == [at(2026, 12, 25, 12), at(2027, 1, 29, 12)]
    assert fires("0 0 12 * * FRIL", NOW) == [at(2026, 12, 25, 12)]
    assert fires("0 0 12 * * 0L", NOW) == [at(2026, 12, 27, 12)]  # last Sunday


def test_spring_second_friday_of_the_month() -> None:
    assert fires("0 0 12 * * FRI#2", NOW, 2) == [at(2026, 12, 11, 12), at(2027, 1, 8, 12)]
    assert fires("0 0 12 * * 5#2", NOW) == [at(2026, 12, 11, 12)]


def test_spring_both_day_fields_must_match() -> None:
    cron = parse_cron("0 0 12 13 * FRI")
    assert (cron.day_field, cron.days_of_month, cron.days_of_week) == ("both", {13}, {6})
    assert fires("0 0 12 13 * FRI", NOW) == [at(2027, 8, 13, 12)]  # Friday the 13th
    assert fires("0 0 12 1-7 * MON", NOW, 2) == [at(2026, 12, 7, 12), at(2027, 1, 4, 12)]
    # The last day of the month when it is also the last Saturday: the month ends on a Saturday.
    assert fires("0 0 12 L * 6L", NOW) == [at(2027, 7, 31, 12)]


def test_spring_last_day_and_last_weekday_of_the_month() -> None:
    assert fires("0 0 12 L * *", NOW, 3) == [
        at(2026, 12, 31, 12),
        at(2027, 1, 31, 12),
        at(2027, 2, 28, 12),
    ]
    assert fires("0 0 12 LW * *", NOW, 3) == [
        at(2026, 12, 31, 12),  # a Thursday
        at(2027, 1, 29, 12),  # 31 January is a Sunday
        at(2027, 2, 26, 12),  # 28 February is a Sunday
    ]
    assert fires("0 0 12 L-3 * *", NOW) == [at(2026, 12, 28, 12)]
    assert fires("0 0 12 15W * *", at(2027, 5, 1)) == [at(2027, 5, 14, 12)]  # Sat 15th: Friday


def test_spring_nearest_weekday_only_in_months_that_have_the_day() -> None:
    # Quartz reads "April 31" as Saturday 1 May and fires on Friday 30 April; Spring skips April.
    assert fires("0 0 12 31W * ?", at(2027, 3, 31, 12)) == [at(2027, 4, 30, 12)]
    assert fires("0 0 12 31W * *", at(2027, 3, 31, 12)) == [at(2027, 5, 31, 12)]


@pytest.mark.parametrize(
    ("macro", "same_as", "first"),
    [
        ("@yearly", "0 0 0 1 1 *", at(2027, 1, 1)),
        ("@annually", "0 0 0 1 1 *", at(2027, 1, 1)),
        ("@monthly", "0 0 0 1 * *", at(2027, 1, 1)),
        ("@weekly", "0 0 0 * * 0", at(2026, 12, 6)),  # Sunday midnight
        ("@daily", "0 0 0 * * *", at(2026, 12, 4)),
        ("@midnight", "0 0 0 * * *", at(2026, 12, 4)),
        ("@hourly", "0 0 * * * *", at(2026, 12, 3, 11)),
        ("  @Daily\n", "0 0 0 * * *", at(2026, 12, 4)),
    ],
)
def test_spring_macros(macro: str, same_as: str, first: datetime) -> None:
    cron = parse_cron(macro)
    assert (cron.text, cron.dialect) == (macro, "spring")
    assert cron == replace(parse_cron(same_as), text=macro)
    assert fires(macro, NOW) == [first]


def test_the_next_hourly_and_monthly_macro_times() -> None:
    assert fires("@hourly", NOW, 2) == [at(2026, 12, 3, 11), at(2026, 12, 3, 12)]
    assert fires("@monthly", NOW, 2) == [at(2027, 1, 1), at(2027, 2, 1)]
    assert fires("@yearly", NOW, 2) == [at(2027, 1, 1), at(2028, 1, 1)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0 0 12 * * 8", r"day-of-week 8 is out of range 0-7 \(0 or 7 = SUN, 1 = MON"),
        ("0 0 12 * * 1#6", r"day-of-week '1#6': occurrence 6 after '#' is out of range 1-5"),
        ("0 0 12 * * 1#0", r"occurrence 0 after '#' is out of range 1-5"),
        ("0 0 12 * * 8L", r"day-of-week 8 in '8L' is out of range 0-7"),
        ("*/5 * * * *", r"got 5; cron here starts with seconds: did you mean '0 \*/5 \* \* \* \*'"),
        ("@often", r"unknown macro '@often' \(expected one of @yearly, .*@hourly\)"),
        ("@daily 2027", r"unknown macro '@daily 2027'"),
        ("0 0 12 * * FRI-MON", r"day-of-week 'FRI-MON': the range runs backwards"),
        ("0 0 22-2 * * *", r"hour '22-2': the range runs backwards"),
        ("0 0 12 * * L", r"day-of-week 'L': 'L' in day-of-week must follow a day"),
        ("0 0 12 L-2W * *", r"Spring takes 'L', 'L-n' and 'LW', not 'L-nW'"),
        ("0 0 12 L-0 * *", r"offset 0 is out of range 1-30"),
        ("0 0 12 L-31 * *", r"offset 31 is out of range 1-30"),
        ("0 0 12 32 * *", r"day-of-month 32 is out of range 1-31"),
        ("0 0 12 W * *", r"'W' must follow a single day"),
        ("0 0 12 15W,20 * *", r"'15W' must be the whole field"),
        ("0 0 12 * * 5L,1", r"'5L' must be the whole field"),
        ("/5 * * * * *", r"second '/5': an increment needs a start, as in '\*/5' or '0/5'"),
        ("*/0 * * * * *", r"second '\*/0': increment 0 is out of range 1-59"),
        ("0 0 MON * * *", r"hour 'MON': names are only allowed in month and day-of-week"),
        ("0 0 12 * * MONDAY", r"day-of-week: unknown name 'MONDAY' \(expected MON-SUN\)"),
        ("0 0 12 * FOO *", r"month: unknown name 'FOO'"),
        ("0 0 12 * * 5W", r"'W' \(nearest weekday\) is only allowed in day-of-month"),
        ("0 0 L * * *", r"hour 'L': 'L' \(last\) is only allowed"),
        ("1,,2 * * * * *", r"second '1,,2': empty value"),
    ],
)
def test_refused_spring_expressions_name_the_field_and_the_text(text: str, message: str) -> None:
    with pytest.raises(CronError, match=message) as refusal:
        parse_cron(text)
    assert str(refusal.value).startswith(f"cron expression '{text}': ")
    assert "must be ?" not in str(refusal.value) and "put '?'" not in str(refusal.value)


# -- properties -----------------------------------------------------------------------------------


def _quartz_weekday(day: date) -> int:
    return day.isoweekday() % 7 + 1  # isoweekday: Monday 1 .. Sunday 7; Quartz: Sunday 1


def _matches(cron: Cron, moment: datetime) -> bool:
    """For plain day fields; days of the week are stored in Quartz's numbering in both dialects."""
    month_day_ok = moment.day in cron.days_of_month
    week_day_ok = _quartz_weekday(moment.date()) in cron.days_of_week
    day_ok = {
        "day-of-month": month_day_ok,
        "day-of-week": week_day_ok,
        "both": month_day_ok and week_day_ok,  # Spring: a day must match both fields
    }[cron.day_field]
    return (
        day_ok
        and moment.second in cron.seconds
        and moment.minute in cron.minutes
        and moment.hour in cron.hours
        and moment.month in cron.months
        and moment.year in cron.years
    )


def _brute_force_next(cron: Cron, moment: datetime) -> datetime:
    """Walk day by day and try every allowed time of day: slow, but obviously right."""
    times = sorted(itertools.product(cron.hours, cron.minutes, cron.seconds))
    day = moment.date()
    while True:
        for h, m, s in times:
            candidate = datetime(day.year, day.month, day.day, h, m, s, tzinfo=UTC)
            if candidate > moment and _matches(cron, candidate):
                return candidate
        day += timedelta(days=1)


def _values(low: int, high: int) -> st.SearchStrategy[list[int]]:
    return st.lists(st.integers(low, high), min_size=1, max_size=3, unique=True)


@st.composite
def simple_expressions(draw: st.DrawFn) -> str:
    def field(values: list[int]) -> str:
        return ",".join(map(str, values))

    seconds, minutes, hours = draw(_values(0, 59)), draw(_values(0, 59)), draw(_values(0, 23))
    months = draw(st.one_of(st.just("*"), _values(1, 12).map(field)))
    if draw(st.booleans()):
        days = f"{field(draw(_values(1, 28)))} {months} ?"  # every month has days 1-28
    else:
        days = f"? {months} {field(draw(_values(1, 7)))}"
    return f"{field(seconds)} {field(minutes)} {field(hours)} {days}"


@st.composite
def spring_expressions(draw: st.DrawFn) -> str:
    """6 fields without `?`: Spring, with `*` or values in each day field (0-7 for weekdays)."""

    def field(values: list[int]) -> str:
        return ",".join(map(str, values))

    seconds, minutes, hours = draw(_values(0, 59)), draw(_values(0, 59)), draw(_values(0, 23))
    month_days = draw(st.one_of(st.just("*"), _values(1, 28).map(field)))
    months = draw(st.one_of(st.just("*"), _values(1, 12).map(field)))
    week_days = draw(st.one_of(st.just("*"), _values(0, 7).map(field)))
    return f"{field(seconds)} {field(minutes)} {field(hours)} {month_days} {months} {week_days}"


moments = st.datetimes(
    min_value=datetime(1970, 1, 1), max_value=datetime(2190, 12, 31), timezones=st.just(UTC)
)


@given(simple_expressions(), moments)
def test_next_after_is_later_matches_every_field_and_skips_nothing(
    text: str, moment: datetime
) -> None:
    cron = parse_cron(text)
    result = cron.next_after(moment)
    assert result is not None
    assert result > moment
    assert (result.microsecond, result.fold, result.tzinfo) == (0, 0, UTC)
    assert _matches(cron, result)
    assert result == _brute_force_next(cron, moment)


@given(simple_expressions(), moments)
def test_asking_again_from_just_before_gives_the_same_time(text: str, moment: datetime) -> None:
    cron = parse_cron(text)
    result = cron.next_after(moment)
    assert result is not None
    assert cron.next_after(result - timedelta(seconds=1)) == result
    following = cron.next_after(result)
    assert following is not None and following > result


def _spring_weekday(day: date) -> int:
    return day.isoweekday() % 7  # Spring: Sunday 0 (or 7), Monday 1 ... Saturday 6


# Both day fields restricted can leave years between fire times (a Friday the 13th in February):
# stay well before 2199, after which nothing fires.
spring_moments = st.datetimes(
    min_value=datetime(1970, 1, 1), max_value=datetime(2150, 12, 31), timezones=st.just(UTC)
)


@given(spring_expressions(), spring_moments)
def test_spring_next_after_matches_both_day_fields_and_skips_nothing(
    text: str, moment: datetime
) -> None:
    cron = parse_cron(text)
    assert cron.dialect == "spring"
    result = cron.next_after(moment)
    assert result is not None and result > moment
    assert _matches(cron, result)
    # Against the text itself, in Spring's numbering: every field must match (AND).
    _, _, _, month_days, _, week_days = text.split(" ")
    if month_days != "*":
        assert result.day in {int(day) for day in month_days.split(",")}
    if week_days != "*":
        assert _spring_weekday(result.date()) in {int(day) % 7 for day in week_days.split(",")}
    assert result == _brute_force_next(cron, moment)
