"""The tree head and proofs over REST (`/flowledger/v1/log/tree-head`, `/log/proof`,
`/log/consistency`): the documents the command line writes, checked here as an auditor checks
them, offline, with `eventlog.proofs`; parameters that are not whole numbers are 400s in
Camunda's error shape, positions beyond the log 404s."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from flowledger.eventlog import proofs
from flowledger.rest.paths import BASE_PATH, EXTENSIONS_PATH
from tests.support import bpmn

from .server import LiveServer


@pytest.fixture(scope="module")
def ext(rest: LiveServer) -> Iterator[httpx.Client]:
    rest.deploy(bpmn("rest_task_steps.bpmn"), name="log-proofs")
    base = rest.url.removesuffix(BASE_PATH) + EXTENSIONS_PATH
    with httpx.Client(base_url=base, timeout=60) as client:
        yield client


def test_a_proof_from_rest_checks_offline_against_the_head(ext: httpx.Client) -> None:
    head = ext.get("/log/tree-head")
    assert head.status_code == 200, head.text
    tree = head.json()
    assert tree["size"] >= 1 and len(tree["root"]) == 64
    response = ext.get("/log/proof", params={"position": tree["position"]})
    assert response.status_code == 200, response.text
    proof = proofs.decode(response.content)
    assert isinstance(proof, proofs.InclusionProof)
    trusted = proofs.TreeHead(**tree)
    assert proofs.check_inclusion(proof, trusted) == []
    assert proof.leaf_index == tree["size"] - 1  # the last position is in the last commit

    consistency = ext.get("/log/consistency", params={"from": 1})
    assert consistency.status_code == 200, consistency.text
    grown = proofs.decode(consistency.content)
    assert isinstance(grown, proofs.ConsistencyProof)
    assert (grown.new.size, grown.new.root) == (tree["size"], tree["root"])
    assert proofs.check_consistency(grown, trusted) == []


def test_bad_parameters_are_refused_in_camundas_shape(ext: httpx.Client) -> None:
    for params in ({}, {"position": "x"}, {"position": "0"}, {"position": "1", "size": "-1"}):
        response = ext.get("/log/proof", params=params)
        assert response.status_code == 400, (params, response.text)
        assert response.json()["type"] == "InvalidRequestException"
    beyond = ext.get("/log/proof", params={"position": 10_000_000})
    assert beyond.status_code == 404, beyond.text
    too_big = ext.get("/log/consistency", params={"from": 1, "to": 10_000_000})
    assert too_big.status_code == 400, too_big.text
    assert "no tree head of 10000000" in too_big.json()["message"]
