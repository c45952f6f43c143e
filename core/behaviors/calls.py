"""Call activities: the caller's side. Entering one evaluates what the called instance gets (its
`camunda:in` variables and business key) and which definition it runs, and asks the engine to
start it (`StartCall` in the command's outbox); the token waits until the called instance ends
(`CallEnded`: the `camunda:out` variables are set and the token goes on) or throws an error it
does not catch (`CallFailed`: the error is thrown on here). Cancelling the call activity cancels
the called instance (`CancelCall`).

Decide-side; every change is an emitted event or an outbox entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ProcessEngineError
from ..expressions import Expression, MappingContext
from ..model import Activity, CallActivitySpec, VariableMapping
from ..scope import evaluate, local_variables, set_variable, set_variable_local, visible_variables
from ..session import CancelCall, InstanceSession, StartCall
from ..variables import from_stored
from .base import Behavior
from .operations import FlowOperations
from .variable_mappings import map_input, map_output

# Call activities nested in one another at most (Camunda has no limit). A process calling
# itself without an end would otherwise start instances without bound: in one command the
# effects limit stops it, but with asyncBefore each call is a job of its own.
MAX_CALL_DEPTH = 1_000


def _spec(activity: Activity) -> CallActivitySpec:
    spec = activity.spec
    if not isinstance(spec, CallActivitySpec):
        raise ProcessEngineError(f"call activity '{activity.id}' has no called element")
    return spec


class CallActivity(Behavior):
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        spec = _spec(activity)
        session = flow.session
        depth = session.state.call_depth + 1
        if depth > MAX_CALL_DEPTH:
            raise ProcessEngineError(
                f"call activity '{activity.id}' would start a called instance at depth {depth}, "
                f"past the limit of {MAX_CALL_DEPTH} call activities nested in one another: "
                "the called processes call one another (or themselves) without end; give the "
                "recursion a condition that ends it"
            )

        def value(expression: Expression | None, what: str) -> Any:
            if expression is None:
                return None
            return evaluate(session, expression, execution_id, element_id=activity.id, what=what)

        key = value(spec.called_element, "calledElement")
        if not isinstance(key, str) or not key:
            raise ProcessEngineError(
                f"calledElement of '{activity.id}' evaluated to {key!r}, not a process key"
            )
        version = value(spec.version, "camunda:calledElementVersion")
        try:
            version_number = None if version in (None, "") else int(str(version))
        except ValueError:
            raise ProcessEngineError(
                f"camunda:calledElementVersion of '{activity.id}' is {version!r}, not a number"
            ) from None
        tag = value(spec.version_tag, "camunda:calledElementVersionTag")
        variables, business_key = _inputs(session, execution_id, activity, spec.inputs)
        map_input(session, execution_id, activity, spec, variables)  # after camunda:in
        ai = flow.execution(execution_id).activity_instance_id
        assert ai is not None
        session.ctx.outbox.append(
            StartCall(
                caller_id=session.state.id,
                execution_id=execution_id,
                activity_instance_id=ai,
                activity_id=activity.id,
                key=key,
                binding=spec.binding,
                version=version_number,
                version_tag=None if tag is None else str(tag),
                deployment_id=session.state.deployment_id,
                business_key=business_key,
                variables=variables,
            )
        )

    def cancel(
        self,
        flow: FlowOperations,
        execution_id: str,
        activity: Activity,
        activity_instance_id: str,
        reason: str,
    ) -> None:
        called = flow.session.state.calls.get(activity_instance_id)
        if called is not None:
            flow.session.ctx.outbox.append(CancelCall(called))


def _inputs(
    session: InstanceSession,
    execution_id: str,
    activity: Activity,
    mappings: tuple[VariableMapping, ...],
) -> tuple[dict[str, Any], str | None]:
    """The called instance's start variables and business key, from the caller's execution."""
    variables: dict[str, Any] = {}
    business_key: str | None = None
    for mapping in mappings:
        if mapping.business_key is not None:
            key = evaluate(
                session,
                mapping.business_key,
                execution_id,
                element_id=activity.id,
                what="the camunda:in businessKey",
            )
            business_key = None if key is None else str(key)
        elif mapping.all:
            if mapping.local:
                variables.update(
                    (name, from_stored(var.value))
                    for name, var in local_variables(session, execution_id).items()
                )
            else:
                variables.update(visible_variables(session, execution_id))
        else:
            variables[mapping.target or ""] = _source(session, execution_id, activity, mapping)
    return variables, business_key


def _source(
    session: InstanceSession, execution_id: str, activity: Activity, mapping: VariableMapping
) -> Any:
    if mapping.source_expression is not None:
        return evaluate(
            session,
            mapping.source_expression,
            execution_id,
            element_id=activity.id,
            what=f"the sourceExpression for '{mapping.target}'",
        )
    found = visible_variables(session, execution_id)
    return found.get(mapping.source or "")


def map_outputs(
    session: InstanceSession,
    execution_id: str,
    activity: Activity,
    ended_with: Mapping[str, Any],
) -> None:
    """The called instance ended with `ended_with`: the `camunda:out` mappings set the caller's
    variables from them (as setVariable from the call activity, or locally on it); a
    delegate variable mapping then maps them too."""
    spec = _spec(activity)
    for mapping in spec.outputs:
        values: dict[str, Any]
        if mapping.all:
            values = dict(ended_with)
        elif mapping.source_expression is not None:
            try:
                value = mapping.source_expression.evaluate(MappingContext(ended_with))
            except Exception as exc:
                raise ProcessEngineError(
                    f"Cannot evaluate the camunda:out sourceExpression for '{mapping.target}' of "
                    f"'{activity.id}' ({mapping.source_expression.source}): {exc}"
                ) from exc
            values = {mapping.target or "": value}
        else:
            values = {mapping.target or "": ended_with.get(mapping.source or "")}
        for name, value in values.items():
            if mapping.local:
                set_variable_local(session, execution_id, name, value)
            else:
                set_variable(session, execution_id, name, value)
    map_output(session, execution_id, activity, spec, ended_with)
