"""Tasks: pass-through (task, manual task, none events), user, service-like, script (the
receive task waits for messages: `messages`).

Decide-side: delegates and expressions run here and their results are recorded as events.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from .. import events as ev
from ..budget import evaluating
from ..errors import BpmnError, FlowledgerError, ProcessEngineError
from ..expressions import Expression
from ..model import Activity, ScriptTaskSpec, ServiceTaskSpec, UserTaskSpec
from ..scope import ExecutionFacade, evaluate, set_variable
from .base import Behavior
from .connectors import call_http
from .errors import throw_error
from .incidents import close_incidents
from .listeners import notify_task
from .operations import FlowOperations
from .scripts import run_python
from .timeout_listeners import schedule_timeout_listeners


class PassThrough(Behavior):
    """Activities without behaviour of their own: they complete as soon as they start."""

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        flow.leave(execution_id)


_DURATION = re.compile(
    r"P(?:(?P<w>\d+)W)?(?:(?P<d>\d+)D)?(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?"
)


def to_datetime(value: Any, now: datetime, what: str) -> datetime | None:
    """A due date from an expression value: a datetime, an ISO date, or an ISO duration from now."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, str):
        text = value.strip()
        match = _DURATION.fullmatch(text)
        if match and text != "P" and text != "PT":
            parts = {k: float(v) if v else 0.0 for k, v in match.groupdict().items()}
            return now + timedelta(
                weeks=parts["w"],
                days=parts["d"],
                hours=parts["h"],
                minutes=parts["m"],
                seconds=parts["s"],
            )
        try:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise ProcessEngineError(
                f"{what}: {value!r} is neither an ISO 8601 date nor a duration"
            ) from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    raise ProcessEngineError(f"{what}: {value!r} is not a date")


def _names(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list | tuple | set):
        return [str(v).strip() for v in value if str(v).strip()]
    return [part.strip() for part in str(value).split(",") if part.strip()]


class UserTask(Behavior):
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        spec = activity.spec if isinstance(activity.spec, UserTaskSpec) else UserTaskSpec()
        session = flow.session
        ctx = session.ctx
        # Camunda creates a timeout listener's timer with the task's scope, before the task.
        schedule_timeout_listeners(flow, execution_id, activity)

        def value(expr: Expression | None, what: str) -> Any:
            if expr is None:
                return None
            return evaluate(session, expr, execution_id, element_id=activity.id, what=what)

        def text(expr: Expression | None, what: str) -> str | None:
            result = value(expr, what)
            return None if result is None else str(result)

        links: list[ev.IdentityLink] = []
        for expr in spec.candidate_users:
            for user in _names(value(expr, "camunda:candidateUsers")):
                links.append(ev.IdentityLink(id=ctx.new_id(), type="candidate", user_id=user))
        for expr in spec.candidate_groups:
            for group in _names(value(expr, "camunda:candidateGroups")):
                links.append(ev.IdentityLink(id=ctx.new_id(), type="candidate", group_id=group))
        priority_value = value(spec.priority, "camunda:priority")
        try:
            priority = 50 if priority_value in (None, "") else int(str(priority_value))
        except ValueError:
            raise ProcessEngineError(
                f"camunda:priority of '{activity.id}' evaluated to {priority_value!r}, not a number"
            ) from None
        name = text(spec.name, "the name") if spec.name is not None else activity.name
        execution = flow.execution(execution_id)
        task_id = ctx.new_id()
        flow.emit(
            ev.UserTaskCreated(
                task_id=task_id,
                execution_id=execution_id,
                activity_instance_id=execution.activity_instance_id or "",
                task_definition_key=activity.id,
                name=name,
                time=ctx.now,
                description=text(spec.description, "the documentation"),
                assignee=text(spec.assignee, "camunda:assignee"),
                candidates=links,
                due_date=to_datetime(
                    value(spec.due_date, "camunda:dueDate"),
                    ctx.now,
                    f"camunda:dueDate of '{activity.id}'",
                ),
                follow_up_date=to_datetime(
                    value(spec.follow_up_date, "camunda:followUpDate"),
                    ctx.now,
                    f"camunda:followUpDate of '{activity.id}'",
                ),
                priority=priority,
                form_key=text(spec.form_key, "camunda:formKey"),
            )
        )
        if spec.task_listeners:
            notify_task(session, task_id, "create")
            if session.state.tasks[task_id].assignee is not None:
                notify_task(session, task_id, "assignment")

    def cancel(
        self,
        flow: FlowOperations,
        execution_id: str,
        activity: Activity,
        activity_instance_id: str,
        reason: str,
    ) -> None:
        tasks = flow.session.state.tasks.values()
        for task in [t for t in tasks if t.activity_instance_id == activity_instance_id]:
            notify_task(flow.session, task.id, "delete")
            flow.emit(ev.TaskDeleted(task_id=task.id, reason=reason, time=flow.session.ctx.now))


