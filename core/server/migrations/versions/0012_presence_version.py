"""Who is there, kept by every process in memory: each ``seat_presence`` row
counts its changes (``version``), so that a process told a row's state (in the
announcement of its change, or read again) keeps the newest one whatever order
it hears them in.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seat_presence", sa.Column("version", sa.BigInteger, nullable=False,
                                             server_default="1"))


def downgrade() -> None:
    with op.batch_alter_table("seat_presence") as batch:
        batch.drop_column("version")
