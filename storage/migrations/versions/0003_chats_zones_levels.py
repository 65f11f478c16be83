"""What Telegram said about each chat (chat_limits), a group's time zone, card memory and computer level, the
last round's summary message, the version a seat's turn message was delivered for, rounds won by a player's
team, and one deadline of each kind per table.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 23:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_limits",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("retry_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("blocked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("chat_id", name=op.f("pk_chat_limits")),
    )
    with op.batch_alter_table("groups", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("time_zone", sa.String(length=64), server_default="Asia/Shanghai", nullable=False)
        )
        batch_op.add_column(
            sa.Column("card_memory", sa.Boolean(), server_default=sa.text("false"), nullable=False)
        )
        batch_op.add_column(
            sa.Column("computer_level", sa.SmallInteger(), server_default="2", nullable=False)
        )
    for table in ("users", "group_members"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("team_wins", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(sa.Column("summary_message_id", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("prompted_version", sa.Integer(), nullable=True))
    # One deadline of each kind per table: keep the newest of any two, then let the database hold it so.
    op.execute(
        "DELETE FROM deadlines WHERE EXISTS (SELECT 1 FROM deadlines AS newer WHERE newer.table_id ="
        " deadlines.table_id AND newer.kind = deadlines.kind AND newer.version > deadlines.version)"
    )
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.drop_constraint("uq_deadlines_table_id_version_kind", type_="unique")
        batch_op.create_unique_constraint(batch_op.f("uq_deadlines_table_id_kind"), ["table_id", "kind"])


def downgrade() -> None:
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.drop_constraint("uq_deadlines_table_id_kind", type_="unique")
        batch_op.create_unique_constraint(
            batch_op.f("uq_deadlines_table_id_version_kind"), ["table_id", "version", "kind"]
        )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("prompted_version")
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_column("summary_message_id")
    for table in ("users", "group_members"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("team_wins")
    with op.batch_alter_table("groups", schema=None) as batch_op:
        batch_op.drop_column("computer_level")
        batch_op.drop_column("card_memory")
        batch_op.drop_column("time_zone")
    op.drop_table("chat_limits")
