"""The engine-rest resources, one module per Camunda resource; each exports `routes`."""

from types import ModuleType

from . import (
    deployment,
    engine_info,
    execution,
    external_task,
    history,
    process_definition,
    process_instance,
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
    history,
)
