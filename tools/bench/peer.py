"""Runs one workload on the peer, SpiffWorkflow 3.2 (a library: in memory, no database), timed.

The peer gets the same graph in its own dialect (script tasks `count = count + 1`, Python
conditions); the spec is parsed once, and only the instances are timed: create the workflow from
the spec, run engine steps, complete the ready user tasks, run engine steps, check it completed.
SpiffWorkflow is optional: `missing_reason()` says why it cannot run. The same steps with the
workflow saved to SQLite between them are the durable peer (`durable_peer`).
"""

from __future__ import annotations

import importlib.metadata
import tracemalloc
from dataclasses import dataclass
from typing import Any

from lxml import etree

from .errors import BenchError
from .timing import Stopwatch
from .workloads import Workload

EXPECTED_VERSION = "3.2.0"


def missing_reason() -> str | None:
    """None when SpiffWorkflow can run, else what to install."""
    try:
        import SpiffWorkflow.bpmn
        import SpiffWorkflow.camunda.parser  # noqa: F401
    except ImportError as exc:
        return (
            f"SpiffWorkflow is not installed ({exc}); "
            f"pip install 'flowledger[bench]' (SpiffWorkflow=={EXPECTED_VERSION})"
        )
    return None


def version() -> str | None:
    try:
        return importlib.metadata.version("SpiffWorkflow")
    except importlib.metadata.PackageNotFoundError:
        return None


@dataclass
class PeerSpec:
    """A workload parsed once by SpiffWorkflow's Camunda parser, ready to instantiate."""

    workload: Workload
    spec: Any
    subprocess_specs: Any
    # version 2 (the `migrate` workload): each waiting workflow is migrated to it
    spec_v2: Any = None
    subprocess_specs_v2: Any = None
    spec_diff: Any = None


def parse(workload: Workload) -> PeerSpec:
    from SpiffWorkflow.camunda.parser import CamundaParser

    parser = CamundaParser()
    hardened = etree.XMLParser(resolve_entities=False, no_network=True)
    parser.add_bpmn_xml(
        etree.fromstring(workload.bpmn("peer"), hardened), filename=f"{workload.name}.bpmn"
    )
    spec = PeerSpec(
        workload,
        parser.get_spec(workload.process_id),
        parser.get_subprocess_specs(workload.process_id),
    )
    if workload.migrated_to is not None:
        v2 = CamundaParser()
        v2.add_bpmn_xml(
            etree.fromstring(workload.bpmn_v2("peer"), hardened), filename=f"{workload.name}.bpmn"
        )
        spec.spec_v2 = v2.get_spec(workload.process_id)
        spec.subprocess_specs_v2 = v2.get_subprocess_specs(workload.process_id)
    return spec


def start(peer: PeerSpec, i: int) -> Any:
    """Instance number `i`, created and run until it waits (at its user task) or ends."""
    from SpiffWorkflow.bpmn import BpmnWorkflow

    workflow = BpmnWorkflow(peer.spec, peer.subprocess_specs)
    workflow.task_tree.set_data(**peer.workload.start_variables(i))
    workflow.do_engine_steps()
    return workflow


def complete(peer: PeerSpec, workflow: Any, i: int) -> None:
    """Complete the workflow's ready user tasks with instance `i`'s variables, run it on."""
    from SpiffWorkflow.util.task import TaskState

    assert peer.workload.task_variables is not None
    for task in workflow.get_tasks(state=TaskState.READY, manual=True):
        task.set_data(**peer.workload.task_variables(i))
        task.run()
    workflow.do_engine_steps()


def migrate(peer: PeerSpec, workflow: Any) -> None:
    """SpiffWorkflow's own migration (3.x, `bpmn.util.diff`): the waiting workflow aligned with
    version 2 by the specs' diff (computed once, as flowledger's plan is built once) and moved
    onto it."""
    from SpiffWorkflow.bpmn.util.diff import SpecDiff, WorkflowDiff, migrate_workflow

    if peer.spec_diff is None:
        peer.spec_diff = SpecDiff(_registry(), peer.spec, peer.spec_v2)
    migrate_workflow(WorkflowDiff(workflow, peer.spec_diff), workflow, peer.spec_v2)


