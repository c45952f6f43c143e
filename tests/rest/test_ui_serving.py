"""The web UI as `flowledger serve` serves it: the app's pages open to all (the sign-in form must
load) while the API keeps asking for credentials, index.html for every deep link with a strict
Content-Security-Policy, the bundle's files with their types and caching, nothing outside the
bundle, a page saying how to build a missing bundle, and the OpenAPI page with no CDN.

Each test serves a bundle of its own making (not the repository's build), through the whole
application: middleware, routes and error handling."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from flowledger import Engine
from flowledger.rest import create_app
from flowledger.rest.auth import ASGIApp, Users, hash_password

INDEX = "<!DOCTYPE html><title>flowledger</title><script type=module src=/ui/assets/app-1a2b.js>"
REDOC = "/* ReDoc standalone, as the UI build copies it */ var Redoc = {};"


def make_bundle(folder: Path) -> Path:
    """A bundle as `npm run build` leaves it in rest/ui_bundle/, in miniature."""
    (folder / "assets").mkdir(parents=True)
    (folder / "vendor").mkdir()
    (folder / "index.html").write_text(INDEX)
    (folder / "assets" / "app-1a2b.js").write_text("console.log('cockpit')")
    (folder / "assets" / "app-1a2b.css").write_text("body { margin: 0 }")
    (folder / "assets" / "bpmn-3c4d.woff2").write_bytes(b"wOF2\0\0")
    (folder / "assets" / "logo-5e6f.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    (folder / "vendor" / "redoc.standalone.js").write_text(REDOC)
    (folder / ".env").write_text("SECRET=hidden")
    return folder


@pytest.fixture(scope="module")
def engine() -> Iterator[Engine]:
    with Engine("sqlite://") as opened:
        yield opened


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ui")
    (root / "secret.txt").write_text("beside the bundle, never served")
    return make_bundle(root / "ui_bundle")


@pytest.fixture(scope="module")
def app(engine: Engine, bundle: Path) -> ASGIApp:
    return create_app(engine, users=Users({"demo": hash_password("pw")}), ui_bundle=bundle)


@pytest.fixture(scope="module")
def client(app: ASGIApp) -> Iterator[TestClient[Any]]:
    with TestClient(app) as opened:  # type: ignore[arg-type]
        yield opened


def raw_get(app: ASGIApp, path: str) -> tuple[int, bytes]:
    """GET `path` exactly as the server hands it to the application, percent-decoded (an HTTP
    client would resolve its dot segments before sending)."""
    sent: list[dict[str, Any]] = []
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8080),
        "state": {},
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


PAGES = [
    "/",
    "/login?next=/cockpit/audit",
    "/cockpit",
    "/cockpit/",
    "/cockpit/instances/5f0c-77?position=12&diff=9&tab=variables",
    "/cockpit/definitions/invoice:3:abc",
    "/tasklist",
    "/tasklist/tasks/42",
    "/tasklist/start/invoice:1:x",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_of_the_app_answers_its_index_without_credentials(
    client: TestClient[Any], path: str
) -> None:
    answer = client.get(path)
    assert answer.status_code == 200, answer.text
    assert answer.text == INDEX
    assert answer.headers["content-type"].startswith("text/html")
    assert answer.headers["cache-control"] == "no-cache"


@pytest.mark.parametrize(
    "path",
    [
        "/engine-rest/engine",
        "/engine-rest/process-definition",
        "/engine-rest/openapi",
        "/flowledger/v1/log/head",
        "/actuator/health",
        "/cockpitx",
        "/ui",
    ],
)
def test_the_api_still_answers_401_without_credentials(client: TestClient[Any], path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 401
    assert answer.json()["type"] == "AuthenticationException"


def test_the_pages_carry_a_strict_content_security_policy(client: TestClient[Any]) -> None:
    answer = client.get("/cockpit/instances/1")
    policy = {
        directive.split()[0]: directive.split()[1:]
        for directive in answer.headers["content-security-policy"].split(";")
        if directive.strip()
    }
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]  # no inline script, no eval, no other host
    assert policy["connect-src"] == ["'self'"]
    assert policy["img-src"] == ["'self'", "data:"]
    assert policy["style-src"] == ["'self'", "'unsafe-inline'"]  # bpmn-js styles inline
    assert policy["frame-ancestors"] == ["'none'"]
    assert answer.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    ("path", "media_type"),
    [
        ("/ui/assets/app-1a2b.js", "text/javascript"),
        ("/ui/assets/app-1a2b.css", "text/css"),
        ("/ui/assets/bpmn-3c4d.woff2", "font/woff2"),
        ("/ui/assets/logo-5e6f.svg", "image/svg+xml"),
    ],
)
def test_hashed_assets_are_served_with_their_type_and_kept_for_good(
    client: TestClient[Any], bundle: Path, path: str, media_type: str
) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer.content == (bundle / path.removeprefix("/ui/")).read_bytes()
    assert answer.headers["content-type"].split(";")[0] == media_type
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"


def test_other_files_are_revalidated(client: TestClient[Any]) -> None:
    answer = client.get("/ui/vendor/redoc.standalone.js")
    assert answer.status_code == 200 and answer.text == REDOC
    assert answer.headers["cache-control"] == "no-cache"
    again = client.get(
        "/ui/vendor/redoc.standalone.js", headers={"If-None-Match": answer.headers["etag"]}
    )
    assert again.status_code == 304 and again.content == b""
    index = client.get("/")
    assert client.get("/", headers={"If-None-Match": index.headers["etag"]}).status_code == 304


def test_a_missing_file_is_a_404(client: TestClient[Any]) -> None:
    answer = client.get("/ui/assets/app-0000.js")
    assert answer.status_code == 404
    assert answer.json()["type"] == "InvalidRequestException"


@pytest.mark.parametrize(
    "path",
    [
        "/ui/../secret.txt",
        "/ui/assets/../../secret.txt",
        "/ui/.env",
        "/ui/assets/../.env",
        "/ui/assets",
    ],
)
def test_nothing_outside_the_bundle_nor_hidden_is_served(app: ASGIApp, path: str) -> None:
    status, body = raw_get(app, path)
    assert status == 404, body
    assert b"never served" not in body and b"SECRET" not in body


def test_a_link_out_of_the_bundle_is_not_followed(tmp_path: Path, engine: Engine) -> None:
    bundle = make_bundle(tmp_path / "ui_bundle")
    (tmp_path / "secret.txt").write_text("never served")
    (bundle / "assets" / "escape.txt").symlink_to(tmp_path / "secret.txt")
    status, body = raw_get(create_app(engine, ui_bundle=bundle), "/ui/assets/escape.txt")
    assert status == 404 and b"never served" not in body


@pytest.mark.parametrize("path", ["/cockpit/../engine-rest/engine", "/ui/../engine-rest/engine"])
def test_a_page_path_does_not_lead_into_the_api(app: ASGIApp, path: str) -> None:
    status, body = raw_get(app, path)
    assert status != 200 or body.startswith(b"<!DOCTYPE html>"), body
    assert b"name" not in body  # the engine list is [{"name": "default"}]


def test_without_a_bundle_the_pages_say_how_to_build_it(tmp_path: Path, engine: Engine) -> None:
    with TestClient(create_app(engine, ui_bundle=tmp_path / "none")) as client:  # type: ignore[arg-type]
        for path in ("/", "/cockpit/instances/1", "/tasklist"):
            answer = client.get(path)
            assert answer.status_code == 503
            assert answer.headers["content-type"].startswith("text/html")
            assert "cd ui &amp;&amp; npm ci &amp;&amp; npm run build" in answer.text
        assert client.get("/ui/assets/app.js").status_code == 404
        openapi = client.get("/engine-rest/openapi")
        assert openapi.status_code == 200
        assert "not built" in openapi.text and "redoc" not in openapi.text.lower()
        assert client.get("/engine-rest/engine").status_code == 200  # the API works without it


def _outside_hosts(page: str) -> list[str]:
    return re.findall(r"(?:https?:)?//[\w.-]+", page)


@pytest.mark.parametrize("path", ["/engine-rest/openapi", "/engine-rest/openapi/redoc"])
def test_the_openapi_page_needs_no_network(client: TestClient[Any], path: str) -> None:
    answer = client.get(path, auth=("demo", "pw"))
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    page = answer.text
    assert _outside_hosts(page) == []  # no CDN script, font or favicon
    assert "<script src='/ui/vendor/redoc.standalone.js'></script>" in page
    spec = re.search(r"spec-url='([^']+)'", page)
    assert spec is not None
    document = client.get(spec.group(1), auth=("demo", "pw"))
    assert document.status_code == 200 and document.json()["openapi"].startswith("3.")
    assert client.get("/ui/vendor/redoc.standalone.js").text == REDOC  # open to all


@pytest.mark.parametrize("site", ["swagger", "elements", "rapidoc", "stoplight"])
def test_no_openapi_page_from_a_cdn_is_left(client: TestClient[Any], site: str) -> None:
    assert client.get(f"/engine-rest/openapi/{site}", auth=("demo", "pw")).status_code == 404


def test_the_openapi_document_lists_the_session_endpoints(client: TestClient[Any]) -> None:
    document = client.get("/engine-rest/openapi/openapi.json", auth=("demo", "pw")).json()
    assert set(document["paths"]["/flowledger/v1/session"]) == {"get", "post", "delete"}
    assert not [path for path in document["paths"] if path.startswith(("/ui", "/cockpit"))]
