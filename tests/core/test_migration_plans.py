"""Migration plans as Camunda 7.24 makes and checks them: `mapEqualActivities` (the scenarios of
Camunda's MigrationPlanGenerationTest) and every instruction validator of
MigrationPlanCreationTest, with Camunda's failure messages."""

from __future__ import annotations

import itertools

import pytest

from flowledger.core.errors import InvalidValue, MigrationPlanInvalid
from flowledger.core.instance_migration import activities as view
from flowledger.core.instance_migration.generate import map_equal_activities
from flowledger.core.instance_migration.plan import MigrationInstruction, MigrationPlan
from flowledger.core.instance_migration.plan_validation import (
    describe,
    validate_plan,
    validate_plan_or_raise,
)
from flowledger.core.model import ProcessModel
from flowledger.core.parser import parse_bpmn
from flowledger.core.variables import TypedValue

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">\n'
    '<message id="m" name="Message"/><signal id="s" name="Signal"/>'
    '<error id="err" errorCode="Error"/>\n'
)


def model(body: str, process_id: str = "p") -> ProcessModel:
    source = f'{HEAD}<process id="{process_id}" isExecutable="true">{body}</process></definitions>'
    return parse_bpmn(source.encode(), "migration.bpmn").processes[0]


def chain(*nodes: str, scope: str = "") -> str:
    """Elements in sequence: each a full element, joined by sequence flows named after them."""
    ids = [node.split('id="', 1)[1].split('"', 1)[0] for node in nodes]
    flows = [
        f'<sequenceFlow id="{scope}f_{a}_{b}" sourceRef="{a}" targetRef="{b}"/>'
        for a, b in itertools.pairwise(ids)
    ]
    return "".join(nodes) + "".join(flows)


def task(task_id: str = "userTask", inner: str = "", tag: str = "userTask", extra: str = "") -> str:
    return f'<{tag} id="{task_id}" {extra}>{inner}</{tag}>'


def start(i: str = "start") -> str:
    return f'<startEvent id="{i}"/>'


def end(i: str = "end") -> str:
    return f'<endEvent id="{i}"/>'


def sub(sub_id: str, body: str, extra: str = "") -> str:
    return f'<subProcess id="{sub_id}" {extra}>{body}</subProcess>'


def boundary(i: str, on: str, definition: str, cancel: bool = True) -> str:
    attr = "" if cancel else ' cancelActivity="false"'
    return f'<boundaryEvent id="{i}" attachedToRef="{on}"{attr}>{definition}</boundaryEvent>'


MESSAGE = '<messageEventDefinition messageRef="m"/>'
SIGNAL = '<signalEventDefinition signalRef="s"/>'
TIMER = "<timerEventDefinition><timeDate>2016-02-11T12:13:14Z</timeDate></timerEventDefinition>"
ERROR = '<errorEventDefinition errorRef="err"/>'
CONDITION = (
    '<conditionalEventDefinition><condition xsi:type="tFormalExpression" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${x == 1}</condition>'
    "</conditionalEventDefinition>"
)

ONE_TASK = model(chain(start(), task(), end()))
SUBPROCESS = model(chain(start(), sub("subProcess", chain(start("s2"), task(), end("e2"))), end()))
DOUBLE_SUBPROCESS = model(
    chain(
        start(),
        sub(
            "outerSubProcess",
            chain(start("s2"), sub("innerSubProcess", chain(start("s3"), task(), end("e3")))),
        ),
        end(),
    )
)


def generated(
    source: ProcessModel, target: ProcessModel, update: bool = False
) -> list[tuple[str, str, bool]]:
    instructions = map_equal_activities(source, target, update_event_triggers=update)
    plan = MigrationPlan("source:1", "target:1", tuple(instructions))
    validate_plan_or_raise(plan, source, target)  # what is generated is valid
    return [
        (i.source_activity_id, i.target_activity_id, i.update_event_trigger) for i in instructions
    ]


def same(*ids: str) -> list[tuple[str, str, bool]]:
    return [(i, i, False) for i in ids]


def failures(
    source: ProcessModel,
    target: ProcessModel,
    *instructions: tuple[str, str] | tuple[str, str, bool],
) -> list[list[str]]:
    plan = MigrationPlan(
        "source:1", "target:1", tuple(MigrationInstruction(*i) for i in instructions)
    )
    return [list(r.failures) for r in validate_plan(plan, source, target).instruction_reports]


