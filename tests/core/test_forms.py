"""Generated forms in the domain: `camunda:formData` read at deployment (what cannot run refused,
naming element, field and constraint), and a submission checked and converted as Camunda's
FormService does."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest

from flowledger.core import ModelError
from flowledger.core.expressions import Long
from flowledger.core.forms import (
    Constraint,
    EnumValue,
    FormField,
    FormFieldInvalid,
    form_value,
    strftime_pattern,
    submitted_variables,
    to_model_value,
)
from flowledger.core.model import EventSpec, UserTaskSpec
from flowledger.core.parser import parse_bpmn
from flowledger.core.variables import StoredValue
from tests.support import BPMN_DIR


def _model(fields: str, *, start: str = "") -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
  <process id="p" isExecutable="true">
    <startEvent id="s" {start} />
    <sequenceFlow id="f1" sourceRef="s" targetRef="approve" />
    <userTask id="approve">
      <extensionElements><camunda:formData>{fields}</camunda:formData></extensionElements>
    </userTask>
    <sequenceFlow id="f2" sourceRef="approve" targetRef="e" />
    <endEvent id="e" />
  </process>
</definitions>""".encode()


def _problems(source: bytes) -> list[str]:
    with pytest.raises(ModelError) as caught:
        parse_bpmn(source, "forms.bpmn")
    return [p.message for p in caught.value.problems]


def test_the_form_fields_are_read_with_types_values_and_constraints() -> None:
    (model,) = parse_bpmn((BPMN_DIR / "task_form_fields.bpmn").read_bytes(), "x").processes
    task = model.activities["review"].spec
    assert isinstance(task, UserTaskSpec) and task.form is not None
    fields = {f.id: f for f in task.form.fields}
    assert fields["reason"].constraints == (Constraint("required"), Constraint("minlength", "3"))
    assert fields["priority"].values[0] == EnumValue("low", "Low")
    assert fields["reviewer"].default_value is not None
    start = model.activities["start"].spec
    assert isinstance(start, EventSpec) and start.form is not None
    assert start.form.key == "embedded:app:forms/start.html"
    assert [f.id for f in start.form.fields] == ["requester", "amount"]


def test_a_custom_type_is_refused_naming_element_and_field() -> None:
    problems = _problems(_model('<camunda:formField id="cost" type="money" />'))
    assert problems == [
        "form field 'cost' of 'approve' has the custom type 'money': only string, long, "
        "boolean, date, enum are supported (custom form types are Java classes)"
    ]


@pytest.mark.parametrize(
    ("constraint", "message"),
    [
        (
            '<camunda:constraint name="even" />',
            "form field 'n' of 'approve': validator 'even' is not supported (the validators are "
            "required, minlength, maxlength, min, max, readonly)",
        ),
        (
            '<camunda:constraint name="validator" config="org.acme.Check" />',
            "form field 'n' of 'approve': a custom validator is not supported (the validators "
            "are required, minlength, maxlength, min, max, readonly)",
        ),
        (
            '<camunda:constraint name="maxlength" config="ten" />',
            "form field 'n' of 'approve': maxlength needs a whole number of characters as its "
            "config, not 'ten'",
        ),
        (
            '<camunda:constraint name="min" config="" />',
            "form field 'n' of 'approve': min needs a number as its config, not ''",
        ),
    ],
)
def test_a_constraint_that_cannot_run_is_refused_naming_it(constraint: str, message: str) -> None:
    field = f'<camunda:formField id="n" type="long"><camunda:validation>{constraint}'
    assert _problems(_model(field + "</camunda:validation></camunda:formField>")) == [message]


def test_a_field_needs_an_id_and_a_type_and_a_readable_date_pattern() -> None:
    problems = _problems(
        _model(
            '<camunda:formField type="string" /><camunda:formField id="x" />'
            '<camunda:formField id="d" type="date" datePattern="EEE dd" />'
        )
    )
    assert problems == [
        "a camunda:formField of 'approve' needs a non-empty id",
        "form field 'x' of 'approve' needs a type (one of string, long, boolean, date, enum)",
        "form field 'd' of 'approve': datePattern 'EEE dd' uses letters flowledger does not "
        "read (use yyyy, yy, MM, dd, HH, mm, ss and literal text)",
    ]


def test_java_date_patterns_become_strftime_patterns() -> None:
    assert strftime_pattern("dd/MM/yyyy") == "%d/%m/%Y"
    assert strftime_pattern("yyyy-MM-dd'T'HH:mm") == "%Y-%m-%dT%H:%M"
    assert strftime_pattern("EEE") is None


LONG = FormField("amount", "long", constraints=(Constraint("min", "1"), Constraint("max", "10")))
NAME = FormField("name", "string", constraints=(Constraint("required"),))
WHEN = FormField("when", "date", date_pattern="yyyy-MM-dd")
LEVEL = FormField("level", "enum", values=(EnumValue("low"), EnumValue("high")))


def test_values_are_converted_to_the_fields_types() -> None:
    assert to_model_value(LONG, "7") == 7 and isinstance(to_model_value(LONG, "7"), Long)
    assert to_model_value(FormField("ok", "boolean"), "TRUE") is True
    assert to_model_value(FormField("ok", "boolean"), "yes") is False  # Boolean.valueOf
    assert to_model_value(WHEN, "2031-04-03") == datetime(2031, 4, 3, tzinfo=UTC)
    assert form_value(WHEN, datetime(2031, 4, 3, tzinfo=UTC)) == StoredValue("string", "2031-04-03")
    assert form_value(WHEN, None) == StoredValue("string", "")
    with pytest.raises(FormFieldInvalid, match="Invalid value for enum form property: mid"):
        to_model_value(LEVEL, "mid")
    with pytest.raises(FormFieldInvalid, match="is not of type Long"):
        to_model_value(LONG, "seven")


@pytest.mark.parametrize(
    ("submitted", "current", "failed"),
    [
        ({"amount": 0}, {}, "min(1)"),
        ({"amount": 11}, {}, "max(10)"),
        ({"amount": "5"}, {}, "min(1)"),  # a number's constraint on text
        ({"name": ""}, {}, "required"),
        ({}, {}, "required"),
    ],
)
def test_a_broken_constraint_is_named(
    submitted: dict[str, Any], current: dict[str, Any], failed: str
) -> None:
    with pytest.raises(FormFieldInvalid, match=rf"validation of {re.escape(failed)} failed"):
        submitted_variables((LONG, NAME), submitted, current, {})


def test_a_required_field_is_filled_by_its_variable_or_its_default() -> None:
    assert submitted_variables((NAME,), {}, {"name": "kept"}, {}) == {}
    assert submitted_variables((NAME,), {}, {}, {"name": "preset"}) == {"name": "preset"}


def test_other_submitted_variables_pass_through_untouched() -> None:
    out = submitted_variables((LONG,), {"amount": 3, "note": [1, 2]}, {}, {})
    assert out == {"amount": 3, "note": [1, 2]}
    readonly = FormField("who", "string", constraints=(Constraint("readonly"),))
    with pytest.raises(FormFieldInvalid, match="readonly"):
        submitted_variables((readonly,), {"who": "me"}, {}, {})
