"""Variable scoping (Camunda's walk-up rules) and the `execution` seen by expressions, delegates.

Runs inside decide: reads come from the session's state, writes are emitted as VariableSet events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import events as ev
from .budget import BudgetExceeded, current_budget
from .errors import BpmnError, FlowledgerError, ProcessEngineError
from .expressions import (
    EvaluationContext,
    Expression,
    ExpressionEvaluationError,
    UnknownIdentifier,
)
from .session import InstanceSession
from .state import Variable, variable_index
from .variables import from_stored, to_stored


def execution_chain(session: InstanceSession, execution_id: str) -> list[str]:
    """The execution and its ancestors, innermost first."""
    executions = session.state.executions
    chain = []
    current: str | None = execution_id
    while current is not None:
        chain.append(current)
        current = executions[current].parent_id
    return chain


def find_local(session: InstanceSession, execution_id: str, name: str) -> Variable | None:
    state = session.state
    vid = variable_index(state).local(execution_id, name)
    return None if vid is None else state.variables[vid]


def find_task_local(session: InstanceSession, task_id: str, name: str) -> Variable | None:
    state = session.state
    vid = variable_index(state).task_local(task_id, name)
    return None if vid is None else state.variables[vid]


def local_variables(session: InstanceSession, execution_id: str) -> dict[str, Variable]:
    """The execution's own variables by name (not its tasks' local ones), in order."""
    variables = session.state.variables
    found: dict[str, Variable] = {}
    for vid in variable_index(session.state).of_execution(execution_id):
        var = variables[vid]
        if var.task_id is None:
            found.setdefault(var.name, var)
    return found


def lookup(session: InstanceSession, execution_id: str, name: str) -> Variable | None:
    """The variable a name refers to from an execution: the innermost scope that has it."""
    for scope in execution_chain(session, execution_id):
        var = find_local(session, scope, name)
        if var is not None:
            return var
    return None


def visible_variables(session: InstanceSession, execution_id: str) -> dict[str, Any]:
    """All variables visible from an execution, inner scopes shadowing outer ones."""
    chain = execution_chain(session, execution_id)
    rank = {scope: i for i, scope in enumerate(chain)}
    variables = session.state.variables
    index = variable_index(session.state)
    # The variables of the chain's scopes only, in the order of the whole dict: the result's
    # order (a script's namespace, an external task's variables) is the dict's, as before.
    in_scope = index.of_executions(chain)
    best: dict[str, tuple[int, Variable]] = {}
    for var in (variables[vid] for vid in in_scope):
        if var.task_id is not None:
            continue
        r = rank[var.execution_id]
        if var.name not in best or r < best[var.name][0]:
            best[var.name] = (r, var)
    return {name: from_stored(v.value) for name, (_r, v) in best.items()}


def _write(
    session: InstanceSession,
    existing: Variable | None,
    execution_id: str,
    name: str,
    value: Any,
    task_id: str | None = None,
) -> None:
    ctx = session.ctx
    session.emit(
        ev.VariableSet(
            variable_id=existing.id if existing else ctx.new_id(),
            name=name,
            execution_id=existing.execution_id if existing else execution_id,
            task_id=existing.task_id if existing else task_id,
            value=to_stored(name, value),
            time=ctx.now,
            detail_id=ctx.new_id(),
        )
    )


def set_variable(session: InstanceSession, execution_id: str, name: str, value: Any) -> None:
    """Camunda's setVariable: update the innermost scope that has the name, else the root scope."""
    existing = lookup(session, execution_id, name)
    _write(session, existing, session.state.id, name, value)


def set_variable_local(session: InstanceSession, execution_id: str, name: str, value: Any) -> None:
    _write(session, find_local(session, execution_id, name), execution_id, name, value)


def set_task_variable_local(session: InstanceSession, task_id: str, name: str, value: Any) -> None:
    task = session.state.tasks[task_id]
    existing = find_task_local(session, task_id, name)
    _write(session, existing, task.execution_id, name, value, task_id=task_id)


