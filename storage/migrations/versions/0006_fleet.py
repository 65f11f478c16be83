"""A fleet of bots on one database (issue 24): what Telegram said about a chat is said to one bot (a user
blocks one bot, a 429 pauses one token, a bot is removed from a group the others stay in), so chat_limits is
kept per bot, and a group's reach with it: a group a bot may not write in is a chat that refuses that bot
(``blocked_at``), no longer a flag of the group that would hold every bot's tables there. And each bot's
sweeps read its open tables by an index of their own, not the whole history of tables.

Rows stored before bots were told apart are bot 0's; the first bot to start takes them (table.clock.adopt).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-06 05:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OPEN = "status <> 'closed'"


def upgrade() -> None:
    with op.batch_alter_table("chat_limits", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bot_id", sa.BigInteger(), server_default="0", nullable=False))
        batch_op.drop_constraint("pk_chat_limits", type_="primary")
        batch_op.create_primary_key("pk_chat_limits", ["bot_id", "chat_id"])
    # A group held (the bot out of it, or muted) is a chat that refuses the bot: bot 0's until adopted.
    op.execute(
        "UPDATE chat_limits SET blocked_at = CURRENT_TIMESTAMP"
        " WHERE chat_id IN (SELECT id FROM groups WHERE NOT reachable)"
    )
    op.execute(
        "INSERT INTO chat_limits (bot_id, chat_id, blocked_at) SELECT 0, id, CURRENT_TIMESTAMP FROM groups"
        " WHERE NOT reachable AND id NOT IN (SELECT chat_id FROM chat_limits)"
    )
    # Dropped in place (SQLite 3.35+), never by batch mode's copy of the table: with foreign keys on, the copy
    # would drop the old groups table and with it, ON DELETE CASCADE, every table, seat and statistic.
    with op.batch_alter_table("groups", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("reachable")
    op.create_index(
        "ix_tables_open_bot",
        "tables",
        ["bot_id"],
        unique=False,
        sqlite_where=sa.text(_OPEN),
        postgresql_where=sa.text(_OPEN),
    )


def downgrade() -> None:
    op.drop_index("ix_tables_open_bot", table_name="tables")
    with op.batch_alter_table("groups", schema=None, recreate="never") as batch_op:
        batch_op.add_column(
            sa.Column("reachable", sa.Boolean(), server_default=sa.text("true"), nullable=False)
        )
    # A group any bot may not write in holds its tables again, as before bots were told apart.
    op.execute(
        "UPDATE groups SET reachable = false WHERE id IN"
        " (SELECT chat_id FROM chat_limits WHERE blocked_at IS NOT NULL)"
    )
    op.execute(
        "DELETE FROM chat_limits WHERE bot_id <>"
        " (SELECT MIN(other.bot_id) FROM chat_limits AS other WHERE other.chat_id = chat_limits.chat_id)"
    )
    with op.batch_alter_table("chat_limits", schema=None) as batch_op:
        batch_op.drop_constraint("pk_chat_limits", type_="primary")
        batch_op.create_primary_key("pk_chat_limits", ["chat_id"])
        batch_op.drop_column("bot_id")