# -- generation ------------------------------------------------------------------------------


def test_equal_activities_map_in_the_same_scopes() -> None:
    assert generated(ONE_TASK, ONE_TASK) == same("userTask")
    assert generated(SUBPROCESS, SUBPROCESS) == same("subProcess", "userTask")


def test_activities_that_change_scope_are_not_mapped() -> None:
    assert generated(ONE_TASK, SUBPROCESS) == []
    assert generated(SUBPROCESS, ONE_TASK) == []
    assert generated(ONE_TASK, DOUBLE_SUBPROCESS) == []
    renamed_outer = model(DOUBLE_SUBPROCESS_BODY.replace("outerSubProcess", "subProcess"))
    assert generated(SUBPROCESS, renamed_outer) == same("subProcess")
    renamed_inner = model(DOUBLE_SUBPROCESS_BODY.replace("innerSubProcess", "subProcess"))
    assert generated(SUBPROCESS, renamed_inner) == []


DOUBLE_SUBPROCESS_BODY = chain(
    start(),
    sub(
        "outerSubProcess",
        chain(start("s2"), sub("innerSubProcess", chain(start("s3"), task(), end("e3")))),
    ),
    end(),
)


def test_changed_ids_are_not_mapped() -> None:
    renamed = model(chain(start(), task("newUserTask"), end()))
    assert generated(ONE_TASK, renamed) == []


def test_unsupported_activities_are_not_mapped_unless_asynchronous() -> None:
    body = chain(
        start(),
        task("serviceTask", tag="serviceTask", extra='camunda:expression="${1}"'),
        task("scriptTask", "<script>1</script>", "scriptTask", 'scriptFormat="juel"'),
        task("plainTask", tag="task"),
        end(),
    )
    assert generated(model(body), model(body)) == []
    asynchronous = body.replace('id="serviceTask"', 'id="serviceTask" camunda:asyncBefore="true"')
    asynchronous = asynchronous.replace('id="end"', 'id="end" camunda:asyncAfter="true"')
    assert generated(model(asynchronous), model(asynchronous)) == same("serviceTask", "end")


def test_external_tasks_map_whatever_task_element_carries_them() -> None:
    external = 'camunda:type="external" camunda:topic="foo"'
    source = model(chain(start(), task("externalTask", tag="serviceTask", extra=external), end()))
    send = model(chain(start(), task("externalTask", tag="sendTask", extra=external), end()))
    assert generated(source, send) == same("externalTask")
    delegate = 'camunda:class="foo.Bar"'
    to_class = model(chain(start(), task("externalTask", tag="serviceTask", extra=delegate), end()))
    assert generated(source, to_class) == []


def test_boundary_events_map_only_when_what_they_sit_on_maps() -> None:
    # the boundary on the inner task lives in the subprocess
    inner = (
        chain(start("s2"), task(), end("e2"))
        + boundary("signalBoundary", "userTask", SIGNAL)
        + boundary("timerBoundary", "userTask", TIMER)
    )
    full = model(
        chain(start(), sub("subProcess", inner), end())
        + boundary("messageBoundary", "subProcess", MESSAGE)
        + boundary("errorBoundary", "subProcess", ERROR)
    )
    assert generated(full, full) == same(
        "subProcess", "messageBoundary", "userTask", "signalBoundary", "timerBoundary"
    )
    # renamed boundary: not mapped; a boundary moved to a parallel task: not mapped
    with_message = model(chain(start(), task(), end()) + boundary("b", "userTask", MESSAGE))
    renamed = model(chain(start(), task(), end()) + boundary("newB", "userTask", MESSAGE))
    assert generated(with_message, renamed) == same("userTask")
    with_signal = model(chain(start(), task(), end()) + boundary("b", "userTask", SIGNAL))
    assert generated(with_message, with_signal) == same("userTask")


def test_a_boundary_event_does_not_follow_its_name_to_another_activity() -> None:
    fork = (
        '<parallelGateway id="fork"/><userTask id="userTask1"/><userTask id="userTask2"/>'
        '<sequenceFlow id="a" sourceRef="start" targetRef="fork"/>'
        '<sequenceFlow id="b" sourceRef="fork" targetRef="userTask1"/>'
        '<sequenceFlow id="c" sourceRef="fork" targetRef="userTask2"/>'
    )
    source = model(start() + fork + boundary("message", "userTask1", MESSAGE))
    target = model(start() + fork + boundary("message", "userTask2", MESSAGE))
    assert generated(source, target) == same("fork", "userTask1", "userTask2")