def remove_variable(session: InstanceSession, execution_id: str, name: str, *, local: bool) -> bool:
    var = find_local(session, execution_id, name) if local else lookup(session, execution_id, name)
    if var is None:
        return False
    session.emit(ev.VariableDeleted(variable_id=var.id, time=session.ctx.now))
    return True


class ExecutionFacade:
    """The `execution` of Camunda's DelegateExecution, for expressions and Python delegates.

    Java-style names (getVariable) serve JUEL models; snake_case names serve Python code.
    """

    def __init__(
        self,
        session: InstanceSession,
        execution_id: str,
        event_name: str | None = None,
        activity_id: str | None = None,
    ) -> None:
        self._session = session
        self._execution_id = execution_id
        # a listener's view: the event it listens to, and the activity it sees the execution at
        self._event_name = event_name
        self._activity_id = activity_id

    # identity
    @property
    def id(self) -> str:
        return self._execution_id

    @property
    def processInstanceId(self) -> str:
        return self._session.state.id

    @property
    def processDefinitionId(self) -> str:
        return self._session.state.definition_id

    @property
    def processBusinessKey(self) -> str | None:
        return self._session.state.business_key

    @property
    def businessKey(self) -> str | None:
        return self._session.state.business_key

    @property
    def activityId(self) -> str | None:
        if self._activity_id is not None:
            return self._activity_id
        execution = self._session.state.executions.get(self._execution_id)
        return execution.activity_id if execution else None

    @property
    def eventName(self) -> str | None:
        """The event a listener was called for (start, end, take), else None."""
        return self._event_name

    @property
    def currentActivityId(self) -> str | None:
        return self.activityId

    @property
    def currentActivityName(self) -> str | None:
        activity_id = self.activityId
        if activity_id is None:
            return None
        return self._session.model.activities[activity_id].name

    @property
    def activityInstanceId(self) -> str | None:
        execution = self._session.state.executions.get(self._execution_id)
        return execution.activity_instance_id if execution else None

    process_instance_id = processInstanceId
    process_definition_id = processDefinitionId
    business_key = businessKey
    activity_id = activityId
    event_name = eventName

    # variables
    def getVariable(self, name: str) -> Any:
        var = lookup(self._session, self._execution_id, name)
        return None if var is None else from_stored(var.value)

    def getVariableLocal(self, name: str) -> Any:
        var = find_local(self._session, self._execution_id, name)
        return None if var is None else from_stored(var.value)

    def getVariables(self) -> dict[str, Any]:
        return visible_variables(self._session, self._execution_id)

    def hasVariable(self, name: str) -> bool:
        return lookup(self._session, self._execution_id, name) is not None

    def setVariable(self, name: str, value: Any) -> None:
        set_variable(self._session, self._execution_id, name, value)

    def setVariableLocal(self, name: str, value: Any) -> None:
        set_variable_local(self._session, self._execution_id, name, value)

    def removeVariable(self, name: str) -> None:
        remove_variable(self._session, self._execution_id, name, local=False)

    get_variable = getVariable
    get_variable_local = getVariableLocal
    get_variables = getVariables
    has_variable = hasVariable
    set_variable = setVariable
    set_variable_local = setVariableLocal
    remove_variable = removeVariable

    def __repr__(self) -> str:
        return f"Execution({self._execution_id})"


class TaskFacade(ExecutionFacade):
    """The `task` of Camunda's DelegateTask, for task listeners: the task's attributes beside
    the variables of its execution (local ones: the task's own)."""

    def __init__(
        self, session: InstanceSession, task_id: str, event_name: str | None = None
    ) -> None:
        super().__init__(session, session.state.tasks[task_id].execution_id, event_name)
        self._task_id = task_id

    @property
    def id(self) -> str:
        return self._task_id

    @property
    def name(self) -> str | None:
        return self._session.state.tasks[self._task_id].name

    @property
    def assignee(self) -> str | None:
        return self._session.state.tasks[self._task_id].assignee

    @property
    def taskDefinitionKey(self) -> str:
        return self._session.state.tasks[self._task_id].task_definition_key

    @property
    def executionId(self) -> str:
        return self._execution_id

    @property
    def execution(self) -> ExecutionFacade:
        return ExecutionFacade(self._session, self._execution_id)

    def getVariableLocal(self, name: str) -> Any:
        var = find_task_local(self._session, self._task_id, name)
        return None if var is None else from_stored(var.value)

    def setVariableLocal(self, name: str, value: Any) -> None:
        set_task_variable_local(self._session, self._task_id, name, value)

    def getAssignee(self) -> str | None:
        return self.assignee

    def getName(self) -> str | None:
        return self.name

    task_definition_key = taskDefinitionKey
    execution_id = executionId
    get_variable_local = getVariableLocal
    set_variable_local = setVariableLocal

    def __repr__(self) -> str:
        return f"Task({self._task_id})"


