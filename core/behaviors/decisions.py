"""Business rule tasks that evaluate a deployed decision (`camunda:decisionRef`): the decision
found by its binding, evaluated over the variables the task sees, recorded in the instance's
stream (`ActivityDecisionEvaluated`: inputs, matched rules, outputs), its result mapped into the
result variable, then the token goes on. A violated hit policy or a failed expression fails the
activity: the command is refused, or the job fails into an incident when the task is async.

Decide-side; the engine only finds the decision (`CommandContext.decisions`).
"""

from __future__ import annotations

from typing import Any

from .. import decisions
from .. import events as ev
from ..decisions import DecisionRef
from ..errors import ProcessEngineError
from ..expressions import Expression
from ..model import Activity, DecisionTaskSpec
from ..scope import evaluate, set_variable, visible_variables
from .operations import FlowOperations
from .tasks import ServiceTask


class BusinessRuleTask(ServiceTask):
    """A decision's evaluation; without `camunda:decisionRef`, a service task's work."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        spec = activity.spec
        if not isinstance(spec, DecisionTaskSpec):
            super().execute(flow, execution_id, activity)
            return
        session = flow.session
        lookup = session.ctx.decisions
        if lookup is None:
            raise ProcessEngineError(
                f"business rule task '{activity.id}' evaluates a decision, but this engine "
                "finds no deployed decisions"
            )

        def value(expression: Expression | None, what: str) -> Any:
            if expression is None:
                return None
            return evaluate(session, expression, execution_id, element_id=activity.id, what=what)

        key = value(spec.decision_ref, "camunda:decisionRef")
        if not isinstance(key, str) or not key:
            raise ProcessEngineError(
                f"camunda:decisionRef of '{activity.id}' evaluated to {key!r}, not a decision key"
            )
        version = value(spec.version, "camunda:decisionRefVersion")
        try:
            version_number = None if version in (None, "") else int(str(version))
        except ValueError:
            raise ProcessEngineError(
                f"camunda:decisionRefVersion of '{activity.id}' is {version!r}, not a number"
            ) from None
        tag = value(spec.version_tag, "camunda:decisionRefVersionTag")
        tenant = value(spec.tenant_id, "camunda:decisionRefTenantId")
        if tenant not in (None, ""):
            # Camunda looks the decision up among the tenant's own definitions; flowledger
            # deploys every definition without a tenant, so a named tenant has none.
            raise ProcessEngineError(
                f"business rule task '{activity.id}' evaluates the decision '{key}' of tenant "
                f"'{tenant}', but no decision definition with that key is deployed for that "
                "tenant (flowledger deploys every definition without a tenant)"
            )
        ref = DecisionRef(
            key=key,
            binding=spec.binding,
            version=version_number,
            version_tag=None if tag is None else str(tag),
            deployment_id=session.state.deployment_id,
        )
        deployed = lookup(ref, activity.id)
        variables = visible_variables(session, execution_id)
        ctx = session.ctx
        try:
            evaluation = decisions.evaluate(deployed, variables, now=ctx.now, new_id=ctx.new_id)
        except ProcessEngineError as exc:
            # The same error (a policy violation stays one), saying where it happened.
            exc.args = (f"business rule task '{activity.id}': {exc}",)
            raise
        definition = deployed.definition
        execution = flow.execution(execution_id)
        flow.emit(
            ev.ActivityDecisionEvaluated(
                decisions=evaluation.decisions,
                time=ctx.now,
                activity_id=activity.id,
                activity_instance_id=execution.activity_instance_id,
                execution_id=execution_id,
                user_id=ctx.actor,
                requirements_id=definition.decision_requirements_definition_id,
                requirements_key=definition.decision_requirements_definition_key,
            )
        )
        if spec.result_variable:
            result = decisions.map_result(
                evaluation.values, spec.map_decision_result, definition.key, activity.id
            )
            set_variable(session, execution_id, spec.result_variable, result)
        flow.leave(execution_id)