def _registry() -> Any:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = serializer().registry
    return _REGISTRY


_REGISTRY: Any = None


def check_completed(peer: PeerSpec, workflow: Any, i: int) -> None:
    if not workflow.is_completed():
        raise BenchError(f"{peer.workload.name} on SpiffWorkflow: instance {i} did not complete")


def run_instance(peer: PeerSpec, i: int) -> Any:
    """Run instance number `i` to its end; returns the finished BpmnWorkflow."""
    workflow = start(peer, i)
    if peer.spec_v2 is not None:
        migrate(peer, workflow)
    if peer.workload.task_variables is not None:
        complete(peer, workflow, i)
    check_completed(peer, workflow, i)
    return workflow


def run_by_updates(peer: PeerSpec, instances: int) -> list[Any]:
    """Start every instance (each waits), then set their variables round by round, as flowledger's
    runner does."""
    updates = peer.workload.variable_updates
    assert updates is not None
    workflows = [start(peer, i) for i in range(instances)]
    rounds = [updates(i) for i in range(instances)]
    for step in range(max((len(r) for r in rounds), default=0)):
        for i, workflow in enumerate(workflows):
            if step < len(rounds[i]):
                update_waiting(workflow, rounds[i][step])
    if peer.workload.task_variables is not None:
        for i, workflow in enumerate(workflows):
            complete(peer, workflow, i)
    for i, workflow in enumerate(workflows):
        check_completed(peer, workflow, i)
    return workflows


def update_waiting(workflow: Any, variables: dict[str, Any]) -> None:
    """Set `variables` on the workflow's waiting tasks and re-check them, then run on.
    SpiffWorkflow 3.2 re-checks a waiting conditional event only when its spec is updated
    (`refresh_timers` looks at timers alone), and an update first copies the data of the task
    before it: the variables go there."""
    from SpiffWorkflow.util.task import TaskState

    for task in workflow.get_tasks(state=TaskState.WAITING):
        task.parent.set_data(**variables)
        task.task_spec._update(task)
    for task in workflow.get_tasks(state=TaskState.READY, manual=True):
        task.set_data(**variables)  # a waiting user task holds the instance's data
    workflow.do_engine_steps()


def _run_all(peer: PeerSpec, instances: int) -> None:
    if peer.workload.variable_updates is not None:
        run_by_updates(peer, instances)
        return
    for i in range(instances):
        run_instance(peer, i)


def timed_run(peer: PeerSpec, instances: int) -> Stopwatch:
    """Wall and CPU seconds to run `instances` instances to their end."""
    watch = Stopwatch()
    with watch.running():
        _run_all(peer, instances)
    return watch


def peak_memory(peer: PeerSpec, instances: int) -> int:
    """Peak bytes Python allocated while running the instances (untimed: tracemalloc is slow)."""
    tracemalloc.start()
    try:
        _run_all(peer, instances)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def serializer() -> Any:
    """SpiffWorkflow's own serializer, configured for the Camunda parser's spec classes."""
    from SpiffWorkflow.bpmn.serializer import BpmnWorkflowSerializer
    from SpiffWorkflow.bpmn.serializer.config import DEFAULT_CONFIG
    from SpiffWorkflow.camunda.serializer import DEFAULT_CONFIG as CAMUNDA_CONFIG

    # Camunda's converters, plus the standard multi-instance ones its script tasks use.
    config = {**DEFAULT_CONFIG, **CAMUNDA_CONFIG}
    return BpmnWorkflowSerializer(BpmnWorkflowSerializer.configure(config))


def serialized_state_bytes(peer: PeerSpec) -> int | None:
    """Size of one finished workflow as SpiffWorkflow saves it (JSON), or None if it cannot."""
    if peer.workload.variable_updates is not None:
        workflow = run_by_updates(peer, 1)[0]
    else:
        workflow = run_instance(peer, 0)
    try:
        return len(serializer().serialize_json(workflow).encode())
    except Exception:  # the peer's serializer may not know a spec class: report, don't fail
        return None
