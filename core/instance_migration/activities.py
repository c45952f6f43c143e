"""How Camunda's migration sees a model's activities: each one's behaviour (Camunda's
ActivityBehavior class), flow scope, event scope and persistent event trigger, and which ones
migration supports.

Pure: reads a `ProcessModel`, shared by generation, plan validation and (for the executor) the
instance checks. Camunda's validators compare behaviour classes and scope objects; these are
the same facts, derived from our model once per question.
"""

from __future__ import annotations

from collections.abc import Iterator

from .. import element_kinds as kinds
from ..model import (
    Activity,
    DecisionTaskSpec,
    EventSpec,
    MultiInstanceSpec,
    ProcessModel,
    ReceiveTaskSpec,
    ServiceTaskSpec,
    SubprocessSpec,
    UserTaskSpec,
)

# The process definition as a scope: the flow scope of its top-level activities and the event
# scope of its event subprocesses (no activity id is empty). None: no scope at all.
PROCESS = ""

_SERVICE_BEHAVIORS = {
    "external": "ExternalTaskActivityBehavior",
    "class": "ClassDelegateActivityBehavior",
    "delegateExpression": "ServiceTaskDelegateExpressionActivityBehavior",
    "expression": "ServiceTaskExpressionActivityBehavior",
    "connector": "ServiceTaskConnectorActivityBehavior",
}

# Activity types whose behaviour does not depend on anything but the type.
_FIXED_BEHAVIORS = {
    kinds.USER_TASK.type: "UserTaskActivityBehavior",
    kinds.TASK.type: "TaskActivityBehavior",
    kinds.MANUAL_TASK.type: "ManualTaskActivityBehavior",
    kinds.SCRIPT_TASK.type: "ScriptTaskActivityBehavior",
    kinds.RECEIVE_TASK.type: "ReceiveTaskActivityBehavior",
    kinds.CALL_ACTIVITY.type: "CallActivityBehavior",
    kinds.TRANSACTION.type: "SubProcessActivityBehavior",
    kinds.EXCLUSIVE_GATEWAY.type: "ExclusiveGatewayActivityBehavior",
    kinds.PARALLEL_GATEWAY.type: "ParallelGatewayActivityBehavior",
    kinds.INCLUSIVE_GATEWAY.type: "InclusiveGatewayActivityBehavior",
    kinds.EVENT_BASED_GATEWAY.type: "EventBasedGatewayActivityBehavior",
    kinds.MESSAGE_CATCH_EVENT.type: "IntermediateCatchEventActivityBehavior",
    kinds.SIGNAL_CATCH_EVENT.type: "IntermediateCatchEventActivityBehavior",
    kinds.TIMER_CATCH_EVENT.type: "IntermediateCatchEventActivityBehavior",
    kinds.CONDITIONAL_CATCH_EVENT.type: "IntermediateConditionalEventBehavior",
    kinds.LINK_CATCH_EVENT.type: "IntermediateCatchLinkEventActivityBehavior",
    kinds.NONE_THROW_EVENT.type: "IntermediateThrowNoneEventActivityBehavior",
    kinds.SIGNAL_THROW_EVENT.type: "ThrowSignalEventActivityBehavior",
    kinds.ESCALATION_THROW_EVENT.type: "ThrowEscalationEventActivityBehavior",
    kinds.COMPENSATION_THROW_EVENT.type: "CompensationEventActivityBehavior",
    kinds.NONE_END_EVENT.type: "NoneEndEventActivityBehavior",
    kinds.ERROR_END_EVENT.type: "ErrorEndEventActivityBehavior",
    kinds.TERMINATE_END_EVENT.type: "TerminateEndEventActivityBehavior",
    kinds.CANCEL_END_EVENT.type: "CancelEndEventActivityBehavior",
    kinds.SIGNAL_END_EVENT.type: "ThrowSignalEventActivityBehavior",
    kinds.ESCALATION_END_EVENT.type: "ThrowEscalationEventActivityBehavior",
    kinds.COMPENSATION_END_EVENT.type: "CompensationEventActivityBehavior",
    kinds.BOUNDARY_CONDITIONAL.type: "BoundaryConditionalEventActivityBehavior",
    kinds.BOUNDARY_CANCEL.type: "CancelBoundaryEventActivityBehavior",
}

