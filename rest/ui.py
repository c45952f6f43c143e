"""The web UI: the single-page app's index.html for each of its pages, the bundle's files under
`/ui/`, and the OpenAPI page rendered by the bundle's own copy of ReDoc. Nothing from the network.

The bundle is package data (rest/ui_bundle/, built by `cd ui && npm ci && npm run build`); a
checkout that has not built it answers a page saying so, never an error. Files under
`/ui/assets/` carry a content hash in their names, so browsers keep them for good; everything
else is revalidated (ETag). Only files inside the bundle are served: a path that climbs out of
it, or names a hidden file, is not found.
"""

from __future__ import annotations

import html
import mimetypes
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from litestar import Request, Response, get
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.params import FromPath

from .errors import RestError
from .paths import UI_ASSETS_PATH, UI_PAGES

BUNDLE = Path(__file__).parent / "ui_bundle"  # package data: the wheel ships it
UI_BUNDLE_STATE = "ui_bundle"  # where the application's state holds the bundle's folder
BUILD_COMMAND = "cd ui && npm ci && npm run build"
REDOC_SCRIPT = "vendor/redoc.standalone.js"  # copied there by the UI's build

# bpmn-js and dmn-js draw with inline styles; everything else comes from this server only.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; font-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
IMMUTABLE = "public, max-age=31536000, immutable"
# What each file type is, whatever the platform's mime.types says (some lack woff2 or mjs).
# Litestar adds `; charset=utf-8` to text types.
MEDIA_TYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".map": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff": "font/woff",
    ".woff2": "font/woff2",
    ".txt": "text/plain",
    ".wasm": "application/wasm",
}


@dataclass(frozen=True)
class _Found:
    file: Path
    etag: str


def _read(file: Path) -> _Found | None:
    """The file and its ETag (from its stat), or None: the bytes are read only for an answer
    that carries them, never for a 304."""
    try:
        stat = file.stat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not file.is_file():
        return None
    return _Found(file, f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"')


def _bundle(request: Request[Any, Any, Any]) -> Path:
    folder = request.app.state.get(UI_BUNDLE_STATE)
    return folder if isinstance(folder, Path) else BUNDLE


def _answer(
    request: Request[Any, Any, Any], found: _Found, media_type: str, headers: dict[str, str]
) -> Response[bytes]:
    headers = {**headers, "ETag": found.etag}
    if request.headers.get("if-none-match") == found.etag:
        return Response(b"", status_code=304, headers=headers, media_type=media_type)
    try:
        body = found.file.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise RestError(404, "InvalidRequestException", "No such file") from None
    return Response(body, headers=headers, media_type=media_type)


def not_built_page(what: str) -> bytes:
    """The page that stands in for `what` where the bundle is missing: how to build it."""
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<title>flowledger: the web UI is not built</title></head><body>"
        f"<h1>The web UI is not built</h1><p>{html.escape(what)} comes from the UI bundle "
        "(rest/ui_bundle/), which this installation lacks. Build it from a source checkout "
        f"with <code>{html.escape(BUILD_COMMAND)}</code>, then reload this page.</p>"
        "<p>The REST API works without it, under <code>/engine-rest</code>.</p></body></html>"
    ).encode()


def _index(request: Request[Any, Any, Any]) -> Response[bytes]:
    headers = {**PAGE_HEADERS, "Cache-Control": "no-cache"}
    found = _read(_bundle(request) / "index.html")
    if found is None:
        body = not_built_page("The cockpit and tasklist")
        return Response(body, status_code=503, headers=headers, media_type=MEDIA_TYPES[".html"])
    return _answer(request, found, MEDIA_TYPES[".html"], headers)


def _page_at(path: str) -> HTTPRouteHandler:
    # One handler per path: Litestar wraps a sync handler for its thread once per handler.
    @get(path, include_in_schema=False, sync_to_thread=True)
    def page(request: Request[Any, Any, Any]) -> Response[bytes]:
        """One of the app's pages, or a link into it (`/cockpit/instances/ID?position=3`): its
        index.html (the app routes in the browser)."""
        return _index(request)

    return page


PAGES = [*UI_PAGES, *(f"{prefix}{{path:path}}" for prefix in ("/cockpit/", "/tasklist/"))]


def _inside(bundle: Path, path: str) -> Path | None:
    """The bundle's file `path` names, or None when it names none or climbs out."""
    parts = PurePosixPath(path).parts
    if not parts or any(part.startswith(".") or "\\" in part or "\0" in part for part in parts):
        return None  # `..`, hidden files, and Windows separators
    root = bundle.resolve()
    file = root.joinpath(*parts).resolve()
    return file if file.is_relative_to(root) and file.is_file() else None


@get(f"{UI_ASSETS_PATH}/{{path:path}}", include_in_schema=False, sync_to_thread=True)
def asset(request: Request[Any, Any, Any], path: FromPath[Path]) -> Response[bytes]:
    """A file of the bundle: scripts, styles, fonts, the OpenAPI page's ReDoc."""
    relative = str(path).lstrip("/")
    file = _inside(_bundle(request), relative)
    found = _read(file) if file is not None else None
    if file is None or found is None:
        raise RestError(
            404, "InvalidRequestException", f"No such file: {UI_ASSETS_PATH}/{relative}"
        )
    media_type = MEDIA_TYPES.get(file.suffix.lower()) or (
        mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    )
    caching = IMMUTABLE if relative.startswith("assets/") else "no-cache"
    headers = {"Cache-Control": caching, "X-Content-Type-Options": "nosniff"}
    return _answer(request, found, media_type, headers)


routes: list[Any] = [*(_page_at(path) for path in PAGES), asset]


# ReDoc runs its search in a worker it makes from a blob; its footer would fetch a logo from its
# CDN, which this policy stops (the logo then hides itself).
OPENAPI_PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; font-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; script-src 'self'; worker-src 'self' blob:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'"
)


class OfflineRedoc(OpenAPIRenderPlugin):
    """The OpenAPI page with ReDoc from the UI bundle (`/ui/vendor/`), not from a CDN: no
    favicon, font or script from elsewhere, and a policy that lets the page reach nothing else.
    Without the bundle it says how to build it."""

    def __init__(self, bundle: Path, path: str | list[str]) -> None:
        super().__init__(path=path, favicon="", style="<style>body { margin: 0 }</style>")
        self.bundle = bundle

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if not (self.bundle / REDOC_SCRIPT).is_file():
            return not_built_page("The OpenAPI page")
        title = html.escape(str(openapi_schema.get("info", {}).get("title", "OpenAPI")))
        spec = html.escape(self.get_openapi_json_route(request), quote=True)
        return (
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<meta http-equiv='Content-Security-Policy' content=\"{OPENAPI_PAGE_POLICY}\">"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{title}</title>{self.style}</head><body>"
            f"<redoc spec-url='{spec}'></redoc>"
            f"<script src='{UI_ASSETS_PATH}/{REDOC_SCRIPT}'></script></body></html>"
        ).encode()
