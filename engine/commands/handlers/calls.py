"""Call activities in the command path: the engine does what a decision asked of other
instances (`core.session.StartCall`, `CallEnded`, `CallFailed`, `CancelCall`): start the called
instance (its definition found by key and binding), let the caller go on when it completes,
throw its uncaught error on at the caller, cancel it with its call activity. Every instance
touched is a stream of the one command.
"""

from __future__ import annotations

from functools import partial

from flowledger.core import calls, decide, views
from flowledger.core.errors import ProcessEngineError, Rejected
from flowledger.core.session import CallEnded, CallFailed, CancelCall, StartCall
from flowledger.engine import lookups
from flowledger.engine.commands.bindings import bound, which
from flowledger.engine.commands.handlers.guards import still_deployed
from flowledger.engine.commands.unit_of_work import UnitOfWork


def _definition(unit: UnitOfWork, call: StartCall) -> views.ProcessDefinition:
    """The definition the call activity's binding names (Camunda's calledElementBinding)."""
    found: views.ProcessDefinition | None
    if call.binding == "latest":
        found = lookups.latest_process_definition(unit.conn, call.key)
    else:
        found = bound(
            lookups.process_definitions(unit.conn, key=call.key),
            call.binding,
            version=call.version,
            version_tag=call.version_tag,
            deployment_id=call.deployment_id,
        )
    if found is None:
        raise ProcessEngineError(
            f"call activity '{call.activity_id}' calls the process '{call.key}', but no "
            "process definition with that key is deployed"
            + which(call.binding, call.version, call.version_tag, "the calling instance's")
        )
    if found.suspended:
        raise Rejected(f"Process definition '{found.id}' is suspended")
    return found


def start(unit: UnitOfWork, call: StartCall) -> None:
    definition = _definition(unit, call)
    unit.guards.append(partial(still_deployed, definition.id))
    caller = unit.instance(call.caller_id)
    callee = unit.start_instance(
        unit.repository.model(unit.conn, definition.id),
        definition_id=definition.id,
        definition_version=definition.version,
        deployment_id=definition.deployment_id,
        business_key=call.business_key,
        variables=call.variables,
        super_process_instance_id=call.caller_id,
        super_execution_id=call.execution_id,
        root_process_instance_id=caller.state.root_process_instance_id,
        call_depth=caller.state.call_depth + 1,
        removal_time=caller.state.removal_time,
    )
    calls.started(caller, call.activity_instance_id, callee.state.id)


def ended(unit: UnitOfWork, effect: CallEnded) -> None:
    caller = unit.instance(effect.caller_id, ended_ok=True)
    calls.ended(caller, effect.execution_id, effect.callee_id, effect.variables)


def failed(unit: UnitOfWork, effect: CallFailed) -> None:
    callee = unit.instance(effect.callee_id, ended_ok=True)
    if not callee.state.ended:
        calls.end_by_error(callee, effect.error_code)
    caller = unit.instance(effect.caller_id, ended_ok=True)
    calls.failed(
        caller, effect.execution_id, effect.callee_id, effect.error_code, effect.error_message
    )


def cancel(unit: UnitOfWork, effect: CancelCall) -> None:
    callee = unit.instance(effect.callee_id, ended_ok=True)
    if not callee.state.ended:
        decide.delete_instance(callee, "the calling activity was cancelled", by_caller=True)
