"""Every event of the vocabulary has its applier in `evolve`: forgetting one fails here, not in a
replay months later."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flowledger.core import events as ev
from flowledger.core import evolve


class Orphaned(ev.Event, tag=True, frozen=True):
    """An event type nobody registered an applier for."""

    time: datetime


def _started() -> ev.ProcessInstanceStarted:
    return ev.ProcessInstanceStarted(
        process_instance_id="pi",
        definition_id="p:1",
        definition_key="p",
        definition_version=1,
        deployment_id="d",
        business_key=None,
        start_activity_id="s",
        time=datetime(2026, 1, 1, tzinfo=UTC),
    )


def test_every_event_type_has_exactly_one_applier() -> None:
    evolve.check_complete()
    assert evolve.declared_event_types() == set(ev.EVENT_TYPES)


def test_an_event_type_without_applier_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(evolve.APPLIERS, ev.TaskClaimed)
    with pytest.raises(AssertionError, match=r"events without an applier: TaskClaimed$"):
        evolve.check_complete()


def test_an_event_struct_left_out_of_the_union_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    # As if it were declared in core/events.py but not added to EngineEvent (nor to evolve).
    monkeypatch.setattr(Orphaned, "__module__", ev.__name__)
    monkeypatch.setattr(ev, "Orphaned", Orphaned, raising=False)
    with pytest.raises(AssertionError) as caught:
        evolve.check_complete()
    assert str(caught.value) == (
        "events missing from the union events.EngineEvent: Orphaned; "
        "events without an applier: Orphaned"
    )


def test_an_applier_for_a_type_outside_the_vocabulary_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(evolve.APPLIERS, Orphaned, lambda _s, _e: None)
    with pytest.raises(AssertionError, match=r"not events of core\.events: Orphaned"):
        evolve.check_complete()


def test_evolve_refuses_an_event_without_applier_by_name() -> None:
    state = evolve.evolve(None, _started())
    with pytest.raises(ValueError, match="no applier for the event type Orphaned"):
        evolve.evolve(state, Orphaned(time=datetime(2026, 1, 1, tzinfo=UTC)))
