"""Shared by every server process: rate-limit counts and seat presence.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_counts",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("slice", sa.BigInteger, primary_key=True),
        sa.Column("hits", sa.Integer, nullable=False),
    )
    op.create_table(
        "seat_presence",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("seen", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_tables_status", "tables", ["status"])


def downgrade() -> None:
    op.drop_index("ix_tables_status", "tables")
    op.drop_table("seat_presence")
    op.drop_table("rate_counts")
