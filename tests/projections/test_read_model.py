"""The read model's searches, every one of them the same way: on a database with rows of every
kind, each declared `Search` counts what it finds, and every sort key, either way, pages
without overlap or gap (its tie-breaking order ends with a key) on every database."""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
from collections.abc import Iterator
from typing import Any

import pytest

from flowledger import ControllableClock, Engine
from flowledger.core import JobFailure
from flowledger.projections import queries as read_model
from flowledger.projections.queries import tasks
from flowledger.projections.queries.declaration import Search, count, find, first, first_where
from tests.dmn.models import dish
from tests.support import bpmn

PAGE = 2


def _searches() -> Iterator[tuple[str, Search[Any, Any]]]:
    """Every Search declared in a module of the read model (found, not listed: a new one is
    tested without being named here)."""
    prefix = f"{read_model.__name__}."
    for info in pkgutil.walk_packages(read_model.__path__, prefix):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, Search):
                yield f"{info.name.removeprefix(prefix)}.{name}", value


SEARCHES = dict(_searches())


@pytest.fixture
def populated(full_engine: Engine, clock: ControllableClock) -> Engine:
    engine = full_engine  # details too
    """Instances of four models at different moments: open and completed user tasks, an
    external task locked and one not, variables of several types, jobs and incidents, history
    of all of it."""
    engine.deploy(
        [
            (name, bpmn(name).read_bytes())
            for name in ("rest_task_filter.bpmn", "rest_ext_worker.bpmn")
        ],
        "read-model",
    )
    for i, (title, priority) in enumerate([("Alpha", 10), ("beta", 30), ("Gamma", 10)]):
        clock.advance(seconds=7)
        engine.start_process_instance(
            "restTaskFilter",
            {
                "title": title,
                "assignee": None if i == 1 else f"user{i}",
                "candidateUsers": "kermit",
                "candidateGroups": "g1,g2",
                "due": "2030-01-01T10:00:00Z" if i == 0 else None,
                "followUp": None,
                "priority": priority,
                "form": title.lower(),
                "notes": None,
            },
            business_key=None if i == 2 else f"key-{i}",
        )
        clock.advance(seconds=3)
        engine.start_process_instance("restExtWorker", {"topic": f"topic-{i % 2}"})
    engine.complete_task(engine.tasks(name="beta")[0].id, {"amount": 12.5})
    # what users did (the user operation log): at different moments, by different users
    for i, task in enumerate(engine.tasks()):
        clock.advance(seconds=5)
        engine.acting_as(f"user{i % 2}").task_service.set_assignee(task.id, f"user{i}")
    engine.external_task_service.fetch_and_lock("worker", {"topic-0": 60_000}, max_tasks=1)
    _add_jobs_and_incidents(engine, clock)
    _add_subscriptions(engine, clock)
    _add_decisions(engine, clock)
    _add_batches(engine, clock)
    return engine


def _add_batches(engine: Engine, clock: ControllableClock) -> None:
    """Two batches by different users at different moments: the first run to its end (its
    history ended), the second left running after its seed job ran."""
    for n, steps in enumerate(
        (("batch-seed-job", "instance-deletion", "batch-monitor-job"), ("batch-seed-job",))
    ):
        clock.advance(seconds=2)
        pi = engine.start_process_instance("restMessages").id
        engine.acting_as(f"user{n}").runtime_service.delete_process_instances_async([pi])
        for handler in steps:
            for job in engine.management_service.jobs(handler_type=handler):
                engine.management_service.execute_job(job.id)


def _add_subscriptions(engine: Engine, clock: ControllableClock) -> None:
    """Catch events waiting for messages, created at different times."""
    engine.deploy(bpmn("rest_messages.bpmn"), "read-model-messages")
    for _ in range(3):
        clock.advance(seconds=2)
        engine.start_process_instance("restMessages")


def _add_decisions(engine: Engine, clock: ControllableClock) -> None:
    """Two versions of a DRG (a decision requirements definition and two decisions each), a
    lone decision, and evaluations of both at different moments (required decisions too)."""
    for version in (1, 2):
        clock.advance(seconds=2)
        engine.deploy([("dinner.dmn", bpmn("dinner.dmn").read_bytes())], f"decisions-{version}")
    engine.deploy([("dish.dmn", dish())], "lone-dish")
    for season, guests in (("Fall", 4), ("Winter", 9), ("Summer", 2)):
        clock.advance(seconds=3)
        engine.acting_as(f"user-{guests}").evaluate_decision(
            "beverages",
            {"season": season, "guestCount": guests, "guestsWithChildren": guests < 5},
        )


def _add_jobs_and_incidents(engine: Engine, clock: ControllableClock) -> None:
    """Continuations waiting, failed (one out of retries: an incident, one resolved since),
    run (a timer waiting after them), and their job log."""
    engine.deploy(bpmn("rest_async_script_then_timer.bpmn"), "read-model-jobs")
    for divisor in (None, None, None, 2, 5):
        clock.advance(seconds=2)
        engine.start_process_instance("restJobs", {} if divisor is None else {"divisor": divisor})
    for job in engine.management_service.jobs():
        clock.advance(seconds=1)
        with contextlib.suppress(JobFailure):
            engine.management_service.execute_job(job.id)
    failed = engine.management_service.jobs(with_exception=True)
    engine.management_service.set_job_retries(failed[0].id, 0)
    engine.management_service.set_job_retries(failed[1].id, 0)
    engine.management_service.set_job_retries(failed[1].id, 2)


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_a_search_counts_what_it_finds_and_pages_every_sorting(
    populated: Engine, name: str
) -> None:
    search = SEARCHES[name]
    query = search.query()
    with populated.reading() as conn:
        everything = find(conn, search, query)
        assert everything, f"{name} found nothing to check its sorting with"
        assert count(conn, search, query) == len(everything)
        assert first(conn, search, query) == everything[0]
        for key in search.sorts:
            for descending in (False, True):
                sorting = [(key, descending)]
                full = find(conn, search, query, sorting)
                pages = [
                    row
                    for start in range(0, len(full), PAGE)
                    for row in find(conn, search, query, sorting, start, PAGE)
                ]
                assert pages == full, f"{name} sorted by {key}, descending={descending}"
                assert sorted(map(repr, full)) == sorted(map(repr, everything))


def test_a_lookup_by_key_reads_the_same_row_as_the_list(populated: Engine) -> None:
    with populated.reading() as conn:
        listed = find(conn, tasks.TASKS, tasks.TaskQuery(name="gamma"))
        assert len(listed) == 1  # task names compare case-insensitively, as Camunda's
        assert first_where(conn, tasks.TASKS, tasks.T.c.ID_ == listed[0].id) == listed[0]
        assert first_where(conn, tasks.TASKS, tasks.T.c.ID_ == "no such task") is None
