"""The parser's table from BPMN tag to element parser: a tag that is absent is not supported.

Which tags there are, and the activity types each may answer, is the table of element kinds'
(`core.element_kinds`); here each kind gets the parser of its tag (`PARSERS`), and the tags the
parser reads follow from it (`ELEMENTS`). A new tag: its parser (in the module of its family)
here. Pure: the tables are data; `NOT_YET` only words the problem for tags users commonly try.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lxml import etree

from .. import element_kinds as kinds
from ..element_kinds import ElementKind
from ..model import SubprocessSpec
from .calls import parse_call_activity
from .context import ParseContext, ParsedElement, local
from .events import EVENT_KINDS, parse_event
from .tasks import (
    parse_receive_task,
    parse_script_task,
    parse_service_task,
    parse_user_task,
)

ElementParser = Callable[[ParseContext, etree._Element], ParsedElement]


@dataclass(frozen=True, slots=True)
class TagParser:
    """How one BPMN tag becomes an activity of the model."""

    parse: ElementParser
    # the Camunda activity types `parse` may answer: its tag's kinds (each has a behaviour)
    types: tuple[str, ...]
    # holds flow elements of its own and gets its own scope (embedded subprocess)
    container: bool = False
    # sits on another activity (boundary events), which then gets a scope of its own
    attached: bool = False


def _no_settings(_ctx: ParseContext, el: etree._Element) -> ParsedElement:
    """Elements without settings: their one kind's activity type (Camunda's is the tag)."""
    (kind,) = kinds.of_tag(local(el))
    return ParsedElement(kind.type)


def _subprocess(_ctx: ParseContext, el: etree._Element) -> ParsedElement:
    """An embedded subprocess, or an event subprocess (`triggeredByEvent`)."""
    triggered = (el.get("triggeredByEvent") or "").strip().lower() == "true"
    return ParsedElement(kinds.SUB_PROCESS.type, SubprocessSpec(triggered_by_event=triggered))


def _transaction(_ctx: ParseContext, _el: etree._Element) -> ParsedElement:
    """A transaction subprocess: an embedded subprocess a cancel end event may cancel."""
    return ParsedElement(kinds.TRANSACTION.type, SubprocessSpec())


# Each element kind read from a tag, with the parser of its tag (the kinds of one tag share it).
PARSERS: Mapping[ElementKind, ElementParser] = {
    kinds.TASK: _no_settings,
    kinds.MANUAL_TASK: _no_settings,
    kinds.USER_TASK: parse_user_task,
    kinds.SERVICE_TASK: parse_service_task,
    kinds.SEND_TASK: parse_service_task,
    kinds.BUSINESS_RULE_TASK: parse_service_task,
    kinds.SCRIPT_TASK: parse_script_task,
    kinds.RECEIVE_TASK: parse_receive_task,
    kinds.CALL_ACTIVITY: parse_call_activity,
    kinds.EXCLUSIVE_GATEWAY: _no_settings,
    kinds.PARALLEL_GATEWAY: _no_settings,
    kinds.INCLUSIVE_GATEWAY: _no_settings,
    kinds.EVENT_BASED_GATEWAY: _no_settings,
    kinds.SUB_PROCESS: _subprocess,
    kinds.TRANSACTION: _transaction,
    # an event's parser reads whichever definition it carries (`events.EVENT_DEFINITIONS`)
    **{kind: parse_event for kind in kinds.KINDS if kind.tag in EVENT_KINDS},
}


def _by_tag(parsers: Mapping[ElementKind, ElementParser]) -> dict[str, TagParser]:
    tags: dict[str, TagParser] = {}
    for kind, parse in parsers.items():
        assert kind.tag is not None, f"{kind.type} has no tag to parse"
        known = tags.get(kind.tag)
        assert known is None or known.parse is parse, f"<{kind.tag}> has two parsers"
        tags[kind.tag] = TagParser(
            parse,
            (*known.types, kind.type) if known else (kind.type,),
            container=kind.container,
            attached=kind.attached,
        )
    return tags


ELEMENTS: Mapping[str, TagParser] = _by_tag(PARSERS)

# Tags absent from ELEMENTS that users commonly try: the problem says what they are.
NOT_YET: Mapping[str, str] = {
    "complexGateway": "complex gateways",
    "adHocSubProcess": "ad-hoc subprocesses",
}
