"""The immutable, parsed form of a BPMN process: activities, sequence flows and their settings.

Pure: built once at deploy by `core.parser`, shared read-only by every instance of the definition.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import CodeType

from . import element_kinds as kinds
from .errors import ModelProblem
from .expressions import Expression
from .forms import FormDefinition
from .personal_data import PersonalData
from .timers import TimerDefinition


@dataclass(frozen=True, slots=True)
class Listener:
    """An execution listener (start, end, take) or task listener (create, assignment, complete,
    delete): what it runs, `kind` expression, delegateExpression, class (a registered delegate)
    or script (JUEL as an expression, or Python)."""

    event: str
    kind: str
    expression: Expression | None = None
    class_name: str | None = None
    code: CodeType | None = None
    result_code: CodeType | None = None
    # a `timeout` task listener: its id (named by its timer job) and the timer that fires it
    id: str | None = None
    timer: TimerEventDefinition | None = None


@dataclass(frozen=True, slots=True)
class SequenceFlow:
    id: str
    source: str
    target: str
    condition: Expression | None = None
    name: str | None = None
    line: int | None = None
    listeners: tuple[Listener, ...] = ()  # take


@dataclass(frozen=True, slots=True)
class UserTaskSpec:
    name: Expression | None = None  # only when the name holds ${...}
    assignee: Expression | None = None
    candidate_users: tuple[Expression, ...] = ()
    candidate_groups: tuple[Expression, ...] = ()
    due_date: Expression | None = None
    follow_up_date: Expression | None = None
    priority: Expression | None = None
    form_key: Expression | None = None
    description: Expression | None = None
    task_listeners: tuple[Listener, ...] = ()
    form: FormDefinition | None = None  # camunda:formData

    @property
    def timeout_listeners(self) -> tuple[Listener, ...]:
        """The `timeout` task listeners: each has a timer of its own while the task is open."""
        return tuple(listener for listener in self.task_listeners if listener.timer is not None)


@dataclass(frozen=True, slots=True)
class ConnectorSpec:
    """`camunda:connector`: the connector (only `http-connector` runs) and its own mappings: the
    request from its inputs (url, method, headers, payload), its outputs from the response
    (`response`, `statusCode`, `headers`)."""

    connector_id: str
    inputs: tuple[Parameter, ...] = ()
    outputs: tuple[Parameter, ...] = ()


@dataclass(frozen=True, slots=True)
class ServiceTaskSpec:
    """How a service-like task (service, send, business rule) does its work."""

    implementation: str  # external | delegateExpression | expression | class | connector
    expression: Expression | None = None
    class_name: str | None = None
    topic: Expression | None = None
    task_priority: Expression | None = None
    result_variable: str | None = None
    connector: ConnectorSpec | None = None


# camunda:mapDecisionResult: how a decision's result becomes the result variable's value
MAP_DECISION_RESULTS = ("singleEntry", "singleResult", "collectEntries", "resultList")


@dataclass(frozen=True, slots=True)
class DecisionTaskSpec:
    """A business rule task that evaluates a deployed decision (`camunda:decisionRef`, possibly
    an expression) found by its binding, its result mapped as `map_decision_result` says into
    `result_variable` (no variable when None)."""

    decision_ref: Expression
    binding: str = "latest"  # latest | deployment | version | versionTag
    version: Expression | None = None
    version_tag: Expression | None = None
    result_variable: str | None = None
    map_decision_result: str = "resultList"
    # camunda:decisionRefTenantId: the tenant whose decision to evaluate. flowledger deploys
    # every decision without a tenant, so only a null or empty value finds one.
    tenant_id: Expression | None = None


@dataclass(frozen=True, slots=True)
class ScriptTaskSpec:
    script_format: str  # juel | python
    expression: Expression | None = None  # juel
    code: CodeType | None = None  # python statements
    result_code: CodeType | None = None  # python: value of a trailing expression statement
    result_variable: str | None = None


# -- event definitions: what an event is about, apart from the kind of event that carries it --


@dataclass(frozen=True, slots=True)
class ErrorEventDefinition:
    """A BPMN error: the one an error end event throws, or what an error boundary event catches
    (`error_code` None: any error). The variables name where a catch stores code and message."""

    error_code: str | None = None
    error_message: str | None = None
    code_variable: str | None = None
    message_variable: str | None = None


@dataclass(frozen=True, slots=True)
class TerminateEventDefinition:
    """Reaching the event ends its whole scope at once, cancelling every other token in it."""


@dataclass(frozen=True, slots=True)
class TimerEventDefinition:
    """When a timer event fires: `kind` is timeDate, timeDuration or timeCycle. A literal value
    is parsed at deployment (`timer`, or `invalid` when it does not parse); an expression
    (`expression`) when the timer starts."""

    kind: str
    text: str
    timer: TimerDefinition | None = None
    expression: Expression | None = None
    # Why the literal is no timer value: Camunda deploys it and fails when the timer is
    # created (a process's timer start event, created at deployment, is refused there).
    invalid: str | None = None


@dataclass(frozen=True, slots=True)
class MessageEventDefinition:
    """The message a catch event waits for (or a throw event sends): its name, or an
    expression for it (`name_expression`, read when the event subscribes)."""

    name: str
    name_expression: Expression | None = None


@dataclass(frozen=True, slots=True)
class SignalEventDefinition:
    """The signal a catch event waits for or a throw event broadcasts: its name, or an
    expression for it (`name_expression`, read when the event subscribes or throws)."""

    name: str
    name_expression: Expression | None = None
    # camunda:async on a throwing definition: intermediate catch events receive in a job
    asynchronous: bool = False


@dataclass(frozen=True, slots=True)
class ConditionalEventDefinition:
    """A conditional event's condition (`${...}`), and which variable changes re-evaluate it:
    camunda:variableName (None: any) and camunda:variableEvents (empty: create, update and
    delete alike)."""

    condition: Expression
    variable_name: str | None = None
    variable_events: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EscalationEventDefinition:
    """An escalation: the code a throw or end event raises, or the code a boundary event or
    an event subprocess's start event catches (`escalation_code` None: any escalation);
    `code_variable` (camunda:escalationCodeVariable) names where a catch stores the code."""

    escalation_code: str | None = None
    code_variable: str | None = None


@dataclass(frozen=True, slots=True)
class LinkEventDefinition:
    """A link catch event: link throw events of the same `name` continue here."""

    name: str


@dataclass(frozen=True, slots=True)
class CompensateEventDefinition:
    """A compensation throw (intermediate or end) compensates the completed activities of its
    scope, or only `activity_ref`; Camunda always waits for the handlers (`wait_for_completion`
    false is read, warned about by Camunda, and waits all the same). On a boundary event or an
    event subprocess's start event it marks the compensation handler."""

    activity_ref: str | None = None
    wait_for_completion: bool = True


