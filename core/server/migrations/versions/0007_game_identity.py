"""Each stored game's identity (its rules' digest, dealt start and actions in one
canonical form): the duplicate check's key from now on. Games stored before that
are not the rules' own deal (a chosen board, tray or stone stream; a daily game on
another seed than its date's) or are copies of a game stored earlier (the same
game spelt differently) are no longer counted, and each is named in the
migration's log; nothing is deleted.

Each stored game is judged by :func:`blockyard.server.migrations.judging.judge`
(replayed once on the engine this server runs). A game whose ruleset is not
served here with the rules it was played with keeps its count and gets the
identity of its log as stored (the log says so).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import json
import logging
from typing import Any

import sqlalchemy as sa
from alembic import op

from blockyard.server.migrations.judging import UNJUDGED, judge

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("identity", sa.String(64), nullable=True))
    games = sa.table("games", sa.column("id", sa.Integer), sa.column("replay", sa.Text),
                     sa.column("counted", sa.Boolean), sa.column("identity", sa.String))
    conn = op.get_bind()
    first: dict[str, int] = {}
    rulesets: dict[str, Any] = {}
    rows = conn.execute(sa.select(games.c.id, games.c.replay).order_by(games.c.id)).all()
    for row in rows:
        identity, problem = judge(json.loads(row.replay), rulesets)
        values: dict[str, Any] = {}
        if identity in first:
            log.warning("game %d is a copy of game %d (the same rules, start and actions): "
                        "no longer counted", row.id, first[identity])
            values["counted"] = False
        else:
            first[identity] = row.id
            values["identity"] = identity
            if problem == UNJUDGED:
                log.warning("game %d: its ruleset is not served here with the rules it was "
                            "played with; it could not be judged", row.id)
            elif problem is not None:
                log.warning("game %d is not the rules' own deal (%s): no longer counted",
                            row.id, problem)
                values["counted"] = False
        conn.execute(games.update().where(games.c.id == row.id).values(**values))
    with op.batch_alter_table("games") as batch:
        batch.create_unique_constraint("uq_games_identity", ["identity"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint("uq_games_identity", type_="unique")
        batch.drop_column("identity")
