"""The parser's table from BPMN tag to element parser: a tag that is absent is not supported.

Adding an element type: write its parser (in the module of its family) and add it here.
Pure: the table is data; `NOT_YET` only words the problem for tags users commonly try.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from lxml import etree

from ..model import SubprocessSpec
from .calls import parse_call_activity
from .context import ParseContext, ParsedElement, local
from .events import EVENT_KINDS, event_activity_types, parse_event
from .tasks import (
    parse_receive_task,
    parse_script_task,
    parse_service_task,
    parse_user_task,
)

ElementParser = Callable[[ParseContext, etree._Element], ParsedElement]


@dataclass(frozen=True, slots=True)
class ElementKind:
    """How one BPMN tag becomes an activity of the model."""

    parse: ElementParser
    # the Camunda activity types `parse` may answer (each needs a behaviour in core.behaviors)
    types: tuple[str, ...]
    # holds flow elements of its own and gets its own scope (embedded subprocess)
    container: bool = False
    # sits on another activity (boundary events), which then gets a scope of its own
    attached: bool = False


def _same_type(_ctx: ParseContext, el: etree._Element) -> ParsedElement:
    """Elements without settings: Camunda's activity type is the tag."""
    return ParsedElement(local(el))


def _subprocess(_ctx: ParseContext, el: etree._Element) -> ParsedElement:
    """An embedded subprocess, or an event subprocess (`triggeredByEvent`)."""
    triggered = (el.get("triggeredByEvent") or "").strip().lower() == "true"
    return ParsedElement("subProcess", SubprocessSpec(triggered_by_event=triggered))


ELEMENTS: Mapping[str, ElementKind] = {
    "task": ElementKind(_same_type, ("task",)),
    "manualTask": ElementKind(_same_type, ("manualTask",)),
    "userTask": ElementKind(parse_user_task, ("userTask",)),
    "serviceTask": ElementKind(parse_service_task, ("serviceTask",)),
    "sendTask": ElementKind(parse_service_task, ("sendTask",)),
    "businessRuleTask": ElementKind(parse_service_task, ("businessRuleTask",)),
    "scriptTask": ElementKind(parse_script_task, ("scriptTask",)),
    "receiveTask": ElementKind(parse_receive_task, ("receiveTask",)),
    "callActivity": ElementKind(parse_call_activity, ("callActivity",)),
    "exclusiveGateway": ElementKind(_same_type, ("exclusiveGateway",)),
    "parallelGateway": ElementKind(_same_type, ("parallelGateway",)),
    "inclusiveGateway": ElementKind(_same_type, ("inclusiveGateway",)),
    "eventBasedGateway": ElementKind(_same_type, ("eventBasedGateway",)),
    "subProcess": ElementKind(_subprocess, ("subProcess",), container=True),
    **{
        tag: ElementKind(parse_event, event_activity_types(tag), attached=kind.attached)
        for tag, kind in EVENT_KINDS.items()
    },
}

# Tags absent from ELEMENTS that users commonly try: the problem says what they are.
NOT_YET: Mapping[str, str] = {
    "complexGateway": "complex gateways",
    "transaction": "transaction subprocesses",
    "adHocSubProcess": "ad-hoc subprocesses",
}