def test_event_subprocesses_and_their_start_events() -> None:
    esp = sub(
        "eventSubProcess",
        chain(
            f'<startEvent id="eventSubProcessStart">{MESSAGE}</startEvent>',
            task("eventSubProcessTask"),
            end("e3"),
        ),
        'triggeredByEvent="true"',
    )
    with_esp = model(chain(start(), task(), end()) + esp)
    assert generated(with_esp, with_esp) == same(
        "userTask", "eventSubProcess", "eventSubProcessStart", "eventSubProcessTask"
    )
    assert generated(with_esp, ONE_TASK) == same("userTask")
    assert generated(ONE_TASK, with_esp) == same("userTask")
    # the start event maps even when its event subprocess does not (its event scope does)
    renamed = model(chain(start(), task(), end()) + esp.replace('"eventSubProcess"', '"newEsp"'))
    assert generated(with_esp, renamed) == same("userTask", "eventSubProcessStart")
    # a start event of another type is not mapped; an error start event never is
    signal_esp = model(chain(start(), task(), end()) + esp.replace(MESSAGE, SIGNAL))
    assert generated(with_esp, signal_esp) == same(
        "userTask", "eventSubProcess", "eventSubProcessTask"
    )
    error_esp = model(chain(start(), task(), end()) + esp.replace(MESSAGE, ERROR))
    assert generated(error_esp, error_esp) == same(
        "userTask", "eventSubProcess", "eventSubProcessTask"
    )


def test_multi_instance_bodies_and_inner_activities() -> None:
    def mi(sequential: bool) -> ProcessModel:
        loop = (
            f'<multiInstanceLoopCharacteristics isSequential="{str(sequential).lower()}">'
            "<loopCardinality>3</loopCardinality></multiInstanceLoopCharacteristics>"
        )
        return model(chain(start(), task(inner=loop), end()))

    assert sorted(generated(mi(False), mi(False))) == sorted(
        same("userTask#multiInstanceBody", "userTask")
    )
    assert generated(mi(True), mi(False)) == []


def test_gateways_map_when_of_the_same_kind() -> None:
    def gateways(kind: str) -> ProcessModel:
        return model(
            f'{start()}<{kind} id="fork"/><userTask id="parallel1"/><userTask id="parallel2"/>'
            f'<{kind} id="join"/><userTask id="afterJoin"/>'
            '<sequenceFlow id="a" sourceRef="start" targetRef="fork"/>'
            '<sequenceFlow id="b" sourceRef="fork" targetRef="parallel1"/>'
            '<sequenceFlow id="c" sourceRef="fork" targetRef="parallel2"/>'
            '<sequenceFlow id="d" sourceRef="parallel1" targetRef="join"/>'
            '<sequenceFlow id="e" sourceRef="parallel2" targetRef="join"/>'
            '<sequenceFlow id="f" sourceRef="join" targetRef="afterJoin"/>'
        )

    parallel, inclusive = gateways("parallelGateway"), gateways("inclusiveGateway")
    expected = same("fork", "parallel1", "parallel2", "join", "afterJoin")
    assert generated(parallel, parallel) == expected
    assert generated(inclusive, inclusive) == expected
    assert generated(parallel, inclusive) == same("parallel1", "parallel2", "afterJoin")


def test_event_based_gateway_and_catch_events() -> None:
    def gateway(definition: str, catch_id: str) -> ProcessModel:
        return model(
            f'{start()}<eventBasedGateway id="eventBasedGateway"/>'
            f'<intermediateCatchEvent id="{catch_id}">{definition}</intermediateCatchEvent>'
            f'<userTask id="after{catch_id}"/>'
            '<sequenceFlow id="a" sourceRef="start" targetRef="eventBasedGateway"/>'
            f'<sequenceFlow id="b" sourceRef="eventBasedGateway" targetRef="{catch_id}"/>'
            f'<sequenceFlow id="c" sourceRef="{catch_id}" targetRef="after{catch_id}"/>'
        )

    timer = gateway(TIMER, "timerCatch")
    assert generated(timer, gateway(SIGNAL, "signalCatch")) == same("eventBasedGateway")
    assert generated(timer, timer) == same("eventBasedGateway", "timerCatch", "aftertimerCatch")


