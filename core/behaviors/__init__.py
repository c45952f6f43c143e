"""Behaviours of BPMN element families, one module each, looked up by Camunda activity type.

Adding an element type touches one module and this registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..model import Activity

if TYPE_CHECKING:
    from ..flow import Flow


class Behavior(Protocol):
    def execute(self, flow: Flow, execution_id: str, activity: Activity) -> None:
        """The token has entered the activity (its instance is started)."""
        ...


def behavior_for(activity: Activity) -> Behavior:
    return REGISTRY[activity.type]


from .events import BoundaryEvent, ErrorEndEvent, NoneEndEvent, TerminateEndEvent  # noqa: E402
from .gateways import ExclusiveGateway, InclusiveGateway, ParallelGateway  # noqa: E402
from .subprocess import EmbeddedSubprocess  # noqa: E402
from .tasks import PassThrough, ReceiveTask, ScriptTask, ServiceTask, UserTask  # noqa: E402

REGISTRY: dict[str, Behavior] = {
    "startEvent": PassThrough(),
    "intermediateNoneThrowEvent": PassThrough(),
    "task": PassThrough(),
    "manualTask": PassThrough(),
    "noneEndEvent": NoneEndEvent(),
    "terminateEndEvent": TerminateEndEvent(),
    "errorEndEvent": ErrorEndEvent(),
    "boundaryError": BoundaryEvent(),
    "userTask": UserTask(),
    "serviceTask": ServiceTask(),
    "sendTask": ServiceTask(),
    "businessRuleTask": ServiceTask(),
    "scriptTask": ScriptTask(),
    "receiveTask": ReceiveTask(),
    "exclusiveGateway": ExclusiveGateway(),
    "parallelGateway": ParallelGateway(),
    "inclusiveGateway": InclusiveGateway(),
    "subProcess": EmbeddedSubprocess(),
}
