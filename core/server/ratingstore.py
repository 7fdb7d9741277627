"""The players' ratings as stored (``ratings``, written by
:func:`blockyard.server.tablestore.rate_round` when a rated round's result is
stored): the rated leaderboard of a ruleset and a player's ratings."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from ..ratings import Rating
from . import db

MAX_PAGE = 100
"""The most entries one page of the rated leaderboard holds."""


def _shown(row: Any) -> dict[str, Any]:
    return dict(Rating(float(row.mu), float(row.sigma), int(row.games)).shown())


def leaderboard(engine: Engine, ruleset_id: str, limit: int, offset: int
                ) -> tuple[int, list[dict[str, Any]]]:
    """The rated players of ``ruleset_id`` (at least one rated round), best shown
    rating first (ties: the more rounds, then the name): how many there are, and
    the page of ``limit`` entries from ``offset`` (0: the best), each ``{"rank",
    "name", "rating", "mu", "sigma", "games", "provisional"}``."""
    r, a = db.ratings, db.accounts
    rated = (r.c.ruleset_id == ruleset_id, r.c.games > 0)
    with engine.connect() as conn:
        total = conn.execute(sa.select(sa.func.count()).select_from(r).where(*rated)
                             ).scalar_one()
        rows = conn.execute(sa.select(a.c.name, r.c.mu, r.c.sigma, r.c.games)
                            .join(a, a.c.id == r.c.account_id).where(*rated)
                            .order_by(r.c.value.desc(), r.c.games.desc(), a.c.name_key)
                            .limit(limit).offset(offset)).all()
    return int(total), [{"rank": offset + n + 1, "name": str(row.name), **_shown(row)}
                        for n, row in enumerate(rows)]


def account_ratings(engine: Engine, name: str) -> dict[str, Any] | None:
    """``GET /api/accounts/{name}``: the account's name as stored and its ratings,
    one per ruleset it played rated rounds of (by ruleset id), each ``{"ruleset_id",
    "rating", "mu", "sigma", "games", "provisional"}``; ``None``: no such account."""
    r, a = db.ratings, db.accounts
    with engine.connect() as conn:
        account = conn.execute(sa.select(a.c.id, a.c.name)
                               .where(a.c.name_key == name.lower())).first()
        if account is None:
            return None
        rows = conn.execute(sa.select(r.c.ruleset_id, r.c.mu, r.c.sigma, r.c.games)
                            .where(r.c.account_id == account.id, r.c.games > 0)
                            .order_by(r.c.ruleset_id)).all()
    return {"name": str(account.name),
            "ratings": [{"ruleset_id": str(row.ruleset_id), **_shown(row)} for row in rows]}
