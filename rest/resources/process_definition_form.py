"""engine-rest: a process definition's start form — its key (`GET .../startForm`), its
variables as the form shows them (`GET .../form-variables`), and submitting it to start an
instance (`POST .../submit-form`), by id or by key (the latest version).

Thin: the form service (engine/services/forms.py) reads the model and checks the submission.
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from flowledger.core import views
from flowledger.core.errors import NotFound
from flowledger.core.forms import FormFieldInvalid
from flowledger.engine import Engine

from ..dto import build, self_link
from ..errors import invalid
from ..listing import AnyRequest
from ..params import flag
from ..variables import VariableValueDto, check_decoded_size, engine_variables, variables_dto
from .process_definition import _by_id, _by_key, rest_base
from .process_instance import ProcessInstanceDto
from .task import refuse_nul_in_body
from .task_form import FormDto, form_refused, variable_names


class StartProcessInstanceFormDto(msgspec.Struct, rename="camel"):
    """Camunda's StartProcessInstanceFormDto: the form's variables and a business key."""

    variables: dict[str, VariableValueDto] | None = None
    business_key: str | None = None


def _start_form(engine: Engine, definition_id: str) -> FormDto:
    try:
        return FormDto(key=engine.form_service.start_form_key(definition_id))
    except NotFound:
        raise invalid(
            f"Cannot get start form data for process definition {definition_id}: no deployed "
            "process definition has this id"
        ) from None


def _form_variables(
    engine: Engine, request: AnyRequest, definition: views.ProcessDefinition
) -> dict[str, VariableValueDto]:
    values = engine.form_service.start_form_variables(definition.id, variable_names(request))
    return variables_dto(values, deserialize=flag(request.query_params, "deserializeValues"))


def _submit(
    engine: Engine,
    request: AnyRequest,
    definition: views.ProcessDefinition,
    data: StartProcessInstanceFormDto | None,
) -> ProcessInstanceDto:
    body = data or StartProcessInstanceFormDto()
    refuse_nul_in_body("variables", body.variables)
    refuse_nul_in_body("businessKey", body.business_key)
    check_decoded_size(request, body.variables)
    try:
        instance = engine.form_service.submit_start_form(
            definition.id, engine_variables(body.variables), body.business_key
        )
    except FormFieldInvalid as exc:
        raise form_refused(f"Cannot instantiate process definition {definition.id}", exc) from None
    return build(
        ProcessInstanceDto,
        links=self_link(rest_base(request), f"/process-instance/{instance.id}"),
        id=instance.id,
        definition_id=instance.definition_id,
        business_key=instance.business_key,
        case_instance_id=None,
        ended=instance.ended,
        suspended=instance.suspended,
        tenant_id=None,
    )


@get("/process-definition/{id:str}/startForm", sync_to_thread=True)
def get_start_form(engine: NamedDependency[Engine], id: FromPath[str]) -> FormDto:
    return _start_form(engine, id)


@get("/process-definition/key/{key:str}/startForm", sync_to_thread=True)
def get_start_form_by_key(engine: NamedDependency[Engine], key: FromPath[str]) -> FormDto:
    return _start_form(engine, _by_key(engine, key).id)


@get("/process-definition/{id:str}/form-variables", sync_to_thread=True)
def get_start_form_variables(
    engine: NamedDependency[Engine], request: AnyRequest, id: FromPath[str]
) -> dict[str, VariableValueDto]:
    return _form_variables(engine, request, _by_id(engine, id))


@get("/process-definition/key/{key:str}/form-variables", sync_to_thread=True)
def get_start_form_variables_by_key(
    engine: NamedDependency[Engine], request: AnyRequest, key: FromPath[str]
) -> dict[str, VariableValueDto]:
    return _form_variables(engine, request, _by_key(engine, key))


@post("/process-definition/{id:str}/submit-form", status_code=200, sync_to_thread=True)
def submit_form(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    id: FromPath[str],
    data: JSONBody[StartProcessInstanceFormDto | None] = None,
) -> ProcessInstanceDto:
    return _submit(engine, request, _by_id(engine, id), data)


@post("/process-definition/key/{key:str}/submit-form", status_code=200, sync_to_thread=True)
def submit_form_by_key(
    engine: NamedDependency[Engine],
    request: AnyRequest,
    key: FromPath[str],
    data: JSONBody[StartProcessInstanceFormDto | None] = None,
) -> ProcessInstanceDto:
    # The version looked up is the one started, even if a newer one is deployed meanwhile.
    return _submit(engine, request, _by_key(engine, key), data)


routes: list[Any] = [
    get_start_form,
    get_start_form_by_key,
    get_start_form_variables,
    get_start_form_variables_by_key,
    submit_form,
    submit_form_by_key,
]
