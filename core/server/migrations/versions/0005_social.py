"""Players online and invitations: when each account was last seen, who sent an
invitation, when, and its answer.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("last_seen", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_accounts_last_seen", "accounts", ["last_seen"])
    with op.batch_alter_table("table_invites") as batch:
        batch.add_column(sa.Column("inviter_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("created", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("answer", sa.String(8), nullable=True))
        batch.create_foreign_key("fk_table_invites_inviter", "accounts", ["inviter_id"],
                                 ["id"])
    op.create_index("ix_table_invites_account", "table_invites", ["account_id", "answer"])
    op.create_index("ix_table_invites_inviter", "table_invites", ["inviter_id", "created"])


def downgrade() -> None:
    op.drop_index("ix_table_invites_inviter", table_name="table_invites")
    op.drop_index("ix_table_invites_account", table_name="table_invites")
    with op.batch_alter_table("table_invites") as batch:
        batch.drop_constraint("fk_table_invites_inviter", type_="foreignkey")
        batch.drop_column("answer")
        batch.drop_column("created")
        batch.drop_column("inviter_id")
    op.drop_index("ix_accounts_last_seen", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("last_seen")