class ScopeResolver(EvaluationContext):
    """Name resolution for expressions: `execution`, then variables, then registered beans."""

    def __init__(
        self,
        session: InstanceSession,
        execution_id: str,
        task_id: str | None = None,
        execution: ExecutionFacade | None = None,
        extra: Mapping[str, Any] | None = None,
    ):
        self.session = session
        self.execution_id = execution_id
        self.task_id = task_id
        self.execution = execution
        self.extra = extra

    def resolve(self, name: str) -> object:
        if self.extra is not None and name in self.extra:
            return self.extra[name]
        if name == "execution":
            return self.execution or ExecutionFacade(self.session, self.execution_id)
        if name == "task" and self.task_id is not None:
            return TaskFacade(self.session, self.task_id)
        if self.task_id is not None:
            var = find_task_local(self.session, self.task_id, name)
            if var is not None:
                return from_stored(var.value)
        var = lookup(self.session, self.execution_id, name)
        if var is not None:
            return from_stored(var.value)
        delegates = self.session.ctx.delegates
        if name in delegates:
            return delegates[name]
        raise UnknownIdentifier(name)

    def call_function(self, name: str, args: list[object]) -> object:
        if name in ("now", "dateTime") and not args:
            return self.session.ctx.now
        raise ExpressionEvaluationError(f"Unknown function '{name}' in expression")


def evaluate(
    session: InstanceSession,
    expression: Expression,
    execution_id: str,
    *,
    element_id: str,
    what: str,
    task_id: str | None = None,
    execution: ExecutionFacade | None = None,
    extra: Mapping[str, Any] | None = None,
) -> object:
    """Evaluate a model expression; failures become ProcessEngineErrors naming the element.
    `execution`: what `${execution}` is (a listener's view of it), else the execution's;
    `extra`: names that come before the variables (a connector's response).

    Its time is spent from the command's budget (core/budget.py)."""
    budget = current_budget()
    if budget is None:
        return _evaluate(
            session, expression, execution_id, element_id, what, task_id, execution, extra
        )
    budget.enter()
    try:
        value = _evaluate(
            session, expression, execution_id, element_id, what, task_id, execution, extra
        )
    except BaseException:
        budget.leave(check=False)
        raise
    budget.leave(f"{what} of '{element_id}' ({expression.source})")
    return value


def _evaluate(
    session: InstanceSession,
    expression: Expression,
    execution_id: str,
    element_id: str,
    what: str,
    task_id: str | None,
    execution: ExecutionFacade | None,
    extra: Mapping[str, Any] | None,
) -> object:
    try:
        resolver = ScopeResolver(session, execution_id, task_id, execution, extra)
        return expression.evaluate(resolver)
    except ExpressionEvaluationError as exc:
        raise ProcessEngineError(
            f"Cannot evaluate {what} of '{element_id}' ({expression.source}): {exc}"
        ) from exc
    except BudgetExceeded as exc:
        if f"'{element_id}'" in exc.what:
            raise
        raise BudgetExceeded(f"{what} of '{element_id}': {exc.what}", exc.limit) from None
    except (BpmnError, FlowledgerError):
        raise  # a bean threw a BPMN error, or the engine refused something the bean asked for
    except Exception as exc:
        raise ProcessEngineError(
            f"Evaluating {what} of '{element_id}' ({expression.source}) failed: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
