"""Table results per account: who sat where in each finished round (filled in
from the results and seats stored before).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_result_seats",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    )
    op.create_index("ix_table_result_seats_account", "table_result_seats", ["account_id"])
    # the rounds finished before: a seat's holder never changes once a table plays
    op.execute(
        "INSERT INTO table_result_seats (table_id, round, seat, account_id) "
        "SELECT r.table_id, r.round, s.seat, s.account_id "
        "FROM table_results r JOIN table_seats s ON s.table_id = r.table_id")


def downgrade() -> None:
    op.drop_index("ix_table_result_seats_account", table_name="table_result_seats")
    op.drop_table("table_result_seats")
