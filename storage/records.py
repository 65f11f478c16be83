"""Plain, immutable snapshots of stored rows, typed: what the repositories hand to the table layer; and the
changes the table layer may write back (``GroupSettings``, ``TableChanges``, ``SeatChanges``).

The match is stored as engine.Match's JSON and comes back as a Match (``TableRecord.match``).
Nothing here needs SQLAlchemy: the table layer and its in-memory fake import these without it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from engine import Match


@dataclass(frozen=True)
class GroupRecord:
    id: int
    title: str | None
    language: str
    turn_timeout_seconds: int
    house_rules: dict[str, Any] | None
    rounds_played: int
    time_zone: str = "Asia/Shanghai"
    card_memory: bool = False  # 记牌 in the hand messages
    computer_level: int = 2
    settings_message_id: int | None = None  # the one live /settings panel
    pinning: bool | None = None  # may the bot pin the table in this group (None: not tried yet)
    # False while the bot that hosts the table read with it is out of the group or may not write there (kept
    # per bot in chat_limits; a group read on its own says True).
    reachable: bool = True


@dataclass(frozen=True)
class Stats:
    rounds_played: int
    points: int
    places: tuple[int, int, int, int, int, int]  # how often 头科, 二科, 三科, 四科, 二落, 大落
    team_wins: int = 0  # rounds his team won (its round score above 0)


@dataclass(frozen=True)
class UserRecord:
    id: int
    name: str
    language: str | None
    stats: Stats
    time_zone: str | None = None


@dataclass(frozen=True)
class PlayerRecord:
    """A user as a table shows him: what the scene of a table reads of each seated player."""

    id: int
    name: str
    language: str | None
    time_zone: str | None = None  # his own (None: the group's)


@dataclass(frozen=True)
class TableRecord:
    id: int
    group_id: int
    status: str
    rules: dict[str, Any]
    match: Match | None  # None before the first deal, or when read without it
    version: int
    round_no: int
    last_seq: int
    created_by: int | None
    table_message_id: int | None
    marks: dict[str, Any] | None
    summary_message_id: int | None = None
    thread_id: int = 0  # its group's topic (0: none, or General)
    topic: str | None = None  # the topic's name
    bot_id: int = 0  # the bot that hosts it (its token's processes fire its deadlines)


@dataclass(frozen=True)
class SeatRecord:
    table_id: int
    seat: int
    user_id: int | None
    computer_level: int | None
    autoplay: bool
    consecutive_timeouts: int
    hand_message_id: int | None
    prompted_version: int | None = None
    leaving: bool = False  # he left the match: a computer's seat from the next deal


@dataclass(frozen=True)
class RoundInfo:
    table_id: int
    round_no: int
    seed: int
    rules: dict[str, Any]
    started_at: datetime
    finished_at: datetime | None
    places: list[int | None] | None  # seats by place, 头科 first (engine.Round.places)
    scores: list[int] | None  # per seat (R11.1)


@dataclass(frozen=True)
class LoggedAction:
    table_id: int
    seq: int
    round_no: int
    seat: int | None
    action: str
    created_at: datetime


@dataclass(frozen=True)
class DeadlineRecord:
    id: int
    table_id: int
    version: int
    kind: str
    due_at: datetime
    claimed_by: str | None
    claimed_at: datetime | None


@dataclass(frozen=True)
class TableScene:
    """A table (its match unread), its group, its seats in order and their players, read at once."""

    table: TableRecord
    group: GroupRecord | None
    seats: list[SeatRecord]
    users: dict[int, PlayerRecord]


@dataclass(frozen=True)
class Standing:
    """One player's line of a group's leaderboard."""

    user_id: int
    name: str
    stats: Stats


@dataclass(frozen=True)
class ChatLimits:
    """What Telegram said about chats, as an earlier process learned it."""

    retry_until: dict[int, datetime]
    blocked: frozenset[int]


# The changes a caller may write, as keyword arguments: each key a column, a key left out a column left as it
# is. total=False because a write names only what changed (a move writes three columns, not twelve).


class GroupSettings(TypedDict, total=False):
    """A group's settings (``groups.update_settings``): what /settings changes."""

    language: str
    turn_timeout_seconds: int
    house_rules: dict[str, Any]  # Rules.to_dict()
    time_zone: str
    card_memory: bool
    computer_level: int
    settings_message_id: int | None  # not a setting: which message is the live /settings panel
    pinning: bool  # not a setting: whether Telegram let the bot pin the table


class TableChanges(TypedDict, total=False):
    """What ``tables.save`` writes along with the next version; ``match`` is stored as its JSON."""

    status: str
    round_no: int
    match: Match | None
    last_seq: int
    marks: dict[str, Any] | None  # table.model.Marks.to_json()
    rules: dict[str, Any]
    closed_at: datetime | None


class SeatChanges(TypedDict, total=False):
    """What ``seats.update`` writes of one seat."""

    autoplay: bool
    consecutive_timeouts: int
    hand_message_id: int | None
    computer_level: int | None
    leaving: bool
    user_id: int | None  # None with computer_level: the seat is a computer's (his player left the match)
