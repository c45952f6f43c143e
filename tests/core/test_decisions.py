"""DMN decisions in the engine: `.dmn` resources deployed beside BPMN (versioned per key, a
decision requirements definition per DRG of several decisions, nothing deployed when one is
broken), evaluated over the API and by business rule tasks, every evaluation recorded in the log
and projected into the decision history, which follows deletions and a rebuild.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from flowledger import (
    ControllableClock,
    DecisionEvaluationError,
    DecisionPolicyViolation,
    Engine,
    ModelError,
    NotFound,
    ProcessEngineError,
)
from tests.dmn.models import dinner, dish, literal, table
from tests.support import all_deferred_rows_written, bpmn, event_types

HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">\n'
)
DINNER = {"season": "Fall", "guestCount": 4, "guestsWithChildren": True}


def _process(task_attributes: str, process_id: str = "p") -> bytes:
    """start → business rule task `brt` (its camunda attributes given) → user task → end."""
    return (
        f'{HEAD}<process id="{process_id}" isExecutable="true">'
        '<startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="brt"/>'
        f'<businessRuleTask id="brt" {task_attributes}/>'
        '<sequenceFlow id="f2" sourceRef="brt" targetRef="wait"/><userTask id="wait"/>'
        '<sequenceFlow id="f3" sourceRef="wait" targetRef="e"/><endEvent id="e"/>'
        "</process></definitions>"
    ).encode()


def _rows(db_url: str, table_name: str) -> list[dict[str, Any]]:
    all_deferred_rows_written()
    db = sa.create_engine(db_url)
    try:
        with db.connect() as conn:
            result = conn.execute(sa.text(f"select * from {table_name}"))
            # PostgreSQL folds the unquoted names to lower case
            return [{k.upper(): v for k, v in r._mapping.items()} for r in result]
    finally:
        db.dispose()


# -- deployment ---------------------------------------------------------------------------------


def test_a_dmn_resource_deploys_its_decisions_and_its_requirements_graph(engine: Engine) -> None:
    deployment = engine.deploy({"dinner.dmn": dinner()}, "dinner")
    decisions = {d.key: d for d in deployment.decision_definitions}
    assert set(decisions) == {"beverages", "dish"}
    (drd,) = deployment.decision_requirements_definitions
    assert (drd.key, drd.version, drd.name, drd.resource_name) == (
        "dinner",
        1,
        "Dinner",
        "dinner.dmn",
    )
    assert all(d.decision_requirements_definition_id == drd.id for d in decisions.values())
    assert decisions["dish"].category == "http://camunda.org/schema/1.0/dmn"
    # what the repository answers later is what the deployment said
    assert engine.repository_service.deployment(deployment.id) == deployment
    assert engine.repository_service.decision_definition(decisions["dish"].id) == decisions["dish"]


def test_a_lone_decision_has_no_requirements_definition_and_keeps_its_tag_and_ttl(
    engine: Engine,
) -> None:
    deployment = engine.deploy({"dish.dmn": dish()})
    (decision,) = deployment.decision_definitions
    assert deployment.decision_requirements_definitions == []
    assert decision.decision_requirements_definition_id is None
    assert (decision.version_tag, decision.history_time_to_live) == ("v1", 30)


def test_versions_count_per_decision_key_across_deployments(engine: Engine) -> None:
    engine.deploy({"dish.dmn": dish()})
    second = engine.deploy({"dinner.dmn": dinner()})
    versions = {d.key: d.version for d in second.decision_definitions}
    assert versions == {"dish": 2, "beverages": 1}
    assert [d.version for d in engine.repository_service.decision_definitions("dish")] == [1, 2]


def test_bpmn_and_dmn_deploy_together(engine: Engine) -> None:
    deployment = engine.deploy(
        {"dish.dmn": dish(), "p.bpmn": _process('camunda:decisionRef="dish"')}
    )
    assert [d.key for d in deployment.process_definitions] == ["p"]
    assert [d.key for d in deployment.decision_definitions] == ["dish"]
    assert deployment.resource_names == ["dish.dmn", "p.bpmn"]


@pytest.mark.parametrize(
    ("resource", "pattern"),
    [
        (
            table([("x", "integer")], [("out", "string")], [("r1", ["> >"], ['"a"'])]),
            r"element 't': rule 'r1', input entry 1",
        ),
        (
            table([("x", "decimal")], [("out", "string")], [("r1", ["1"], ['"a"'])]),
            r"typeRef 'decimal'",
        ),
        (
            dinner().replace(b'href="#dish"', b'href="#missing"'),
            r"missing",
        ),
        (
            dinner().replace(
                b'<decision id="dish" name="Dish">',
                b'<decision id="dish" name="Dish"><informationRequirement id="loop">'
                b'<requiredDecision href="#beverages"/></informationRequirement>',
            ),
            r"cycle",
        ),
        (
            table([("x", "integer")], [("out", "string")], [("r" * 65, ["1"], ['"a"'])]),
            r"element 't': a rule id may hold at most 64 characters",
        ),
    ],
    ids=[
        "feel-syntax-error-in-an-entry",
        "unknown-typeRef",
        "missing-required-decision",
        "cycle-in-the-drd",
        "rule-id-longer-than-its-column",
    ],
)
def test_a_broken_dmn_resource_is_refused_and_nothing_is_deployed(
    engine: Engine, db_url: str, resource: bytes, pattern: str
) -> None:
    with pytest.raises(ModelError, match=pattern) as caught:
        engine.deploy({"ok.bpmn": _process('camunda:decisionRef="t"'), "broken.dmn": resource})
    assert "broken.dmn" in str(caught.value)
    for table_name in (
        "ACT_RE_DEPLOYMENT",
        "ACT_RE_PROCDEF",
        "ACT_RE_DECISION_DEF",
        "ACT_RE_DECISION_REQ_DEF",
    ):
        assert _rows(db_url, table_name) == [], table_name


def test_two_resources_may_not_define_the_same_decision(engine: Engine) -> None:
    with pytest.raises(ModelError, match=r"decision key 'dish' is also defined in 'a.dmn'"):
        engine.deploy({"a.dmn": dish(), "b.dmn": dinner()})


# -- evaluation over the API --------------------------------------------------------------------


def test_evaluating_a_drg_feeds_the_required_decision_and_records_both(
    full_engine: Engine,
) -> None:
    engine = full_engine
    engine.deploy({"dinner.dmn": dinner()})
    result = engine.acting_as("kermit").evaluate_decision("beverages", DINNER)
    assert result.values == [
        {"beverages": "Aecht Schlenkerla Rauchbier"},
        {"beverages": "Apple Juice"},
    ]
    assert result.matched_rules == ["ribs", "children"]
    # its own stream in the log: one event, with what went in and came out
    assert event_types(engine, result.decision_instance_id) == ["DecisionEvaluated"]
    history = engine.history_service.historic_decision_instances(
        include_inputs=True, include_outputs=True
    )
    by_key = {h.decision_definition_key: h for h in history}
    root, required = by_key["beverages"], by_key["dish"]
    assert root.id == result.decision_instance_id
    assert (root.root_decision_instance_id, required.root_decision_instance_id) == (
        None,
        root.id,
    )
    assert {root.user_id, required.user_id} == {"kermit"}
    assert [(i.clause_id, i.value) for i in required.inputs or []] == [
        ("season", "Fall"),
        ("guests", 4),
    ]
    assert [(o.rule_id, o.rule_order, o.variable_name, o.value) for o in root.outputs or []] == [
        ("ribs", 1, "beverages", "Aecht Schlenkerla Rauchbier"),
        ("children", 5, "beverages", "Apple Juice"),
    ]
    assert root.decision_requirements_definition_key == "dinner"
    only_roots = engine.history_service.historic_decision_instances(
        root_decision_instances_only=True
    )
    assert [h.id for h in only_roots] == [root.id]


def test_a_result_offers_camundas_views_of_it(engine: Engine) -> None:
    engine.deploy({"multi.dmn": MULTI})
    both = engine.evaluate_decision("multi", {"x": 5})
    assert both.result_list() == [{"label": "low", "score": 1}, {"label": "any", "score": 2}]
    assert both.collect_entries("label") == ["low", "any"]
    with pytest.raises(ProcessEngineError, match="more than one result"):
        both.single_result()
    one = engine.evaluate_decision("multi", {"x": 50})
    assert one.single_result() == {"label": "any", "score": 2}
    with pytest.raises(ProcessEngineError, match="more than one entry"):
        one.single_entry()
    assert one.entries[0]["score"].type == "integer"


def test_an_evaluation_by_definition_id_takes_that_version(engine: Engine) -> None:
    first = engine.deploy({"fee.dmn": literal("amount * 0.1")}).decision_definitions[0]
    engine.deploy({"fee.dmn": literal("amount * 0.2")})
    assert engine.evaluate_decision("fee", {"amount": 100}).values == [{"fee": 20.0}]
    by_id = engine.evaluate_decision(definition_id=first.id, variables={"amount": 100})
    assert by_id.values == [{"fee": 10.0}]
    assert by_id.decision_definition_id == first.id


def test_a_collect_sum_records_its_collect_value(full_engine: Engine) -> None:
    rules = [("a", ["> 0"], ["1"]), ("b", ["> 5"], ["10"])]
    resource = table(
        [("x", "integer")], [("points", "integer")], rules, hit_policy="COLLECT", aggregation="SUM"
    )
    full_engine.deploy({"points.dmn": resource})
    result = full_engine.evaluate_decision("t", {"x": 7})
    assert result.values == [{"points": 11}]
    (instance,) = full_engine.history_service.historic_decision_instances(include_outputs=True)
    assert instance.collect_result_value == 11.0
    assert [o.rule_id for o in instance.outputs or []] == ["a", "b"]


def test_a_violated_hit_policy_is_refused_naming_the_rules_and_records_nothing(
    full_engine: Engine, db_url: str
) -> None:
    resource = table(
        [("x", "integer")],
        [("out", "string")],
        [("r1", ["> 0"], ['"a"']), ("r2", ["> 1"], ['"b"'])],
    )
    full_engine.deploy({"u.dmn": resource})
    before = full_engine.log_position()
    with pytest.raises(DecisionPolicyViolation, match=r"decision 't'.*UNIQUE.*r1, r2"):
        full_engine.evaluate_decision("t", {"x": 5})
    assert full_engine.log_position() == before
    assert _rows(db_url, "ACT_HI_DECINST") == []


def test_an_input_that_does_not_convert_to_its_type_is_refused_naming_it(
    engine: Engine,
) -> None:
    engine.deploy({"dish.dmn": dish()})
    with pytest.raises(DecisionEvaluationError, match=r"decision 'dish', input 'guests': 'many'"):
        engine.evaluate_decision("dish", {"season": "Fall", "guestCount": "many"})


def test_an_unknown_decision_is_not_found(engine: Engine) -> None:
    with pytest.raises(NotFound, match="missing"):
        engine.evaluate_decision("missing", {})


def test_decision_history_is_written_at_level_full_only(engine: Engine, db_url: str) -> None:
    engine.deploy({"dish.dmn": dish()})
    assert engine.history_level == "audit"
    result = engine.evaluate_decision("dish", {"season": "Summer", "guestCount": 2})
    assert result.values == [{"desiredDish": "Light Salad and a nice Steak"}]
    assert _rows(db_url, "ACT_HI_DECINST") == []


# -- business rule tasks ------------------------------------------------------------------------

MULTI = table(
    [("x", "integer")],
    [("label", "string"), ("score", "integer")],
    [("low", ["< 10"], ['"low"', "1"]), ("any", ["-"], ['"any"', "2"])],
    hit_policy="RULE ORDER",
    decision_id="multi",
)
SINGLE_OUT = table(
    [("x", "integer")],
    [("label", "string")],
    [("low", ["< 10"], ['"low"']), ("any", ["-"], ['"any"'])],
    hit_policy="COLLECT",
    decision_id="labels",
)


@pytest.mark.parametrize(
    ("mapping", "decision", "x", "expected"),
    [
        ("resultList", "multi", 5, [{"label": "low", "score": 1}, {"label": "any", "score": 2}]),
        ("singleResult", "multi", 50, {"label": "any", "score": 2}),
        ("singleEntry", "labels", 50, "any"),
        ("collectEntries", "labels", 5, ["low", "any"]),
    ],
)
def test_a_business_rule_task_maps_the_result_into_its_result_variable(
    engine: Engine, mapping: str, decision: str, x: int, expected: Any
) -> None:
    attributes = (
        f'camunda:decisionRef="{decision}" camunda:resultVariable="result" '
        f'camunda:mapDecisionResult="{mapping}"'
    )
    engine.deploy({"multi.dmn": MULTI, "labels.dmn": SINGLE_OUT, "p.bpmn": _process(attributes)})
    instance = engine.start_process_instance("p", {"x": x})
    assert engine.runtime_service.get_variable(instance.id, "result") == expected
    assert "ActivityDecisionEvaluated" in event_types(engine, instance.id)


@pytest.mark.parametrize(
    ("mapping", "x", "problem"),
    [
        ("singleEntry", 50, r"its result has more than one entry \(label, score\)"),
        ("singleEntry", 5, r"it has 2 results"),
        ("singleResult", 5, r"it has 2 results"),
        ("collectEntries", 50, r"a result has more than one entry"),
    ],
)
def test_a_result_that_does_not_fit_the_mapping_fails_the_task(
    engine: Engine, mapping: str, x: int, problem: str
) -> None:
    attributes = (
        'camunda:decisionRef="multi" camunda:resultVariable="result" '
        f'camunda:mapDecisionResult="{mapping}"'
    )
    engine.deploy({"multi.dmn": MULTI, "p.bpmn": _process(attributes)})
    with pytest.raises(ProcessEngineError, match=rf"business rule task 'brt'.*{problem}"):
        engine.start_process_instance("p", {"x": x})
    assert engine.tasks() == []


def test_a_business_rule_task_records_its_decisions_in_the_instance_history(
    full_engine: Engine,
) -> None:
    engine = full_engine
    engine.deploy(bpmn("business_rule_task.bpmn"))
    engine.deploy(bpmn("dinner.dmn"))
    instance = engine.start_process_instance("dinnerPlanning", {**DINNER, "allergies": ["nuts"]})
    assert engine.runtime_service.get_variable(instance.id, "beverages") == [
        "Aecht Schlenkerla Rauchbier",
        "Apple Juice",
    ]
    history = engine.history_service.historic_decision_instances(
        process_instance_id=instance.id, include_inputs=True
    )
    assert {h.decision_definition_key for h in history} == {"beverages", "dish"}
    for h in history:
        assert (h.activity_id, h.process_definition_key) == ("chooseBeverages", "dinnerPlanning")
        assert h.activity_instance_id is not None
    beverages = next(h for h in history if h.decision_definition_key == "beverages")
    allergies = next(i for i in beverages.inputs or [] if i.clause_id == "allergies")
    assert (allergies.type, allergies.value) == ("Json", ["nuts"])
    # the instance's timeline says which decision answered, with which rules
    said = [
        t for t in engine.audit_service.timeline(instance.id) if t.activity_id == "chooseBeverages"
    ]
    assert [t.what for t in said][
        1
    ] == "decision beverages evaluated (rules matched: ribs, children)"
    assert engine.verify().problems == []


@pytest.mark.parametrize(
    ("binding", "expected"),
    [
        ('camunda:decisionRefBinding="latest"', 0.3),
        ('camunda:decisionRefBinding="deployment"', 0.2),
        ('camunda:decisionRefBinding="version" camunda:decisionRefVersion="1"', 0.1),
        ('camunda:decisionRefBinding="versionTag" camunda:decisionRefVersionTag="${tag}"', 0.1),
    ],
    ids=["latest", "deployment", "version", "versionTag"],
)
def test_the_binding_chooses_the_decision_version(
    engine: Engine, binding: str, expected: float
) -> None:
    tagged = literal("amount * 0.1").replace(b'name="Fee"', b'name="Fee" camunda:versionTag="t1"')
    tagged = tagged.replace(
        b"<definitions ", b'<definitions xmlns:camunda="http://camunda.org/schema/1.0/dmn" '
    )
    engine.deploy({"fee.dmn": tagged})
    attributes = (
        f'camunda:decisionRef="fee" {binding} camunda:resultVariable="fee" '
        'camunda:mapDecisionResult="singleEntry"'
    )
    engine.deploy({"fee.dmn": literal("amount * 0.2"), "p.bpmn": _process(attributes)})
    engine.deploy({"fee.dmn": literal("amount * 0.3")})
    instance = engine.start_process_instance("p", {"amount": 1, "tag": "t1"})
    assert engine.runtime_service.get_variable(instance.id, "fee") == pytest.approx(expected)


def test_a_decision_ref_that_names_no_decision_fails_naming_the_task(engine: Engine) -> None:
    engine.deploy(_process('camunda:decisionRef="${which}"'))
    with pytest.raises(ProcessEngineError, match=r"business rule task 'brt'.*'nothing'"):
        engine.start_process_instance("p", {"which": "nothing"})


def test_a_failing_async_business_rule_task_ends_in_an_incident(
    engine: Engine, clock: ControllableClock
) -> None:
    attributes = 'camunda:decisionRef="dish" camunda:asyncBefore="true"'
    engine.deploy({"dish.dmn": dish(), "p.bpmn": _process(attributes)})
    instance = engine.start_process_instance("p", {"season": "Fall", "guestCount": "many"})
    for _ in range(3):
        engine.run_due_jobs()
        clock.advance(minutes=10)
    (incident,) = engine.runtime_service.incidents(process_instance_id=instance.id)
    assert "business rule task 'brt'" in (incident.incident_message or "")
    assert "cannot be converted to integer" in (incident.incident_message or "")


@pytest.mark.parametrize(
    ("attributes", "pattern"),
    [
        ('camunda:decisionRef="d" camunda:decisionRefBinding="newest"', "decisionRefBinding"),
        ('camunda:decisionRef="d" camunda:mapDecisionResult="all"', "mapDecisionResult 'all'"),
        ('camunda:decisionRef="d" camunda:decisionRefBinding="version"', "decisionRefVersion"),
        ('camunda:decisionRef=""', "decisionRef is empty"),
    ],
)
def test_a_business_rule_task_that_cannot_run_is_refused_at_deploy(
    engine: Engine, attributes: str, pattern: str
) -> None:
    with pytest.raises(ModelError, match=pattern):
        engine.deploy(_process(attributes))


# -- deletion and history ----------------------------------------------------------------------


def test_deleting_a_deployment_removes_its_decisions_and_with_cascade_their_history(
    full_engine: Engine, db_url: str
) -> None:
    engine = full_engine
    kept = engine.deploy({"dish.dmn": dish()})
    gone = engine.deploy({"dinner.dmn": dinner()})
    engine.evaluate_decision("beverages", DINNER)
    engine.evaluate_decision(definition_id=kept.decision_definitions[0].id, variables=DINNER)
    engine.repository_service.delete_deployment(gone.id)  # without cascade: the history stays
    assert [d.id for d in engine.repository_service.decision_definitions()] == [
        kept.decision_definitions[0].id
    ]
    assert _rows(db_url, "ACT_RE_DECISION_REQ_DEF") == []
    assert len(engine.history_service.historic_decision_instances()) == 3
    assert (
        engine.repository_service.decision_definitions("dish")[-1].version == 1
    )  # the next one is version 2
    engine.repository_service.delete_deployment(kept.id, cascade=True)
    assert (
        len(engine.history_service.historic_decision_instances()) == 2
    )  # the other deployment's two
    assert engine.verify().problems == []


def test_deleting_an_instances_history_takes_its_decisions_and_their_values_along(
    full_engine: Engine, db_url: str
) -> None:
    engine = full_engine
    engine.deploy(bpmn("business_rule_task.bpmn"))
    engine.deploy(bpmn("dinner.dmn"))
    doomed = engine.start_process_instance("dinnerPlanning", {**DINNER, "allergies": ["nuts"]})
    kept = engine.start_process_instance("dinnerPlanning", {**DINNER, "allergies": ["fish"]})
    for instance in (doomed, kept):
        engine.complete_task(engine.tasks(process_instance_id=instance.id)[0].id)
    blobs = len(_rows(db_url, "ACT_GE_BYTEARRAY"))
    engine.history_service.delete_historic_process_instance(doomed.id)
    remaining = engine.history_service.historic_decision_instances(
        include_inputs=True, include_outputs=True
    )
    assert {h.process_instance_id for h in remaining} == {kept.id}
    decision_ids = {h.id for h in remaining}
    for table_name in ("ACT_HI_DEC_IN", "ACT_HI_DEC_OUT"):
        assert {r["DEC_INST_ID_"] for r in _rows(db_url, table_name)} <= decision_ids
    # the byte array of the deleted evaluation's list input went with it
    assert len(_rows(db_url, "ACT_GE_BYTEARRAY")) < blobs
    assert engine.verify().problems == []
    before = {t: _rows(db_url, t) for t in ("ACT_HI_DECINST", "ACT_HI_DEC_IN", "ACT_HI_DEC_OUT")}
    engine.rebuild_projections()
    after = {t: _rows(db_url, t) for t in before}
    assert after == before


def test_an_audit_package_of_an_instance_carries_the_dmn_that_answered_it(
    full_engine: Engine, db_url: str, tmp_path: Path
) -> None:
    engine = full_engine
    process = engine.deploy(bpmn("business_rule_task.bpmn"))
    rules = engine.deploy(bpmn("dinner.dmn"))
    instance = engine.start_process_instance("dinnerPlanning", {**DINNER, "allergies": []})
    summary = engine.audit_service.export_instance(instance.id, tmp_path / "dinner.zip")
    assert set(summary.streams) == {instance.id, process.id, rules.id}
    with Engine(f"sqlite:///{tmp_path / 'laptop.db'}", history_level="full") as laptop:
        laptop.audit_service.import_package(tmp_path / "dinner.zip")
        assert laptop.replay(instance.id) == engine.replay(instance.id)
        assert [d.key for d in laptop.repository_service.decision_definitions()] == [
            "beverages",
            "dish",
        ]
        assert {
            h.decision_definition_key for h in laptop.history_service.historic_decision_instances()
        } == {
            "beverages",
            "dish",
        }
        assert laptop.verify().ok


def test_cleanup_removes_decisions_evaluated_over_the_api_once_their_time_to_live_passed(
    db_url: str, clock: ControllableClock
) -> None:
    # the lone `dish` keeps 30 days (camunda:historyTimeToLive); the DRG's decisions none, so
    # the engine's default applies to them
    with Engine(db_url, clock=clock, history_level="full", history_time_to_live=60) as engine:
        engine.deploy({"dish.dmn": dish()})
        lone = engine.evaluate_decision("dish", DINNER)
        engine.deploy({"dinner.dmn": dinner()})  # dish version 2, without a time to live
        drg = engine.evaluate_decision("beverages", DINNER)
        clock.advance(days=31)
        report = engine.history_service.cleanup_history()
        assert report.decisions_removed == 1
        left = engine.history_service.historic_decision_instances()
        assert lone.decision_instance_id not in {h.id for h in left}
        assert len(left) == 2  # the DRG's evaluation: beverages and the dish it required
        clock.advance(days=30)
        assert engine.history_service.cleanup_history().decisions_removed == 1
        assert engine.history_service.historic_decision_instances() == []
        for table_name in ("ACT_HI_DEC_IN", "ACT_HI_DEC_OUT"):
            assert _rows(db_url, table_name) == [], table_name
        # the log keeps the evaluations; a rebuild leaves them removed
        assert [e.type for e in engine.events(drg.decision_instance_id)] == [
            "DecisionEvaluated",
            "HistoricDecisionInstanceDeleted",
        ]
        assert engine.verify().problems == []
        assert engine.history_service.cleanup_history().decisions_removed == 0


def test_an_evaluation_stream_is_not_taken_for_an_instance(engine: Engine, tmp_path: Path) -> None:
    engine.deploy({"dish.dmn": dish()})
    stream = engine.evaluate_decision("dish", DINNER).decision_instance_id
    for read in (
        lambda: engine.replay(stream),
        lambda: engine.audit_service.timeline(stream),
        lambda: engine.verify(instance=stream),
        lambda: engine.audit_service.export_instance(stream, tmp_path / "x.zip"),
    ):
        with pytest.raises(NotFound, match="that is a decision evaluation"):
            read()


PRICING = b"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="pricing" name="Pricing"
    namespace="n">
  <decision id="score" name="Score">
    <variable id="sv" name="score" typeRef="integer"/>
    <literalExpression id="se"><text>orders * 10 + years</text></literalExpression>
  </decision>
  <decision id="tier" name="Tier">
    <informationRequirement id="ir1"><requiredDecision href="#score"/></informationRequirement>
    <decisionTable id="tt" hitPolicy="FIRST">
      <input id="tin"><inputExpression id="tie" typeRef="integer"><text>score</text>
      </inputExpression></input>
      <output id="tout" name="tier" typeRef="string"/>
      <rule id="gold"><inputEntry id="g1"><text>&gt;= 100</text></inputEntry>
        <outputEntry id="g2"><text>"gold"</text></outputEntry></rule>
      <rule id="basic"><inputEntry id="b1"><text>-</text></inputEntry>
        <outputEntry id="b2"><text>"basic"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="discount" name="Discount">
    <informationRequirement id="ir2"><requiredDecision href="#tier"/></informationRequirement>
    <decisionTable id="dt">
      <input id="din"><inputExpression id="die" typeRef="string"><text>tier</text>
      </inputExpression></input>
      <output id="dout" name="discount" typeRef="double"/>
      <rule id="d-gold"><inputEntry id="dg1"><text>"gold"</text></inputEntry>
        <outputEntry id="dg2"><text>0.1</text></outputEntry></rule>
      <rule id="d-basic"><inputEntry id="db1"><text>"basic"</text></inputEntry>
        <outputEntry id="db2"><text>0</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>"""


