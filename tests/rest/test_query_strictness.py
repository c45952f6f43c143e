"""Query parameters that look absent but are not: an empty `firstResult`/`maxResults` and an
empty or unknown variable `operator` are the caller's mistakes, refused with a 400 that names
the parameter (they used to be read as "no paging" and as `eq`)."""

from __future__ import annotations

from typing import Any

import pytest

from .server import LiveServer

# Every way a list is paged: the shared listing, and the lists that page themselves.
PAGED_LISTS = [
    ("GET", "/process-instance"),
    ("POST", "/process-instance"),
    ("GET", "/history/process-instance"),
    ("POST", "/history/process-instance"),
    ("GET", "/task"),
    ("POST", "/task"),
    ("GET", "/external-task"),
    ("GET", "/job"),
    ("GET", "/history/decision-instance"),
    ("GET", "/deployment"),
]


@pytest.mark.parametrize("parameter", ["firstResult", "maxResults"])
@pytest.mark.parametrize(("method", "path"), PAGED_LISTS)
def test_an_empty_paging_parameter_is_a_400_naming_it(
    rest: LiveServer, method: str, path: str, parameter: str
) -> None:
    body: dict[str, Any] | None = {} if method == "POST" else None
    response = rest.client.request(method, path, params={parameter: ""}, json=body)

    assert response.status_code == 400, response.text
    assert response.json()["type"] == "InvalidRequestException"
    assert f"'{parameter}'" in response.json()["message"]


def test_paging_parameters_with_values_still_page(rest: LiveServer) -> None:
    response = rest.client.get("/deployment", params={"firstResult": "0", "maxResults": "1"})
    assert response.status_code == 200, response.text


# Every JSON query holding variable filters, and the list in it.
VARIABLE_FILTERS = [
    ("/history/process-instance", "variables"),
    ("/history/task", "processVariables"),
    ("/process-instance", "variables"),
    ("/execution", "processVariables"),
    ("/task", "taskVariables"),
    ("/variable-instance", "variableValues"),
]


@pytest.mark.parametrize("operator", ["", "between"])
@pytest.mark.parametrize(("path", "field"), VARIABLE_FILTERS)
def test_an_empty_or_unknown_variable_operator_is_a_400_naming_it(
    rest: LiveServer, path: str, field: str, operator: str
) -> None:
    filters = [
        {"name": "a", "operator": "eq", "value": 1},
        {"name": "b", "operator": operator, "value": 2},
    ]
    for url in (path, f"{path}/count"):
        response = rest.client.post(url, json={field: filters})

        assert response.status_code == 400, (url, response.text)
        message = response.json()["message"]
        assert message.startswith("Invalid variable comparator specified"), message
        assert f"{field}[1].operator" in message


@pytest.mark.parametrize(
    ("path", "parameter"),
    [("/process-instance", "variables"), ("/task", "taskVariables")],
)
def test_an_empty_operator_in_a_get_variable_filter_is_a_400_naming_it(
    rest: LiveServer, path: str, parameter: str
) -> None:
    response = rest.client.get(path, params={parameter: "a__1"})

    assert response.status_code == 400, response.text
    assert parameter in response.json()["message"]


def test_a_variable_filter_without_operator_still_means_eq(rest: LiveServer) -> None:
    response = rest.client.post(
        "/history/process-instance", json={"variables": [{"name": "a", "value": 1}]}
    )
    assert response.status_code == 200, response.text
