"""The version of the server build that verified and stored each game
(``games.server_version``): filled on insert from now on, and for the games
stored before from their stored replay's ``engine``, which the storing server
wrote itself (the replay it stores is its own rebuild of the game); NULL where
that is missing or not a version's text.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

import json
import logging

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")

MAX_VERSION = 64
"""The column's length: a version longer than this is not stored (NULL)."""


def recorded_engine(replay: str) -> str | None:
    """The ``engine`` a stored replay's JSON names, or ``None`` when it names none
    that fits the column (a blank, a non-string, text that is no JSON)."""
    try:
        data = json.loads(replay)
    except ValueError:
        return None
    engine = data.get("engine") if isinstance(data, dict) else None
    if not isinstance(engine, str) or not engine.strip() or len(engine) > MAX_VERSION:
        return None
    return engine


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("server_version", sa.String(MAX_VERSION), nullable=True))
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("replay", sa.Text),
                     sa.column("server_version", sa.String))
    conn = op.get_bind()
    filled = 0
    last = 0
    while True:  # in batches of ids: 500 stored replays in memory at a time
        rows = conn.execute(sa.select(games.c.id, games.c.replay).where(games.c.id > last)
                            .order_by(games.c.id).limit(500)).all()
        if not rows:
            break
        last = rows[-1].id
        for row in rows:
            engine = recorded_engine(row.replay)
            if engine is not None:
                conn.execute(games.update().where(games.c.id == row.id)
                             .values(server_version=engine))
                filled += 1
    if filled:
        log.info("%d stored games given the server version their stored replay names",
                 filled)


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("server_version")
