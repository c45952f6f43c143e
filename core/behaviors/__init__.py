"""Behaviours of BPMN element families, one module each, looked up by Camunda activity type.

Each behaviour has the lifecycle of `base.Behavior` (execute, leave, cancel, trigger) and reaches
the flow only through `operations.FlowOperations`. Adding an element type touches its family's
module and this registry (and the parser's tag table, `core.parsing.elements`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Activity
from .base import Behavior
from .calls import CallActivity
from .decisions import BusinessRuleTask
from .events import (
    BoundaryEvent,
    ErrorEndEvent,
    IntermediateTimer,
    NoneEndEvent,
    TerminateEndEvent,
)
from .gateways import EventBasedGateway, ExclusiveGateway, InclusiveGateway, ParallelGateway
from .messages import (
    IntermediateCatch,
    MessageEndEvent,
    MessageReceiveTask,
    MessageThrowEvent,
    SignalEndEvent,
    SignalThrowEvent,
)
from .multi_instance import MultiInstanceBody
from .subprocess import EmbeddedSubprocess
from .tasks import PassThrough, ScriptTask, ServiceTask, UserTask

REGISTRY: Mapping[str, Behavior] = {
    "startEvent": PassThrough(),
    "startTimerEvent": PassThrough(),
    "messageStartEvent": PassThrough(),
    "intermediateNoneThrowEvent": PassThrough(),
    "task": PassThrough(),
    "manualTask": PassThrough(),
    "noneEndEvent": NoneEndEvent(),
    "terminateEndEvent": TerminateEndEvent(),
    "errorEndEvent": ErrorEndEvent(),
    "boundaryError": BoundaryEvent(),
    "boundaryTimer": BoundaryEvent(),
    "intermediateTimer": IntermediateTimer(),
    "userTask": UserTask(),
    "serviceTask": ServiceTask(),
    "sendTask": ServiceTask(),
    "businessRuleTask": BusinessRuleTask(),
    "scriptTask": ScriptTask(),
    "receiveTask": MessageReceiveTask(),
    "intermediateMessageCatch": IntermediateCatch(),
    "intermediateSignalCatch": IntermediateCatch(),
    "boundaryMessage": BoundaryEvent(),
    "boundarySignal": BoundaryEvent(),
    "intermediateSignalThrow": SignalThrowEvent(),
    "signalEndEvent": SignalEndEvent(),
    "signalStartEvent": PassThrough(),
    "errorStartEvent": PassThrough(),
    "intermediateMessageThrowEvent": MessageThrowEvent(),
    "messageEndEvent": MessageEndEvent(),
    "exclusiveGateway": ExclusiveGateway(),
    "parallelGateway": ParallelGateway(),
    "inclusiveGateway": InclusiveGateway(),
    "eventBasedGateway": EventBasedGateway(),
    "subProcess": EmbeddedSubprocess(),
    "callActivity": CallActivity(),
    "multiInstanceBody": MultiInstanceBody(),
}


def behavior_for(activity: Activity) -> Behavior:
    return REGISTRY[activity.type]
