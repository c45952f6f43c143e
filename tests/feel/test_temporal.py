"""Dates, times, date-times and durations: construction, arithmetic, comparison, properties.

Expected results follow DMN 1.3 §10.3.2.3 / §10.3.4.1 and camunda/feel-scala
src/test/scala/org/camunda/feel/impl/interpreter/InterpreterDateTimeExpressionTest.scala and
DateTimeDurationPropertiesTest.scala.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from flowledger.core.feel import YearsMonthsDuration, parse_expression


def evaluate(text: str, **variables: object) -> object:
    return parse_expression(text).evaluate(variables)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('date("2020-01-31")', date(2020, 1, 31)),
        ("date(2020, 2, 29)", date(2020, 2, 29)),
        ('date(date and time("2020-01-31T10:00:00"))', date(2020, 1, 31)),
        ('time("10:30:00")', time(10, 30)),
        ('time("10:30:00.5")', time(10, 30, 0, 500000)),
        ('time("10:30:00+02:00")', time(10, 30, tzinfo=timezone(timedelta(hours=2)))),
        ('time("10:30:00Z")', time(10, 30, tzinfo=UTC)),
        ('time("10:30:00@Europe/Berlin")', time(10, 30, tzinfo=ZoneInfo("Europe/Berlin"))),
        ('time(10, 30, 0, duration("PT1H"))', time(10, 30, tzinfo=timezone(timedelta(hours=1)))),
        ('date and time("2020-01-01T10:00:00")', datetime(2020, 1, 1, 10)),
        ('date and time("2020-01-01T10:00:00Z")', datetime(2020, 1, 1, 10, tzinfo=UTC)),
        (
            'date and time("2020-01-01T10:00:00-05:00")',
            datetime(2020, 1, 1, 10, tzinfo=timezone(timedelta(hours=-5))),
        ),
        (
            'date and time("2020-06-01T10:00:00@Europe/Berlin")',
            datetime(2020, 6, 1, 10, tzinfo=ZoneInfo("Europe/Berlin")),
        ),
        (
            'date and time(date("2020-01-01"), time("10:00:00"))',
            datetime(2020, 1, 1, 10),
        ),
        ('duration("P1DT2H")', timedelta(days=1, hours=2)),
        ('duration("PT1.5S")', timedelta(seconds=1.5)),
        ('duration("-PT90M")', -timedelta(minutes=90)),
        ('duration("P1Y2M")', YearsMonthsDuration(14)),
        ('duration("-P2Y")', YearsMonthsDuration(-24)),
        (
            'years and months duration(date("2011-12-22"), date("2013-08-24"))',
            YearsMonthsDuration(20),
        ),
        ('@"2020-01-01"', date(2020, 1, 1)),
        ('@"10:00:00"', time(10)),
        ('@"2020-01-01T10:00:00"', datetime(2020, 1, 1, 10)),
        ('@"P1D"', timedelta(days=1)),
        ('@"P1Y"', YearsMonthsDuration(12)),
    ],
)
def test_construction(text: str, expected: object) -> None:
    assert evaluate(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        'date("2020-02-30")',
        'date("20200101")',
        'time("25:00:00")',
        'time("10:00:00@Nowhere/City")',
        'date and time("2020-01-01T")',
        'duration("P1Y2D")',
        'duration("P")',
        'duration("1D")',
        "date(5)",
    ],
)
def test_invalid_text_is_null(text: str) -> None:
    assert evaluate(text) is None


def test_years_and_months_duration_text() -> None:
    assert str(YearsMonthsDuration(14)) == "P1Y2M"
    assert str(YearsMonthsDuration(-12)) == "-P1Y"
    assert str(YearsMonthsDuration(0)) == "P0M"
    assert evaluate('string(duration("P14M"))') == "P1Y2M"
    assert evaluate('string(duration("P1DT2H"))') == "P1DT2H"
    assert evaluate('string(duration("PT0S"))') == "PT0S"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('date("2020-01-31") + duration("P1M")', date(2020, 2, 29)),
        ('date("2020-01-01") + duration("P1D")', date(2020, 1, 2)),
        ('duration("P1D") + date("2020-01-01")', date(2020, 1, 2)),
        ('date("2020-03-31") - duration("P1M")', date(2020, 2, 29)),
        ('date("2020-01-01") - date("2019-12-01")', timedelta(days=31)),
        (
            'date and time("2020-01-01T10:00:00") - date and time("2020-01-01T08:30:00")',
            timedelta(hours=1, minutes=30),
        ),
        (
            'date and time("2020-01-01T10:00:00") + duration("PT15H")',
            datetime(2020, 1, 2, 1),
        ),
        ('date and time("2020-01-31T10:00:00") + duration("P1Y1M")', datetime(2021, 2, 28, 10)),
        ('time("10:00:00") + duration("PT15H")', time(1)),
        ('time("10:00:00") - time("08:00:00")', timedelta(hours=2)),
        ('duration("P1D") + duration("PT12H")', timedelta(days=1, hours=12)),
        ('duration("P1Y") - duration("P2M")', YearsMonthsDuration(10)),
        ('duration("PT1H") * 2.5', timedelta(hours=2, minutes=30)),
        ('2 * duration("P1Y")', YearsMonthsDuration(24)),
        ('duration("P1D") / 4', timedelta(hours=6)),
        ('duration("P1D") / duration("PT1H")', 24),
        ('-duration("P1D")', -timedelta(days=1)),
        ('date("2020-01-01") + duration("P1Y") - date("2020-01-01")', timedelta(days=366)),
    ],
)
def test_arithmetic(text: str, expected: object) -> None:
    assert evaluate(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        'date("2020-01-01") + 1',
        'date("2020-01-01") + date("2020-01-01")',
        'duration("P1D") + duration("P1Y")',
        'date and time("2020-01-01T10:00:00Z") - date and time("2020-01-01T10:00:00")',
        'duration("P1D") * "a"',
    ],
)
def test_mismatched_temporal_arithmetic_is_null(text: str) -> None:
    assert evaluate(text) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('date("2020-01-01") < date("2020-01-02")', True),
        ('date("2020-01-01") = date("2020-01-01")', True),
        ('date("2020-01-01") = date and time("2020-01-01T00:00:00")', None),
        ('time("10:00:00") < time("11:00:00")', True),
        ('time("10:00:00+01:00") < time("10:30:00+02:00")', False),
        ('time("10:00:00+01:00") = time("11:00:00+02:00")', False),
        (
            'date and time("2020-01-01T10:00:00+01:00") = date and time("2020-01-01T09:00:00Z")',
            True,
        ),
        ('duration("P1D") > duration("PT23H")', True),
        ('duration("P1Y") > duration("P11M")', True),
        ('duration("P1Y") > duration("P1D")', None),
        ('date("2020-01-01") < "2020-01-02"', None),
    ],
)
def test_comparison(text: str, expected: object) -> None:
    assert evaluate(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('date("2020-03-04").year', 2020),
        ('date("2020-03-04").month', 3),
        ('date("2020-03-04").day', 4),
        ('date("2020-03-04").weekday', 3),
        ('date and time("2020-03-04T10:20:30").hour', 10),
        ('date and time("2020-03-04T10:20:30").minute', 20),
        ('date and time("2020-03-04T10:20:30").second', 30),
        ('date and time("2020-03-04T10:20:30").weekday', 3),
        ('date and time("2020-03-04T10:20:30+01:00").time offset', timedelta(hours=1)),
        ('date and time("2020-03-04T10:20:30").time offset', None),
        ('date and time("2020-03-04T10:20:30@Europe/Paris").timezone', "Europe/Paris"),
        ('time("10:20:30").hour', 10),
        ('duration("P2DT3H4M5S").days', 2),
        ('duration("P2DT3H4M5S").hours', 3),
        ('duration("P2DT3H4M5S").minutes', 4),
        ('duration("P2DT3H4M5S").seconds', 5),
        ('duration("-PT25H").days', -1),
        ('duration("-PT25H").hours', -1),
        ('duration("P1Y2M").years', 1),
        ('duration("P1Y2M").months', 2),
        ('date("2020-03-04").hour', None),
        ("d.year", 1999),
    ],
)
def test_properties(text: str, expected: object) -> None:
    assert evaluate(text, d=date(1999, 12, 31)) == expected


def test_python_temporal_inputs() -> None:
    assert evaluate('d + duration("P1D")', d=date(2020, 12, 31)) == date(2021, 1, 1)
    assert evaluate('t - duration("PT1H")', t=datetime(2020, 1, 1)) == datetime(2019, 12, 31, 23)
    assert evaluate("x * 2", x=timedelta(hours=1)) == timedelta(hours=2)
    assert evaluate("x.months", x=YearsMonthsDuration(14)) == 2


def test_now_and_today_answer_the_time_the_caller_gives() -> None:
    from datetime import UTC, date, datetime, timedelta

    from flowledger.core.feel import FeelEvaluationError, parse_expression, parse_unary_tests

    moment = datetime(2026, 12, 4, 10, 30, tzinfo=UTC)

    assert parse_expression("now()").evaluate({}, now=moment) == moment
    assert parse_expression("today()").evaluate({}, now=moment) == date(2026, 12, 4)
    assert parse_expression('now() - date and time("2026-12-01T10:30:00Z")').evaluate(
        {}, now=moment
    ) == timedelta(days=3)
    assert parse_unary_tests("< today()").matches(date(2026, 12, 3), {}, now=moment)
    assert not parse_unary_tests("< today()").matches(date(2026, 12, 4), {}, now=moment)
    # an evaluation reads no clock: without a time, now() is an error, not the wall clock
    with pytest.raises(FeelEvaluationError, match=r"now\(\) needs the time of the evaluation"):
        parse_expression("now()").evaluate({})