def run_delegate(
    flow: FlowOperations, execution_id: str, activity: Activity, call: Callable[[], None]
) -> None:
    """Run user code; a BpmnError becomes a BPMN error, anything else fails the command."""
    try:
        call()
    except BpmnError as error:
        throw_error(flow, execution_id, error.error_code, error.error_message)
        return
    except FlowledgerError:
        raise
    except Exception as exc:
        cause = exc.__cause__
        if isinstance(cause, BpmnError):
            throw_error(flow, execution_id, cause.error_code, cause.error_message)
            return
        raise ProcessEngineError(
            f"{activity.type} '{activity.id}' failed: {type(exc).__name__}: {exc}"
        ) from exc
    flow.leave(execution_id)


def invoke(target: Any, execution: ExecutionFacade, what: str) -> None:
    """Call a delegate; the time it takes is spent from the command's budget."""
    if hasattr(target, "execute") and callable(target.execute):
        call = target.execute
    elif callable(target):
        call = target
    else:
        raise ProcessEngineError(f"{what} is neither callable nor has an execute(execution) method")
    with evaluating(what):
        call(execution)


class ServiceTask(Behavior):
    """Runs its delegate or expression at once, or waits for an external worker."""

    def cancel(
        self,
        flow: FlowOperations,
        execution_id: str,
        activity: Activity,
        activity_instance_id: str,
        reason: str,
    ) -> None:
        external = flow.session.state.external_tasks.values()
        for ext in [x for x in external if x.activity_instance_id == activity_instance_id]:
            close_incidents(flow.session, ext.id, resolved=False)
            flow.emit(ev.ExternalTaskCanceled(external_task_id=ext.id, time=flow.session.ctx.now))

    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        spec = activity.spec
        assert isinstance(spec, ServiceTaskSpec)
        session = flow.session
        if spec.implementation == "external":
            self._external(flow, execution_id, activity, spec)
            return
        if spec.implementation == "connector":
            connector = spec.connector
            if connector is None:
                raise ProcessEngineError(f"'{activity.id}' has a connector that does not run")
            run_delegate(
                flow,
                execution_id,
                activity,
                lambda: call_http(session, execution_id, activity, connector),
            )
            return
        facade = ExecutionFacade(session, execution_id)

        def call() -> None:
            if spec.implementation == "class":
                name = spec.class_name or ""
                target = session.ctx.delegates.get(name)
                if target is None:
                    raise ProcessEngineError(
                        f"No delegate registered under the name '{name}' for camunda:class of "
                        f"'{activity.id}'; register one with Engine.register_delegate"
                    )
                invoke(target, facade, f"the delegate '{name}'")
                return
            assert spec.expression is not None
            result = evaluate(
                session,
                spec.expression,
                execution_id,
                element_id=activity.id,
                what=f"camunda:{spec.implementation}",
            )
            if spec.implementation == "delegateExpression":
                invoke(result, facade, f"the delegate expression {spec.expression.source}")
            elif spec.result_variable:
                set_variable(session, execution_id, spec.result_variable, result)

        run_delegate(flow, execution_id, activity, call)

    def _external(
        self, flow: FlowOperations, execution_id: str, activity: Activity, spec: ServiceTaskSpec
    ) -> None:
        session = flow.session
        assert spec.topic is not None
        topic = evaluate(
            session, spec.topic, execution_id, element_id=activity.id, what="camunda:topic"
        )
        priority_value: Any = 0
        if spec.task_priority is not None:
            priority_value = evaluate(
                session,
                spec.task_priority,
                execution_id,
                element_id=activity.id,
                what="camunda:taskPriority",
            )
        try:
            priority = int(str(priority_value))
        except ValueError:
            raise ProcessEngineError(
                f"camunda:taskPriority of '{activity.id}' evaluated to {priority_value!r}, "
                "not a number"
            ) from None
        execution = flow.execution(execution_id)
        flow.emit(
            ev.ExternalTaskCreated(
                external_task_id=session.ctx.new_id(),
                execution_id=execution_id,
                activity_instance_id=execution.activity_instance_id or "",
                activity_id=activity.id,
                topic=str(topic),
                priority=priority,
                time=session.ctx.now,
            )
        )


class ScriptTask(Behavior):
    def execute(self, flow: FlowOperations, execution_id: str, activity: Activity) -> None:
        spec = activity.spec
        assert isinstance(spec, ScriptTaskSpec)
        session = flow.session

        def call() -> None:
            if spec.script_format == "juel":
                assert spec.expression is not None
                result = evaluate(
                    session,
                    spec.expression,
                    execution_id,
                    element_id=activity.id,
                    what="the script",
                )
            else:
                result = run_python(session, execution_id, spec.code, spec.result_code)
            if spec.result_variable:
                set_variable(session, execution_id, spec.result_variable, result)

        run_delegate(flow, execution_id, activity, call)
