"""The table of BPMN element kinds: per kind, Camunda's activity type, the BPMN tag it is read
from and, for an event, the event definition that makes it this kind.

A new BPMN element is added here plus its behaviour (`core.behaviors.BEHAVIORS`), and a parser
for a new tag (`core.parsing.elements.PARSERS`) or a reader for a new event definition
(`core.parsing.events.EVENT_DEFINITIONS`): tests/core/test_element_kinds.py fails until a kind
has all its pieces. Pure data: the parser, the behaviour registry and the event-definition table
read it; it reads none of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# -- event definitions: the element inside an event that says what the event is about ---------

ERROR = "errorEventDefinition"
TERMINATE = "terminateEventDefinition"
MESSAGE = "messageEventDefinition"
SIGNAL = "signalEventDefinition"
TIMER = "timerEventDefinition"
CONDITIONAL = "conditionalEventDefinition"
ESCALATION = "escalationEventDefinition"
LINK = "linkEventDefinition"
COMPENSATE = "compensateEventDefinition"
CANCEL = "cancelEventDefinition"

# -- the BPMN event elements: one tag each, the event definition inside decides the kind -----

START_EVENT_TAG = "startEvent"
END_EVENT_TAG = "endEvent"
THROW_EVENT_TAG = "intermediateThrowEvent"
CATCH_EVENT_TAG = "intermediateCatchEvent"
BOUNDARY_EVENT_TAG = "boundaryEvent"
EVENT_TAGS = (START_EVENT_TAG, END_EVENT_TAG, THROW_EVENT_TAG, CATCH_EVENT_TAG, BOUNDARY_EVENT_TAG)


@dataclass(frozen=True, slots=True)
class ElementKind:
    """One kind of flow node. `type` is Camunda's activity type (ACT_HI_ACTINST.ACT_TYPE_), what
    a behaviour is looked up by; `tag` the BPMN element it is read from (None: no element, the
    parser makes it); `definition` an event's definition (None: a none event, or no event)."""

    type: str
    tag: str | None
    definition: str | None = None
    container: bool = False  # holds flow elements of its own, in a scope of its own

    @property
    def is_event(self) -> bool:
        return self.tag in EVENT_TAGS

    @property
    def attached(self) -> bool:
        """Sits on another activity (attachedToRef), which then gets a scope of its own."""
        return self.tag == BOUNDARY_EVENT_TAG


# -- tasks ------------------------------------------------------------------------------------

TASK = ElementKind("task", "task")
MANUAL_TASK = ElementKind("manualTask", "manualTask")
USER_TASK = ElementKind("userTask", "userTask")
SERVICE_TASK = ElementKind("serviceTask", "serviceTask")
SEND_TASK = ElementKind("sendTask", "sendTask")
BUSINESS_RULE_TASK = ElementKind("businessRuleTask", "businessRuleTask")
SCRIPT_TASK = ElementKind("scriptTask", "scriptTask")
RECEIVE_TASK = ElementKind("receiveTask", "receiveTask")
CALL_ACTIVITY = ElementKind("callActivity", "callActivity")

# -- gateways ---------------------------------------------------------------------------------

EXCLUSIVE_GATEWAY = ElementKind("exclusiveGateway", "exclusiveGateway")
PARALLEL_GATEWAY = ElementKind("parallelGateway", "parallelGateway")
INCLUSIVE_GATEWAY = ElementKind("inclusiveGateway", "inclusiveGateway")
EVENT_BASED_GATEWAY = ElementKind("eventBasedGateway", "eventBasedGateway")

# -- subprocesses -----------------------------------------------------------------------------

# An embedded subprocess, or an event subprocess (triggeredByEvent): Camunda types both so.
SUB_PROCESS = ElementKind("subProcess", "subProcess", container=True)
# A multi-instance activity's body: no element, the parser's rewiring puts it in the flow.
MULTI_INSTANCE_BODY = ElementKind("multiInstanceBody", None)
# A transaction subprocess: a cancel end event inside compensates it and leaves by its cancel
# boundary event.
TRANSACTION = ElementKind("transaction", "transaction", container=True)