@pytest.mark.parametrize(("orders", "tier", "discount"), [(12, "gold", 0.1), (1, "basic", 0.0)])
def test_a_two_level_drg_feeds_each_level_into_the_next_and_records_all_three(
    full_engine: Engine, orders: int, tier: str, discount: float
) -> None:
    engine = full_engine
    engine.deploy({"pricing.dmn": PRICING})
    result = engine.evaluate_decision("discount", {"orders": orders, "years": 3})
    assert result.single_entry() == discount
    history = engine.history_service.historic_decision_instances(include_outputs=True)
    by_key = {h.decision_definition_key: h for h in history}
    assert set(by_key) == {"score", "tier", "discount"}
    root = by_key["discount"]
    assert root.id == result.decision_instance_id
    assert by_key["score"].root_decision_instance_id == root.id
    assert by_key["tier"].root_decision_instance_id == root.id
    (score,) = by_key["score"].outputs or []
    assert (score.variable_name, score.value, score.rule_id) == ("score", orders * 10 + 3, None)
    assert [o.value for o in by_key["tier"].outputs or []] == [tier]
    assert root.decision_requirements_definition_key == "pricing"


def test_a_date_variable_matches_an_entry_on_a_local_date_and_time(engine: Engine) -> None:
    from datetime import UTC, datetime

    resource = table(
        [("d", "date")],
        [("early", "boolean")],
        [
            ("before", ['< date and time("2030-01-01T00:00:00")'], ["true"]),
            ("after", ['>= date and time("2030-01-01T00:00:00")'], ["false"]),
        ],
    )
    engine.deploy({"d.dmn": resource})
    result = engine.evaluate_decision("t", {"d": datetime(2026, 12, 5, 10, tzinfo=UTC)})
    assert result.values == [{"early": True}]
    result = engine.evaluate_decision("t", {"d": datetime(2031, 1, 1, tzinfo=UTC)})
    assert result.values == [{"early": False}]
