"""pycamunda 0.6.1, unmodified, against the live server: a DMN deployed with pycamunda's
deployment module (its answer parsed with the decision and requirements definitions in it),
listed, read and evaluated with its decision-definition module, typed values in and out."""

from __future__ import annotations

import pycamunda.decisiondef
import pycamunda.deployment
import pytest

from tests.support import BPMN_DIR

from .server import LiveServer

DINNER = BPMN_DIR / "dinner.dmn"


@pytest.fixture(scope="module")
def deployment(rest: LiveServer) -> pycamunda.deployment.DeploymentWithDefinitions:
    create = pycamunda.deployment.Create(url=rest.url, name="dinner", source="pycamunda e2e")
    create.add_resource((DINNER.name, DINNER.read_bytes(), "text/xml"))
    return create()


def test_the_deployment_answer_names_the_decisions_and_their_drd(
    deployment: pycamunda.deployment.DeploymentWithDefinitions,
) -> None:
    decisions = deployment.deployed_decision_definitions or {}
    assert {d.key for d in decisions.values()} == {"beverages", "dish"}
    (drd,) = (deployment.deployed_decision_requirements_definitions or {}).values()
    assert drd.key == "dinner"
    assert {d.decision_requirements_definition_id for d in decisions.values()} == {drd.id_}


def test_a_decision_is_listed_read_and_its_xml_served(
    rest: LiveServer, deployment: pycamunda.deployment.DeploymentWithDefinitions
) -> None:
    listed = pycamunda.decisiondef.GetList(url=rest.url, key="dish", latest_version=True)()
    assert [(d.key, d.name) for d in listed] == [("dish", "Dish")]
    by_key = pycamunda.decisiondef.Get(url=rest.url, key="dish")()
    assert by_key.id_ == listed[0].id_
    xml = pycamunda.decisiondef.GetXML(url=rest.url, id_=by_key.id_)()
    assert xml.startswith("<?xml") and 'id="dish"' in xml


def test_evaluate_takes_typed_variables_and_answers_typed_results(
    rest: LiveServer, deployment: pycamunda.deployment.DeploymentWithDefinitions
) -> None:
    evaluate = pycamunda.decisiondef.Evaluate(url=rest.url, key="beverages")
    evaluate.add_variable("season", "Fall", "String")
    evaluate.add_variable("guestCount", 4, "Integer")
    evaluate.add_variable("guestsWithChildren", True, "Boolean")
    rows = evaluate()
    assert [row["beverages"].value for row in rows] == [
        "Aecht Schlenkerla Rauchbier",
        "Apple Juice",
    ]
    assert {row["beverages"].type_ for row in rows} == {"String"}
