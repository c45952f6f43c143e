"""Camunda's FormService: the generated forms of user tasks and start events (`camunda:formData`)
— their keys, fields and values — and submitting them, checked against every constraint.

Reads the deployed model for the fields, the variables a task sees for their values; the checks
and conversions are the domain's (`core.forms`). A submission completes the task (or starts the
instance) with the checked variables: the same command as a plain completion or start.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from flowledger.core import views
from flowledger.core.errors import NotFound, ProcessEngineError
from flowledger.core.expressions import Expression, ExpressionEvaluationError, MappingContext
from flowledger.core.forms import (
    FormDefinition,
    FormField,
    RenderedField,
    form_value,
    submitted_variables,
)
from flowledger.core.model import EventSpec, ProcessModel, UserTaskSpec
from flowledger.core.variables import StoredValue, from_stored, to_stored
from flowledger.engine.services.base import Caller, EngineParts, Service
from flowledger.engine.services.runtime import RuntimeService
from flowledger.engine.services.tasks import TaskService
from flowledger.projections.queries import reads

NO_FORM = FormDefinition()


def rendered_form_key(kind: str, entity_id: str) -> str:
    """The key Camunda's REST answers for a generated form without a `camunda:formKey`."""
    return f"embedded:engine://engine/:engine/{kind}/{entity_id}/rendered-form"