@dataclass(frozen=True, slots=True)
class CancelEventDefinition:
    """A cancel end event (inside a transaction) or the transaction's cancel boundary event."""


EventDefinition = (
    ErrorEventDefinition
    | CompensateEventDefinition
    | CancelEventDefinition
    | TerminateEventDefinition
    | TimerEventDefinition
    | MessageEventDefinition
    | SignalEventDefinition
    | ConditionalEventDefinition
    | EscalationEventDefinition
    | LinkEventDefinition
)


@dataclass(frozen=True, slots=True)
class EventSpec:
    """What any event (start, end, intermediate, boundary) carries: its definition, if any.

    The event kind is the activity type; `attached_to` and `cancel_activity` concern boundary
    events only (the activity they sit on, and whether firing interrupts it)."""

    definition: EventDefinition | None = None
    attached_to: str | None = None
    cancel_activity: bool = True
    initiator: str | None = None  # a start event's camunda:initiator: the variable for who started
    form: FormDefinition | None = None  # a start event's camunda:formKey and camunda:formData


@dataclass(frozen=True, slots=True)
class SubprocessSpec:
    """An embedded subprocess; `triggered_by_event`: an event subprocess, started by its start
    event's message, signal, timer or error while its enclosing scope runs."""

    triggered_by_event: bool = False