# SupportedActivityValidator.SUPPORTED_ACTIVITY_BEHAVIORS (CMMN's case call activity aside).
SUPPORTED_BEHAVIORS = frozenset(
    {
        "SubProcessActivityBehavior",
        "UserTaskActivityBehavior",
        "BoundaryEventActivityBehavior",
        "ParallelMultiInstanceActivityBehavior",
        "SequentialMultiInstanceActivityBehavior",
        "ReceiveTaskActivityBehavior",
        "CallActivityBehavior",
        "IntermediateCatchEventActivityBehavior",
        "EventBasedGatewayActivityBehavior",
        "EventSubProcessActivityBehavior",
        "EventSubProcessStartEventActivityBehavior",
        "ExternalTaskActivityBehavior",
        "ParallelGatewayActivityBehavior",
        "InclusiveGatewayActivityBehavior",
        "IntermediateConditionalEventBehavior",
        "BoundaryConditionalEventActivityBehavior",
        "EventSubProcessStartConditionalEventActivityBehavior",
    }
)

# SupportedPassiveEventTriggerActivityValidator.supportedTypes: the boundary and event
# subprocess start events migration can carry over.
SUPPORTED_PASSIVE_EVENT_TYPES = kinds.types_of(
    kinds.BOUNDARY_MESSAGE,
    kinds.BOUNDARY_SIGNAL,
    kinds.BOUNDARY_TIMER,
    kinds.BOUNDARY_COMPENSATION,
    kinds.BOUNDARY_CONDITIONAL,
    kinds.MESSAGE_START_EVENT,
    kinds.SIGNAL_START_EVENT,
    kinds.START_TIMER_EVENT,
    kinds.COMPENSATION_START_EVENT,
    kinds.CONDITIONAL_START_EVENT,
)

# Camunda's ConditionalEventBehavior: these must migrate with updateEventTrigger.
CONDITIONAL_BEHAVIORS = frozenset(
    {
        "IntermediateConditionalEventBehavior",
        "BoundaryConditionalEventActivityBehavior",
        "EventSubProcessStartConditionalEventActivityBehavior",
    }
)

# Events waiting for a message, signal, timer or condition hold a subscription or a timer of
# their event scope (Camunda's EventSubscriptionDeclaration / TimerDeclarationImpl).
_PERSISTENT_TRIGGER_TYPES = kinds.types_of(
    kinds.MESSAGE_CATCH_EVENT,
    kinds.SIGNAL_CATCH_EVENT,
    kinds.TIMER_CATCH_EVENT,
    kinds.CONDITIONAL_CATCH_EVENT,
    kinds.BOUNDARY_MESSAGE,
    kinds.BOUNDARY_SIGNAL,
    kinds.BOUNDARY_TIMER,
    kinds.BOUNDARY_CONDITIONAL,
    kinds.MESSAGE_START_EVENT,
    kinds.SIGNAL_START_EVENT,
    kinds.START_TIMER_EVENT,
    kinds.CONDITIONAL_START_EVENT,
)

_BOUNDARY_TYPES = frozenset(kind.type for kind in kinds.KINDS if kind.attached)
_START_TYPES = frozenset(kind.type for kind in kinds.of_tag(kinds.START_EVENT_TAG))
_CATCH_TYPES = frozenset(kind.type for kind in kinds.of_tag(kinds.CATCH_EVENT_TAG))
_WAIT_STATE_GATEWAYS = kinds.types_of(kinds.PARALLEL_GATEWAY, kinds.INCLUSIVE_GATEWAY)


def flow_scope(model: ProcessModel, activity: Activity) -> str:
    """The activity's flow scope: the enclosing subprocess or multi-instance body's id, or
    PROCESS."""
    return activity.scope_id if activity.scope_id in model.activities else PROCESS


def flow_scopes(model: ProcessModel, activity: Activity) -> Iterator[str]:
    """The activity's flow scopes from the closest outwards, the process (PROCESS) last."""
    scope = flow_scope(model, activity)
    while scope != PROCESS:
        yield scope
        scope = flow_scope(model, model.activities[scope])
    yield PROCESS


def is_ancestor_flow_scope(model: ProcessModel, scope: str, activity: Activity) -> bool:
    """Whether `scope` (an activity id or PROCESS) encloses `activity` (Camunda's
    ScopeImpl.isAncestorFlowScopeOf)."""
    return scope in flow_scopes(model, activity)


