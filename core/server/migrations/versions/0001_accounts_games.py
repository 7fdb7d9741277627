"""Accounts, sessions and verified games.

Revision ID: 0001
Revises:
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(24), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("ruleset_id", sa.String(64), nullable=False),
        sa.Column("ruleset_digest", sa.String(64), nullable=False),
        sa.Column("daily", sa.Boolean, nullable=False),
        sa.Column("date", sa.String(10), nullable=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("score", sa.BigInteger, nullable=False),
        sa.Column("moves", sa.Integer, nullable=False),
        sa.Column("counted", sa.Boolean, nullable=False),
        sa.Column("log_digest", sa.String(64), nullable=False, unique=True),
        sa.Column("replay", sa.Text, nullable=False),
        sa.Column("submitted", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_games_board", "games", ["ruleset_id", "date", "counted"])
    op.create_index("uq_games_daily_first", "games", ["account_id", "ruleset_id", "date"],
                    unique=True, sqlite_where=sa.text("daily AND counted"),
                    postgresql_where=sa.text("daily AND counted"))


def downgrade() -> None:
    op.drop_index("uq_games_daily_first", table_name="games")
    op.drop_index("ix_games_board", table_name="games")
    op.drop_table("games")
    op.drop_table("sessions")
    op.drop_table("accounts")
