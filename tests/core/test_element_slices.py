"""BPMN elements as slices: the parser's tag table, event definitions apart from event kinds, and
a behaviour (with its lifecycle) for every activity type the parser can produce."""

from __future__ import annotations

import pytest

from flowledger.core.behaviors import REGISTRY
from flowledger.core.errors import ModelError
from flowledger.core.model import ErrorEventDefinition, EventSpec, TerminateEventDefinition
from flowledger.core.parser import parse_bpmn
from flowledger.core.parsing.elements import ELEMENTS
from flowledger.core.parsing.multi_instance import BODY_TYPE
from tests.support import BPMN_DIR

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">\n'
    '<error id="E1" errorCode="late" camunda:errorMessage="too late"/>\n'
)


def _parse(body: str) -> dict[str, tuple[str, object]]:
    source = f'{HEAD}<process id="p" isExecutable="true">\n{body}\n</process>\n</definitions>\n'
    model = parse_bpmn(source.encode(), "slices.bpmn").processes[0]
    return {a.id: (a.type, a.spec) for a in model.activities.values()}


def _problems(body: str) -> list[tuple[str, str | None, int | None]]:
    source = f'{HEAD}<process id="p" isExecutable="true">\n{body}\n</process>\n</definitions>\n'
    with pytest.raises(ModelError) as caught:
        parse_bpmn(source.encode(), "slices.bpmn")
    return [(p.message, p.element_id, p.line) for p in caught.value.problems]


def test_every_activity_type_the_parser_produces_has_a_behaviour_and_no_more() -> None:
    produced = {t for kind in ELEMENTS.values() for t in kind.types}
    assert produced | {BODY_TYPE} == set(REGISTRY)


def test_every_model_of_the_test_suite_parses_to_types_with_behaviours() -> None:
    for path in sorted(BPMN_DIR.glob("*.bpmn")):
        for model in parse_bpmn(path.read_bytes(), path.name, allow_scripts=True).processes:
            assert {a.type for a in model.activities.values()} <= set(REGISTRY), path.name


def test_event_kinds_carry_their_definitions_as_values() -> None:
    body = (
        '<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="t"/>'
        '<userTask id="t"/><sequenceFlow id="f2" sourceRef="t" targetRef="x"/>'
        '<intermediateThrowEvent id="x"/><sequenceFlow id="f3" sourceRef="x" targetRef="fail"/>'
        '<endEvent id="fail"><errorEventDefinition errorRef="E1"/></endEvent>'
        '<boundaryEvent id="b" attachedToRef="t"><errorEventDefinition errorRef="E1" '
        'camunda:errorCodeVariable="code" camunda:errorMessageVariable="why"/></boundaryEvent>'
        '<sequenceFlow id="f4" sourceRef="b" targetRef="stop"/>'
        '<endEvent id="stop"><terminateEventDefinition/></endEvent>'
    )
    activities = _parse(body)
    assert activities["s"] == ("startEvent", EventSpec())
    assert activities["x"] == ("intermediateNoneThrowEvent", EventSpec())
    # a throw does not catch: no variables to store the caught error in
    assert activities["fail"] == (
        "errorEndEvent",
        EventSpec(ErrorEventDefinition(error_code="late", error_message="too late")),
    )
    assert activities["b"] == (
        "boundaryError",
        EventSpec(
            ErrorEventDefinition("late", "too late", code_variable="code", message_variable="why"),
            attached_to="t",
            cancel_activity=True,
        ),
    )
    assert activities["stop"] == ("terminateEndEvent", EventSpec(TerminateEventDefinition()))


def test_an_unresolved_error_ref_is_the_error_code_itself() -> None:
    body = (
        '<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="e"/>'
        '<endEvent id="e"><errorEventDefinition errorRef="plainCode"/></endEvent>'
    )
    assert _parse(body)["e"] == ("errorEndEvent", EventSpec(ErrorEventDefinition("plainCode")))


@pytest.mark.parametrize(
    ("element", "message"),
    [
        (
            # links are intermediate events only (core.parsing.links)
            '<endEvent id="x"><linkEventDefinition name="a"/></endEvent>',
            "end events with a linkEventDefinition are not supported yet",
        ),
        (
            # conditional events catch: a throwing one has no meaning
            '<endEvent id="x"><conditionalEventDefinition/></endEvent>',
            "end events with a conditionalEventDefinition are not supported yet",
        ),
        (
            # a cancel throws only from an end event (inside a transaction)
            '<intermediateThrowEvent id="x"><cancelEventDefinition/></intermediateThrowEvent>',
            "intermediate throw events with a cancelEventDefinition are not supported yet",
        ),
        (
            '<boundaryEvent id="x" attachedToRef="s"/>',
            "boundary events with no event definition are not supported yet",
        ),
        (
            # a definition the table knows, on an event kind it does not run on
            '<intermediateThrowEvent id="x"><terminateEventDefinition/></intermediateThrowEvent>',
            "intermediate throw events with a terminateEventDefinition are not supported yet",
        ),
        (
            '<endEvent id="x"><errorEventDefinition/><terminateEventDefinition/></endEvent>',
            "end events with a errorEventDefinition are not supported yet",
        ),
    ],
)
def test_an_unsupported_event_definition_is_named_on_its_event(element: str, message: str) -> None:
    body = f'<startEvent id="s"/>\n{element}'
    assert _problems(body)[0] == (message, "x", 6)


def test_a_tag_absent_from_the_table_is_refused_with_its_id_and_line() -> None:
    body = (
        '<startEvent id="s"/>\n<complexGateway id="call"/>\n<complexThing id="odd"/>\n'
        '<intermediateCatchEvent id="wait"><timerEventDefinition/></intermediateCatchEvent>'
    )
    assert _problems(body) == [
        ("<complexGateway>: complex gateways are not supported yet", "call", 6),
        ("unsupported element <complexThing>", "odd", 7),
        # An empty timer is refused as Camunda refuses it.
        (
            "a timerEventDefinition needs exactly one of timeDate, timeDuration and timeCycle "
            "(found 0)",
            "wait",
            8,
        ),
    ]
