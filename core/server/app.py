"""The HTTP application: the routers of :mod:`.routes` under ``/api`` (OpenAPI at
``/api/openapi.json``, browsable at ``/api/docs``), on one
:class:`~blockyard.server.state.Server` per process.

:func:`create_app` builds it from a :class:`~blockyard.server.settings.Settings`
(and a clock); its lifespan starts the live tables' hub and the players' feeds
and stops them, then the server's pools. Every answer is JSON; an error is
``{"error": "readable text"}`` (:mod:`.web`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import WebSocketRoute

from .. import watchdog
from ..version import __version__
from . import webpage
from .clock import Clock
from .logs import Requests
from .routes import ROUTERS
from .routes import ratings as ratings_routes
from .routes import tables as tables_routes
from .routes.service import served_rulesets
from .settings import DATABASE_ENV, VERIFIERS_ENV, Settings
from .social import Social
from .speedups import App
from .state import Server
from .tables import Hub
from .verify import HOOK_SECONDS
from .web import BodyLimit, HeadAsGet, error_body, validation_message

__all__ = ["DATABASE_ENV", "VERIFIERS_ENV", "App", "create_app", "create_app_from_env"]

log = logging.getLogger("blockyard.server")


YOUNG_OBJECTS = 50_000
"""The garbage collector's first threshold while a server runs (Python's default is
700). Each live connection and game is a few hundred objects that outlive a first
pass, so at the default the collector ran about 10 times a second at 1,000 clients
at the 2 s pace and, every 10 to 15 s, walked the whole heap (passes of 10 to
170 ms, about 1 s of a process's CPU a minute, while every connection waited); at
50,000 it ran about every 10 s, for 6 to 50 ms. Garbage in a cycle waits that
much longer for its pass (a few MB at most)."""


def create_app(settings: Settings | str, *, verifiers: int | None = None,
               clock: Clock | None = None) -> App:
    """The ASGI application on the (migrated) database of ``settings`` (or a
    database URL: the other settings then from this process's environment, with
    ``verifiers`` verifying processes), deciding by ``clock`` (the system's
    unless given)."""
    if isinstance(settings, str):
        settings = Settings.from_env(database=settings)
        if verifiers is not None:
            settings = dataclasses.replace(settings, verifiers=verifiers)
    server = Server(settings, clock)
    hub = Hub(server)
    social = Social(server, hub)
    # the live tables' games run plugin hooks in this process: under the watchdog
    watchdog.set_default(HOOK_SECONDS)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        await social.start()
        # what start-up made (the modules, the rules, the plugins) lives as long
        # as the process: kept out of the garbage collector's passes, each of which
        # would otherwise walk it again while every connection waits
        gc.freeze()
        collecting = gc.get_threshold()
        gc.set_threshold(YOUNG_OBJECTS, *collecting[1:])
        try:
            yield
        finally:
            gc.set_threshold(*collecting)
            await social.stop()
            await hub.stop()
            server.close()

    app = App(title="Blockyard server", version=__version__, lifespan=lifespan,
                  openapi_url="/api/openapi.json", docs_url=None, redoc_url=None,
                  lean=settings.lean)  # the speed-ups on or off (.speedups)
    _browsable_docs(app)
    app.state.server = server
    app.state.hub = hub
    app.state.social = social

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        return JSONResponse(error_body(str(exc.detail)), exc.status_code,
                            headers=getattr(exc, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        return JSONResponse(error_body(validation_message(exc)), 422)

    @app.exception_handler(ClientDisconnect)
    async def client_gone(request: Request, exc: ClientDisconnect) -> Response:
        # the client closed the connection before its body was read: nobody reads
        # an answer, and nothing went wrong here
        log.info("client disconnected before its body was read: %s %s", request.method,
                 request.url.path)
        return Response(status_code=400)

    for router in ROUTERS:
        app.include_router(router)
    webpage.add_page(app)  # the web page at / beside /api (docs/web.md)
    app.serve_live(route for router in ROUTERS for route in router.routes
                   if isinstance(route, WebSocketRoute))
    described = app.openapi

    def openapi() -> dict[str, Any]:
        """FastAPI's description, with what this server serves in it."""
        if app.openapi_schema is None:
            schema = described()
            served = [r["id"] for r in served_rulesets()]
            tables_routes.describe_served(schema, served)
            ratings_routes.describe_served(schema, served)
        return app.openapi_schema or described()

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's way to extend it
    app.add_middleware(BodyLimit)
    app.add_middleware(HeadAsGet)
    # outermost: ids, counts, and an exception no route handled logged once
    app.add_middleware(Requests)
    return app


DOCS_ASSETS = "/api/docs-assets"
"""Where the page of ``/api/docs`` finds Swagger UI's script, style and icon."""


def _browsable_docs(app: FastAPI) -> None:
    """``GET /api/docs``: the OpenAPI description in Swagger UI, whose files this
    server serves itself (fastapi-offline's copy of them) instead of FastAPI's
    default page, which loads them from a CDN and is blank without the internet."""
    import fastapi_offline
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from starlette.staticfiles import StaticFiles

    assets = Path(fastapi_offline.__file__).parent / "static"
    app.mount(DOCS_ASSETS, StaticFiles(directory=assets), name="docs-assets")

    @app.get("/api/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/api/openapi.json", title="Blockyard server",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png")


def create_app_from_env() -> FastAPI:
    """The application for a uvicorn worker, on the settings of its environment
    (:meth:`Settings.from_env <blockyard.server.settings.Settings.from_env>`:
    ``blockyard serve`` checked them and migrated the database first)."""
    return create_app(Settings.from_env())


