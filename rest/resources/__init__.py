"""The engine-rest resources, one module per Camunda resource; each exports `routes`.

EXTENSIONS are flowledger's own resources: served under `/flowledger/v1`, not `/engine-rest`,
and left out of the OpenAPI document that mirrors Camunda's (rest/app.py)."""

from types import ModuleType

from . import (
    audit_trail,
    decision_definition,
    decision_requirements_definition,
    deployment,
    engine_info,
    event_subscription,
    execution,
    external_task,
    history,
    history_cleanup,
    history_decision,
    history_jobs,
    history_operations,
    incident,
    job,
    job_definition,
    message,
    process_definition,
    process_instance,
    signal,
    suspension,
    task,
    variable_instance,
)

MODULES: tuple[ModuleType, ...] = (
    engine_info,
    deployment,
    process_definition,
    decision_definition,
    decision_requirements_definition,
    process_instance,
    execution,
    task,
    external_task,
    variable_instance,
    job,
    job_definition,
    incident,
    event_subscription,
    message,
    signal,
    suspension,
    history,
    history_jobs,
    history_operations,
    history_decision,
    history_cleanup,
)

EXTENSIONS: tuple[ModuleType, ...] = (audit_trail,)
