"""flowledger extension (under `/flowledger/v1`): a task's and a start form's `camunda:formData`
fields as a page renders them — type, label, default, enum values, constraints — so the tasklist
checks them before the server checks them again on submit.

Thin: the form service evaluates labels and defaults in the form's scope.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core.forms import RenderedField
from flowledger.engine import Engine

from .process_definition import _by_id
from .task_form import task_known


class FormFieldValueDto(msgspec.Struct):
    id: str
    name: str | None


class FormFieldConstraintDto(msgspec.Struct):
    name: str
    config: str | None


class FormFieldDto(msgspec.Struct, rename="camel"):
    """One field: `type` is string, long, boolean, date or enum; `defaultValue` the form's value
    of the default (a date as text in the field's pattern, `datePattern`)."""

    id: str
    label: str | None
    type: str
    default_value: str | int | float | bool | None
    values: list[FormFieldValueDto]
    constraints: list[FormFieldConstraintDto]
    date_pattern: str | None


def _dto(rendered: RenderedField) -> FormFieldDto:
    field = rendered.field
    return FormFieldDto(
        id=field.id,
        label=rendered.label,
        type=field.type,
        default_value=rendered.default_value,
        values=[FormFieldValueDto(v.id, v.name) for v in field.values],
        constraints=[FormFieldConstraintDto(c.name, c.config) for c in field.constraints],
        date_pattern=field.date_pattern if field.type == "date" else None,
    )


@get("/task/{id:str}/form-fields", sync_to_thread=True)
def task_form_fields(engine: NamedDependency[Engine], id: FromPath[str]) -> list[FormFieldDto]:
    with task_known(id):
        return [_dto(r) for r in engine.form_service.task_form_fields(id)]


@get("/process-definition/{id:str}/form-fields", sync_to_thread=True)
def start_form_fields(engine: NamedDependency[Engine], id: FromPath[str]) -> list[FormFieldDto]:
    definition = _by_id(engine, id)
    return [_dto(r) for r in engine.form_service.start_form_fields(definition.id)]


routes: list[Any] = [task_form_fields, start_form_fields]
