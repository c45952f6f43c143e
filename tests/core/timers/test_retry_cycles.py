"""`camunda:failedJobRetryTimeCycle` as Camunda reads it: how many retries, and how long each
failure waits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from flowledger.core.timers import TimerError, parse_retry_cycle

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def test_a_repeating_interval_gives_the_count_and_one_wait() -> None:
    cycle = parse_retry_cycle("R5/PT5M")
    assert cycle.retries == 5
    waits = [cycle.wait_until(left, NOW) - NOW for left in (5, 4, 1)]
    assert waits == [timedelta(minutes=5)] * 3


def test_a_list_retries_once_per_interval_waiting_each_in_turn() -> None:
    cycle = parse_retry_cycle("PT1M, PT5M,PT10M")
    assert cycle.retries == 3
    waits = [cycle.wait_until(left, NOW) - NOW for left in (3, 2, 1)]
    assert waits == [timedelta(minutes=1), timedelta(minutes=5), timedelta(minutes=10)]


def test_a_count_before_a_list_keeps_the_last_interval_for_the_rest() -> None:
    cycle = parse_retry_cycle("R4/PT1M,PT1H")
    assert cycle.retries == 4
    waits = [cycle.wait_until(left, NOW) - NOW for left in (4, 3, 2, 1)]
    assert waits == [timedelta(minutes=1)] + [timedelta(hours=1)] * 3


def test_retries_given_by_hand_beyond_the_count_wait_the_first_interval() -> None:
    cycle = parse_retry_cycle("PT1M,PT5M")
    assert cycle.wait_until(7, NOW) == NOW + timedelta(minutes=1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("PT5M", "names no retry count"),
        ("R/PT5M", "must be R<retries>/<duration>"),
        ("Rx/PT5M", "must be R<retries>/<duration>"),
        ("R3/PT5X", "is not an ISO 8601 duration"),
        ("PT1M,,PT2M", "has an empty interval"),
        ("", "has an empty interval"),
        ("R3/-PT5M", "an interval is negative"),
        ("R9999999/PT1S", "at most 1000000 retries"),
    ],
)
def test_a_bad_cycle_is_refused_saying_why(text: str, message: str) -> None:
    with pytest.raises(TimerError, match=message):
        parse_retry_cycle(text)
