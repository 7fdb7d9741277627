"""Who is at a table, quick phrases and friends: each seat's open connections,
what its window last said (away or active), when its player was last active and
the round they left (``seat_presence``); the players each player has muted
(``mutes``) and follows (``follows``).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMNs (SQLite has them for columns with a default or nullable)
    op.add_column("seat_presence", sa.Column("links", sa.Integer, nullable=False,
                                             server_default="0"))
    op.add_column("seat_presence", sa.Column("away", sa.Boolean, nullable=False,
                                             server_default=sa.false()))
    op.add_column("seat_presence", sa.Column("active", sa.DateTime(timezone=True),
                                             nullable=True))
    op.add_column("seat_presence", sa.Column("left_round", sa.Integer, nullable=True))
    op.create_table(
        "mutes",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("muted_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "follows",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("followed_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_follows_followed", "follows", ["followed_id"])


def downgrade() -> None:
    op.drop_index("ix_follows_followed", table_name="follows")
    op.drop_table("follows")
    op.drop_table("mutes")
    with op.batch_alter_table("seat_presence") as batch:
        batch.drop_column("left_round")
        batch.drop_column("active")
        batch.drop_column("away")
        batch.drop_column("links")
