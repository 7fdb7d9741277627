"""Ratings of live tables and Play now: each player's rating per ruleset
(``ratings``), whether a table is rated (``tables.rated``; the tables of before
are friendly, unrated) and the players waiting to be paired (``pairing``).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN (SQLite has one for a column with a default): a batch would
    # copy the table, which the rows referring to it forbid
    op.add_column("tables", sa.Column("rated", sa.Boolean, nullable=False,
                                      server_default=sa.false()))
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("ruleset_id", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("value", sa.Float, nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["ruleset_id", "value"])
    op.create_table(
        "pairing",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("ruleset_id", sa.String(64), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("joined", sa.DateTime(timezone=True), nullable=False),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=True),
        sa.Column("paired", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_pairing_waiting", "pairing", ["ruleset_id", "table_id"])


def downgrade() -> None:
    op.drop_index("ix_pairing_waiting", table_name="pairing")
    op.drop_table("pairing")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rated")