def test_update_event_triggers_for_persistent_triggers_and_always_for_conditions() -> None:
    catch = model(
        chain(
            start(),
            f'<intermediateCatchEvent id="messageCatch">{MESSAGE}</intermediateCatchEvent>',
            task(),
            end(),
        )
    )
    assert generated(catch, catch) == same("messageCatch", "userTask")
    assert generated(catch, catch, update=True) == [
        ("messageCatch", "messageCatch", True),
        ("userTask", "userTask", False),
    ]
    conditional = model(chain(start(), task(), end()) + boundary("boundary", "userTask", CONDITION))
    assert generated(conditional, conditional) == [
        ("userTask", "userTask", False),
        ("boundary", "boundary", True),
    ]


def test_receive_tasks_and_call_activities_map() -> None:
    receive = model(chain(start(), '<receiveTask id="receiveTask" messageRef="m"/>', task(), end()))
    assert generated(receive, receive) == same("receiveTask", "userTask")
    call = model(chain(start(), '<callActivity id="callActivity" calledElement="foo"/>', end()))
    assert generated(call, call) == same("callActivity")


def test_compensation_handlers_are_not_mapped() -> None:
    body = (
        chain(start(), task("userTask1"), task("userTask2"), end())
        + boundary("compensationBoundary", "userTask1", "<compensateEventDefinition/>")
        + '<userTask id="undo" isForCompensation="true"/>'
        + '<association associationDirection="One" sourceRef="compensationBoundary" '
        'targetRef="undo"/>'
    )
    compensation = model(body)
    assert generated(compensation, compensation, update=True) == same(
        "userTask1", "userTask2", "compensationBoundary"
    )


# -- validation: Camunda's messages ----------------------------------------------------------


def test_activities_that_do_not_exist() -> None:
    assert failures(ONE_TASK, ONE_TASK, ("nope", "userTask"), ("userTask", "gone")) == [
        ["Source activity 'nope' does not exist"],
        ["Target activity 'gone' does not exist"],
    ]


def test_a_user_task_cannot_become_a_service_task() -> None:
    service = model(chain(start(), task(tag="serviceTask", extra='camunda:class="foo.Bar"'), end()))
    assert failures(ONE_TASK, service, ("userTask", "userTask")) == [
        [
            "Activities have incompatible types (UserTaskActivityBehavior is not compatible "
            "with ClassDelegateActivityBehavior)"
        ]
    ]


def test_a_subprocess_may_become_an_event_subprocess() -> None:
    esp = model(
        chain(start(), task(), end())
        + sub(
            "subProcess",
            chain(f'<startEvent id="s2">{MESSAGE}</startEvent>', end("e2")),
            'triggeredByEvent="true"',
        )
    )
    assert failures(SUBPROCESS, esp, ("subProcess", "subProcess")) == []


def test_events_of_another_type() -> None:
    with_message = model(chain(start(), task(), end()) + boundary("b", "userTask", MESSAGE))
    with_signal = model(chain(start(), task(), end()) + boundary("b", "userTask", SIGNAL))
    assert failures(with_message, with_signal, ("userTask", "userTask"), ("b", "b")) == [
        ["Events are not of the same type (boundaryMessage != boundarySignal)"]
    ]


def test_the_same_source_mapped_twice() -> None:
    two = model(chain(start(), task("userTask"), task("other"), end()))
    reports = failures(ONE_TASK, two, ("userTask", "userTask"), ("userTask", "other"))
    message = (
        "There are multiple mappings for source activity id 'userTask': "
        "ValidatingMigrationInstructionImpl{sourceActivity=Activity(userTask), "
        "targetActivity=Activity(userTask)}, "
        "ValidatingMigrationInstructionImpl{sourceActivity=Activity(userTask), "
        "targetActivity=Activity(other)}"
    )
    assert reports == [[message], [message]]


def test_update_event_trigger_on_what_has_no_event_trigger() -> None:
    assert failures(ONE_TASK, ONE_TASK, ("userTask", "userTask", True)) == [
        [
            "Cannot update event trigger because the activity does not define a persistent "
            "event trigger"
        ]
    ]


