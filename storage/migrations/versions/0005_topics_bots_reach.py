"""Real groups as Telegram makes them (issue 24): a table lives in its group's topic (one open table per topic,
0 for a group without topics or the General topic) and is hosted by the bot it was opened with; processed
update ids are kept per bot (each bot numbers its own); a group the bot was removed from, or may no longer
write in, holds its tables until it is back.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06 03:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OPEN = "status <> 'closed'"


def upgrade() -> None:
    with op.batch_alter_table("groups", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("reachable", sa.Boolean(), server_default=sa.text("true"), nullable=False)
        )
    op.drop_index("uq_tables_open_group", table_name="tables")
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(sa.Column("thread_id", sa.BigInteger(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("topic", sa.String(length=128), nullable=True))
        batch_op.add_column(sa.Column("bot_id", sa.BigInteger(), server_default="0", nullable=False))
    op.create_index(
        "uq_tables_open_topic",
        "tables",
        ["group_id", "thread_id"],
        unique=True,
        sqlite_where=sa.text(_OPEN),
        postgresql_where=sa.text(_OPEN),
    )
    with op.batch_alter_table("processed_updates", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bot_id", sa.BigInteger(), server_default="0", nullable=False))
        batch_op.drop_constraint("pk_processed_updates", type_="primary")
        batch_op.create_primary_key("pk_processed_updates", ["bot_id", "update_id"])


def downgrade() -> None:
    with op.batch_alter_table("processed_updates", schema=None) as batch_op:
        batch_op.drop_constraint("pk_processed_updates", type_="primary")
        batch_op.create_primary_key("pk_processed_updates", ["update_id"])
        batch_op.drop_column("bot_id")
    op.drop_index("uq_tables_open_topic", table_name="tables")
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_column("bot_id")
        batch_op.drop_column("topic")
        batch_op.drop_column("thread_id")
    op.create_index(
        "uq_tables_open_group",
        "tables",
        ["group_id"],
        unique=True,
        sqlite_where=sa.text(_OPEN),
        postgresql_where=sa.text(_OPEN),
    )
    with op.batch_alter_table("groups", schema=None) as batch_op:
        batch_op.drop_column("reachable")
