"""What Camunda 7's engine tests say, spelt over flowledger's public Engine API.

`assertProcessEnded`, `taskQuery().singleResult()`, `orderByTaskName()`, the identity service's
group memberships: shared by the conformance modules; no models and no fixtures here.
"""

from __future__ import annotations

from dataclasses import dataclass

from flowledger import Engine
from flowledger.core.views import ActivityInstanceNode, Task


def historic_state(engine: Engine, instance_id: str) -> str:
    return engine.history_service.historic_process_instance(instance_id).state


def by_name(tasks: list[Task]) -> list[Task]:
    """Camunda's `orderByTaskName().asc()`."""
    return sorted(tasks, key=lambda t: t.name or "")


def names(tasks: list[Task]) -> list[str | None]:
    return [t.name for t in by_name(tasks)]


def single_task(engine: Engine, process_instance_id: str | None = None) -> Task:
    """Camunda's `createTaskQuery().singleResult()` (optionally for one instance)."""
    if process_instance_id is None:
        tasks = engine.tasks()
    else:
        tasks = engine.tasks(process_instance_id=process_instance_id)
    assert len(tasks) == 1, f"expected exactly one task, got {names(tasks)}"
    return tasks[0]


def child_activity_ids(node: ActivityInstanceNode) -> list[str]:
    return sorted(child.activity_id for child in node.child_activity_instances)


def assert_process_ended(
    engine: Engine, process_instance_id: str, end_activity_id: str | None = None
) -> None:
    """Camunda's assertProcessEnded, plus the historic instance it leaves behind."""
    instance = engine.runtime_service.process_instance(process_instance_id)
    assert instance is not None and instance.ended
    assert engine.runtime_service.executions(process_instance_id) == []
    assert engine.tasks(process_instance_id=process_instance_id) == []
    historic = engine.history_service.historic_process_instance(process_instance_id)
    assert historic.state == "COMPLETED"
    assert historic.end_time is not None
    if end_activity_id is not None:
        assert historic.end_activity_id == end_activity_id


def assert_deleted(engine: Engine, process_instance_id: str, reason: str | None) -> None:
    """After runtimeService.deleteProcessInstance: gone at runtime, externally terminated."""
    assert engine.runtime_service.executions(process_instance_id) == []
    assert engine.tasks(process_instance_id=process_instance_id) == []
    historic = engine.history_service.historic_process_instance(process_instance_id)
    assert historic.state == "EXTERNALLY_TERMINATED"
    assert historic.delete_reason == reason
    assert historic.end_time is not None


def assert_verified(engine: Engine) -> None:
    """Replay equals live state and rebuilt projections equal the live tables."""
    report = engine.verify()
    assert report.problems == []


def historic_activity_ids(engine: Engine, process_instance_id: str) -> list[str]:
    return [a.activity_id for a in engine.historic_activity_instances(process_instance_id)]


@dataclass(frozen=True)
class Directory:
    """The identity service of a Java test: which groups each user belongs to."""

    memberships: dict[str, list[str]]

    def candidate_tasks(self, engine: Engine, user: str) -> list[Task]:
        """Camunda's `taskCandidateUser(user)`: candidate directly or through a group."""
        return engine.tasks(candidate_user=user, candidate_groups=self.memberships[user])
