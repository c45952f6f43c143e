"""BPMN errors: thrown by error end events, delegates, scripts and external task workers, caught by
the innermost error boundary event or error event subprocess whose error event definition
matches the code.

Decide-side: the catch is recorded (BpmnErrorThrown), the interrupted scope cancelled through the
flow, and the boundary event entered once the work already queued is done.
"""

from __future__ import annotations

from .. import element_kinds as kinds
from .. import events as ev
from ..errors import ProcessEngineError
from ..model import Activity, ErrorEventDefinition, EventSpec, ProcessModel
from ..scope import set_variable
from ..session import CallFailed
from .event_subprocesses import fire as fire_event_subprocess
from .operations import FlowOperations


def _error_definition(boundary: Activity) -> ErrorEventDefinition | None:
    spec = boundary.spec
    if isinstance(spec, EventSpec) and isinstance(spec.definition, ErrorEventDefinition):
        return spec.definition
    return None


def _matching_boundary(
    model: ProcessModel, activity: Activity, code: str | None
) -> Activity | None:
    """A boundary event catching exactly `code` wins over one catching any error."""
    catch_all: Activity | None = None
    for boundary_id in activity.boundary_events:
        boundary = model.activities[boundary_id]
        definition = _error_definition(boundary)
        if definition is None:
            continue
        if definition.error_code is None:
            catch_all = catch_all or boundary
        elif definition.error_code == code:
            return boundary
    return catch_all


def _matching_event_subprocess(
    model: ProcessModel, scope_id: str, code: str | None
) -> Activity | None:
    """The error start event of an event subprocess of the scope that catches `code`; one for
    exactly the code wins over one for any error."""
    catch_all: Activity | None = None
    for esp in model.event_subprocesses(scope_id):
        start = model.activities[model.start_events[esp.id]]
        error_start = start.type == kinds.ERROR_START_EVENT.type
        definition = _error_definition(start) if error_start else None
        if definition is None:
            continue
        if definition.error_code is None:
            catch_all = catch_all or start
        elif definition.error_code == code:
            return start
    return catch_all


def throw_error(
    flow: FlowOperations, execution_id: str, code: str | None, message: str | None
) -> None:
    """Propagate a BPMN error from the execution's activity to the innermost matching catch:
    walking outwards, an activity's own error boundary events, then the error event
    subprocesses of its scope, then the scope's boundary events, and so on."""
    model = flow.model
    execution = flow.execution(execution_id)
    source = flow.activity_of(execution_id)
    handler: Activity | None = None
    scope_activity: Activity | None = None
    activity = source
    while True:
        handler = _matching_boundary(model, activity, code)
        if handler is not None:
            scope_activity = activity
            break
        handler = _matching_event_subprocess(model, activity.scope_id, code)
        if handler is not None:
            _start_error_event_subprocess(flow, execution_id, handler, code, message)
            return
        if activity.scope_id == model.id:
            break
        activity = model.activities[activity.scope_id]
    flow.emit(
        ev.BpmnErrorThrown(
            activity_instance_id=execution.activity_instance_id or "",
            error_code=code,
            error_message=message,
            caught_by=handler.id if handler else None,
            time=flow.session.ctx.now,
        )
    )
    if handler is None or scope_activity is None:
        state = flow.session.state
        if state.super_process_instance_id is not None and state.super_execution_id is not None:
            # Uncaught in a called instance: it ends, the caller's call activity throws it on.
            flow.session.ctx.outbox.append(
                CallFailed(
                    caller_id=state.super_process_instance_id,
                    execution_id=state.super_execution_id,
                    callee_id=state.id,
                    error_code=code,
                    error_message=message,
                )
            )
            return
        # Camunda's default for an uncaught BPMN error: the token simply ends there.
        flow.complete(execution_id, source, [])
        return
    scope_execution = flow.scope_execution_for(execution_id, scope_activity.id)
    if scope_execution is None or scope_execution.parent_id is None:
        raise ProcessEngineError(
            f"no execution found for the scope '{scope_activity.id}' of boundary "
            f"event '{handler.id}'"
        )
    definition = _error_definition(handler)
    assert definition is not None
    if definition.code_variable:
        set_variable(flow.session, scope_execution.id, definition.code_variable, code)
    if definition.message_variable:
        set_variable(flow.session, scope_execution.id, definition.message_variable, message)
    parent = scope_execution.parent_id
    flow.cancel_tree(scope_execution.id, "deleted")
    flow.enter_later(parent, handler.id)


def _start_error_event_subprocess(
    flow: FlowOperations, execution_id: str, start: Activity, code: str | None, message: str | None
) -> None:
    """An error event subprocess catches the error: it takes its scope over (always
    interrupting), the error's code and message in the variables its start event names."""
    execution = flow.execution(execution_id)
    flow.emit(
        ev.BpmnErrorThrown(
            activity_instance_id=execution.activity_instance_id or "",
            error_code=code,
            error_message=message,
            caught_by=start.id,
            time=flow.session.ctx.now,
        )
    )
    esp_id = start.scope_id
    scope_id = flow.model.activities[esp_id].scope_id
    if scope_id == flow.model.id:
        scope_execution_id = flow.session.state.id
    else:
        scope_execution = flow.scope_execution_for(execution_id, scope_id)
        if scope_execution is None:
            raise ProcessEngineError(
                f"no execution found for the scope '{scope_id}' of event subprocess '{esp_id}'"
            )
        scope_execution_id = scope_execution.id
    definition = _error_definition(start)
    assert definition is not None
    if definition.code_variable:
        set_variable(flow.session, scope_execution_id, definition.code_variable, code)
    if definition.message_variable:
        set_variable(flow.session, scope_execution_id, definition.message_variable, message)
    fire_event_subprocess(flow, scope_execution_id, start)