def is_event_subprocess_start(model: ProcessModel, activity: Activity) -> bool:
    return activity.type in _START_TYPES and model.is_event_subprocess(activity.scope_id)


def is_boundary(activity: Activity) -> bool:
    return activity.type in _BOUNDARY_TYPES


def is_passive_event(model: ProcessModel, activity: Activity) -> bool:
    """A boundary event or an event subprocess's start event: it waits for its trigger while
    something else runs (Camunda's isPassivelyWaitingEvent)."""
    return is_boundary(activity) or is_event_subprocess_start(model, activity)


def is_multi_instance_body(activity: Activity) -> bool:
    return isinstance(activity.spec, MultiInstanceSpec)


def inner_activity(model: ProcessModel, body: Activity) -> Activity:
    """The activity a multi-instance body runs."""
    assert isinstance(body.spec, MultiInstanceSpec)
    return model.activities[body.spec.inner]


def is_wait_state_gateway(activity: Activity) -> bool:
    """A parallel or inclusive gateway: a token may wait in it for the others (a join)."""
    return activity.type in _WAIT_STATE_GATEWAYS


def _after_event_gateway(model: ProcessModel, activity: Activity) -> str | None:
    for flow_id in activity.incoming:
        source = model.activities.get(model.flows[flow_id].source)
        if source is not None and source.type == kinds.EVENT_BASED_GATEWAY.type:
            return source.id
    return None


def event_scope(model: ProcessModel, activity: Activity) -> str | None:
    """Where the activity's events are caught (Camunda's getEventScope): the activity a
    boundary event sits on (its multi-instance body when it has one), the scope enclosing an
    event subprocess (for the subprocess and its start event), the event-based gateway before a
    catch event, the activity itself for a catch event, a receive task with a message or a user
    task with timeout listeners; None for every other activity."""
    spec = activity.spec
    if is_boundary(activity) and isinstance(spec, EventSpec) and spec.attached_to:
        attached = model.activities.get(spec.attached_to)
        if (
            activity.type == kinds.BOUNDARY_COMPENSATION.type
            and attached is not None
            and is_multi_instance_body(attached)
        ):
            return inner_activity(model, attached).id  # Camunda: the attached activity itself
        return spec.attached_to
    if isinstance(spec, SubprocessSpec) and spec.triggered_by_event:
        return flow_scope(model, activity)
    if is_event_subprocess_start(model, activity):
        return flow_scope(model, model.activities[activity.scope_id])
    if activity.type in _START_TYPES and activity.type != kinds.START_EVENT.type:
        # a process's message, signal, timer or conditional start event
        return flow_scope(model, activity)
    if activity.type in _CATCH_TYPES and activity.type != kinds.LINK_CATCH_EVENT.type:
        return _after_event_gateway(model, activity) or activity.id
    if isinstance(spec, ReceiveTaskSpec) and spec.message is not None:
        return activity.id
    if isinstance(spec, UserTaskSpec) and spec.timeout_listeners:
        return activity.id
    return None


def behavior(model: ProcessModel, activity: Activity) -> str:
    """The simple name of the ActivityBehavior class Camunda's parser gives the activity: what
    SameBehaviorInstructionValidator compares and names in its message."""
    spec = activity.spec
    fixed = _FIXED_BEHAVIORS.get(activity.type)
    if fixed is not None:
        return fixed
    if isinstance(spec, MultiInstanceSpec):
        kind = "Sequential" if spec.sequential else "Parallel"
        return f"{kind}MultiInstanceActivityBehavior"
    if isinstance(spec, SubprocessSpec):
        return (
            "EventSubProcessActivityBehavior"
            if spec.triggered_by_event
            else ("SubProcessActivityBehavior")
        )
    if isinstance(spec, DecisionTaskSpec):
        return "DmnBusinessRuleTaskActivityBehavior"
    if isinstance(spec, ServiceTaskSpec):
        return _SERVICE_BEHAVIORS.get(spec.implementation, "ClassDelegateActivityBehavior")
    if is_boundary(activity):
        return "BoundaryEventActivityBehavior"
    if activity.type in _START_TYPES:
        if not is_event_subprocess_start(model, activity):
            return "NoneStartEventActivityBehavior"
        if activity.type == kinds.CONDITIONAL_START_EVENT.type:
            return "EventSubProcessStartConditionalEventActivityBehavior"
        return "EventSubProcessStartEventActivityBehavior"
    # a message throw or end event without an implementation only passes the token on
    return "IntermediateThrowNoneEventActivityBehavior"


