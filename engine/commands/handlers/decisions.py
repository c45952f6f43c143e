"""Handler of decisionService's command: evaluate a deployed decision over the API.

The evaluation is recorded in a stream of its own, named by the evaluated decision's instance id
(`DecisionEvaluated`): who asked, the inputs, the matched rules and the outputs of every decision
of the evaluation. A failed evaluation is refused and records nothing, as Camunda's history has
no failed decision instances.
"""

from __future__ import annotations

from datetime import timedelta

from flowledger.core import commands as cmd
from flowledger.core import decisions, views
from flowledger.core import events as ev
from flowledger.core.errors import InvalidValue, NotFound
from flowledger.core.limits import check_variable_count
from flowledger.core.variables import from_stored, to_stored
from flowledger.engine.commands import decision_lookup
from flowledger.engine.commands.bus import Handler
from flowledger.engine.commands.unit_of_work import UnitOfWork


def evaluate(unit: UnitOfWork, command: cmd.EvaluateDecision) -> views.DecisionResult:
    if command.definition_id is None and command.key is None:
        raise InvalidValue("evaluating a decision needs its definition id or its key", "decision")
    check_variable_count(command.variables)
    # As a variable would hold them: a typed value (a REST client's Date, Long, Json) by its type.
    variables = {name: from_stored(to_stored(name, v)) for name, v in command.variables.items()}
    deployed = decision_lookup.by_id_or_key(unit, command.definition_id, command.key)
    ctx = unit.ctx
    evaluation = decisions.evaluate(deployed, variables, now=ctx.now, new_id=ctx.new_id)
    definition = deployed.definition
    ttl = definition.history_time_to_live
    if ttl is None:
        ttl = ctx.history_ttl_days
    event = ev.DecisionEvaluated(
        decisions=evaluation.decisions,
        time=ctx.now,
        user_id=ctx.actor,
        requirements_id=definition.decision_requirements_definition_id,
        requirements_key=definition.decision_requirements_definition_key,
        removal_time=None if ttl is None else ctx.now + timedelta(days=ttl),
    )
    root = evaluation.root
    unit.append(root.decision_instance_id, 0, None, [event])
    return views.DecisionResult(
        decision_instance_id=root.decision_instance_id,
        decision_definition_id=definition.id,
        values=evaluation.values,
        entries=[
            {name: decisions.stored(value) for name, value in row.items()}
            for row in evaluation.outcome.result
        ],
        matched_rules=list(root.matched_rules),
        collect_value=evaluation.outcome.collect_value,
    )


def delete_history(unit: UnitOfWork, command: cmd.DeleteHistoricDecisionInstance) -> None:
    """History cleanup removes an evaluation over the API (an evaluation in an instance goes
    with the instance's history)."""
    stream_id = command.decision_instance_id
    head = unit.store.stream_head(unit.conn, stream_id)
    commits = unit.repository.stream(unit.conn, stream_id) if head is not None else []
    events = [e for _commit, recorded in commits for e in recorded]
    if not events or not isinstance(events[0], ev.DecisionEvaluated):
        raise NotFound("Historic decision instance", stream_id)
    if any(isinstance(e, ev.HistoricDecisionInstanceDeleted) for e in events):
        raise NotFound("Historic decision instance", stream_id, "its history is deleted")
    assert head is not None
    deleted = ev.HistoricDecisionInstanceDeleted(
        decision_instance_id=stream_id, time=unit.ctx.now, cleanup=command.cleanup
    )
    unit.append(stream_id, head[0], head[1], [deleted])


HANDLERS = (
    Handler(cmd.EvaluateDecision, evaluate, result=views.DecisionResult),
    Handler(cmd.DeleteHistoricDecisionInstance, delete_history),
)