@dataclass(frozen=True, slots=True)
class VariableMapping:
    """A `camunda:in` or `camunda:out` of a call activity: one variable (`source` or
    `source_expression` to `target`), every variable (`all`), or (in only) the called instance's
    business key (`business_key`); `local`: the call activity's local variables only (in), or
    set locally on it (out)."""

    source: str | None = None
    source_expression: Expression | None = None
    target: str | None = None
    all: bool = False
    local: bool = False
    business_key: Expression | None = None


@dataclass(frozen=True, slots=True)
class CallActivitySpec:
    """What a call activity starts: the latest (or the caller's deployment's, a version's, a
    version tag's) definition of `called_element`, each possibly an expression."""

    called_element: Expression
    binding: str = "latest"  # latest | deployment | version | versionTag
    version: Expression | None = None
    version_tag: Expression | None = None
    inputs: tuple[VariableMapping, ...] = ()
    outputs: tuple[VariableMapping, ...] = ()
    # a delegate variable mapping (core.behaviors.variable_mappings): a registered name, or an
    # expression giving the delegate
    variable_mapping_class: str | None = None
    variable_mapping_expression: Expression | None = None


@dataclass(frozen=True, slots=True)
class MultiInstanceSpec:
    """The body of a multi-instance activity (`X#multiInstanceBody`): it runs its `inner`
    activity once per item of `collection` (or `cardinality` times), in parallel or one after
    the other, until all ran or `completion_condition` holds."""

    inner: str
    sequential: bool = False
    cardinality: Expression | None = None
    collection: Expression | None = None
    element_variable: str | None = None
    completion_condition: Expression | None = None


@dataclass(frozen=True, slots=True)
class ReceiveTaskSpec:
    """A receive task waits for `message` (its messageRef), or with none for a trigger."""

    message: MessageEventDefinition | None = None


Spec = (
    UserTaskSpec
    | ServiceTaskSpec
    | ScriptTaskSpec
    | EventSpec
    | ReceiveTaskSpec
    | SubprocessSpec
    | CallActivitySpec
    | DecisionTaskSpec
    | MultiInstanceSpec
    | None
)


@dataclass(frozen=True, slots=True)
class MappedValue:
    """A value of an input/output parameter: `kind` text (a constant), expression, list, map,
    script (JUEL as an expression, or Python statements with a trailing expression) or null."""

    kind: str
    text: str | None = None
    expression: Expression | None = None
    items: tuple[MappedValue, ...] = ()
    entries: tuple[tuple[str, MappedValue], ...] = ()
    code: CodeType | None = None
    result_code: CodeType | None = None


@dataclass(frozen=True, slots=True)
class Parameter:
    name: str
    value: MappedValue


@dataclass(frozen=True, slots=True)
class InputOutput:
    """`camunda:inputOutput`: inputs become local variables of the activity when it starts,
    outputs are set from its scope onto the enclosing one when it completes."""

    inputs: tuple[Parameter, ...] = ()
    outputs: tuple[Parameter, ...] = ()


@dataclass(frozen=True, slots=True)
class JobSettings:
    """How the jobs of an activity run: `camunda:exclusive`, `camunda:jobPriority` and
    `camunda:failedJobRetryTimeCycle` (a text or an expression, read when a job fails)."""

    exclusive: bool = True
    priority: Expression | None = None
    retry_cycle: str | None = None
    retry_cycle_expression: Expression | None = None


DEFAULT_JOB_SETTINGS = JobSettings()


