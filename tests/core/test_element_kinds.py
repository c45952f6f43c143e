"""The table of element kinds is complete: every kind has its parser, its behaviour and, for an
event, its event-definition entry. Adding a kind to `core.element_kinds` without its pieces fails
here, naming the kind, not when a model using it is deployed."""

from __future__ import annotations

import pytest

from flowledger.core import element_kinds as kinds
from flowledger.core.behaviors import BEHAVIORS, REGISTRY
from flowledger.core.element_kinds import KINDS, ElementKind
from flowledger.core.parsing.elements import ELEMENTS, PARSERS
from flowledger.core.parsing.events import EVENT_DEFINITIONS, EVENT_KINDS
from flowledger.core.parsing.multi_instance import BODY_TYPE

EVENTS = [kind for kind in KINDS if kind.is_event]


def _id(kind: ElementKind) -> str:
    return kind.type


def test_the_table_names_each_activity_type_once_and_lists_every_kind_it_declares() -> None:
    assert len({kind.type for kind in KINDS}) == len(KINDS)
    declared = {v for v in vars(kinds).values() if isinstance(v, ElementKind)}
    assert declared == set(KINDS)


@pytest.mark.parametrize("kind", KINDS, ids=_id)
def test_each_kind_has_its_parser(kind: ElementKind) -> None:
    if kind.tag is None:  # made by the parser's rewiring, not read from a tag
        assert kind.type == BODY_TYPE
        assert kind not in PARSERS
        return
    assert kind in PARSERS, f"{kind.type}: no parser for <{kind.tag}>"
    assert kind.type in ELEMENTS[kind.tag].types
    assert ELEMENTS[kind.tag].container == kind.container
    assert ELEMENTS[kind.tag].attached == kind.attached


@pytest.mark.parametrize("kind", KINDS, ids=_id)
def test_each_kind_has_its_behaviour(kind: ElementKind) -> None:
    assert kind in BEHAVIORS, f"{kind.type}: no behaviour in core.behaviors.BEHAVIORS"
    assert REGISTRY[kind.type] is BEHAVIORS[kind]


@pytest.mark.parametrize("kind", EVENTS, ids=_id)
def test_each_event_kind_has_its_event_definition_entry(kind: ElementKind) -> None:
    assert kind.tag is not None
    assert kind.tag in EVENT_KINDS, f"{kind.type}: <{kind.tag}> is no event element of the parser"
    if kind.definition is None:
        assert EVENT_KINDS[kind.tag].none_type == kind.type
        return
    assert kind.definition in EVENT_DEFINITIONS, f"{kind.type}: no reader for {kind.definition}"
    assert EVENT_DEFINITIONS[kind.definition].activity_types[kind.tag] == kind.type


def test_nothing_is_parsed_or_run_that_the_table_does_not_name() -> None:
    assert set(PARSERS) <= set(KINDS)
    assert set(BEHAVIORS) <= set(KINDS)
    assert {t for parser in ELEMENTS.values() for t in parser.types} <= set(kinds.BY_TYPE)
    carried = {
        (tag, activity_type)
        for definition in EVENT_DEFINITIONS.values()
        for tag, activity_type in definition.activity_types.items()
    }
    assert carried == {(k.tag, k.type) for k in EVENTS if k.definition is not None}
    assert {e.none_type for e in EVENT_KINDS.values()} - {None} == {
        k.type for k in EVENTS if k.definition is None
    }


def test_an_event_element_without_a_none_kind_requires_a_definition() -> None:
    assert EVENT_KINDS[kinds.CATCH_EVENT_TAG].none_type is None
    assert EVENT_KINDS[kinds.BOUNDARY_EVENT_TAG].none_type is None
    assert EVENT_KINDS[kinds.END_EVENT_TAG].none_type == kinds.NONE_END_EVENT.type
