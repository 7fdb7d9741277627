"""The web page on ``blockyard serve`` (docs/web.md).

``/`` the launcher and ``/play/{ruleset_id}`` a game answer the page's
``index.html`` (its base the site's root); the page's scripts, style, icons,
manifest, fonts (``/fonts/...``), Pyodide's runtime (``/pyodide/...``) and the
Python archive are the files of the site :func:`blockyard.website.served_site` builds, on the first
request for one of them (the server starts as fast as without the page). None of
these paths is under ``/api`` and none is in the OpenAPI description.
"""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import FastAPI, HTTPException
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from .. import website

log = logging.getLogger(__name__)

NO_STORE_AGE = {"Cache-Control": "no-cache"}
"""Every file of the page is asked again each visit (answered 304 when unchanged),
so a server of a new version serves its page at once."""

MEDIA_TYPES = {".mjs": "text/javascript", ".ttf": "font/ttf",
               ".webmanifest": "application/manifest+json", ".wasm": "application/wasm",
               ".zip": "application/zip"}


async def _site() -> Path:
    try:
        return await run_in_threadpool(website.served_site)
    except website.WebBuildError as exc:
        log.warning("the web page cannot be served: %s", exc)
        raise HTTPException(503, f"the web page is not built on this server: {exc}") from None


def _file(folder: Path, name: str) -> Response:
    path = folder / name
    if not path.is_file():
        raise HTTPException(404, f"no file {name!r} in the web page")
    return FileResponse(path, media_type=MEDIA_TYPES.get(path.suffix), headers=NO_STORE_AGE)


def add_page(app: FastAPI) -> None:
    """Serve the web page on ``app`` beside ``/api``."""
    sources = website.page_sources()
    top = sorted({p.name for p in sources.iterdir() if p.is_file()
                  and p.suffix in website.PAGE_SUFFIXES and p.name != "index.html"}
                 | {website.ARCHIVE})

    async def index() -> HTMLResponse:
        folder = await _site()
        text = (folder / "index.html").read_text("utf-8")
        return HTMLResponse(website.with_base(text, "/"), headers=NO_STORE_AGE)

    app.add_api_route("/", index, methods=["GET"], include_in_schema=False)

    async def play(ruleset_id: str) -> HTMLResponse:
        return await index()

    app.add_api_route("/play/{ruleset_id}", play, methods=["GET"], include_in_schema=False)

    def top_file(name: str) -> None:
        async def answer() -> Response:
            return _file(await _site(), name)

        app.add_api_route(f"/{name}", answer, methods=["GET"], include_in_schema=False)

    for name in top:
        top_file(name)

    async def pyodide(name: str) -> Response:
        if name not in website.PYODIDE_FILES:
            raise HTTPException(404, f"no file {name!r} in the web page's Pyodide")
        return _file(await _site() / "pyodide", name)

    app.add_api_route("/pyodide/{name}", pyodide, methods=["GET"], include_in_schema=False)

    async def font(name: str) -> Response:
        if name not in website.FONTS:
            raise HTTPException(404, f"no font {name!r} in the web page")
        return _file(await _site() / "fonts", name)

    app.add_api_route("/fonts/{name}", font, methods=["GET"], include_in_schema=False)

    async def icon(name: str) -> Response:
        return _file(await _site() / "icons", name)

    app.add_api_route("/icons/{name}", icon, methods=["GET"], include_in_schema=False)
