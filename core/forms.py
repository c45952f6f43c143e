"""Camunda's generated task and start forms (`camunda:formData`): the fields, their types and
constraints, and what a submission is checked and converted against, as Camunda's FormService.

Pure: no I/O, no clock. Expressions (labels, default values) are evaluated by the caller, who
knows the scope; this module converts and checks values only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .errors import ProcessEngineError
from .expressions import Expression, Long
from .limits import JAVA_LONG
from .variables import StoredValue

# Camunda's built-in form field types (ProcessEngineConfigurationImpl.initFormTypes) and
# validators (initFormFieldValidators); a custom type or validator is a Java class: refused.
FORM_TYPES = ("string", "long", "boolean", "date", "enum")
VALIDATORS = ("required", "minlength", "maxlength", "min", "max", "readonly")
DEFAULT_DATE_PATTERN = "dd/MM/yyyy"  # Camunda's DateFormType default


@dataclass(frozen=True, slots=True)
class EnumValue:
    """One `camunda:value` of an enum field: the id submitted and stored, the name shown."""

    id: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Constraint:
    """One `camunda:constraint` of a field's `camunda:validation`."""

    name: str
    config: str | None = None

    def __str__(self) -> str:
        # Camunda's FormFieldValidationConstraintHandler.toString: `min(10)`, `required`
        return self.name + (f"({self.config})" if self.config is not None else "")


@dataclass(frozen=True, slots=True)
class FormField:
    """A `camunda:formField`. `label` and `default_value` are expressions, evaluated in the
    task's scope (a start form: no variables), as Camunda's FormFieldHandler does."""

    id: str
    type: str
    label: Expression | None = None
    default_value: Expression | None = None
    values: tuple[EnumValue, ...] = ()
    date_pattern: str = DEFAULT_DATE_PATTERN
    constraints: tuple[Constraint, ...] = ()


@dataclass(frozen=True, slots=True)
class FormDefinition:
    """What an element's form is: its fields, and for a start event its `camunda:formKey` as
    written (Camunda answers the expression text of a start form key)."""

    fields: tuple[FormField, ...] = ()
    key: str | None = None


@dataclass(frozen=True, slots=True)
class RenderedField:
    """A field as a form shows it: its label and default value evaluated, the default as the
    form's value (a date as text in the field's pattern)."""

    field: FormField
    label: str | None
    default_value: str | int | float | bool | None


class FormFieldInvalid(ProcessEngineError):
    """A submitted value breaks a field's constraint or cannot be its type (Camunda's
    FormFieldValidatorException; its REST answers it as a 500 RestException)."""

    def __init__(self, field_id: str, message: str) -> None:
        super().__init__(message)
        self.field_id = field_id


def violation(field: FormField, constraint: Constraint) -> FormFieldInvalid:
    return FormFieldInvalid(
        field.id,
        f"Invalid value submitted for form field '{field.id}': validation of {constraint} failed.",
    )


# -- dates: Java's SimpleDateFormat patterns, the letters Camunda's forms use ---------------------

_JAVA_TOKENS = {
    "yyyy": "%Y",
    "yy": "%y",
    "MM": "%m",
    "M": "%m",
    "dd": "%d",
    "d": "%d",
    "HH": "%H",
    "H": "%H",
    "mm": "%M",
    "m": "%M",
    "ss": "%S",
    "s": "%S",
}


def strftime_pattern(java_pattern: str) -> str | None:
    """`dd/MM/yyyy` -> `%d/%m/%Y`; None when the pattern uses a letter not read here."""
    out: list[str] = []
    for match in re.finditer(r"'([^']*)'|([A-Za-z])\2*|[^A-Za-z']+", java_pattern):
        quoted, letter = match.group(1), match.group(2)
        if quoted is not None:
            out.append(quoted.replace("%", "%%") or "'")
        elif letter is not None:
            token = _JAVA_TOKENS.get(match.group(0))
            if token is None:
                return None
            out.append(token)
        else:
            out.append(match.group(0).replace("%", "%%"))
    return "".join(out)


def parse_form_date(field: FormField, text: str) -> datetime | None:
    """A date field's text in the field's pattern (UTC); empty text is no date."""
    text = text.strip()
    if not text:
        return None
    pattern = strftime_pattern(field.date_pattern) or "%d/%m/%Y"
    try:
        return datetime.strptime(text, pattern).replace(tzinfo=UTC)
    except ValueError:
        raise FormFieldInvalid(
            field.id,
            f"Could not parse value '{text}' as date using date format '{field.date_pattern}' "
            f"(form field '{field.id}').",
        ) from None


def format_form_date(field: FormField, value: datetime) -> str:
    pattern = strftime_pattern(field.date_pattern) or "%d/%m/%Y"
    moment = value if value.tzinfo is None else value.astimezone(UTC)
    return moment.strftime(pattern)


# -- conversion: submitted or default value -> the variable's value -------------------------------


def _not_a(field: FormField, value: Any, what: str) -> FormFieldInvalid:
    return FormFieldInvalid(
        field.id, f"Value '{value}' of form field '{field.id}' is not of type {what}."
    )


