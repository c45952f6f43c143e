"""Handlers of the repository's commands: deploy BPMN and DMN resources, delete a deployment.

Both decide under the log head lock (exclusive): versions per key are numbered there, and no start
slips in between a deletion's check for running instances and the deletion. Other commands write
their rows before they take that lock; a deployment writes only rows of its own, but a deletion
with cascade writes the rows of running instances, which a command on one of them may hold while
it waits for the lock. The database fails one of the two (deadlock) and the bus decides it again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from flowledger.core import commands as cmd
from flowledger.core import decide, views
from flowledger.core import events as ev
from flowledger.core import start_events as start_events_domain
from flowledger.core import start_timers as start_timers_domain
from flowledger.core.deployments import (
    LatestVersions,
    changed_only,
    deployment_created,
    parse_resources,
    unchanged,
)
from flowledger.core.errors import NotFound, Rejected
from flowledger.core.limits import check_deployment
from flowledger.core.model import ProcessModel
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers import start_events, start_timers
from flowledger.engine.commands.handlers.start_timers import append_to_deployment
from flowledger.engine.commands.unit_of_work import UnitOfWork

log = logging.getLogger("flowledger.engine")

DELETED_DEPLOYMENT = "deleted deployment"  # Camunda's delete reason for a cascade


def deploy(unit: UnitOfWork, command: cmd.Deploy) -> views.Deployment:
    resources = command.resources
    name, source = command.name, command.source
    check_deployment(name, source, [r.name for r in resources])
    conn = unit.conn
    unit.store.lock_head(conn)  # versions per key are numbered under the log head lock
    chosen = list(resources)
    if command.duplicate_filtering and name is not None:
        previous = lookups.latest_deployment_resources(conn, name, source)
        if previous is not None:
            if unchanged(resources, previous[1]):
                existing = lookups.deployment(conn, previous[0])
                assert existing is not None
                return existing
            if command.deploy_changed_only:
                chosen = changed_only(resources, previous[1])
    parsed = parse_resources(
        chosen, allow_scripts=unit.ctx.allow_scripts, connectors=unit.connectors
    )
    for resource_name, result in parsed.processes.items():
        for process_id in result.not_executable:
            log.info(
                "resource %s: process '%s' is not executable (it needs isExecutable=\"true\"): "
                "kept as a resource, no process definition deployed",
                resource_name,
                process_id,
            )
    for warning in parsed.warnings:
        log.warning("deployment warning: %s", warning)
    drgs = parsed.decisions.values()
    latest = LatestVersions(
        processes=lookups.latest_versions(
            conn, [p.id for r in parsed.processes.values() for p in r.processes]
        ),
        decisions=lookups.latest_decision_versions(
            conn, [d.id for drg in drgs for d in drg.decisions]
        ),
        requirements=lookups.latest_requirements_versions(conn, [g.id for g in drgs]),
    )
    created = deployment_created(
        chosen,
        parsed,
        name=name,
        source=source,
        now=unit.ctx.now,
        new_id=unit.ctx.new_id,
        latest=latest,
        duplicate_filtering=command.duplicate_filtering,
        deploy_changed_only=command.deploy_changed_only,
    )
    models: dict[str, ProcessModel] = {}
    for resource_name, result in parsed.processes.items():
        for process in result.processes:
            meta = next(
                d
                for d in created.process_definitions
                if d.key == process.id and d.resource_name == resource_name
            )
            models[meta.id] = process
    timers = start_timers.scheduled(unit, created, models)
    subscriptions = start_events.subscribed(unit, created, models)
    unit.append(created.deployment_id, 0, None, [created, *timers, *subscriptions])
    unit.repository.models.update(models)
    return views.Deployment(
        id=created.deployment_id,
        name=name,
        source=source,
        deployment_time=created.time,
        process_definitions=[
            views.ProcessDefinition(
                id=d.id,
                key=d.key,
                version=d.version,
                deployment_id=created.deployment_id,
                resource_name=d.resource_name,
                name=d.name,
                version_tag=d.version_tag,
                history_time_to_live=d.history_ttl,
                category=d.category,
                startable_in_tasklist=d.startable,
            )
            for d in created.process_definitions
        ],
        resource_names=sorted(r.name for r in chosen),
        decision_definitions=[
            views.DecisionDefinition(
                id=d.id,
                key=d.key,
                version=d.version,
                deployment_id=created.deployment_id,
                resource_name=d.resource_name,
                name=d.name,
                category=d.category,
                version_tag=d.version_tag,
                history_time_to_live=d.history_ttl,
                decision_requirements_definition_id=d.requirements_id,
                decision_requirements_definition_key=d.requirements_key,
            )
            for d in created.decision_definitions
        ],
        decision_requirements_definitions=[
            views.DecisionRequirementsDefinition(
                id=r.id,
                key=r.key,
                version=r.version,
                deployment_id=created.deployment_id,
                resource_name=r.resource_name,
                name=r.name,
                category=r.category,
            )
            for r in created.decision_requirements
        ],
        warnings=[
            views.DeploymentWarning(w.message, w.resource, w.element_id, w.line)
            for w in created.warnings
        ],
    )


def delete_deployment(unit: UnitOfWork, command: cmd.DeleteDeployment) -> None:
    conn = unit.conn
    deployment_id = command.deployment_id
    # Under the log head lock, like deploy: no start can slip in between the check for running
    # instances and the deletion (a start that decided earlier fails its guard).
    unit.store.lock_head(conn)
    deployment = lookups.deployment(conn, deployment_id)
    head = unit.store.stream_head(conn, deployment_id)
    if deployment is None or head is None:
        raise NotFound("Deployment", deployment_id)
    definition_ids = [d.id for d in deployment.process_definitions]
    running = lookups.running_process_instances(conn, definition_ids)
    if running and not command.cascade:
        _refuse_deletion_with_instances(definition_ids, running)
    for instance_id, _definition_id in running:
        session = unit.instance(instance_id)
        decide.delete_instance(session, DELETED_DEPLOYMENT)
        decide.delete_history(session)
    deleted = ev.DeploymentDeleted(
        deployment_id=deployment_id,
        cascade=command.cascade,
        process_definition_ids=definition_ids,
        time=unit.ctx.now,
        decision_definition_ids=[d.id for d in deployment.decision_definitions],
        decision_requirements_ids=[d.id for d in deployment.decision_requirements_definitions],
    )
    removed = [
        *start_timers.removed_with(unit, deployment_id),
        *start_events.removed_with(unit, deployment_id),
    ]
    for definition in deployment.process_definitions:
        _restore_previous_version(unit, definition)
    unit.append(deployment_id, head[0], head[1], [*removed, deleted])
    for definition_id in definition_ids:
        unit.repository.models.pop(definition_id, None)
    for decision in deployment.decision_definitions:
        unit.repository.decisions.pop(decision.id, None)


def _restore_previous_version(unit: UnitOfWork, deleted: views.ProcessDefinition) -> None:
    """The latest version of a key goes: the version before it starts on its timers and its
    messages and signals again (Camunda re-adds them), in its own deployment's stream."""
    latest = lookups.latest_process_definition(unit.conn, deleted.key)
    if latest is None or latest.id != deleted.id:
        return
    earlier = [
        d
        for d in lookups.process_definitions(unit.conn, key=deleted.key)
        if d.deployment_id != deleted.deployment_id
    ]
    if not earlier:
        return
    previous = max(earlier, key=lambda d: d.version)
    model = unit.repository.model(unit.conn, previous.id)
    now, new_id = unit.ctx.now, unit.ctx.new_id
    restored: list[ev.Event] = []
    timer = start_timers_domain.schedule(model, previous.deployment_id, previous.id, now, new_id)
    if timer is not None:
        restored.append(timer)
    restored += start_events_domain.subscribe(model, previous.id, now, new_id)
    if restored:
        append_to_deployment(unit, previous.deployment_id, restored)


def _refuse_deletion_with_instances(
    definition_ids: Sequence[str], running: Sequence[tuple[str, str]]
) -> None:
    """Camunda checks definition by definition and names the first that has instances; the
    message is Camunda's (ENGINE-03076), its spelling included, for clients that match it."""
    for definition_id in definition_ids:
        count = sum(1 for _i, d in running if d == definition_id)
        if count:
            raise Rejected(
                "Deletion of process definition without cascading failed. Process definition "
                f"with id: {definition_id} can't be deleted, since there exists {count} "
                "dependening process instances."
            )


HANDLERS = (
    Handler(cmd.Deploy, deploy, result=views.Deployment, exclusive=True),
    Handler(cmd.DeleteDeployment, delete_deployment, exclusive=True),
)
