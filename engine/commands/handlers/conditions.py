"""Handler of a condition evaluation (runtimeService.createConditionEvaluation(), REST
POST /condition): start an instance at every conditional start event whose condition holds for
the request's variables.

The candidates are the conditional start events' subscriptions (ACT_RU_EVENT_SUBSCR, the latest
version of each key), or the conditional start events of one named definition; the domain
evaluates each condition (`core.conditional_starts`). Every instance started is a stream of
this one command, and each records that it started at its conditional start event.
"""

from __future__ import annotations

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.conditional_starts import (
    conditional_starts,
    start_condition_holds,
    values,
)
from flowledger.core.errors import ProcessEngineError, Rejected
from flowledger.core.limits import MAX_BUSINESS_KEY, check_text, check_variable_count
from flowledger.engine import lookups
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.handlers.start_events import start_at
from flowledger.engine.commands.unit_of_work import UnitOfWork

CONDITIONAL = "conditional"


def evaluate(unit: UnitOfWork, command: cmd.EvaluateConditions) -> list[views.ProcessInstance]:
    check_text("businessKey", command.business_key, MAX_BUSINESS_KEY)
    check_variable_count(command.variables)
    if command.tenant_id is not None and command.without_tenant_id:
        raise Rejected(
            "Parameter 'tenantId' cannot be used together with parameter 'withoutTenantId'."
        )
    variables = values(command.variables)
    chosen = [
        start
        for start in _candidates(unit, command)
        if start_condition_holds(
            unit.repository.model(unit.conn, start.definition_id).activities[start.activity_id],
            variables,
        )
    ]
    started: list[views.ProcessInstance] = []
    for start in chosen:
        session = start_at(unit, start, command.business_key, command.variables)
        state = session.state
        started.append(
            views.ProcessInstance(
                id=state.id,
                definition_id=start.definition_id,
                definition_key=start.definition_key,
                business_key=command.business_key,
                ended=state.ended,
            )
        )
    return started


def _candidates(
    unit: UnitOfWork, command: cmd.EvaluateConditions
) -> list[lookups.StartSubscription]:
    """The conditional start events to evaluate, as Camunda's DefaultConditionHandler finds
    them; refused as Camunda refuses when there are none to evaluate."""
    if command.process_definition_id is not None:
        definition = lookups.process_definition(unit.conn, command.process_definition_id)
        if definition is None or definition.suspended:
            return []  # Camunda evaluates nothing and starts nothing then
        model = unit.repository.model(unit.conn, definition.id)
        starts = conditional_starts(model)
        if not starts:
            raise ProcessEngineError(
                f"Process definition with id '{definition.id}' does not declare conditional "
                "start event."
            )
        return [
            lookups.StartSubscription(
                subscription_id="",
                event_type=CONDITIONAL,
                message_name="",
                activity_id=start.id,
                definition_id=definition.id,
                definition_key=definition.key,
                deployment_id=definition.deployment_id,
                suspended=False,
            )
            for start in starts
        ]
    # No definition has a tenant here: a tenant id finds no subscription.
    found = (
        []
        if command.tenant_id is not None
        else lookups.start_subscriptions(unit.conn, event_type=CONDITIONAL)
    )
    if not found:
        raise ProcessEngineError(
            "No subscriptions were found during evaluation of the conditional start events."
        )
    return [start for start in found if not start.suspended]


HANDLERS = (Handler(cmd.EvaluateConditions, evaluate, result=list[views.ProcessInstance]),)