def to_model_value(field: FormField, value: Any) -> Any:
    """The variable value a submitted (or default) value becomes, as Camunda's form types
    convert it: text to a Long, a Boolean, a Date (in the field's pattern), an enum's id."""
    if value is None:
        return None
    kind = field.type
    if kind == "string":
        return value if isinstance(value, str) else _java_text(value)
    if kind == "long":
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise _not_a(field, value, "Long")
        try:
            number = int(value) if not isinstance(value, str) else int(value.strip())
        except ValueError:
            raise _not_a(field, value, "Long") from None
        if not JAVA_LONG[0] <= number <= JAVA_LONG[1]:
            raise _not_a(field, value, "Long")
        return Long(number)
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            return value.strip().lower() == "true"  # Java's Boolean.valueOf
        raise _not_a(field, value, "Boolean")
    if kind == "date":
        if isinstance(value, datetime):
            return value
        if isinstance(value, str):
            return parse_form_date(field, value)
        raise FormFieldInvalid(
            field.id,
            f"Value '{value}' of form field '{field.id}' cannot be transformed into a Date.",
        )
    # enum: one of its values' ids
    if not isinstance(value, str):
        raise _not_a(field, value, "String")
    if field.values and value not in {v.id for v in field.values}:
        raise FormFieldInvalid(
            field.id,
            f"Invalid value for enum form property: {value} (form field '{field.id}' takes "
            f"{', '.join(v.id for v in field.values)})",
        )
    return value


def _java_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def form_value(field: FormField, value: Any) -> StoredValue:
    """A field's value as the form shows it (Camunda's convertToFormValue): a Long, Boolean or
    String; a date as text in the field's pattern ("" when none)."""
    model = to_model_value(field, value)
    if field.type == "long":
        return StoredValue("long", None if model is None else int(model))
    if field.type == "boolean":
        return StoredValue("boolean", model)
    if field.type == "date":
        return StoredValue("string", "" if model is None else format_form_date(field, model))
    return StoredValue("string", model)


# -- validation ------------------------------------------------------------------------------------


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_constraint(
    field: FormField, constraint: Constraint, submitted: Any, has_value: bool
) -> None:
    """One constraint against a submitted value (None: not submitted, or null). `has_value`:
    whether the field is filled without it, by the variable's current value or its default
    (Camunda's RequiredValidator looks at both)."""
    name, config = constraint.name, constraint.config or ""
    if name == "required":
        ok = has_value if submitted is None else not (isinstance(submitted, str) and not submitted)
    elif name == "readonly":
        ok = submitted is None
    elif submitted is None:
        ok = True
    elif name in ("minlength", "maxlength"):
        if not isinstance(submitted, str):
            raise FormFieldInvalid(
                field.id,
                f"Invalid value submitted for form field '{field.id}': validation of "
                f"{constraint} failed: {name} applies to text, not {_java_text(submitted)!r}.",
            )
        limit = int(config)
        ok = len(submitted) >= limit if name == "minlength" else len(submitted) <= limit
    else:  # min, max
        if not _number(submitted):
            raise FormFieldInvalid(
                field.id,
                f"Invalid value submitted for form field '{field.id}': validation of "
                f"{constraint} failed: {name} applies to numbers, not {_java_text(submitted)!r}.",
            )
        bound = float(config) if isinstance(submitted, float) else _config_number(config)
        ok = submitted >= bound if name == "min" else submitted <= bound
    if not ok:
        raise violation(field, constraint)


def _config_number(config: str) -> int | float:
    try:
        return int(config)
    except ValueError:
        return float(config)


def config_problem(constraint: Constraint) -> str | None:
    """What is wrong with a built-in constraint's config (checked at deployment), or None."""
    name, config = constraint.name, (constraint.config or "").strip()
    if name in ("minlength", "maxlength") and not re.fullmatch(r"[0-9]+", config):
        return f"{name} needs a whole number of characters as its config, not {config!r}"
    if name in ("min", "max"):
        try:
            float(config)
        except ValueError:
            return f"{name} needs a number as its config, not {config!r}"
    return None


def submitted_variables(
    fields: tuple[FormField, ...],
    submitted: Mapping[str, Any],
    current: Mapping[str, Any],
    defaults: Mapping[str, Any],
) -> dict[str, Any]:
    """The variables a form submission sets, as Camunda's DefaultFormHandler: each field's value
    checked against every constraint (a missing required field fails unless its variable has a
    value or its default gives one), converted to its type; a field not submitted takes its
    default, when it has one; every other submitted variable is set as it came.

    `current`: the values of the variables the form's scope sees now; `defaults`: each field's
    evaluated default value (fields without a default value are absent)."""
    remaining = dict(submitted)
    out: dict[str, Any] = {}
    for field in fields:
        value = remaining.pop(field.id, None)
        filled = current.get(field.id) is not None or defaults.get(field.id) is not None
        for constraint in field.constraints:
            check_constraint(field, constraint, value, filled)
        if field.id in submitted:  # a value, or null: the variable is set to it
            out[field.id] = to_model_value(field, value)
        elif defaults.get(field.id) is not None:
            out[field.id] = to_model_value(field, defaults[field.id])
    out.update(remaining)
    return out
