"""Behaviours of BPMN element families, one module each, looked up by Camunda activity type.

Each behaviour has the lifecycle of `base.Behavior` (execute, leave, cancel, trigger) and reaches
the flow only through `operations.FlowOperations`. Adding an element kind touches the table of
kinds (`core.element_kinds`), its family's module here and this registry, one behaviour per kind.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import element_kinds as kinds
from ..element_kinds import ElementKind
from ..model import Activity
from .base import Behavior
from .calls import CallActivity
from .compensation import CancelEndEvent, CompensationEndEvent, CompensationThrowEvent
from .conditionals import IntermediateConditional
from .decisions import BusinessRuleTask
from .escalations import EscalationEndEvent, EscalationThrowEvent
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

BEHAVIORS: Mapping[ElementKind, Behavior] = {
    kinds.TASK: PassThrough(),
    kinds.MANUAL_TASK: PassThrough(),
    kinds.USER_TASK: UserTask(),
    kinds.SERVICE_TASK: ServiceTask(),
    kinds.SEND_TASK: ServiceTask(),
    kinds.BUSINESS_RULE_TASK: BusinessRuleTask(),
    kinds.SCRIPT_TASK: ScriptTask(),
    kinds.RECEIVE_TASK: MessageReceiveTask(),
    kinds.CALL_ACTIVITY: CallActivity(),
    kinds.EXCLUSIVE_GATEWAY: ExclusiveGateway(),
    kinds.PARALLEL_GATEWAY: ParallelGateway(),
    kinds.INCLUSIVE_GATEWAY: InclusiveGateway(),
    kinds.EVENT_BASED_GATEWAY: EventBasedGateway(),
    kinds.SUB_PROCESS: EmbeddedSubprocess(),
    kinds.MULTI_INSTANCE_BODY: MultiInstanceBody(),
    kinds.START_EVENT: PassThrough(),
    kinds.START_TIMER_EVENT: PassThrough(),
    kinds.MESSAGE_START_EVENT: PassThrough(),
    kinds.SIGNAL_START_EVENT: PassThrough(),
    kinds.ERROR_START_EVENT: PassThrough(),
    kinds.NONE_END_EVENT: NoneEndEvent(),
    kinds.ERROR_END_EVENT: ErrorEndEvent(),
    kinds.TERMINATE_END_EVENT: TerminateEndEvent(),
    kinds.MESSAGE_END_EVENT: MessageEndEvent(),
    kinds.SIGNAL_END_EVENT: SignalEndEvent(),
    kinds.NONE_THROW_EVENT: PassThrough(),
    kinds.MESSAGE_THROW_EVENT: MessageThrowEvent(),
    kinds.SIGNAL_THROW_EVENT: SignalThrowEvent(),
    kinds.MESSAGE_CATCH_EVENT: IntermediateCatch(),
    kinds.SIGNAL_CATCH_EVENT: IntermediateCatch(),
    kinds.TIMER_CATCH_EVENT: IntermediateTimer(),
    kinds.BOUNDARY_ERROR: BoundaryEvent(),
    kinds.BOUNDARY_MESSAGE: BoundaryEvent(),
    kinds.BOUNDARY_SIGNAL: BoundaryEvent(),
    kinds.BOUNDARY_TIMER: BoundaryEvent(),
    kinds.CONDITIONAL_START_EVENT: PassThrough(),
    kinds.CONDITIONAL_CATCH_EVENT: IntermediateConditional(),
    kinds.BOUNDARY_CONDITIONAL: BoundaryEvent(),
    kinds.ESCALATION_THROW_EVENT: EscalationThrowEvent(),
    kinds.ESCALATION_END_EVENT: EscalationEndEvent(),
    kinds.BOUNDARY_ESCALATION: BoundaryEvent(),
    kinds.ESCALATION_START_EVENT: PassThrough(),
    kinds.LINK_CATCH_EVENT: PassThrough(),  # not a wait state: it goes on at once
    kinds.TRANSACTION: EmbeddedSubprocess(),
    kinds.COMPENSATION_START_EVENT: PassThrough(),
    kinds.COMPENSATION_END_EVENT: CompensationEndEvent(),
    kinds.COMPENSATION_THROW_EVENT: CompensationThrowEvent(),
    # never entered: it marks its activity's compensation handler (by its association)
    kinds.BOUNDARY_COMPENSATION: BoundaryEvent(),
    kinds.CANCEL_END_EVENT: CancelEndEvent(),
    kinds.BOUNDARY_CANCEL: BoundaryEvent(),
}
# By activity type, as an activity names its kind.
REGISTRY: Mapping[str, Behavior] = {kind.type: behavior for kind, behavior in BEHAVIORS.items()}


def behavior_for(activity: Activity) -> Behavior:
    return REGISTRY[activity.type]
