"""What the server is and serves: ``GET /api/health``, ``GET /api/ready``,
``GET /metrics``, ``GET /api/rulesets`` and ``GET /api/rulesets/{id}``."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from ... import protocol, provenance
from ...discovery import list_rulesets, load_ruleset
from ...errors import PluginError, RulesetError
from ...ruleset import ID_PATTERN
from ...version import __version__
from .. import db, metrics, tablestore
from ..logs import database_unavailable
from ..state import ServerDep
from ..web import ApiError, ErrorAnswer, RulesetId, error_body, errors

router = APIRouter()


@router.get("/api/health")
def health() -> dict[str, Any]:
    """Whether the server is up, its Blockyard version and the version of its live
    channels' protocol (:mod:`blockyard.protocol`)."""
    return {"ok": True, "version": __version__, "protocol": protocol.VERSION}


class Ready(BaseModel):
    """``GET /api/ready``'s answer when the server can serve."""

    ready: bool
    schema_revision: str


def readiness(engine: sa.Engine) -> str | None:
    """Why the server cannot serve now (the database unreachable, its schema
    behind this build's), or ``None``. Blocking: one query."""
    try:
        with engine.connect() as connection:
            found = db.current_revision(connection)
    except Exception as exc:
        if not database_unavailable(exc) and not isinstance(exc, sa.exc.DBAPIError):
            raise
        return f"the database is unreachable ({type(exc).__name__})"
    head = db.head_revision()
    if found != head:
        return (f"the database's schema is at revision {found or 'none'}, this build "
                f"needs {head}: run the migrations (blockyard serve-db upgrade)")
    return None


@router.get("/api/ready", response_model=Ready, responses={
    503: {"model": ErrorAnswer,
          "description": "not ready: the database unreachable or its schema behind"}})
async def ready(server: ServerDep) -> Any:
    """Whether this server process can serve now: ``200`` when its database
    answers and its schema is the one this build needs, else ``503`` with the
    reason (for a load balancer's or an orchestrator's readiness check;
    ``/api/health`` says only that the process is up)."""
    problem = await run_in_threadpool(readiness, server.engine)
    if problem is not None:
        return JSONResponse(error_body(problem), 503, headers={"Retry-After": "5"})
    return {"ready": True, "schema_revision": db.head_revision()}


@router.get("/metrics", include_in_schema=False)
async def get_metrics(server: ServerDep) -> Response:
    """The server's figures in Prometheus' text format (:mod:`blockyard.server.metrics`);
    ``404`` when switched off (``blockyard serve --no-metrics``)."""
    if not server.settings.metrics:
        raise ApiError(404, "metrics are switched off on this server (--no-metrics)")
    page = await run_in_threadpool(metrics.scrape,
                                   lambda: tablestore.count_tables(server.engine))
    return Response(page, media_type=metrics.CONTENT_TYPE_LATEST)


@router.get("/api/rulesets")
async def get_rulesets() -> dict[str, Any]:
    """The rulesets this server serves, each with its ``digest`` (the SHA-256
    of its resolved rule file) and the plugin distributions (``name``,
    ``version``) whose code answers its hooks, Blockyard's own included: a
    game played with anything else is refused, naming the difference."""
    return {"rulesets": await run_in_threadpool(served_rulesets)}


@router.get("/api/rulesets/{ruleset_id}", responses=errors(404, 422))
async def get_ruleset(ruleset_id: RulesetId) -> dict[str, Any]:
    """One served ruleset as ``GET /api/rulesets`` lists it, with its resolved
    rule file (``rules``, TOML): a client names the rule key that differs from
    its own."""
    if len(ruleset_id) > 64 or not ID_PATTERN.fullmatch(ruleset_id):
        raise ApiError(422, "ruleset_id: expected a ruleset id")
    found = await run_in_threadpool(served_ruleset, ruleset_id)
    if found is None:
        raise ApiError(404, f"this server does not serve the ruleset {ruleset_id!r}")
    return found


def served_rulesets() -> list[dict[str, Any]]:
    """Every ruleset this server serves (those that load here), as ``GET
    /api/rulesets`` lists them, by id."""
    out = []
    for info in sorted(list_rulesets(), key=lambda i: i.id):
        if info.error is not None:
            continue
        try:
            out.append(provenance.served_json(load_ruleset(info.id)))
        except (RulesetError, PluginError):  # broken since it was listed: not served
            continue
    return out


def served_ruleset(ruleset_id: str) -> dict[str, Any] | None:
    """A served ruleset with its resolved rule text (``rules``), or ``None`` when
    this server does not serve ``ruleset_id``."""
    if len(ruleset_id) > 64 or not ID_PATTERN.fullmatch(ruleset_id):  # an id, never a path
        return None
    try:
        ruleset = load_ruleset(ruleset_id)
    except (RulesetError, PluginError):
        return None
    return {**provenance.served_json(ruleset), "rules": ruleset.to_toml()}