@dataclass(frozen=True, slots=True)
class Activity:
    """A flow node. `type` is Camunda's activity type name (ACT_HI_ACTINST.ACT_TYPE_)."""

    id: str
    type: str
    name: str | None
    scope_id: str  # the flow scope: the process id or the enclosing subprocess id
    incoming: tuple[str, ...] = ()
    outgoing: tuple[str, ...] = ()
    default_flow: str | None = None
    is_scope: bool = False  # gets its own execution: subprocesses, activities with boundary events
    boundary_events: tuple[str, ...] = ()
    line: int | None = None
    spec: Spec = None
    # camunda:asyncBefore (or camunda:async) / camunda:asyncAfter: a job continues the flow
    async_before: bool = False
    async_after: bool = False
    jobs: JobSettings = DEFAULT_JOB_SETTINGS
    io: InputOutput | None = None  # camunda:inputOutput (the activity is then a scope)
    listeners: tuple[Listener, ...] = ()  # execution listeners: start, end
    # isForCompensation="true" (or a compensation event subprocess): runs only when compensated
    for_compensation: bool = False
    # What compensates it once completed: the activity its compensation boundary event is
    # associated with, or its compensation event subprocess (Camunda's compensationHandler).
    compensation_handler: str | None = None


@dataclass(frozen=True)
class ProcessModel:
    id: str
    name: str | None
    activities: Mapping[str, Activity]
    flows: Mapping[str, SequenceFlow]
    # flow scope id -> where its instances start: its none start event (or a process's one
    # timer start event)
    start_events: Mapping[str, str]
    # message name -> the message start event of the process waiting for it
    message_starts: Mapping[str, str] = field(default_factory=dict)
    # signal name -> the signal start event of the process waiting for it
    signal_starts: Mapping[str, str] = field(default_factory=dict)
    version_tag: str | None = None
    history_ttl: int | None = None
    startable: bool = True
    category: str | None = None
    job_priority: Expression | None = None  # camunda:jobPriority of the process
    listeners: tuple[Listener, ...] = ()  # the process's execution listeners: start, end
    # Its personal variables and their subject (camunda:property personalData), None: none.
    personal_data: PersonalData | None = None
    _reach: dict[tuple[str, str], bool] = field(default_factory=dict, compare=False, repr=False)
    _esps: dict[str, list[Activity]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def start_timer(self) -> Activity | None:
        """The process's timer start event, if it starts on a timer."""
        start = self.activities.get(self.start_events.get(self.id, ""))
        return start if start is not None and start.type == kinds.START_TIMER_EVENT.type else None

    def activity(self, activity_id: str) -> Activity:
        return self.activities[activity_id]

    def event_subprocesses(self, scope_id: str) -> list[Activity]:
        """The event subprocesses directly in the scope (the process or a subprocess); found
        once per model and scope: every instance start and subprocess entry asks."""
        found = self._esps.get(scope_id)
        if found is None:
            found = self._esps[scope_id] = [
                a
                for a in self.activities.values()
                if a.scope_id == scope_id
                and isinstance(a.spec, SubprocessSpec)
                and a.spec.triggered_by_event
            ]
        return found

    def is_event_subprocess(self, activity_id: str) -> bool:
        spec = self.activities[activity_id].spec if activity_id in self.activities else None
        return isinstance(spec, SubprocessSpec) and spec.triggered_by_event

    def outgoing(self, activity: Activity) -> list[SequenceFlow]:
        return [self.flows[f] for f in activity.outgoing]

    def can_reach(self, source: str, target: str) -> bool:
        """Whether a token at `source` may still arrive at `target` (leaving scopes at their ends).

        Used by the inclusive gateway join; computed iteratively and cached per model.
        """
        key = (source, target)
        cached = self._reach.get(key)
        if cached is not None:
            return cached
        seen: set[str] = set()
        stack = [source]
        found = False
        while stack:
            current = stack.pop()
            if current == target:
                found = True
                break
            if current in seen:
                continue
            seen.add(current)
            activity = self.activities.get(current)
            if activity is None:
                continue
            if activity.outgoing:
                stack.extend(self.flows[f].target for f in activity.outgoing)
            elif activity.scope_id in self.activities:
                stack.append(activity.scope_id)
        self._reach[key] = found
        return found


@dataclass(frozen=True)
class ParsedResource:
    name: str
    processes: tuple[ProcessModel, ...]
    # ids of the processes that are not executable (no isExecutable="true"): not deployed
    not_executable: tuple[str, ...] = ()
    # what deploys but fails when it runs (ParseContext.warnings)
    warnings: tuple[ModelProblem, ...] = ()