class FormService(Service):
    def __init__(
        self,
        parts: EngineParts,
        caller: Caller,
        tasks: TaskService,
        runtime: RuntimeService,
    ) -> None:
        super().__init__(parts, caller)
        self._tasks = tasks
        self._runtime = runtime

    # -- the models' forms -----------------------------------------------------------------

    def _model(self, definition_id: str) -> ProcessModel:
        with self._parts.db.read() as conn:
            if reads.process_definition(conn, definition_id) is None:
                raise NotFound("Process definition", definition_id)
            return self._parts.streams.model(conn, definition_id)

    def _task_form(self, task: views.Task) -> FormDefinition:
        activity = self._model(task.process_definition_id).activities.get(task.task_definition_key)
        spec = activity.spec if activity is not None else None
        form = spec.form if isinstance(spec, UserTaskSpec) else None
        return form or NO_FORM

    def start_form_definition(self, definition_id: str) -> FormDefinition:
        """The start form of the definition's start event (empty when it has none)."""
        model = self._model(definition_id)
        start = model.activities.get(model.start_events.get(model.id, ""))
        spec = start.spec if start is not None else None
        form = spec.form if isinstance(spec, EventSpec) else None
        return form or NO_FORM

    # -- keys ------------------------------------------------------------------------------

    def task_form_key(self, task_id: str) -> str | None:
        """The task's form key (`camunda:formKey` as evaluated at its creation), or for a
        generated form Camunda's `embedded:engine://...` key, or None."""
        task = self._tasks.task(task_id)
        key = self._tasks.form_keys({task.id: task.process_instance_id}).get(task.id)
        if not key and self._task_form(task).fields:
            return rendered_form_key("task", task.id)
        return key or None

    def start_form_key(self, definition_id: str) -> str | None:
        form = self.start_form_definition(definition_id)
        if not form.key and form.fields:
            return rendered_form_key("process-definition", definition_id)
        return form.key

    # -- fields and values -----------------------------------------------------------------

    def task_form_fields(self, task_id: str) -> list[RenderedField]:
        """The task form's fields, labels and defaults evaluated in the task's scope."""
        task = self._tasks.task(task_id)
        scope = self._scope(task_id)
        element = f"'{task.task_definition_key}'"
        return [self._render(f, element, scope) for f in self._task_form(task).fields]

    def start_form_fields(self, definition_id: str) -> list[RenderedField]:
        """The start form's fields; their expressions see no variables (no instance yet)."""
        form = self.start_form_definition(definition_id)
        return [self._render(f, "the start event", {}) for f in form.fields]

    def task_form_variables(
        self, task_id: str, names: Collection[str] | None = None
    ) -> dict[str, StoredValue]:
        """Camunda's getTaskFormVariables: each form field's value as the form shows it (the
        variable's value, else the default), then every other variable the task sees; `names`
        keeps only those."""
        task = self._tasks.task(task_id)
        stored = self._tasks.get_variable_values(task_id)
        scope = {name: from_stored(value) for name, value in stored.items()}
        element = f"'{task.task_definition_key}'"
        out: dict[str, StoredValue] = {}
        for field in self._task_form(task).fields:
            if names is None or field.id in names:
                out[field.id] = self._value(field, element, scope)
        for name, value in stored.items():
            if name not in out and (names is None or name in names):
                out[name] = value
        return out

    def start_form_variables(
        self, definition_id: str, names: Collection[str] | None = None
    ) -> dict[str, StoredValue]:
        """Camunda's getStartFormVariables: each start form field's default as the form shows
        it (there is no instance, so no other variable)."""
        form = self.start_form_definition(definition_id)
        return {
            f.id: self._value(f, "the start event", {})
            for f in form.fields
            if names is None or f.id in names
        }

    # -- submitting ------------------------------------------------------------------------

    def submit_task_form(
        self,
        task_id: str,
        variables: Mapping[str, Any] | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Check the submitted values against the task form's constraints (FormFieldInvalid
        names the field and the constraint), convert them to the fields' types, take the
        defaults of fields not submitted, and complete the task with them."""
        task = self._tasks.task(task_id)
        form = self._task_form(task)
        submitted = dict(variables or {})
        if form.fields:
            element = f"'{task.task_definition_key}'"
            submitted = self._checked(form, submitted, self._scope(task_id), element)
        self._tasks.complete(task_id, submitted, command_id=command_id, actor=actor)

    def submit_start_form(
        self,
        definition_id: str,
        variables: Mapping[str, Any] | None = None,
        business_key: str | None = None,
        *,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.ProcessInstance:
        """Check and convert the start form's values as `submit_task_form` does, then start an
        instance of the definition with them."""
        form = self.start_form_definition(definition_id)
        submitted = dict(variables or {})
        if form.fields:
            submitted = self._checked(form, submitted, {}, "the start event")
        return self._runtime.start_process_instance(
            None,
            submitted,
            business_key,
            definition_id=definition_id,
            command_id=command_id,
            actor=actor,
        )

    # -- helpers ---------------------------------------------------------------------------

    def _scope(self, task_id: str) -> dict[str, Any]:
        stored = self._tasks.get_variable_values(task_id)
        return {name: from_stored(value) for name, value in stored.items()}

    def _checked(
        self,
        form: FormDefinition,
        submitted: dict[str, Any],
        scope: Mapping[str, Any],
        element: str,
    ) -> dict[str, Any]:
        field_ids = {f.id for f in form.fields}
        # Checked as the typed values they become (a Long sent as {"value": "5", "type":
        # "Long"} is the number 5), as Camunda deserializes them before its validators run.
        plain = {
            name: from_stored(to_stored(name, value)) if name in field_ids else value
            for name, value in submitted.items()
        }
        defaults = {
            f.id: self._evaluate(f.default_value, f, "defaultValue", element, scope)
            for f in form.fields
            if f.default_value is not None
        }
        # Variables that are no field are set as they came (their type kept).
        return submitted_variables(form.fields, plain, scope, defaults)

    def _render(self, field: FormField, element: str, scope: Mapping[str, Any]) -> RenderedField:
        label = self._evaluate(field.label, field, "label", element, scope)
        default = self._evaluate(field.default_value, field, "defaultValue", element, scope)
        value = None if default is None else form_value(field, default).value
        return RenderedField(field, None if label is None else str(label), value)

    def _value(self, field: FormField, element: str, scope: Mapping[str, Any]) -> StoredValue:
        current = scope.get(field.id)
        if current is None:
            current = self._evaluate(field.default_value, field, "defaultValue", element, scope)
        return form_value(field, current)

    def _evaluate(
        self,
        expression: Expression | None,
        field: FormField,
        what: str,
        element: str,
        scope: Mapping[str, Any],
    ) -> Any:
        """A label or default value, evaluated over the variables the form's scope sees."""
        if expression is None:
            return None
        now = self._parts.clock.now()
        context = MappingContext(scope, {"now": lambda: now, "dateTime": lambda: now})
        try:
            return expression.evaluate(context)
        except ExpressionEvaluationError as exc:
            raise ProcessEngineError(
                f"Cannot evaluate the {what} of form field '{field.id}' of {element} "
                f"({expression.source}): {exc}"
            ) from exc