def test_a_conditional_event_must_update_its_trigger() -> None:
    conditional = model(chain(start(), task(), end()) + boundary("b", "userTask", CONDITION))
    assert failures(conditional, conditional, ("userTask", "userTask"), ("b", "b")) == [
        ["Conditional event has to migrate with update event trigger."]
    ]
    assert failures(conditional, conditional, ("userTask", "userTask"), ("b", "b", True)) == []


def test_a_boundary_event_needs_its_activity_mapped_to_the_target_s() -> None:
    source = model(chain(start(), task(), end()) + boundary("b", "userTask", MESSAGE))
    two = model(
        chain(start(), task("userTask"), task("other"), end()) + boundary("b", "other", MESSAGE)
    )
    assert failures(source, two, ("userTask", "userTask"), ("b", "b")) == [
        [
            "The source activity's event scope (userTask) must be mapped to the target "
            "activity's event scope (other)"
        ]
    ]
    assert failures(source, source, ("b", "b")) == [
        [
            "The source activity's event scope (userTask) must be mapped to the target "
            "activity's event scope (userTask)"
        ]
    ]


def test_a_removed_subprocess_is_refused_as_camunda_does() -> None:
    # the subprocess maps to the task's new place, which is not inside it
    assert failures(SUBPROCESS, ONE_TASK, ("subProcess", "userTask"), ("userTask", "userTask"))[
        -1
    ] == [
        "The closest mapped ancestor 'subProcess' is mapped to scope 'userTask' which is not an "
        "ancestor of target scope 'userTask'"
    ]
    # without the subprocess's instruction the task may leave it (Camunda removes the scope)
    assert failures(SUBPROCESS, ONE_TASK, ("userTask", "userTask")) == []
    # and a subprocess may be added around a task
    assert failures(ONE_TASK, SUBPROCESS, ("userTask", "userTask")) == []


def test_multi_instance_rules() -> None:
    loop = (
        "<multiInstanceLoopCharacteristics><loopCardinality>3</loopCardinality>"
        "</multiInstanceLoopCharacteristics>"
    )
    mi = model(chain(start(), task(inner=loop), end()))
    body = "userTask#multiInstanceBody"
    assert failures(ONE_TASK, mi, ("userTask", "userTask")) == [
        [
            "Target activity 'userTask' is a descendant of multi-instance body "
            "'userTask#multiInstanceBody' that is not mapped from the source process definition."
        ]
    ]
    assert failures(mi, mi, (body, body)) == [
        [
            "Must map the inner activity of a multi-instance body when the body is mapped",
            "Cannot remove the inner activity of a multi-instance body when the body is mapped",
        ]
    ]
    assert failures(mi, mi, (body, body), ("userTask", "userTask")) == []
    # the body may be removed: its inner activity maps to a plain task
    assert failures(mi, ONE_TASK, ("userTask", "userTask")) == []


def test_gateway_mappings() -> None:
    def join(flows: int, in_sub: bool = False) -> ProcessModel:
        tasks = "".join(f'<userTask id="t{n}"/>' for n in range(flows))
        body = (
            '<startEvent id="s0"/><parallelGateway id="fork"/>'
            + tasks
            + '<parallelGateway id="join"/><userTask id="after"/>'
            + '<sequenceFlow id="fs" sourceRef="s0" targetRef="fork"/>'
            + "".join(
                f'<sequenceFlow id="g{n}" sourceRef="fork" targetRef="t{n}"/>'
                f'<sequenceFlow id="f{n}" sourceRef="t{n}" targetRef="join"/>'
                for n in range(flows)
            )
            + '<sequenceFlow id="fa" sourceRef="join" targetRef="after"/>'
        )
        if in_sub:
            return model(chain(start(), sub("sub", body), end()))
        return model(body)

    assert failures(join(3), join(2), ("join", "join")) == [
        [
            "The target gateway must have at least the same number of incoming sequence flows "
            "that the source gateway has"
        ]
    ]
    assert failures(join(2, in_sub=True), join(2), ("join", "join")) == [
        ["The gateway's flow scope 'sub' must be mapped"]
    ]
    two_joins = model(
        '<startEvent id="s0"/><parallelGateway id="fork"/>'
        '<parallelGateway id="join"/><parallelGateway id="join2"/><userTask id="t"/>'
        '<sequenceFlow id="s" sourceRef="s0" targetRef="fork"/>'
        '<sequenceFlow id="j1" sourceRef="fork" targetRef="join"/>'
        '<sequenceFlow id="j2" sourceRef="fork" targetRef="join2"/>'
        '<sequenceFlow id="a" sourceRef="join" targetRef="t"/>'
        '<sequenceFlow id="b" sourceRef="join2" targetRef="t"/>'
    )
    assert failures(two_joins, two_joins, ("join", "join"), ("join2", "join")) == [
        ["Only one gateway can be mapped to gateway 'join'"],
        ["Only one gateway can be mapped to gateway 'join'"],
    ]


