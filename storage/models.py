"""The schema as SQLAlchemy 2 declarative models. Alembic migrations (storage/migrations) create it."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Stable constraint names so later migrations can refer to them on both backends.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only auto-numbers an INTEGER PRIMARY KEY, not a BIGINT one.
AutoId = BigInteger().with_variant(Integer(), "sqlite")

# Rows written by hand (an operator, a later migration) still get a time; both backends spell it so.
NOW = text("CURRENT_TIMESTAMP")

PLACES = 6  # seats per table, hence places 1..6 in the histograms
DEFAULT_TIME_ZONE = "Asia/Shanghai"  # where the players grew up, whatever city they live in now


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on both backends (SQLite would otherwise hand back naive ones)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the database; use datetime.now(UTC)")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class JSONText(TypeDecorator[Any]):
    """JSON kept as compact text: the same bytes on both backends, and storage never looks inside."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)

    def process_result_value(self, value: str | None, dialect: Dialect) -> Any:
        return None if value is None else json.loads(value)


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class _PlacesHistogram:
    """Counters shared by a user's overall statistics and his statistics in one group."""

    rounds_played: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    points: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    place_1: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    place_2: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    place_3: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    place_4: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    place_5: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    place_6: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    team_wins: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  # rounds his team won


class Group(Base):
    __tablename__ = "groups"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)  # Telegram chat id
    title: Mapped[str | None] = mapped_column(String(255))
    language: Mapped[str] = mapped_column(String(16), default="zh", server_default="zh")
    turn_timeout_seconds: Mapped[int] = mapped_column(Integer, default=120, server_default="120")
    house_rules: Mapped[Any] = mapped_column(
        JSONText, nullable=True
    )  # Rules.to_dict(); None = the default preset
    rounds_played: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    time_zone: Mapped[str] = mapped_column(
        String(64), default=DEFAULT_TIME_ZONE, server_default=DEFAULT_TIME_ZONE
    )
    card_memory: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))  # 记牌
    computer_level: Mapped[int] = mapped_column(SmallInteger, default=2, server_default="2")
    settings_message_id: Mapped[int | None] = mapped_column(BigInteger)  # the one live /settings panel
    pinning: Mapped[bool | None] = mapped_column(Boolean)  # may the bot pin the table here (None: not tried)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, server_default=NOW)


class User(_PlacesHistogram, Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)  # Telegram user id
    name: Mapped[str] = mapped_column(String(255))
    language: Mapped[str | None] = mapped_column(String(16))
    time_zone: Mapped[str | None] = mapped_column(
        String(64)
    )  # his own, for his deadlines (None: the group's)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, server_default=NOW)


class GroupMember(_PlacesHistogram, Base):
    """A user's statistics inside one group (what /stats in that group shows)."""

    __tablename__ = "group_members"

    group_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("groups.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )


class GameTable(Base):
    __tablename__ = "tables"
    __table_args__ = (
        # One open table per group's topic (0: no topic, or General): closed tables stay for the record.
        Index(
            "uq_tables_open_topic",
            "group_id",
            "thread_id",
            unique=True,
            sqlite_where=text("status <> 'closed'"),
            postgresql_where=text("status <> 'closed'"),
        ),
        # Each bot's open tables (its start and its sweeps), whatever the history of closed tables.
        Index(
            "ix_tables_open_bot",
            "bot_id",
            sqlite_where=text("status <> 'closed'"),
            postgresql_where=text("status <> 'closed'"),
        ),
        CheckConstraint("status IN ('lobby', 'playing', 'closed')", name="status"),
    )

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    group_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("groups.id", ondelete="CASCADE"))
    thread_id: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")  # its topic (0: none)
    topic: Mapped[str | None] = mapped_column(
        String(128)
    )  # the topic's name, as the players' messages say it
    bot_id: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")  # the bot that hosts it
    kind: Mapped[str] = mapped_column(String(16), default="match")  # what `state` holds: engine.Match's JSON
    status: Mapped[str] = mapped_column(String(16), default="lobby")
    rules: Mapped[Any] = mapped_column(JSONText)
    state: Mapped[Any] = mapped_column(
        JSONText, nullable=True
    )  # the aggregate's to_json(); None before the first deal
    version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    round_no: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0"
    )  # the round `state` belongs to
    last_seq: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0"
    )  # seq of the last logged action
    created_by: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("users.id", ondelete="SET NULL"))
    table_message_id: Mapped[int | None] = mapped_column(BigInteger)  # the group message edited in place
    summary_message_id: Mapped[int | None] = mapped_column(BigInteger)  # the last round's summary
    # What the table shows that the match does not know (table.model.Marks: 要不起 marks), so that every
    # process and every restart shows the same table.
    marks: Mapped[Any] = mapped_column(JSONText, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, server_default=NOW)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, server_default=NOW)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (
        CheckConstraint("seat BETWEEN 0 AND 5", name="seat_range"),
        CheckConstraint("(user_id IS NULL) <> (computer_level IS NULL)", name="user_or_computer"),
        UniqueConstraint("table_id", "user_id"),
    )

    table_id: Mapped[int] = mapped_column(
        AutoId, ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(SmallInteger, primary_key=True, autoincrement=False)
    user_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("users.id", ondelete="CASCADE"))
    computer_level: Mapped[int | None] = mapped_column(SmallInteger)
    autoplay: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))  # 托管
    consecutive_timeouts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    hand_message_id: Mapped[int | None] = mapped_column(BigInteger)  # the private hand message
    # The table version his turn message was delivered for: a restart does not send it twice.
    prompted_version: Mapped[int | None] = mapped_column(Integer)
    # He left the match (/leave): the computer plays his seat this round, and the seat is a computer's from
    # the next deal unless he comes back (/back) before it.
    leaving: Mapped[bool] = mapped_column(Boolean, default=False, server_default=text("false"))


