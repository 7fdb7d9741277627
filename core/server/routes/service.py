"""What the server is and serves: ``GET /api/health``, ``GET /api/rulesets`` and
``GET /api/rulesets/{id}``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from ... import protocol, provenance
from ...discovery import list_rulesets, load_ruleset
from ...errors import PluginError, RulesetError
from ...ruleset import ID_PATTERN
from ...version import __version__
from ..web import ApiError, RulesetId, errors

router = APIRouter()


@router.get("/api/health")
def health() -> dict[str, Any]:
    """Whether the server is up, its Blockyard version and the version of its live
    channels' protocol (:mod:`blockyard.protocol`)."""
    return {"ok": True, "version": __version__, "protocol": protocol.VERSION}


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
