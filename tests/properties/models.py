"""Hypothesis strategies for block-structured, always-deployable Camunda BPMN models (as XML text).

A model is a small tree of blocks (tasks, gateways, subprocesses) rendered to BPMN with unique ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from hypothesis import strategies as st

# The variables the generated models read; start every instance with all of them.
MODEL_VARIABLES = ("x", "n")
ERROR_CODE = "E1"  # the code of the one <bpmn:error> every model declares (id "err1")
TOPIC = "t1"
MESSAGES = ("m1", "m2")  # the <bpmn:message> names every model declares (ids msg_m1, msg_m2)
SIGNALS = ("s1", "s2")  # the <bpmn:signal> names every model declares (ids sig_s1, sig_s2)
ESCALATION_CODE = "ESC1"  # the code of the one <bpmn:escalation> every model declares (id esc1)
MAX_ACTIVITIES = 15

# -- the model tree ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Handler:
    """An error boundary event and the path it takes until it rejoins the main flow."""

    error_ref: bool  # True: catches ERROR_CODE only; False: catches every error
    body: Block


@dataclass(frozen=True)
class Timer:
    """A timer boundary event: interrupting ones merge back like an error handler; a
    non-interrupting cycle (`R<count>/PT<minutes>M`) leads each firing to an end of its own."""

    minutes: int
    interrupting: bool
    count: int
    body: Block


@dataclass(frozen=True)
class MessageBoundary:
    """A message boundary event: interrupting ones merge back like an error handler; a
    non-interrupting one leads each message to an end of its own while the task waits on."""

    message: str
    interrupting: bool
    body: Block


@dataclass(frozen=True)
class ConditionalBoundary:
    """A conditional boundary event `${x > threshold}` (camunda:variableName x, so that only a
    change of x re-evaluates it and a path setting n cannot loop): interrupting ones merge back
    like an error handler; a non-interrupting one leads each firing to an end of its own."""

    threshold: int
    interrupting: bool
    body: Block


@dataclass(frozen=True)
class Looped:
    """A multi-instance user task: `count` instances, in parallel or one after the other."""

    count: int
    sequential: bool


@dataclass(frozen=True)
class UserTask:
    name: str | None = None
    assignee: str | None = None
    candidate_groups: str | None = None
    timer: Timer | None = None
    message: MessageBoundary | None = None
    conditional: ConditionalBoundary | None = None
    looped: Looped | None = None
    mapped: bool = False  # an input mapping and start/end execution listeners
    # A compensation boundary event whose handler is a "user" task or a "service" task.
    compensation: str | None = None


@dataclass(frozen=True)
class CompensateThrow:
    """An intermediate compensation throw: compensates what completed in its scope."""


@dataclass(frozen=True)
class MessageCatch:
    """An intermediate catch event waiting for one of MESSAGES (or, `signal`, of SIGNALS)."""

    message: str
    signal: bool = False


@dataclass(frozen=True)
class ConditionalCatch:
    """An intermediate conditional event `${x > threshold}` (variableName x): passes when it
    holds on arrival, else waits until a change of x makes it true."""

    threshold: int


@dataclass(frozen=True)
class Race:
    """An event-based gateway: the first of a message (one of MESSAGES) and a timer."""

    message: str
    minutes: int


@dataclass(frozen=True)
class SignalThrow:
    """An intermediate throw event broadcasting one of SIGNALS to every instance waiting."""

    signal: str


@dataclass(frozen=True)
class TimerCatch:
    """An intermediate timer catch event waiting `minutes`."""

    minutes: int


@dataclass(frozen=True)
class Link:
    """A link throw event and the link catch event of its name: the flow goes on at the catch."""


@dataclass(frozen=True)
class Escalate:
    """An intermediate throw event raising ESCALATION_CODE: caught by an escalation boundary
    event of an enclosing subprocess, or by nothing (the token goes on either way unless the
    catch interrupts)."""


@dataclass(frozen=True)
class EscalationBoundary:
    """An escalation boundary event on a subprocess (`coded`: for ESCALATION_CODE only, else
    for every escalation): interrupting ones merge back, non-interrupting ones lead each catch
    to an end of their own while the subprocess goes on."""

    coded: bool
    interrupting: bool
    body: Block


@dataclass(frozen=True)
class ExternalTask:
    boundary: Handler | None = None


@dataclass(frozen=True)
class ReceiveTask:
    message: str | None = None  # its messageRef's name; None: it waits for a trigger


@dataclass(frozen=True)
class ServiceTask:
    """`${execution.setVariable('n', n + 1)}`-style expression."""

    expression: str
    asynchronous: str = ""  # "", "before", "after" or "both": which continuations are jobs


@dataclass(frozen=True)
class ScriptTask:
    """A `juel` script task storing its value in `camunda:resultVariable`."""

    script: str
    result_variable: str
    asynchronous: str = ""


@dataclass(frozen=True)
class Exclusive:
    """XOR split on `${x > k}` conditions with a default branch, XOR join."""

    branches: tuple[tuple[int, Block], ...]
    default: Block


@dataclass(frozen=True)
class Parallel:
    branches: tuple[Block, ...]


@dataclass(frozen=True)
class Inclusive:
    """OR split: conditional branches (threshold) and unconditional ones (None); OR join.

    `default` is always set when every branch is conditional, so some flow is always taken.
    """

    branches: tuple[tuple[int | None, Block], ...]
    default: Block | None


@dataclass(frozen=True)
class SubProcess:
    body: Block
    error_end: bool = False  # the body ends in an error end event instead of a none end event
    boundary: Handler | None = None
    escalation: EscalationBoundary | None = None  # only where `boundary` is None


@dataclass(frozen=True)
class Escape:
    """A conditional way out of the enclosing scope: `${x > k}` leads to `body` and then an error
    end event (kind "error", only inside a subprocess) or a terminate end event (kind "terminate");
    otherwise the token goes on."""

    kind: str
    threshold: int
    body: Block


Node = (
    UserTask
    | CompensateThrow
    | TimerCatch
    | Link
    | Escalate
    | MessageCatch
    | ConditionalCatch
    | SignalThrow
    | Race
    | ExternalTask
    | ReceiveTask
    | ServiceTask
    | ScriptTask
    | Exclusive
    | Parallel
    | Inclusive
    | SubProcess
    | Escape
)
Block = tuple[Node, ...]


@dataclass(frozen=True)
class EventSubprocess:
    """A process-level event subprocess started by one of MESSAGES (or, with a `condition`,
    by `${x > condition}` becoming true on a change of x), with one user task."""

    message: str
    interrupting: bool
    condition: int | None = None


@dataclass(frozen=True)
class Model:
    key: str
    body: Block
    name: str | None = None
    event_subprocess: EventSubprocess | None = None

    def to_xml(self) -> str:
        return _Renderer(self).render()


# -- strategies -------------------------------------------------------------------------------

_thresholds = st.integers(min_value=0, max_value=9)
_SERVICE_EXPRESSIONS = (
    "${execution.setVariable('n', n + 1)}",
    "${execution.setVariable('x', x - 1)}",
    "${execution.setVariable('n', n + x)}",
)
# (script, result variables it may be stored in): numbers may go to n, other values only to r.
_SCRIPTS = (
    ("${n * 2}", ("r", "n")),
    ("${x + n}", ("r", "n")),
    ("${x > 5}", ("r",)),
    ("n is ${n}", ("r",)),
)
_LEAVES = (
    "user",
    "service",
    "script",
    "external",
    "receive",
    "timer",
    "message",
    "signal",
    "race",
    "conditional",
    "link",
    "escalate",
    "compensate",
)
_ASYNC = ("", "", "before", "after", "both")  # no continuation job as often as one
_COMPOUNDS = ("exclusive", "parallel", "inclusive", "subprocess", "escape")


@dataclass
class _Budget:
    """Activities left to place (keeps models at most MAX_ACTIVITIES activities large)."""

    left: int

    def take(self, count: int) -> bool:
        if self.left < count:
            return False
        self.left -= count
        return True


@dataclass(frozen=True)
class _Where:
    """Where a block is generated: nesting depth, whether a subprocess encloses it and whether
    an error thrown there is caught by a boundary event of an enclosing subprocess."""

    depth: int = 0
    in_sub: bool = False
    caught: bool = False

    def deeper(self, **changes: bool) -> _Where:
        return _Where(
            self.depth + 1, changes.get("in_sub", self.in_sub), changes.get("caught", self.caught)
        )


@st.composite
def _handler(draw: st.DrawFn, budget: _Budget, where: _Where) -> Handler:
    return Handler(
        error_ref=draw(st.booleans()),
        body=draw(_block(budget, where.deeper(), min_size=0, max_size=2)),
    )


@st.composite
def _node(draw: st.DrawFn, budget: _Budget, where: _Where) -> Node | None:
    kinds = list(_LEAVES)
    if where.depth < 3:
        kinds += [*_COMPOUNDS, "subprocess", "subprocess"]  # scopes and errors need more room
    kind = draw(st.sampled_from(kinds))
    if kind == "user":
        if not budget.take(1):
            return None
        timer = None
        if draw(st.integers(0, 3)) == 0 and budget.take(2):  # boundary event + merge or end
            timer = Timer(
                minutes=draw(st.sampled_from((1, 30, 60))),
                interrupting=draw(st.booleans()),
                count=draw(st.integers(1, 3)),
                body=draw(_block(budget, where.deeper(), min_size=0, max_size=1)),
            )
        message = None
        if timer is None and draw(st.integers(0, 3)) == 0 and budget.take(2):
            message = MessageBoundary(
                message=draw(st.sampled_from(MESSAGES)),
                interrupting=draw(st.booleans()),
                body=draw(_block(budget, where.deeper(), min_size=0, max_size=1)),
            )
        conditional = None
        if timer is None and message is None and draw(st.integers(0, 3)) == 0 and budget.take(2):
            conditional = ConditionalBoundary(
                threshold=draw(_thresholds),
                interrupting=draw(st.booleans()),
                body=draw(_block(budget, where.deeper(), min_size=0, max_size=1)),
            )
        looped = None
        if draw(st.integers(0, 4)) == 0:
            looped = Looped(count=draw(st.integers(0, 3)), sequential=draw(st.booleans()))
        compensation = draw(st.sampled_from((None, None, "user", "service")))
        if compensation is not None and not budget.take(2):  # its boundary event and handler
            compensation = None
        return UserTask(
            name=draw(st.sampled_from((None, "Review", "Approve ${x}"))),
            assignee=draw(st.sampled_from((None, "alice", "${'bob'}"))),
            candidate_groups=draw(st.sampled_from((None, "sales", "sales,ops"))),
            timer=timer,
            message=message,
            conditional=conditional,
            looped=looped,
            mapped=draw(st.integers(0, 3)) == 0,
            compensation=compensation,
        )
    if kind == "conditional":
        return ConditionalCatch(draw(_thresholds)) if budget.take(1) else None
    if kind == "link":
        return Link() if budget.take(1) else None  # the catch (the throw is no activity)
    if kind == "escalate":
        return Escalate() if budget.take(1) else None
    if kind == "compensate":
        return CompensateThrow() if budget.take(1) else None
    if kind == "message":
        return MessageCatch(draw(st.sampled_from(MESSAGES))) if budget.take(1) else None
    if kind == "race":
        if not budget.take(4):  # the gateway, its two catch events, the merge
            return None
        return Race(draw(st.sampled_from(MESSAGES)), draw(st.sampled_from((1, 30, 60))))
    if kind == "signal":
        if not budget.take(1):
            return None
        name = draw(st.sampled_from(SIGNALS))
        return SignalThrow(name) if draw(st.booleans()) else MessageCatch(name, signal=True)
    if kind == "timer":
        return TimerCatch(draw(st.sampled_from((1, 30, 60)))) if budget.take(1) else None
    if kind == "service":
        if not budget.take(1):
            return None
        return ServiceTask(
            draw(st.sampled_from(_SERVICE_EXPRESSIONS)), draw(st.sampled_from(_ASYNC))
        )
    if kind == "script":
        if not budget.take(1):
            return None
        script, targets = draw(st.sampled_from(_SCRIPTS))
        return ScriptTask(script, draw(st.sampled_from(targets)), draw(st.sampled_from(_ASYNC)))
    if kind == "receive":
        if not budget.take(1):
            return None
        return ReceiveTask(draw(st.sampled_from((None, *MESSAGES))))
    if kind == "external":
        if not budget.take(1):
            return None
        boundary = None
        if draw(st.booleans()) and budget.take(2):  # boundary event + merge gateway
            boundary = draw(_handler(budget, where))
        return ExternalTask(boundary)
    if kind == "exclusive":
        if not budget.take(2):  # split and join gateways
            return None
        count = draw(st.integers(min_value=1, max_value=3))
        return Exclusive(
            branches=tuple(
                (draw(_thresholds), draw(_block(budget, where.deeper(), min_size=0)))
                for _ in range(count)
            ),
            default=draw(_block(budget, where.deeper(), min_size=0)),
        )
    if kind == "inclusive":
        if not budget.take(2):
            return None
        branches: list[tuple[int | None, Block]] = []
        for _ in range(draw(st.integers(min_value=1, max_value=3))):
            unconditional = draw(st.integers(0, 3)) == 0
            threshold = None if unconditional else draw(_thresholds)
            branches.append((threshold, draw(_block(budget, where.deeper(), min_size=0))))
        default = None
        if all(t is not None for t, _b in branches) or draw(st.booleans()):
            default = draw(_block(budget, where.deeper(), min_size=0))
        return Inclusive(tuple(branches), default)
    if kind == "parallel":
        if not budget.take(2):
            return None
        count = draw(st.integers(min_value=2, max_value=3))
        return Parallel(
            tuple(draw(_block(budget, where.deeper(), min_size=0)) for _ in range(count))
        )
    if kind == "subprocess":
        if not budget.take(1):
            return None
        has_boundary = draw(st.integers(0, 2)) > 0 and budget.take(2)  # boundary event + merge
        caught = where.caught or has_boundary
        body = draw(_block(budget, where.deeper(in_sub=True, caught=caught), min_size=0))
        error_end = caught and draw(st.booleans())
        boundary = draw(_handler(budget, where)) if has_boundary else None
        escalation = None
        if boundary is None and draw(st.booleans()) and budget.take(2):  # boundary + merge/end
            escalation = EscalationBoundary(
                coded=draw(st.booleans()),
                interrupting=draw(st.booleans()),
                body=draw(_block(budget, where.deeper(), min_size=0, max_size=1)),
            )
        return SubProcess(body, error_end, boundary, escalation)
    # escape: an exclusive gateway, an end event, a merge gateway
    if not budget.take(3):
        return None
    return Escape(
        kind=draw(st.sampled_from(["terminate", "error"] if where.caught else ["terminate"])),
        threshold=draw(_thresholds),
        body=draw(_block(budget, where.deeper(), min_size=0, max_size=1)),
    )


@st.composite
def _block(
    draw: st.DrawFn, budget: _Budget, where: _Where, min_size: int = 1, max_size: int = 3
) -> Block:
    nodes: list[Node] = []
    for _ in range(draw(st.integers(min_value=min_size, max_value=max_size))):
        node = draw(_node(budget, where))
        if node is not None:
            nodes.append(node)
    return tuple(nodes)


@st.composite
def models(draw: st.DrawFn, key: str = "proc", max_activities: int = MAX_ACTIVITIES) -> Model:
    """A `Model` whose `to_xml()` always deploys; instances need the MODEL_VARIABLES."""
    body = draw(_block(_Budget(max_activities), _Where(), min_size=1, max_size=4))
    esp = None
    if draw(st.integers(0, 3)) == 0:
        condition = draw(_thresholds) if draw(st.booleans()) else None
        esp = EventSubprocess(draw(st.sampled_from(MESSAGES)), draw(st.booleans()), condition)
    name = draw(st.sampled_from((None, "Generated")))
    return Model(key=key, body=body, name=name, event_subprocess=esp)


def model_xml(key: str = "proc") -> st.SearchStrategy[str]:
    """BPMN XML text of a generated model with process id `key`."""
    return models(key).map(lambda m: m.to_xml())


def start_variables() -> st.SearchStrategy[dict[str, int]]:
    """Values for the variables every generated model may read."""
    return st.fixed_dictionaries(
        {name: st.integers(min_value=-2, max_value=12) for name in MODEL_VARIABLES}
    )


# -- rendering --------------------------------------------------------------------------------

_HEADER = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"'
    ' xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="Definitions_1"'
    ' targetNamespace="http://flowledger.test/properties">\n'
    f'  <bpmn:error id="err1" name="Generated error" errorCode="{ERROR_CODE}" />\n'
    f'  <bpmn:escalation id="esc1" escalationCode="{ESCALATION_CODE}" />\n'
    + "".join(f'  <bpmn:message id="msg_{m}" name="{m}" />\n' for m in MESSAGES)
    + "".join(f'  <bpmn:signal id="sig_{s}" name="{s}" />\n' for s in SIGNALS)
)


def _cond(threshold: int) -> str:
    return (
        '<bpmn:conditionExpression xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        f' xsi:type="bpmn:tFormalExpression">${{x &gt; {threshold}}}</bpmn:conditionExpression>'
    )


class _Scope:
    """The XML lines of one flow scope (the process or a subprocess)."""

    def __init__(self, renderer: _Renderer, indent: str) -> None:
        self.r = renderer
        self.indent = indent
        self.lines: list[str] = []

    def add(self, line: str) -> None:
        self.lines.append(self.indent + line)

    def flow(self, source: str, target: str, condition: int | None = None) -> str:
        flow_id = self.r.new_id("Flow")
        if condition is None:
            self.add(
                f'<bpmn:sequenceFlow id="{flow_id}" sourceRef="{source}" targetRef="{target}" />'
            )
        else:
            self.add(
                f'<bpmn:sequenceFlow id="{flow_id}" sourceRef="{source}" targetRef="{target}">'
                f"{_cond(condition)}</bpmn:sequenceFlow>"
            )
        return flow_id


class _Renderer:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.counter = 0

    def new_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}_{self.counter}"

    def render(self) -> str:
        scope = _Scope(self, "    ")
        start = self.new_id("Start")
        end = self.new_id("End")
        scope.add(f'<bpmn:startEvent id="{start}" />')
        self._chain(scope, start, self.model.body, end)
        scope.add(f'<bpmn:endEvent id="{end}" />')
        if self.model.event_subprocess is not None:
            self._event_subprocess(scope, self.model.event_subprocess)
        name = f" name={quoteattr(self.model.name)}" if self.model.name else ""
        return (
            _HEADER
            + f'  <bpmn:process id="{self.model.key}"{name} isExecutable="true">\n'
            + "\n".join(scope.lines)
            + "\n  </bpmn:process>\n</bpmn:definitions>\n"
        )

    def _chain(self, scope: _Scope, source: str, block: Block, target: str) -> None:
        """Connect `source` through the block's nodes to `target`."""
        current = source
        for node in block:
            entry, exit_ = self._node(scope, node)
            scope.flow(current, entry)
            current = exit_
        scope.flow(current, target)

    def _branch(
        self, scope: _Scope, split: str, block: Block, join: str, condition: int | None
    ) -> str:
        """A branch of a split gateway; returns the id of its first sequence flow."""
        if not block:
            return scope.flow(split, join, condition)
        first_entry, current = self._node(scope, block[0])
        flow_id = scope.flow(split, first_entry, condition)
        self._chain(scope, current, block[1:], join)
        return flow_id

    def _node(self, scope: _Scope, node: Node) -> tuple[str, str]:
        """Render one node; returns its (entry, exit) element ids."""
        if isinstance(node, UserTask):
            node_id = self.new_id("UserTask")
            attrs = ""
            if node.name:
                attrs += f" name={quoteattr(node.name)}"
            if node.assignee:
                attrs += f" camunda:assignee={quoteattr(node.assignee)}"
            if node.candidate_groups:
                attrs += f" camunda:candidateGroups={quoteattr(node.candidate_groups)}"
            loop = ""
            if node.looped is not None:
                sequential = "true" if node.looped.sequential else "false"
                loop = (
                    f'<bpmn:multiInstanceLoopCharacteristics isSequential="{sequential}">'
                    f"<bpmn:loopCardinality>{node.looped.count}</bpmn:loopCardinality>"
                    "</bpmn:multiInstanceLoopCharacteristics>"
                )
            extensions = ""
            if node.mapped:
                extensions = (
                    "<bpmn:extensionElements><camunda:inputOutput>"
                    '<camunda:inputParameter name="doubled">${x * 2}</camunda:inputParameter>'
                    "</camunda:inputOutput>"
                    '<camunda:executionListener event="start" '
                    "expression=\"${execution.setVariableLocal('seen', doubled)}\" />"
                    '<camunda:executionListener event="end" '
                    "expression=\"${execution.setVariable('n', n + 1)}\" />"
                    "</bpmn:extensionElements>"
                )
            scope.add(f'<bpmn:userTask id="{node_id}"{attrs}>{extensions}{loop}</bpmn:userTask>')
            if node.compensation is not None:
                self._compensation(scope, node_id, node.compensation)
            if node.message is not None:
                return node_id, self._message(scope, node_id, node.message)
            if node.conditional is not None:
                boundary = node.conditional
                return node_id, self._on_task(
                    scope,
                    node_id,
                    _conditional(boundary.threshold),
                    boundary.interrupting,
                    boundary.body,
                )
            if node.timer is None:
                return node_id, node_id
            return node_id, self._timer(scope, node_id, node.timer)
        if isinstance(node, CompensateThrow):
            node_id = self.new_id("Throw")
            scope.add(
                f'<bpmn:intermediateThrowEvent id="{node_id}">'
                "<bpmn:compensateEventDefinition /></bpmn:intermediateThrowEvent>"
            )
            return node_id, node_id
        if isinstance(node, ConditionalCatch):
            node_id = self.new_id("Catch")
            scope.add(
                f'<bpmn:intermediateCatchEvent id="{node_id}">'
                f"{_conditional(node.threshold)}</bpmn:intermediateCatchEvent>"
            )
            return node_id, node_id
        if isinstance(node, MessageCatch):
            node_id = self.new_id("Catch")
            definition = f'<bpmn:messageEventDefinition messageRef="msg_{node.message}" />'
            if node.signal:
                definition = f'<bpmn:signalEventDefinition signalRef="sig_{node.message}" />'
            scope.add(
                f'<bpmn:intermediateCatchEvent id="{node_id}">{definition}'
                "</bpmn:intermediateCatchEvent>"
            )
            return node_id, node_id
        if isinstance(node, Race):
            gateway, merge = self.new_id("Gateway"), self.new_id("Gateway")
            message, timer = self.new_id("Catch"), self.new_id("Timer")
            scope.add(f'<bpmn:eventBasedGateway id="{gateway}" />')
            scope.add(
                f'<bpmn:intermediateCatchEvent id="{message}">'
                f'<bpmn:messageEventDefinition messageRef="msg_{node.message}" />'
                "</bpmn:intermediateCatchEvent>"
            )
            scope.add(
                f'<bpmn:intermediateCatchEvent id="{timer}"><bpmn:timerEventDefinition>'
                f"<bpmn:timeDuration>PT{node.minutes}M</bpmn:timeDuration>"
                "</bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>"
            )
            scope.flow(gateway, message)
            scope.flow(gateway, timer)
            scope.flow(message, merge)
            scope.flow(timer, merge)
            scope.add(f'<bpmn:exclusiveGateway id="{merge}" />')
            return gateway, merge
        if isinstance(node, SignalThrow):
            node_id = self.new_id("Throw")
            scope.add(
                f'<bpmn:intermediateThrowEvent id="{node_id}">'
                f'<bpmn:signalEventDefinition signalRef="sig_{node.signal}" />'
                "</bpmn:intermediateThrowEvent>"
            )
            return node_id, node_id
        if isinstance(node, Link):
            throw, catch = self.new_id("LinkThrow"), self.new_id("LinkCatch")
            scope.add(
                f'<bpmn:intermediateThrowEvent id="{throw}">'
                f'<bpmn:linkEventDefinition name="{catch}" /></bpmn:intermediateThrowEvent>'
            )
            scope.add(
                f'<bpmn:intermediateCatchEvent id="{catch}">'
                f'<bpmn:linkEventDefinition name="{catch}" /></bpmn:intermediateCatchEvent>'
            )
            return throw, catch
        if isinstance(node, Escalate):
            node_id = self.new_id("Escalate")
            scope.add(
                f'<bpmn:intermediateThrowEvent id="{node_id}">'
                '<bpmn:escalationEventDefinition escalationRef="esc1" />'
                "</bpmn:intermediateThrowEvent>"
            )
            return node_id, node_id
        if isinstance(node, TimerCatch):
            node_id = self.new_id("Timer")
            scope.add(
                f'<bpmn:intermediateCatchEvent id="{node_id}"><bpmn:timerEventDefinition>'
                f"<bpmn:timeDuration>PT{node.minutes}M</bpmn:timeDuration>"
                "</bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>"
            )
            return node_id, node_id
        if isinstance(node, ExternalTask):
            node_id = self.new_id("ExternalTask")
            scope.add(
                f'<bpmn:serviceTask id="{node_id}" camunda:type="external"'
                f' camunda:topic="{TOPIC}" />'
            )
            if node.boundary is None:
                return node_id, node_id
            return node_id, self._boundary(scope, node_id, node.boundary)
        if isinstance(node, ReceiveTask):
            node_id = self.new_id("ReceiveTask")
            ref = f' messageRef="msg_{node.message}"' if node.message else ""
            scope.add(f'<bpmn:receiveTask id="{node_id}"{ref} />')
            return node_id, node_id
        if isinstance(node, ServiceTask):
            node_id = self.new_id("ServiceTask")
            scope.add(
                f'<bpmn:serviceTask id="{node_id}"{_async(node.asynchronous)}'
                f" camunda:expression={quoteattr(node.expression)} />"
            )
            return node_id, node_id
        if isinstance(node, ScriptTask):
            node_id = self.new_id("ScriptTask")
            scope.add(
                f'<bpmn:scriptTask id="{node_id}" scriptFormat="juel"{_async(node.asynchronous)}'
                f' camunda:resultVariable="{node.result_variable}">'
                f"<bpmn:script>{_escape(node.script)}</bpmn:script></bpmn:scriptTask>"
            )
            return node_id, node_id
        if isinstance(node, Exclusive):
            split, join = self.new_id("Gateway"), self.new_id("Gateway")
            lines_at = len(scope.lines)
            for threshold, block in node.branches:
                self._branch(scope, split, block, join, threshold)
            default = self._branch(scope, split, node.default, join, None)
            scope.lines.insert(
                lines_at,
                f'{scope.indent}<bpmn:exclusiveGateway id="{split}" default="{default}" />',
            )
            scope.add(f'<bpmn:exclusiveGateway id="{join}" />')
            return split, join
        if isinstance(node, Parallel):
            split, join = self.new_id("Gateway"), self.new_id("Gateway")
            scope.add(f'<bpmn:parallelGateway id="{split}" />')
            for block in node.branches:
                self._branch(scope, split, block, join, None)
            scope.add(f'<bpmn:parallelGateway id="{join}" />')
            return split, join
        if isinstance(node, Inclusive):
            split, join = self.new_id("Gateway"), self.new_id("Gateway")
            lines_at = len(scope.lines)
            for inclusive_threshold, block in node.branches:
                self._branch(scope, split, block, join, inclusive_threshold)
            attrs = ""
            if node.default is not None:
                attrs = f' default="{self._branch(scope, split, node.default, join, None)}"'
            scope.lines.insert(
                lines_at, f'{scope.indent}<bpmn:inclusiveGateway id="{split}"{attrs} />'
            )
            scope.add(f'<bpmn:inclusiveGateway id="{join}" />')
            return split, join
        if isinstance(node, SubProcess):
            node_id = self.new_id("SubProcess")
            inner = _Scope(self, scope.indent + "  ")
            start, end = self.new_id("Start"), self.new_id("End")
            inner.add(f'<bpmn:startEvent id="{start}" />')
            self._chain(inner, start, node.body, end)
            if node.error_end:
                inner.add(
                    f'<bpmn:endEvent id="{end}"><bpmn:errorEventDefinition errorRef="err1" />'
                    "</bpmn:endEvent>"
                )
            else:
                inner.add(f'<bpmn:endEvent id="{end}" />')
            scope.add(f'<bpmn:subProcess id="{node_id}">')
            scope.lines.extend(inner.lines)
            scope.add("</bpmn:subProcess>")
            if node.escalation is not None:
                escalation = node.escalation
                ref = ' escalationRef="esc1"' if escalation.coded else ""
                definition = f"<bpmn:escalationEventDefinition{ref} />"
                return node_id, self._on_task(
                    scope, node_id, definition, escalation.interrupting, escalation.body
                )
            if node.boundary is None:
                return node_id, node_id
            return node_id, self._boundary(scope, node_id, node.boundary)
        assert isinstance(node, Escape)
        split, merge, end = self.new_id("Gateway"), self.new_id("Gateway"), self.new_id("End")
        lines_at = len(scope.lines)
        default = scope.flow(split, merge)
        self._chain_to_end(scope, split, node.body, end, node.threshold)
        scope.lines.insert(
            lines_at, f'{scope.indent}<bpmn:exclusiveGateway id="{split}" default="{default}" />'
        )
        definition = (
            '<bpmn:errorEventDefinition errorRef="err1" />'
            if node.kind == "error"
            else "<bpmn:terminateEventDefinition />"
        )
        scope.add(f'<bpmn:endEvent id="{end}">{definition}</bpmn:endEvent>')
        scope.add(f'<bpmn:exclusiveGateway id="{merge}" />')
        return split, merge

    def _chain_to_end(
        self, scope: _Scope, split: str, block: Block, end: str, threshold: int
    ) -> None:
        if not block:
            scope.flow(split, end, threshold)
            return
        entry, current = self._node(scope, block[0])
        scope.flow(split, entry, threshold)
        self._chain(scope, current, block[1:], end)

    def _boundary(self, scope: _Scope, attached: str, handler: Handler) -> str:
        """An error boundary event on `attached` whose path merges back; returns the merge id."""
        boundary, merge = self.new_id("Boundary"), self.new_id("Gateway")
        ref = ' errorRef="err1"' if handler.error_ref else ""
        scope.add(
            f'<bpmn:boundaryEvent id="{boundary}" attachedToRef="{attached}">'
            f"<bpmn:errorEventDefinition{ref} /></bpmn:boundaryEvent>"
        )
        scope.flow(attached, merge)
        self._chain(scope, boundary, handler.body, merge)
        scope.add(f'<bpmn:exclusiveGateway id="{merge}" />')
        return merge

    def _compensation(self, scope: _Scope, attached: str, handler: str) -> None:
        """A compensation boundary event on `attached`, associated with its handler."""
        boundary, handler_id = self.new_id("Boundary"), self.new_id("Undo")
        scope.add(
            f'<bpmn:boundaryEvent id="{boundary}" attachedToRef="{attached}">'
            "<bpmn:compensateEventDefinition /></bpmn:boundaryEvent>"
        )
        if handler == "user":
            scope.add(f'<bpmn:userTask id="{handler_id}" isForCompensation="true" />')
        else:
            scope.add(
                f'<bpmn:serviceTask id="{handler_id}" isForCompensation="true" '
                "camunda:expression=\"${execution.setVariable('n', n + 1)}\" />"
            )
        scope.add(
            f'<bpmn:association id="{self.new_id("Association")}" sourceRef="{boundary}" '
            f'targetRef="{handler_id}" />'
        )

    def _timer(self, scope: _Scope, attached: str, timer: Timer) -> str:
        """A timer boundary event on the user task `attached`."""
        value = f"<bpmn:timeCycle>R{timer.count}/PT{timer.minutes}M</bpmn:timeCycle>"
        if timer.interrupting:
            value = f"<bpmn:timeDuration>PT{timer.minutes}M</bpmn:timeDuration>"
        definition = f"<bpmn:timerEventDefinition>{value}</bpmn:timerEventDefinition>"
        return self._on_task(scope, attached, definition, timer.interrupting, timer.body)

    def _event_subprocess(self, scope: _Scope, esp: EventSubprocess) -> None:
        node_id, start = self.new_id("EventSubProcess"), self.new_id("Start")
        task, end = self.new_id("UserTask"), self.new_id("End")
        interrupting = "true" if esp.interrupting else "false"
        inner = _Scope(self, scope.indent + "  ")
        definition = f'<bpmn:messageEventDefinition messageRef="msg_{esp.message}" />'
        if esp.condition is not None:
            definition = _conditional(esp.condition)
        inner.add(
            f'<bpmn:startEvent id="{start}" isInterrupting="{interrupting}">'
            f"{definition}</bpmn:startEvent>"
        )
        inner.add(f'<bpmn:userTask id="{task}" />')
        inner.add(f'<bpmn:endEvent id="{end}" />')
        inner.flow(start, task)
        inner.flow(task, end)
        scope.add(f'<bpmn:subProcess id="{node_id}" triggeredByEvent="true">')
        scope.lines.extend(inner.lines)
        scope.add("</bpmn:subProcess>")

    def _message(self, scope: _Scope, attached: str, boundary: MessageBoundary) -> str:
        """A message boundary event on the user task `attached`."""
        definition = f'<bpmn:messageEventDefinition messageRef="msg_{boundary.message}" />'
        return self._on_task(scope, attached, definition, boundary.interrupting, boundary.body)

    def _on_task(
        self, scope: _Scope, attached: str, definition: str, interrupting: bool, body: Block
    ) -> str:
        """A boundary event on `attached`; returns the id the main flow goes on from: a merge
        when it interrupts, else the task itself (each firing then leads to an end of its own)."""
        boundary = self.new_id("Boundary")
        cancel = "" if interrupting else ' cancelActivity="false"'
        scope.add(
            f'<bpmn:boundaryEvent id="{boundary}" attachedToRef="{attached}"{cancel}>'
            f"{definition}</bpmn:boundaryEvent>"
        )
        after = self.new_id("Gateway") if interrupting else self.new_id("End")
        if interrupting:
            scope.flow(attached, after)
            self._chain(scope, boundary, body, after)
            scope.add(f'<bpmn:exclusiveGateway id="{after}" />')
            return after
        self._chain(scope, boundary, body, after)
        scope.add(f'<bpmn:endEvent id="{after}" />')
        return attached


def _conditional(threshold: int) -> str:
    """A conditional event definition `${x > threshold}` that only a change of x re-evaluates."""
    return (
        '<bpmn:conditionalEventDefinition camunda:variableName="x">'
        f"<bpmn:condition>{_escape(f'${{x > {threshold}}}')}</bpmn:condition>"
        "</bpmn:conditionalEventDefinition>"
    )


def _async(which: str) -> str:
    attrs = ' camunda:asyncBefore="true"' if which in ("before", "both") else ""
    return attrs + (' camunda:asyncAfter="true"' if which in ("after", "both") else "")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
