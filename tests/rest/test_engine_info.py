"""`GET /engine`, `GET /version`, unknown paths and the served OpenAPI document."""

from __future__ import annotations

from .server import LiveServer


def test_engine_lists_the_default_engine(rest: LiveServer) -> None:
    response = rest.client.get("/engine")
    assert response.status_code == 200
    assert response.json() == [{"name": "default"}]


def test_version_names_the_api_version_followed(rest: LiveServer) -> None:
    assert rest.client.get("/version").json() == {"version": "7.15.0"}


def test_unknown_path_is_a_camunda_style_404(rest: LiveServer) -> None:
    response = rest.client.get("/no-such-resource")
    assert response.status_code == 404
    assert response.json()["type"] == "InvalidRequestException"


def test_get_with_a_json_body_is_answered_as_without(rest: LiveServer) -> None:
    # pycamunda sends `{}` with Content-Type application/json on every GET.
    response = rest.client.request("GET", "/engine", json={})
    assert response.status_code == 200
