"""Call activities across instances, the caller's and the called instance's decisions: the
called instance recorded on the caller, the caller going on when it completes, the error it did
not catch thrown on at the call activity, the called instance ended by that error.

Pure: the engine finds the instances (each a stream of the same command) and hands in their
sessions; these functions emit events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import events as ev
from .behaviors.calls import map_outputs
from .behaviors.errors import throw_error
from .flow import Flow
from .session import InstanceSession


def started(caller: InstanceSession, activity_instance_id: str, callee_id: str) -> None:
    caller.emit(
        ev.CalledInstanceStarted(
            activity_instance_id=activity_instance_id,
            called_process_instance_id=callee_id,
            time=caller.ctx.now,
        )
    )


def _waiting(caller: InstanceSession, execution_id: str, callee_id: str) -> str | None:
    """The call activity instance of `execution_id` that waits for `callee_id`, if it still
    does (the caller may have moved on: its call activity cancelled meanwhile)."""
    state = caller.state
    if state.ended or execution_id not in state.executions:
        return None
    ai = state.executions[execution_id].activity_instance_id
    return ai if ai is not None and state.calls.get(ai) == callee_id else None


def ended(
    caller: InstanceSession, execution_id: str, callee_id: str, variables: Mapping[str, Any]
) -> None:
    """The called instance completed: the out mappings, then the call activity goes on."""
    if _waiting(caller, execution_id, callee_id) is None:
        return
    flow = Flow(caller)
    map_outputs(caller, execution_id, flow.activity_of(execution_id), variables)
    flow.leave(execution_id)
    flow.run()


def failed(
    caller: InstanceSession,
    execution_id: str,
    callee_id: str,
    code: str | None,
    message: str | None,
) -> None:
    """The called instance threw an error it did not catch: thrown on at the call activity."""
    if _waiting(caller, execution_id, callee_id) is None:
        return
    flow = Flow(caller)
    throw_error(flow, execution_id, code, message)
    flow.run()


def end_by_error(callee: InstanceSession, code: str | None) -> None:
    """The called instance ends: its error went to the caller."""
    flow = Flow(callee)
    reason = f"BPMN error {code!r} propagated to the calling instance"
    flow.cancel_tree(callee.state.id, reason)
    callee.emit(ev.ProcessInstanceTerminated(reason=reason, externally=False, time=callee.ctx.now))