# -- events -----------------------------------------------------------------------------------

START_EVENT = ElementKind("startEvent", START_EVENT_TAG)
START_TIMER_EVENT = ElementKind("startTimerEvent", START_EVENT_TAG, TIMER)
MESSAGE_START_EVENT = ElementKind("messageStartEvent", START_EVENT_TAG, MESSAGE)
SIGNAL_START_EVENT = ElementKind("signalStartEvent", START_EVENT_TAG, SIGNAL)
ERROR_START_EVENT = ElementKind("errorStartEvent", START_EVENT_TAG, ERROR)
# A process's (started on request) or an event subprocess's: Camunda types both so.
CONDITIONAL_START_EVENT = ElementKind("conditionalStartEvent", START_EVENT_TAG, CONDITIONAL)

NONE_END_EVENT = ElementKind("noneEndEvent", END_EVENT_TAG)
ERROR_END_EVENT = ElementKind("errorEndEvent", END_EVENT_TAG, ERROR)
TERMINATE_END_EVENT = ElementKind("terminateEndEvent", END_EVENT_TAG, TERMINATE)
MESSAGE_END_EVENT = ElementKind("messageEndEvent", END_EVENT_TAG, MESSAGE)
SIGNAL_END_EVENT = ElementKind("signalEndEvent", END_EVENT_TAG, SIGNAL)

NONE_THROW_EVENT = ElementKind("intermediateNoneThrowEvent", THROW_EVENT_TAG)
MESSAGE_THROW_EVENT = ElementKind("intermediateMessageThrowEvent", THROW_EVENT_TAG, MESSAGE)
SIGNAL_THROW_EVENT = ElementKind("intermediateSignalThrow", THROW_EVENT_TAG, SIGNAL)

MESSAGE_CATCH_EVENT = ElementKind("intermediateMessageCatch", CATCH_EVENT_TAG, MESSAGE)
SIGNAL_CATCH_EVENT = ElementKind("intermediateSignalCatch", CATCH_EVENT_TAG, SIGNAL)
TIMER_CATCH_EVENT = ElementKind("intermediateTimer", CATCH_EVENT_TAG, TIMER)
CONDITIONAL_CATCH_EVENT = ElementKind("intermediateConditional", CATCH_EVENT_TAG, CONDITIONAL)

BOUNDARY_ERROR = ElementKind("boundaryError", BOUNDARY_EVENT_TAG, ERROR)
BOUNDARY_MESSAGE = ElementKind("boundaryMessage", BOUNDARY_EVENT_TAG, MESSAGE)
BOUNDARY_SIGNAL = ElementKind("boundarySignal", BOUNDARY_EVENT_TAG, SIGNAL)
BOUNDARY_TIMER = ElementKind("boundaryTimer", BOUNDARY_EVENT_TAG, TIMER)
BOUNDARY_CONDITIONAL = ElementKind("boundaryConditional", BOUNDARY_EVENT_TAG, CONDITIONAL)

# Escalations: thrown by an intermediate throw or end event, caught by a boundary event or an
# event subprocess's start event (core.behaviors.escalations).
ESCALATION_THROW_EVENT = ElementKind(
    "intermediateEscalationThrowEvent", THROW_EVENT_TAG, ESCALATION
)
ESCALATION_END_EVENT = ElementKind("escalationEndEvent", END_EVENT_TAG, ESCALATION)
BOUNDARY_ESCALATION = ElementKind("boundaryEscalation", BOUNDARY_EVENT_TAG, ESCALATION)
ESCALATION_START_EVENT = ElementKind("escalationStartEvent", START_EVENT_TAG, ESCALATION)
# A link catch event: where a link throw of its name continues. The throw itself is no activity
# (Camunda's parser turns the flows into it into flows into the catch; core.parsing.links).
LINK_CATCH_EVENT = ElementKind("intermediateLinkCatch", CATCH_EVENT_TAG, LINK)

