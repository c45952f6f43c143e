"""Every projector handles each event type or ignores it on purpose, and refuses the rest: a new
event type fails here until someone decides what it means for the runtime and history rows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flowledger.core import events as ev
from flowledger.core.evolve import declared_event_types
from flowledger.core.variables import to_stored
from flowledger.projections.changes import ChangeSet, UnhandledEvent
from flowledger.projections.history import HISTORY_LEVELS, HistoryProjector
from flowledger.projections.repository import project_repository
from flowledger.projections.runtime import RuntimeBatch

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class Unforeseen(ev.Event, tag=True, frozen=True):
    """An event type added after the projectors were written."""

    time: datetime


PROJECTORS: dict[str, tuple[frozenset[type[ev.Event]], frozenset[type[ev.Event]]]] = {
    "RuntimeBatch": (RuntimeBatch.handled_events(), RuntimeBatch.IGNORED),
    "HistoryProjector": (HistoryProjector().handled_events(), HistoryProjector.IGNORED),
}


@pytest.mark.parametrize("name", PROJECTORS)
def test_each_event_type_is_handled_or_ignored_on_purpose(name: str) -> None:
    handled, ignored = PROJECTORS[name]
    undecided = {t.__name__ for t in declared_event_types() - handled - ignored}
    assert not undecided, f"{name} neither handles nor ignores {sorted(undecided)}"
    both = {t.__name__ for t in handled & ignored}
    assert not both, f"{name} both handles and ignores {sorted(both)}"
    assert handled | ignored <= declared_event_types()


def test_the_runtime_projector_refuses_an_unknown_event_by_name() -> None:
    with pytest.raises(UnhandledEvent, match="does not know the event type Unforeseen"):
        RuntimeBatch().observe(Unforeseen(time=NOW), None)


@pytest.mark.parametrize("level", HISTORY_LEVELS)
def test_the_history_projector_refuses_an_unknown_event_at_every_level(level: str) -> None:
    with pytest.raises(UnhandledEvent, match=r"HistoryProjector\.IGNORED"):
        HistoryProjector(level).observe(Unforeseen(time=NOW), None, ChangeSet())


def test_a_level_below_full_skips_what_it_does_not_record_without_refusing() -> None:
    changes = ChangeSet()
    variable = ev.VariableSet(
        variable_id="v",
        name="x",
        execution_id="pi",
        value=to_stored("x", 1),
        time=NOW,
        detail_id="d",
    )
    HistoryProjector("activity").observe(variable, None, changes)
    assert changes.row_count() == 0


def test_the_repository_projector_handles_the_deployment_events_and_refuses_the_rest() -> None:
    deleted = ev.DeploymentDeleted(
        deployment_id="d", cascade=False, process_definition_ids=["p:1:x"], time=NOW
    )
    changes = ChangeSet()
    project_repository(deleted, changes)  # handled: its rows go
    assert changes.purges  # its resources go with it
    assert set(ev.STATELESS_STREAM_EVENTS) <= declared_event_types()

    with pytest.raises(UnhandledEvent, match="does not know the event type Unforeseen"):
        project_repository(Unforeseen(time=NOW), ChangeSet())
