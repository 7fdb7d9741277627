"""Verified games and leaderboards in the database.

Daily rulesets (docs/rules.md §3.4, §5.4): the first finished game of a player's date
counts, later ones of that date are practice (``counted`` false). A daily game
counts only while its date is today's somewhere on Earth (within a day of the
server's UTC date): an old daily uploaded later is practice. Other rulesets:
every game counts, and the leaderboard shows each player's best.
"""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from ..version import __version__
from . import db
from .accounts import Account, now
from .verify import Verified


class Duplicate(Exception):
    """This very game (the same identity) is stored already."""


def _counts_today(date: str | None) -> bool:
    if date is None:
        return False
    try:
        day = _dt.date.fromisoformat(date)
    except ValueError:
        return False
    today = now().date()
    return abs((day - today).days) <= 1


def _stored(engine: Engine, identity: str) -> bool:
    with engine.connect() as conn:
        return conn.execute(sa.select(db.games.c.id)
                            .where(db.games.c.identity == identity)).first() is not None


def store_game(engine: Engine, account: Account, game: Verified) -> tuple[int, bool]:
    """Store a verified game with this server's version (``server_version``): its
    id and whether it counts (:class:`Duplicate` when a game of the same identity
    is stored already, whoever sent it)."""
    values: dict[str, Any] = {
        "account_id": account.id, "ruleset_id": game.ruleset_id,
        "ruleset_digest": game.ruleset_digest, "daily": game.daily, "date": game.date,
        "seed": game.seed, "score": game.score, "moves": game.moves,
        "log_digest": game.identity, "identity": game.identity, "replay": game.replay,
        "submitted": now(), "server_version": __version__}
    counted = _counts_today(game.date) if game.daily else True
    if _stored(engine, game.identity):
        raise Duplicate(game.identity)
    for attempt in (counted, False) if counted else (False,):
        try:
            with engine.begin() as conn:
                result = conn.execute(sa.insert(db.games).values(counted=attempt, **values))
                key = result.inserted_primary_key
                assert key is not None
                return int(key[0]), attempt
        except sa.exc.IntegrityError:
            # the daily's first game is stored already (the partial unique index), or
            # the same game arrived at the same moment
            if _stored(engine, game.identity):
                raise Duplicate(game.identity) from None
    raise Duplicate(game.identity)  # pragma: no cover - the practice insert cannot clash


def game_replay(engine: Engine, game_id: int) -> dict[str, Any] | None:
    """The stored replay JSON of a game, or ``None``."""
    with engine.connect() as conn:
        row = conn.execute(sa.select(db.games.c.replay)
                           .where(db.games.c.id == game_id)).first()
    if row is None:
        return None
    data: dict[str, Any] = json.loads(row.replay)
    return data


def is_daily(ruleset_id: str) -> bool:
    """Whether the served ruleset ``ruleset_id`` is a daily one (``KeyError``:
    not served)."""
    from ..discovery import load_ruleset
    from ..errors import PluginError, RulesetError

    try:
        return load_ruleset(ruleset_id).is_daily
    except (RulesetError, PluginError):
        raise KeyError(ruleset_id) from None


def _counted(ruleset_id: str, date: str | None) -> list[Any]:
    """The conditions of a leaderboard's games: counted games of the ruleset (of
    ``date`` when given)."""
    g = db.games
    where = [g.c.ruleset_id == ruleset_id, g.c.counted.is_(True)]
    if date is not None:
        where.append(g.c.date == date)
    return where


def leaderboard_total(engine: Engine, ruleset_id: str, date: str | None) -> int:
    """How many players the whole leaderboard of :func:`leaderboard` has (each
    once, those beyond any limit too): the N of a "rank of N"."""
    players = sa.select(sa.func.count(sa.distinct(db.games.c.account_id))).where(
        *_counted(ruleset_id, date))
    with engine.connect() as conn:
        return int(conn.execute(players).scalar_one())


def leaderboard(engine: Engine, ruleset_id: str, daily: bool, date: str | None,
                limit: int) -> list[dict[str, Any]]:
    """The best counted games, best first: for a daily ruleset the counted game
    of each player on ``date``; otherwise each player's best game (of ``date``
    when given). Ties: the earlier submission ranks first."""
    g, a = db.games, db.accounts
    where = _counted(ruleset_id, date)
    ranked = (sa.select(g.c.id, g.c.account_id, g.c.score,
                        sa.func.row_number().over(partition_by=g.c.account_id,
                                                  order_by=(g.c.score.desc(), g.c.id))
                        .label("nth"))
              .where(*where).subquery())
    query = (sa.select(ranked.c.id, ranked.c.score, a.c.name)
             .join(a, a.c.id == ranked.c.account_id)
             .where(ranked.c.nth == 1)
             .order_by(ranked.c.score.desc(), ranked.c.id)
             .limit(limit))
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    return [{"rank": n, "name": row.name, "score": int(row.score), "game_id": int(row.id)}
            for n, row in enumerate(rows, 1)]


def player_games(engine: Engine, name: str, limit: int) -> list[dict[str, Any]] | None:
    """A player's stored games, newest first (``None``: no such account): their
    records across machines, each with the version of the server build that
    verified and stored it (``server_version``; ``None`` when not known)."""
    g, a = db.games, db.accounts
    with engine.connect() as conn:
        account = conn.execute(sa.select(a.c.id).where(a.c.name_key == name.lower())).first()
        if account is None:
            return None
        rows = conn.execute(sa.select(g.c.id, g.c.ruleset_id, g.c.date, g.c.score,
                                      g.c.counted, g.c.moves, g.c.server_version)
                            .where(g.c.account_id == account.id)
                            .order_by(g.c.id.desc()).limit(limit)).all()
    return [{"id": int(r.id), "ruleset_id": r.ruleset_id, "date": r.date,
             "score": int(r.score), "counted": bool(r.counted), "moves": int(r.moves),
             "server_version": r.server_version}
            for r in rows]