# -- compensation and cancellation (Camunda's ActivityTypes) -----------------------------------

COMPENSATION_START_EVENT = ElementKind("compensationStartEvent", START_EVENT_TAG, COMPENSATE)
COMPENSATION_END_EVENT = ElementKind("compensationEndEvent", END_EVENT_TAG, COMPENSATE)
COMPENSATION_THROW_EVENT = ElementKind(
    "intermediateCompensationThrowEvent", THROW_EVENT_TAG, COMPENSATE
)
BOUNDARY_COMPENSATION = ElementKind("compensationBoundaryCatch", BOUNDARY_EVENT_TAG, COMPENSATE)
CANCEL_END_EVENT = ElementKind("cancelEndEvent", END_EVENT_TAG, CANCEL)
BOUNDARY_CANCEL = ElementKind("cancelBoundaryCatch", BOUNDARY_EVENT_TAG, CANCEL)

KINDS: tuple[ElementKind, ...] = (
    TASK,
    MANUAL_TASK,
    USER_TASK,
    SERVICE_TASK,
    SEND_TASK,
    BUSINESS_RULE_TASK,
    SCRIPT_TASK,
    RECEIVE_TASK,
    CALL_ACTIVITY,
    EXCLUSIVE_GATEWAY,
    PARALLEL_GATEWAY,
    INCLUSIVE_GATEWAY,
    EVENT_BASED_GATEWAY,
    SUB_PROCESS,
    MULTI_INSTANCE_BODY,
    START_EVENT,
    START_TIMER_EVENT,
    MESSAGE_START_EVENT,
    SIGNAL_START_EVENT,
    ERROR_START_EVENT,
    NONE_END_EVENT,
    ERROR_END_EVENT,
    TERMINATE_END_EVENT,
    MESSAGE_END_EVENT,
    SIGNAL_END_EVENT,
    NONE_THROW_EVENT,
    MESSAGE_THROW_EVENT,
    SIGNAL_THROW_EVENT,
    MESSAGE_CATCH_EVENT,
    SIGNAL_CATCH_EVENT,
    TIMER_CATCH_EVENT,
    BOUNDARY_ERROR,
    BOUNDARY_MESSAGE,
    BOUNDARY_SIGNAL,
    BOUNDARY_TIMER,
    CONDITIONAL_START_EVENT,
    CONDITIONAL_CATCH_EVENT,
    BOUNDARY_CONDITIONAL,
    ESCALATION_THROW_EVENT,
    ESCALATION_END_EVENT,
    BOUNDARY_ESCALATION,
    ESCALATION_START_EVENT,
    LINK_CATCH_EVENT,
    TRANSACTION,
    COMPENSATION_START_EVENT,
    COMPENSATION_END_EVENT,
    COMPENSATION_THROW_EVENT,
    BOUNDARY_COMPENSATION,
    CANCEL_END_EVENT,
    BOUNDARY_CANCEL,
)

BY_TYPE: Mapping[str, ElementKind] = {kind.type: kind for kind in KINDS}


def of_tag(tag: str) -> tuple[ElementKind, ...]:
    """The kinds read from the BPMN element `tag`, in the table's order."""
    return tuple(kind for kind in KINDS if kind.tag == tag)


def types_of(*kinds: ElementKind) -> frozenset[str]:
    """The activity types of `kinds`, to test an activity's type against."""
    return frozenset(kind.type for kind in kinds)


def none_event(tag: str) -> ElementKind | None:
    """The kind of the event `tag` without a definition; None: that event needs one."""
    return next((kind for kind in of_tag(tag) if kind.definition is None), None)


def carrying(definition: str) -> Mapping[str, str]:
    """The events that may carry `definition`: event tag -> the activity type it then has."""
    return {
        kind.tag: kind.type
        for kind in KINDS
        if kind.definition == definition and kind.tag is not None
    }
