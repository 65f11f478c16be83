"""Initial schema: groups, users and their statistics, tables, seats, rounds, the action log, deadlines,
processed update ids.

Revision ID: 0001
Revises:
Create Date: 2026-11-30 02:08:53.534858
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "groups",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("title", sa.String(length=255), nullable=True),
        sa.Column("language", sa.String(length=16), server_default="zh", nullable=False),
        sa.Column("turn_timeout_seconds", sa.Integer(), server_default="120", nullable=False),
        sa.Column("house_rules", sa.Text(), nullable=True),
        sa.Column("rounds_played", sa.Integer(), server_default="0", nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_groups")),
    )
    op.create_table(
        "processed_updates",
        sa.Column("update_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column(
            "processed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("update_id", name=op.f("pk_processed_updates")),
    )
    with op.batch_alter_table("processed_updates", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_processed_updates_processed_at"), ["processed_at"], unique=False)

    op.create_table(
        "users",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.Column("rounds_played", sa.Integer(), server_default="0", nullable=False),
        sa.Column("points", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_1", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_2", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_3", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_4", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_5", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_6", sa.Integer(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
    )
    op.create_table(
        "group_members",
        sa.Column("group_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("rounds_played", sa.Integer(), server_default="0", nullable=False),
        sa.Column("points", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_1", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_2", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_3", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_4", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_5", sa.Integer(), server_default="0", nullable=False),
        sa.Column("place_6", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["group_id"], ["groups.id"], name=op.f("fk_group_members_group_id_groups"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_group_members_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("group_id", "user_id", name=op.f("pk_group_members")),
    )
    op.create_table(
        "tables",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("group_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=True),
        sa.Column("version", sa.Integer(), server_default="0", nullable=False),
        sa.Column("round_no", sa.Integer(), server_default="0", nullable=False),
        sa.Column("last_seq", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("table_message_id", sa.BigInteger(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('lobby', 'playing', 'closed')", name=op.f("ck_tables_status")),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_tables_created_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["group_id"], ["groups.id"], name=op.f("fk_tables_group_id_groups"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tables")),
    )
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.create_index(
            "uq_tables_open_group",
            ["group_id"],
            unique=True,
            sqlite_where=sa.text("status <> 'closed'"),
            postgresql_where=sa.text("status <> 'closed'"),
        )

    op.create_table(
        "deadlines",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("table_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_deadlines_table_id_tables"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deadlines")),
        sa.UniqueConstraint("table_id", "version", "kind", name=op.f("uq_deadlines_table_id_version_kind")),
    )
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_deadlines_due_at"), ["due_at"], unique=False)

    op.create_table(
        "rounds",
        sa.Column("table_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("round_no", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column(
            "started_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("places", sa.Text(), nullable=True),
        sa.Column("scores", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_rounds_table_id_tables"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("table_id", "round_no", name=op.f("pk_rounds")),
    )
    op.create_table(
        "seats",
        sa.Column("table_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("seat", sa.SmallInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("computer_level", sa.SmallInteger(), nullable=True),
        sa.Column("autoplay", sa.Boolean(), server_default=sa.text("(false)"), nullable=False),
        sa.Column("consecutive_timeouts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("hand_message_id", sa.BigInteger(), nullable=True),
        sa.CheckConstraint(
            "(user_id IS NULL) <> (computer_level IS NULL)", name=op.f("ck_seats_user_or_computer")
        ),
        sa.CheckConstraint("seat BETWEEN 0 AND 5", name=op.f("ck_seats_seat_range")),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name=op.f("fk_seats_table_id_tables"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_seats_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("table_id", "seat", name=op.f("pk_seats")),
        sa.UniqueConstraint("table_id", "user_id", name=op.f("uq_seats_table_id_user_id")),
    )
    op.create_table(
        "actions",
        sa.Column("table_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("round_no", sa.Integer(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=True),
        sa.Column("action", sa.String(length=255), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("(CURRENT_TIMESTAMP)"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["table_id", "round_no"],
            ["rounds.table_id", "rounds.round_no"],
            name=op.f("fk_actions_table_id_rounds"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_actions")),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("seats")
    op.drop_table("rounds")
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_deadlines_due_at"))

    op.drop_table("deadlines")
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_index(
            "uq_tables_open_group",
            sqlite_where=sa.text("status <> 'closed'"),
            postgresql_where=sa.text("status <> 'closed'"),
        )

    op.drop_table("tables")
    op.drop_table("group_members")
    op.drop_table("users")
    with op.batch_alter_table("processed_updates", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_processed_updates_processed_at"))

    op.drop_table("processed_updates")
    op.drop_table("groups")
