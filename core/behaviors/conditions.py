"""What a conditional event is made of, as the flow needs it: its definition, whether a
variable change is one it listens to, its condition's value at an execution, and its
subscription (ACT_RU_EVENT_SUBSCR, event type `conditional`).

Decide-side, below the behaviours that fire conditional events (`conditionals`), so that the
event subprocesses can arm a conditional start without depending on them.
"""

from __future__ import annotations

from .. import events as ev
from ..errors import ProcessEngineError
from ..expressions import UnknownIdentifier
from ..model import Activity, ConditionalEventDefinition, EventSpec
from ..scope import evaluate
from ..variable_changes import VariableChange
from .operations import FlowOperations

CONDITIONAL = "conditional"  # ACT_RU_EVENT_SUBSCR.EVENT_TYPE_


def definition_of(event: Activity) -> ConditionalEventDefinition | None:
    spec = event.spec
    if isinstance(spec, EventSpec) and isinstance(spec.definition, ConditionalEventDefinition):
        return spec.definition
    return None


def wanted(definition: ConditionalEventDefinition, change: VariableChange) -> bool:
    """Whether the change is one the event listens to (Camunda's
    shouldEvaluateForVariableEvent): its variable name and its kind of change."""
    if definition.variable_name is not None and change.name != definition.variable_name:
        return False
    return not definition.variable_events or change.event in definition.variable_events


def holds(flow: FlowOperations, execution_id: str, event: Activity) -> bool:
    """The event's condition seen from the execution. As Camunda's tryEvaluate: a variable
    the condition names that does not exist (yet) makes it false; a value that is no boolean
    is an error naming the event."""
    definition = definition_of(event)
    assert definition is not None
    try:
        value = evaluate(
            flow.session,
            definition.condition,
            execution_id,
            element_id=event.id,
            what="the condition",
        )
    except ProcessEngineError as exc:
        if isinstance(exc.__cause__, UnknownIdentifier):
            return False
        raise
    if not isinstance(value, bool):
        raise ProcessEngineError(
            f"The condition of conditional event '{event.id}' ({definition.condition.source}) "
            f"evaluated to {value!r}, not to a boolean"
        )
    return value


def subscribe(
    flow: FlowOperations, execution_id: str, event: Activity, activity_instance_id: str
) -> None:
    """The conditional event waits on the execution until `activity_instance_id` ends."""
    flow.emit(
        ev.EventSubscriptionCreated(
            subscription_id=flow.session.ctx.new_id(),
            event_type=CONDITIONAL,
            event_name="",  # a conditional subscription has no name (EVENT_NAME_ is null)
            execution_id=execution_id,
            activity_id=event.id,
            activity_instance_id=activity_instance_id,
            time=flow.session.ctx.now,
        )
    )


def occurred(
    flow: FlowOperations, subscription_id: str, event: Activity, change: VariableChange | None
) -> None:
    """Record that the condition held at the waiting subscription, and for which change (the
    audit's answer to "why did it fire"; what it causes follows)."""
    flow.emit(
        ev.ConditionalEventOccurred(
            subscription_id=subscription_id,
            activity_id=event.id,
            time=flow.session.ctx.now,
            variable_name=None if change is None else change.name,
            variable_event=None if change is None else change.event,
        )
    )