def test_variables_java_serialized_objects_are_refused_and_values_checked() -> None:
    java = TypedValue(
        "Object",
        "rO0AB",
        {
            "objectTypeName": "Foo",
            "serializationDataFormat": "application/x-java-serialized-object",
        },
    )
    plan = MigrationPlan("a:1", "b:1", (), {"foo": java, "ok": 1})
    report = validate_plan(plan, ONE_TASK, ONE_TASK)
    assert report.instruction_reports == ()
    assert list(report.variable_reports) == ["foo"]
    assert report.variable_reports["foo"].failures == (
        "Cannot set variable with name foo. Java serialization format is prohibited",
    )
    with pytest.raises(InvalidValue):
        validate_plan(MigrationPlan("a:1", "b:1", (), {"bad": float("nan")}), ONE_TASK, ONE_TASK)


def test_an_invalid_plan_raises_with_camunda_s_message() -> None:
    plan = MigrationPlan("a:1", "b:1", (MigrationInstruction("userTask", "nope"),))
    with pytest.raises(MigrationPlanInvalid) as caught:
        validate_plan_or_raise(plan, ONE_TASK, ONE_TASK)
    assert str(caught.value) == (
        "Migration plan for process definition 'a:1' to 'b:1' is not valid:\n"
        "\t Migration instruction MigrationInstructionImpl{sourceActivityId='userTask', "
        "targetActivityId='nope', updateEventTrigger='false'} is not valid:\n"
        "\t\tTarget activity 'nope' does not exist\n"
    )
    assert describe(caught.value.report) == str(caught.value)
    assert validate_plan_or_raise(MigrationPlan("a:1", "b:1"), ONE_TASK, ONE_TASK)


def test_the_supported_activities_are_camunda_s() -> None:
    supported = model(
        chain(
            start(),
            task("u"),
            '<receiveTask id="r"/>',
            '<callActivity id="c" calledElement="x"/>',
            task("e", tag="businessRuleTask", extra='camunda:type="external" camunda:topic="t"'),
            end(),
        )
    )
    for activity_id in ("u", "r", "c", "e"):
        assert view.is_supported(supported, supported.activities[activity_id])
    for activity_id in ("start", "end"):
        assert not view.is_supported(supported, supported.activities[activity_id])


def test_a_compensation_event_subprocess_is_not_mapped_but_its_start_event_is() -> None:
    handler = (
        boundary("compensationBoundary", "userTask1", "<compensateEventDefinition/>")
        + '<userTask id="undo" isForCompensation="true"/>'
        + '<association associationDirection="One" sourceRef="compensationBoundary" '
        'targetRef="undo"/>'
    )
    esp = sub(
        "eventSubProcess",
        chain(
            '<startEvent id="eventSubProcessStart"><compensateEventDefinition/></startEvent>',
            task("eventSubProcessTask"),
            end("e3"),
        ),
        'triggeredByEvent="true"',
    )
    inner = chain(start("s2"), task("userTask1"), task("userTask2"), end("e2")) + handler + esp
    compensation = model(chain(start(), sub("subProcess", inner), end()))
    assert generated(compensation, compensation, update=True) == same(
        "subProcess", "userTask1", "userTask2", "compensationBoundary", "eventSubProcessStart"
    )


def test_a_boundary_event_moved_to_the_parent_activity() -> None:
    source = model(
        chain(
            start(),
            sub(
                "subProcess",
                chain(start("s2"), task(), end("e2")) + boundary("b", "userTask", MESSAGE),
            ),
            end(),
        )
    )
    target = model(
        chain(start(), sub("subProcess", chain(start("s2"), task(), end("e2"))), end())
        + boundary("b", "subProcess", MESSAGE)
    )
    plan = (("subProcess", "subProcess"), ("userTask", "userTask"), ("b", "b"))
    assert failures(source, target, *plan) == [
        [
            "The source activity's event scope (userTask) must be mapped to the target "
            "activity's event scope (subProcess)",
            "The closest mapped ancestor 'subProcess' is mapped to scope 'subProcess' which is "
            "not an ancestor of target scope 'b'",
        ]
    ]


