"""Rated rounds a stranger cannot farm: whether a stored round's result changed
ratings (``table_results.rated``; the results of before count as they were
stored: rated when their ``ratings`` are not null), so the rated rounds of one
pair of players in the last 24 hours are counted; and the pairs of seats of a
table's current round that had played 3 rated rounds together in the 24 hours
before it was dealt (``tables.friendly_pairs``, JSON; NULL: none), which make the
round friendly.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs (SQLite has one for a column with a default): a batch would
    # copy the tables, which the rows referring to them forbid
    op.add_column("table_results", sa.Column("rated", sa.Boolean, nullable=False,
                                             server_default=sa.false()))
    op.execute("UPDATE table_results SET rated = TRUE "
               "WHERE result NOT LIKE '%\"ratings\": null%' AND result LIKE '%\"ratings\"%'")
    op.create_index("ix_table_results_rated", "table_results", ["rated", "created"])
    op.add_column("tables", sa.Column("friendly_pairs", sa.Text, nullable=True))


def downgrade() -> None:
    # plain DROP COLUMNs (SQLite has one since 3.35): a batch would copy the tables,
    # which the rows referring to them forbid
    op.drop_index("ix_table_results_rated", table_name="table_results")
    op.drop_column("table_results", "rated")
    op.drop_column("tables", "friendly_pairs")
