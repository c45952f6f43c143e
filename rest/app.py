"""The Litestar application: every resource's routes under `/engine-rest`, flowledger's own
extensions (the sign-in session among them) under `/flowledger/v1`, documented in the same
OpenAPI document under that prefix, the web UI (rest/ui.py), Camunda's error shapes,
authentication (HTTP Basic or a session) when configured, one access-log line per request.

Handlers get the engine from one dependency, as a view acting as the authenticated user: every
command sent through the API records who sent it, and no handler passes an actor itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from litestar import Litestar, Request, Router
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import JsonRenderPlugin, YamlRenderPlugin

from flowledger.engine import Engine

from . import health, session, ui
from .access_log import access_log
from .auth import ASGIApp, PasswordCheck, Users, authenticated_user, authentication
from .errors import ErrorBodyDto, refuse_nul, to_response
from .paths import BASE_PATH, EXTENSIONS_PATH
from .resources import EXTENSIONS, MODULES
from .session import SIGN_IN_STATE, Sessions, SignIn

VIA_REST = "rest"  # the channel recorded with every command a request issues
BAD_REQUEST = ResponseSpec(ErrorBodyDto, description="Bad Request", generate_examples=False)
DEFAULT_MAX_BODY = 16 * 1024 * 1024


def create_app(
    engine: Engine,
    *,
    users: Users | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    ui_bundle: Path = ui.BUNDLE,
) -> ASGIApp:
    """The engine-rest application over `engine` (which the caller owns and closes), with the
    web UI built in `ui_bundle`.

    Authentication and the access log wrap the whole application, not only matched routes:
    an unknown path is logged, and answers 401 before 404 to a caller without credentials."""
    sign_in = None if users is None else SignIn(PasswordCheck(users), Sessions())
    app = cast(
        ASGIApp,
        create_litestar(
            engine, max_body_bytes=max_body_bytes, sign_in=sign_in, ui_bundle=ui_bundle
        ),
    )
    if sign_in is not None:
        app = authentication(sign_in.check, sign_in.sessions)(app)
    return access_log(app)


def create_litestar(
    engine: Engine,
    *,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    sign_in: SignIn | None = None,
    ui_bundle: Path = ui.BUNDLE,
) -> Litestar:
    """The Litestar application alone: routes, dependencies, error handlers, OpenAPI."""
    handlers: list[Any] = []
    on_startup: list[Any] = []
    on_shutdown: list[Any] = []
    for module in MODULES:
        handlers.extend(module.routes)
        on_startup.extend(getattr(module, "on_startup", []))
        on_shutdown.extend(getattr(module, "on_shutdown", []))

    for handler in handlers:
        # Litestar would document its own validation-error body for 400; ours is Camunda's.
        handler.responses = {400: BAD_REQUEST, **(handler.responses or {})}

    extensions = [handler for module in (*EXTENSIONS, session) for handler in module.routes]

    def provide_engine(request: Request[Any, Any, Any]) -> Engine:
        return engine.acting_as(authenticated_user(request.scope), via=VIA_REST)

    return Litestar(
        route_handlers=[
            Router(path=BASE_PATH, route_handlers=handlers),
            Router(path=EXTENSIONS_PATH, route_handlers=extensions),
            *health.routes,
            *ui.routes,
        ],
        dependencies={"engine": Provide(provide_engine, sync_to_thread=False)},
        state=State({"engine": engine, SIGN_IN_STATE: sign_in, ui.UI_BUNDLE_STATE: ui_bundle}),
        exception_handlers={Exception: to_response},
        before_request=refuse_nul,
        on_startup=on_startup,
        on_shutdown=on_shutdown,
        request_max_body_size=max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="flowledger engine-rest",
            version="7.15-compatible",
            path=f"{BASE_PATH}/openapi",
            # ReDoc from the UI bundle, and the document itself: no page that needs a CDN
            render_plugins=[
                ui.OfflineRedoc(ui_bundle, path=["/", "/redoc"]),
                JsonRenderPlugin(),
                YamlRenderPlugin(),
            ],
        ),
        logging_config=None,
        debug=False,
    )
