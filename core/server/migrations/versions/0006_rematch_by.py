"""Who asked for the rematch that dealt a table's current round; waiting tables
left with nobody seated (a server before this one did not close them) closed.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("rematch_by", sa.Integer, nullable=True))
    # closed as the server now closes a waiting table its last player leaves:
    # finished, no result, no longer listed
    tables = sa.table("tables", sa.column("id", sa.Integer), sa.column("status", sa.String))
    seats = sa.table("table_seats", sa.column("table_id", sa.Integer))
    nobody = ~sa.exists().where(seats.c.table_id == tables.c.id)
    op.execute(tables.update().where(tables.c.status == "waiting", nobody)
               .values(status="finished"))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rematch_by")
