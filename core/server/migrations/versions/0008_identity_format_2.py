"""Each stored game's identity computed anew in the identity's second format
(``blockyard-game/2``: the moves and figures hashed as compact JSON and bytes
rather than as Python's ``repr``, for a cheaper verification of every game
submitted). A game keeps its count; one that is now found to be a copy of a game
stored earlier (which cannot happen unless the stored games changed meanwhile) is
no longer counted and is named in the log, as in 0007; nothing is deleted.

Downgrading keeps the identities in the second format (the schema is 0007's).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
import logging
from typing import Any

import sqlalchemy as sa
from alembic import op

from blockyard.server.migrations.judging import judge

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("replay", sa.Text),
                     sa.column("counted", sa.Boolean), sa.column("identity", sa.String))
    conn = op.get_bind()
    rows = conn.execute(sa.select(games.c.id, games.c.replay)
                        .where(games.c.identity.is_not(None)).order_by(games.c.id)).all()
    # first every identity emptied, then each written anew: an old value never
    # meets a new one in the unique index
    conn.execute(games.update().where(games.c.identity.is_not(None)).values(identity=None))
    first: dict[str, int] = {}
    rulesets: dict[str, Any] = {}
    for row in rows:
        identity, _problem = judge(json.loads(row.replay), rulesets)
        if identity in first:
            log.warning("game %d is a copy of game %d (the same rules, start and actions): "
                        "no longer counted", row.id, first[identity])
            conn.execute(games.update().where(games.c.id == row.id).values(counted=False))
            continue
        first[identity] = row.id
        conn.execute(games.update().where(games.c.id == row.id).values(identity=identity))
    if rows:
        log.info("%d stored games' identities computed in the format blockyard-game/2",
                 len(rows))


def downgrade() -> None:
    """The identities stay in the second format (0007's schema is the same)."""
