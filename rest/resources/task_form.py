"""engine-rest: a task's form — its key (`GET /task/{id}/form`) and its variables as the form
shows them (`GET /task/{id}/form-variables`); submitting it is `POST /task/{id}/submit-form`
(rest/resources/task.py), checked by the form service.

Thin: the form service (engine/services/forms.py) reads the model and the task's variables.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
from litestar import get
from litestar.di import NamedDependency
from litestar.params import FromPath

from flowledger.core.errors import NotFound
from flowledger.core.forms import FormFieldInvalid
from flowledger.engine import Engine

from ..errors import RestError, not_found
from ..formats import split_list
from ..listing import AnyRequest
from ..params import flag
from ..variables import VariableValueDto, variables_dto
from .task import OPTIONS


class FormDto(msgspec.Struct, rename="camel"):
    """Camunda 7.15's FormDto. No process applications here: `contextPath` stays null."""

    key: str | None = None
    context_path: str | None = None


@contextmanager
def task_known(task_id: str) -> Iterator[None]:
    """An unknown task as Camunda's task resource answers it: 404, naming the task."""
    try:
        yield
    except NotFound as exc:
        if exc.kind != "Task":
            raise
        raise not_found(f"No matching task with id {task_id}") from None


def form_refused(prefix: str, exc: FormFieldInvalid) -> RestError:
    """A submitted value the form refuses, as Camunda's REST answers its validator's exception
    (FormFieldValidatorException is no FormFieldValidationException there: a 500 RestException
    whose message names the field and the constraint)."""
    return RestError(500, "RestException", f"{prefix}: {exc}")


def variable_names(request: AnyRequest) -> list[str] | None:
    text = request.query_params.get("variableNames")
    return None if text is None else split_list(text)


@get("/task/{id:str}/form", **OPTIONS)
def get_form(engine: NamedDependency[Engine], id: FromPath[str]) -> FormDto:
    with task_known(id):
        return FormDto(key=engine.form_service.task_form_key(id))


@get("/task/{id:str}/form-variables", **OPTIONS)
def get_form_variables(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> dict[str, VariableValueDto]:
    with task_known(id):
        values = engine.form_service.task_form_variables(id, variable_names(request))
    return variables_dto(values, deserialize=flag(request.query_params, "deserializeValues"))


routes: list[Any] = [get_form, get_form_variables]
