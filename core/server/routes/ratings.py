"""Ratings and Play now: ``GET /api/ratings/{ruleset_id}`` (the rated
leaderboard), ``GET /api/accounts/{name}`` (a player's ratings), and ``POST``,
``GET`` and ``DELETE /api/pairing`` (the pool of players waiting for an opponent).

What the ratings are is :mod:`blockyard.ratings`'; how players are paired,
:mod:`blockyard.server.pairing`'s; these routes read the request, ask and answer.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ... import ratings
from ...ruleset import ID_PATTERN
from .. import accounts, pairing, ratingstore
from ..state import ServerDep, SignedIn, SocialDep
from ..web import AccountName, ApiError, RulesetId, errors, json_body, read_model
from .tables import served_ruleset

router = APIRouter()
PageLimit = Annotated[int, Query(json_schema_extra={"minimum": 1,
                                                    "maximum": ratingstore.MAX_PAGE})]
PageOffset = Annotated[int, Query(json_schema_extra={"minimum": 0,
                                                     "maximum": 2**31 - 1})]


class PlayNow(BaseModel):
    """``POST /api/pairing``: the ruleset to be paired in."""

    model_config = ConfigDict(strict=True, extra="forbid")
    ruleset_id: Annotated[str, Field(max_length=64)]


def describe_served(schema: dict[str, Any], ruleset_ids: list[str]) -> None:
    """Say in the OpenAPI description ``schema`` which rulesets a player may be
    paired in (``ruleset_ids``, those this server serves)."""
    body = schema["paths"]["/api/pairing"]["post"]["requestBody"]
    body["content"]["application/json"]["schema"]["properties"]["ruleset_id"]["enum"] = \
        list(ruleset_ids)


@router.get("/api/ratings/{ruleset_id}", responses=errors(404, 422))
def get_ratings(ruleset_id: RulesetId, server: ServerDep, limit: PageLimit = 20,
                offset: PageOffset = 0) -> dict[str, Any]:
    """The rated leaderboard of a ruleset: every player with a rated round of
    it, best rating first, a page of ``limit`` (1–100) from ``offset``;
    provisional ratings are marked."""
    if len(ruleset_id) > 64 or not ID_PATTERN.fullmatch(ruleset_id):
        raise ApiError(422, "ruleset_id: expected a ruleset id")
    if not 1 <= limit <= ratingstore.MAX_PAGE:
        raise ApiError(422, f"limit: expected 1 to {ratingstore.MAX_PAGE}")
    if not 0 <= offset <= 2**31 - 1:
        raise ApiError(422, "offset: expected 0 or more")
    if served_ruleset(ruleset_id) is None:
        raise ApiError(404, f"this server does not serve the ruleset {ruleset_id!r}")
    total, entries = ratingstore.leaderboard(server.engine, ruleset_id, limit, offset)
    return {"ruleset_id": ruleset_id, "total": total, "offset": offset, "limit": limit,
            "provisional_games": ratings.PROVISIONAL_GAMES, "entries": entries}


@router.get("/api/accounts/{name}", responses=errors(404, 422))
def get_account(name: AccountName, server: ServerDep) -> dict[str, Any]:
    """A player's page: the name as stored and their rating in every ruleset
    they played a rated round of."""
    try:
        accounts.check_name(name)
    except accounts.AccountError as exc:
        raise ApiError(422, str(exc)) from None
    found = ratingstore.account_ratings(server.engine, name)
    if found is None:
        raise ApiError(404, f"no account named {name!r}")
    return found


@router.post("/api/pairing", status_code=201, openapi_extra=json_body(PlayNow),
             responses=errors(401, 409, 422, 429))
async def play_now(request: Request, account: SignedIn, server: ServerDep,
                   players: SocialDep) -> dict[str, Any]:
    """Play now: wait in the pool of ``ruleset_id`` until an opponent of a close
    rating is found; both are then seated at a new rated table and told on
    ``/api/me/live`` (``paired``). ``409`` when already waiting or seated at a
    table that is waiting or playing; ``429`` over the limit ``pairing`` (entries
    per account a minute)."""
    if not await server.pairing_limit.allow(f"account:{account.id}"):
        raise ApiError(429, f"at most {server.settings.limits['pairing']} entries into "
                            "Play now a minute; try again in a minute")
    body = await read_model(request, PlayNow)
    if served_ruleset(body.ruleset_id) is None:
        raise ApiError(422, f"ruleset_id: this server does not serve "
                            f"{body.ruleset_id!r}")
    try:
        await run_in_threadpool(pairing.enter, server.engine, account.id, body.ruleset_id,
                                server.clock.now())
    except pairing.PairingError as exc:
        raise ApiError(exc.status, str(exc)) from None
    await players.pair_now()  # someone close may be waiting already
    found = await run_in_threadpool(pairing.status, server.engine, account.id,
                                    server.clock.now())
    if found is None:  # left meanwhile (another call of the same player)
        raise ApiError(409, "left the pool meanwhile")
    return found


@router.get("/api/pairing", responses=errors(401, 404))
async def pairing_status(account: SignedIn, server: ServerDep) -> dict[str, Any]:
    """The caller's place in the pool: waiting (since when, the gap allowed now)
    or paired (the table and seat); ``404`` when not in it."""
    found = await run_in_threadpool(pairing.status, server.engine, account.id,
                                    server.clock.now())
    if found is None:
        raise ApiError(404, "not waiting for a game (POST /api/pairing to play now)")
    return found


@router.delete("/api/pairing", status_code=204, responses=errors(401, 404))
async def leave_pairing(account: SignedIn, server: ServerDep) -> Response:
    """Leave the pool (``404`` when not waiting)."""
    if not await run_in_threadpool(pairing.leave, server.engine, account.id):
        raise ApiError(404, "not waiting for a game")
    return Response(status_code=204)