def has_supported_behavior(model: ProcessModel, activity: Activity) -> bool:
    """An instance of the activity can migrate (SupportedActivityValidator.isSupportedActivity,
    what Camunda's SupportedActivityInstanceValidator asks of each migrating activity instance:
    "The type of the source activity is not supported for activity instance migration")."""
    return behavior(model, activity) in SUPPORTED_BEHAVIORS


def is_supported(model: ProcessModel, activity: Activity) -> bool:
    """Migration can map the activity (SupportedActivityValidator): a supported behaviour, or
    an asynchronous continuation before or after any activity (a transition instance waiting in
    its job)."""
    return has_supported_behavior(model, activity) or activity.async_before or activity.async_after


def is_supported_passive_event(model: ProcessModel, activity: Activity) -> bool:
    """SupportedPassiveEventTriggerActivityValidator: a boundary or event subprocess start event
    must be of a type migration carries over (message, signal, timer, compensation,
    conditional); every other activity passes."""
    return not is_passive_event(model, activity) or activity.type in SUPPORTED_PASSIVE_EVENT_TYPES


def can_be_mapped(model: ProcessModel, activity: Activity) -> bool:
    """Every migration activity validator of Camunda's default configuration: what generation
    considers at all (SupportedActivityValidator, SupportedPassiveEventTriggerActivityValidator,
    NoCompensationHandlerActivityValidator)."""
    return (
        is_supported(model, activity)
        and is_supported_passive_event(model, activity)
        and not activity.for_compensation
    )


def defines_persistent_event_trigger(model: ProcessModel, activity: Activity) -> bool:
    """The activity's trigger is a subscription or a timer kept in its event scope (a message,
    signal, timer or conditional event; a receive task's message; a user task's timeout
    listeners): what `updateEventTrigger` may replace (UpdateEventTriggersValidator)."""
    if event_scope(model, activity) is None:
        return False
    if activity.type in _PERSISTENT_TRIGGER_TYPES:
        return True
    spec = activity.spec
    if isinstance(spec, ReceiveTaskSpec):
        return spec.message is not None
    return isinstance(spec, UserTaskSpec) and bool(spec.timeout_listeners)


def is_conditional_event(model: ProcessModel, activity: Activity) -> bool:
    """Camunda's ConditionalEventBehavior: a conditional catch, boundary or event subprocess
    start event."""
    return behavior(model, activity) in CONDITIONAL_BEHAVIORS


def event_activities(model: ProcessModel, scope: str) -> list[Activity]:
    """The activities whose event scope is `scope` (Camunda's ScopeImpl.getEventActivities), in
    the model's order."""
    return [a for a in model.activities.values() if event_scope(model, a) == scope]


def flow_activities(model: ProcessModel, scope: str) -> list[Activity]:
    """The activities directly in `scope` (Camunda's ScopeImpl.getActivities), in the model's
    order."""
    return [a for a in model.activities.values() if flow_scope(model, a) == scope]


class ModelView:
    """One model as migration sees it, each activity's facts found once: validation asks them
    of every instruction again whenever generation adds instructions."""

    def __init__(self, model: ProcessModel) -> None:
        self.model = model
        self._behaviors: dict[str, str] = {}
        self._event_scopes: dict[str, str | None] = {}
        self._flow_scopes: dict[str, tuple[str, ...]] = {}

    def behavior(self, activity: Activity) -> str:
        found = self._behaviors.get(activity.id)
        if found is None:
            found = self._behaviors[activity.id] = behavior(self.model, activity)
        return found

    def event_scope(self, activity: Activity) -> str | None:
        if activity.id not in self._event_scopes:
            self._event_scopes[activity.id] = event_scope(self.model, activity)
        return self._event_scopes[activity.id]

    def flow_scopes(self, activity: Activity) -> tuple[str, ...]:
        found = self._flow_scopes.get(activity.id)
        if found is None:
            found = self._flow_scopes[activity.id] = tuple(flow_scopes(self.model, activity))
        return found

    def flow_scope(self, activity: Activity) -> str:
        return self.flow_scopes(activity)[0]
