"""Submitted games and leaderboards: ``POST /api/games``, ``GET
/api/games/{id}``, ``GET /api/accounts/{name}/games`` and ``GET
/api/leaderboards/{ruleset_id}``."""

from __future__ import annotations

import datetime as _dt
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ...ruleset import ID_PATTERN
from .. import accounts, games
from ..state import ServerDep, SignedIn
from ..verify import Refused
from ..web import (
    AccountName,
    ApiError,
    Day,
    Limit,
    RowId,
    RulesetId,
    account_listing,
    check_id,
    errors,
)

router = APIRouter()
MAX_LEADERBOARD = 100
LeaderboardLimit = Annotated[int, Query(json_schema_extra={"minimum": 1,
                                                           "maximum": MAX_LEADERBOARD})]


@router.post("/api/games", status_code=201, responses=errors(401, 409, 422, 429))
async def submit_game(request: Request, account: SignedIn, server: ServerDep
                      ) -> dict[str, Any]:
    """Submit a finished game's replay file (JSON as ``blockyard.replays``
    writes it). The server replays the log with its own rules and stores
    the score it computed; ``counted`` is false for practice (a daily game
    after the player's first finished game of that date)."""
    if not await server.submit_limit.allow(f"account:{account.id}"):
        raise ApiError(429, "too many games submitted; try again in a minute")
    try:  # the body is parsed in a verifying process, never in this event loop
        verified = await server.verifier.verify(await request.body(), account.name)
    except Refused as exc:
        raise ApiError(422, str(exc)) from None
    try:
        game_id, counted = await run_in_threadpool(games.store_game, server.engine,
                                                   account, verified)
    except games.Duplicate:
        raise ApiError(409, "this game was submitted already") from None
    return {"id": game_id, "ruleset_id": verified.ruleset_id, "score": verified.score,
            "counted": counted}


@router.get("/api/games/{game_id}", responses=errors(404, 422))
def get_game(game_id: RowId, server: ServerDep) -> dict[str, Any]:
    """A stored game's replay JSON: anyone may watch and verify it."""
    check_id(game_id, "game_id")
    found = games.game_replay(server.engine, game_id)
    if found is None:
        raise ApiError(404, f"no game {game_id}")
    return found


@router.get("/api/accounts/{name}/games", responses=errors(404, 422))
def get_player_games(name: AccountName, server: ServerDep, limit: Limit = 100) -> dict[str, Any]:
    """A player's verified games, newest first (``limit`` 1–1000): the records
    that follow an account from machine to machine."""
    return account_listing(name, limit, "games",
                           lambda who, n: games.player_games(server.engine, who, n))


@router.get("/api/leaderboards/{ruleset_id}", responses=errors(404, 422))
def get_leaderboard(ruleset_id: RulesetId, server: ServerDep, date: Day = None,
                    limit: LeaderboardLimit = 20) -> dict[str, Any]:
    """The best counted games, best first. Daily rulesets: of ``date``
    (default today, UTC), each player's first finished game of that date.
    Other rulesets: each player's best (of ``date`` when given). ``total``:
    how many players the whole leaderboard has, beyond ``limit`` too (a rank
    "of N")."""
    if len(ruleset_id) > 64 or not ID_PATTERN.fullmatch(ruleset_id):
        raise ApiError(422, "ruleset_id: expected a ruleset id")
    if date is not None:
        try:
            if len(date) != 10:
                raise ValueError
            _dt.date.fromisoformat(date)
        except ValueError:
            raise ApiError(422, "date: expected YYYY-MM-DD") from None
    if not 1 <= limit <= MAX_LEADERBOARD:
        raise ApiError(422, f"limit: expected 1 to {MAX_LEADERBOARD}")
    try:
        daily = games.is_daily(ruleset_id)
    except KeyError:
        raise ApiError(404, f"this server does not serve the ruleset {ruleset_id!r}"
                       ) from None
    if daily and date is None:
        date = accounts.now().date().isoformat()
    entries = games.leaderboard(server.engine, ruleset_id, daily, date, limit)
    total = games.leaderboard_total(server.engine, ruleset_id, date)
    return {"ruleset_id": ruleset_id, "date": date, "total": total, "entries": entries}
