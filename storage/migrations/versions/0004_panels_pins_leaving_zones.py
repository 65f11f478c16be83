"""The group's live /settings panel and whether the bot may pin there, a seat whose player left the match
(free from the next round), and a player's own time zone.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-06 02:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("groups", schema=None) as batch_op:
        batch_op.add_column(sa.Column("settings_message_id", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("pinning", sa.Boolean(), nullable=True))
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("leaving", sa.Boolean(), server_default=sa.text("false"), nullable=False)
        )
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_zone", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("time_zone")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("leaving")
    with op.batch_alter_table("groups", schema=None) as batch_op:
        batch_op.drop_column("pinning")
        batch_op.drop_column("settings_message_id")