class RoundRecord(Base):
    """One dealt round of a table: what is needed to rebuild it (seed, rules) and how it ended."""

    __tablename__ = "rounds"

    table_id: Mapped[int] = mapped_column(
        AutoId, ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    round_no: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(BigInteger)
    rules: Mapped[Any] = mapped_column(JSONText)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, server_default=NOW)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    places: Mapped[Any] = mapped_column(JSONText, nullable=True)
    scores: Mapped[Any] = mapped_column(JSONText, nullable=True)


class ActionRecord(Base):
    """The append-only log: every accepted action of a table, numbered without gaps."""

    __tablename__ = "actions"
    __table_args__ = (
        ForeignKeyConstraint(
            ["table_id", "round_no"], ["rounds.table_id", "rounds.round_no"], ondelete="CASCADE"
        ),
    )

    table_id: Mapped[int] = mapped_column(AutoId, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    round_no: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(SmallInteger)
    action: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, server_default=NOW)


class Deadline(Base):
    """What a table waits for, until when: at most one of each kind per table, for the version it was armed at
    (a move moves it in place)."""

    __tablename__ = "deadlines"
    __table_args__ = (UniqueConstraint("table_id", "kind"),)

    id: Mapped[int] = mapped_column(AutoId, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(AutoId, ForeignKey("tables.id", ondelete="CASCADE"))
    version: Mapped[int] = mapped_column(Integer)  # the table version it was armed for
    kind: Mapped[str] = mapped_column(String(16))  # 'timeout', 'reminder', ...
    due_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    claimed_by: Mapped[str | None] = mapped_column(String(64))
    claimed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ChatLimit(Base):
    """What Telegram said to one bot about a chat, kept past a restart: a pause it asked for (a 429's
    retry_after) and a refusal to deliver (403: the user blocked the bot, until he talks to it again; in a
    group: the bot was removed or may not write there, and its tables there hold until it may again)."""

    __tablename__ = "chat_limits"

    bot_id: Mapped[int] = mapped_column(
        BigInteger, primary_key=True, default=0, server_default="0"
    )  # what Telegram says of a chat, it says to one bot
    chat_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    retry_until: Mapped[datetime | None] = mapped_column(UTCDateTime)
    blocked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ProcessedUpdate(Base):
    __tablename__ = "processed_updates"

    bot_id: Mapped[int] = mapped_column(
        BigInteger, primary_key=True, default=0, server_default="0"
    )  # each bot
    update_id: Mapped[int] = mapped_column(
        BigInteger, primary_key=True, autoincrement=False
    )  # numbers its own
    processed_at: Mapped[datetime] = mapped_column(
        UTCDateTime, default=utcnow, server_default=NOW, index=True
    )
