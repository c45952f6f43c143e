"""The engine-rest resources, one module per Camunda resource; each exports `routes`."""

from types import ModuleType

from . import (
    deployment,
    engine_info,
    event_subscription,
    execution,
    external_task,
    history,
    history_jobs,
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
)