def test_update_event_trigger_of_an_event_subprocess_and_of_its_start_event() -> None:
    esp = model(
        chain(start(), task(), end())
        + sub(
            "eventSubProcess",
            chain(
                f'<startEvent id="eventSubProcessStart">{TIMER}</startEvent>',
                task("eventSubProcessTask"),
                end("e3"),
            ),
            'triggeredByEvent="true"',
        )
    )
    assert failures(esp, esp, ("eventSubProcess", "eventSubProcess", True)) == [
        [
            "Cannot update event trigger because the activity does not define a persistent "
            "event trigger"
        ]
    ]
    assert failures(esp, esp, ("eventSubProcessStart", "eventSubProcessStart", True)) == []


def test_a_user_task_s_timeout_listeners_may_go() -> None:
    listener = (
        '<extensionElements><camunda:taskListener event="timeout" id="late" '
        'expression="${1}"><timerEventDefinition><timeDuration>PT1H</timeDuration>'
        "</timerEventDefinition></camunda:taskListener></extensionElements>"
    )
    with_listener = model(chain(start(), task(inner=listener), end()))
    assert view.defines_persistent_event_trigger(
        with_listener, with_listener.activities["userTask"]
    )
    assert failures(with_listener, ONE_TASK, ("userTask", "userTask", True)) == []
    assert failures(ONE_TASK, with_listener, ("userTask", "userTask", True)) == [
        [
            "Cannot update event trigger because the activity does not define a persistent "
            "event trigger"
        ]
    ]


def test_an_explicit_plan_may_map_what_generation_leaves_out() -> None:
    script = model(
        chain(
            start(),
            task("script", "<script>1</script>", "scriptTask", 'scriptFormat="juel"'),
            end(),
        )
    )
    assert generated(script, script) == []
    assert failures(script, script, ("script", "script")) == []
    assert not view.has_supported_behavior(script, script.activities["script"])


def test_an_instruction_dropped_takes_the_events_of_its_activity_along() -> None:
    """Camunda's testNotMigrateBoundaryEventsWithInvalidEventScopeInstruction: the task becomes
    a receive task, so neither it nor its boundary event is mapped."""
    source = model(chain(start(), task(), end()) + boundary("boundary", "userTask", MESSAGE))
    receive = '<receiveTask id="userTask"/>'
    target = model(chain(start(), receive, end()) + boundary("boundary", "userTask", MESSAGE))
    assert generated(source, target) == []


def test_generation_scales_with_many_scopes() -> None:
    """Each scope's instructions are judged again only when something changed."""
    subprocesses = "".join(
        f'<sequenceFlow id="g{n}" sourceRef="fork" targetRef="sub{n}"/>'
        + sub(f"sub{n}", chain(start(f"s{n}"), task(f"a{n}"), task(f"b{n}"), end(f"e{n}")))
        for n in range(60)
    )
    wide = model(
        '<startEvent id="start"/><parallelGateway id="fork"/>'
        '<sequenceFlow id="f" sourceRef="start" targetRef="fork"/>' + subprocesses
    )
    assert len(generated(wide, wide)) == 1 + 60 * 3


def test_conditional_events_always_update_their_trigger() -> None:
    catch = model(
        chain(
            start(),
            f'<intermediateCatchEvent id="condition">{CONDITION}</intermediateCatchEvent>',
            task(),
            end(),
        )
    )
    assert generated(catch, catch) == [
        ("condition", "condition", True),
        ("userTask", "userTask", False),
    ]
    esp = model(
        chain(start(), task(), end())
        + sub(
            "eventSubProcess",
            chain(
                f'<startEvent id="eventSubProcessStart">{CONDITION}</startEvent>',
                task("eventSubProcessTask"),
                end("e3"),
            ),
            'triggeredByEvent="true"',
        )
    )
    assert generated(esp, esp) == [
        ("userTask", "userTask", False),
        ("eventSubProcess", "eventSubProcess", False),
        ("eventSubProcessStart", "eventSubProcessStart", True),
        ("eventSubProcessTask", "eventSubProcessTask", False),
    ]
