"""The table as one value: its group's settings, who sits where, the match and what the table shows.

A ``Table`` is read whole at the start of a use case and is never changed in place; a use case that moves
the match works on its own copy (``Match.copy``) and the outcome carries the table as committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final, Literal, cast

from engine import Match, Rules
from engine.cards import Counts, format_cards, parse_cards

Status = Literal["lobby", "playing", "closed"]
LOBBY: Final = "lobby"
PLAYING: Final = "playing"
CLOSED: Final = "closed"

# Who made a move: the player himself, the computer because his time ran out, or the computer for a
# computer seat or a seat on 托管 (and R4.3's automatic passes).
Actor = Literal["player", "timeout", "computer"]

TURN_TIMES = (30, 60, 120, 300, 1800, 7200, 86400)  # what /settings offers, 30 s … 24 h
DEFAULT_TURN_SECONDS = 120
DEFAULT_TIME_ZONE = "Asia/Shanghai"
# What /settings offers: the players' home, and where friends from Shandong went.
TIME_ZONES = (
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Asia/Singapore",
    "Europe/London",
    "Europe/Berlin",
    "America/New_York",
    "America/Los_Angeles",
    "Australia/Sydney",
)
# What the table's story tells (Entry.kind), as kept in the table's marks: a move, a moment of the engine's,
# a decision before the play, a seat's coming and going.
MoveKind = Literal["play", "burn", "pass", "auto_pass", "yield"]
EntryKind = Literal[
    MoveKind,
    Literal["answered", "returned", "revolt", "no_revolt", "declare", "no_declare", "yaotou", "wutou"],
    Literal["trick_won", "opened", "out", "men", "burn_won", "burn_failed", "free_for_all"],
    Literal["discarded_fours", "round_over", "dealt", "jie_shao", "fan_shao", "tuoguan", "back"],
]
# Public entries kept at most. What is kept reaches back to the oldest last decision of a player who plays
# himself (his "since your last move" is whole) and to the trick before the one on the table; a player back
# from 托管 after a long while may need more, and his list then says that older moves were left out.
RECENT_MAX = 160


@dataclass(frozen=True, slots=True)
class Group:
    """A group's settings for its tables."""

    id: int
    title: str | None = None
    language: str = "zh"
    turn_seconds: int = DEFAULT_TURN_SECONDS
    house_rules: dict[str, Any] | None = None  # None: the default preset
    rounds_played: int = 0
    time_zone: str = DEFAULT_TIME_ZONE
    card_memory: bool = False  # 记牌: the hand message says how many 2s, jokers and As are still out
    computer_level: int = 2  # the computers' level at its tables, 托管 included (table/policy.py)
    settings_message_id: int | None = None  # the one live /settings panel (an older one loses its buttons)
    pinning: bool | None = None  # whether the bot may pin the table here (None: not tried yet)
    reachable: bool = True  # False while the bot is out of the group or may not write there: its tables hold

    @property
    def rules(self) -> Rules:
        return Rules.from_dict(self.house_rules) if self.house_rules else Rules.preset()


@dataclass(frozen=True, slots=True)
class Seat:
    n: int  # 0..5 (R1.1)
    user_id: int | None = None  # None: a computer player
    name: str = ""
    language: str | None = None  # the player's Telegram language
    computer_level: int | None = None
    autoplay: bool = False  # 托管: the computer plays this player's seat
    timeouts: int = 0  # in a row
    hand_message_id: int | None = None  # his private hand message, edited in place
    prompted: int | None = None  # the table version his last turn message was delivered for
    leaving: bool = False  # he left the match: 托管 this round, a computer's seat from the next deal
    time_zone: str | None = None  # his own, for the deadlines in his private chat (None: the group's)

    @property
    def human(self) -> bool:
        return self.user_id is not None

    @property
    def plays_himself(self) -> bool:
        """A human who is not on 托管: the table waits for him."""
        return self.user_id is not None and not self.autoplay


@dataclass(frozen=True, slots=True)
class Entry:
    """One public thing that happened at the table, as the table tells it: a move (play, burn, pass, auto_pass
        for R4.3's 要不起, yield), a moment (trick_won, opened, out, men, burn_won, jie_shao, fan_shao,
        burn_failed, free_for_all, discarded_fours, round_over, dealt) or a seat's coming and going (tuoguan,
        back). ``seq`` orders them; ``actor`` is "timeout" for a move the computer made for a late player and
    "computer" for one it made for a player's seat on 托管 (neither is his own decision)."""

    seq: int
    kind: EntryKind
    seat: int | None = None
    cards: Counts | None = None
    other: int | None = None
    n: int | None = None
    actor: Literal["timeout", "computer"] | None = None

    def to_json(self) -> list[Any]:
        cards = None if self.cards is None else format_cards(self.cards)
        return [self.seq, self.kind, self.seat, cards, self.other, self.n, self.actor]

    @classmethod
    def from_json(cls, row: list[Any]) -> Entry:
        seq, kind, seat, cards, other, n, actor = row
        return cls(
            seq, cast(EntryKind, kind), seat, None if cards is None else parse_cards(cards), other, n, actor
        )


MOVES: frozenset[EntryKind] = frozenset({"play", "burn", "pass", "auto_pass", "yield"})
# A seat's own decisions before the first lead, as the story tells them (a reveal is not one: it tells what
# every seat answered earlier).
DECISIONS: frozenset[EntryKind] = frozenset({"answered", "returned", "yaotou", "wutou"})


@dataclass(frozen=True, slots=True)
class Marks:
    """What the table shows that the engine does not know. Stored with the table, so a restart or a second
    worker shows the same table."""

    auto_passed: frozenset[int] = frozenset()  # R4.3: passed by the table (要不起), until the trick ends
    recent: tuple[Entry, ...] = ()  # the last RECENT_MAX public entries, oldest first
    nudged: int | None = None  # the version a /nudge was sent for (once per turn)
    glossed: frozenset[str] = frozenset()  # terms the group was told the meaning of (English groups)
    # The round's end reached the group (its summary with Next/Stop): a process killed after committing the
    # round's last move but before the summary was posted left the players without a Next button; the next
    # start posts it (issue 14, found by benches/crash.py: the table "hung" waiting on a tap nobody could make).
    summarized: bool = False
    # The questions before the first lead share one deadline from when they were asked: which set of them the
    # table waits on ("round:deal:step") and since when.
    asked_stage: str | None = None
    asked_since: datetime | None = None
    # The version at which each asked seat's present question was put to him: his question message is for it
    # once delivered at that version or later (a restart then does not send it again).
    asked_at: tuple[tuple[int, int], ...] = ()
    # A player's move was stored alone and the computers' moves follow: the story from this seq on has not
    # been told to the group yet (the follow-on tells it with its own, in one message).
    untold: int | None = None
    # The seats put a question before the first lead while the computers' moves were to follow: asked with them.
    unprompted: frozenset[int] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {
            "auto_passed": sorted(self.auto_passed),
            "recent": [e.to_json() for e in self.recent],
            "nudged": self.nudged,
            "glossed": sorted(self.glossed),
            "summarized": self.summarized,
            "asked_stage": self.asked_stage,
            "asked_since": None if self.asked_since is None else self.asked_since.isoformat(),
            "asked_at": [list(pair) for pair in self.asked_at],
            "untold": self.untold,
            "unprompted": sorted(self.unprompted),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Marks:
        if not data:
            return cls()
        return cls(
            auto_passed=frozenset(data.get("auto_passed", ())),
            recent=tuple(Entry.from_json(e) for e in data.get("recent", ())),
            nudged=data.get("nudged"),
            glossed=frozenset(data.get("glossed", ())),
            summarized=bool(data.get("summarized", False)),
            asked_stage=data.get("asked_stage"),
            asked_since=None
            if data.get("asked_since") is None
            else datetime.fromisoformat(data["asked_since"]),
            asked_at=tuple((int(seat), int(version)) for seat, version in data.get("asked_at", ())),
            untold=data.get("untold"),
            unprompted=frozenset(data.get("unprompted", ())),
        )

    def asked_since_version(self, seat: int) -> int | None:
        """The version at which the seat's present question before the first lead was put to him."""
        return next((version for s, version in self.asked_at if s == seat), None)

    def since_last_move(self, seat: int) -> tuple[Entry, ...]:
        """What happened since this seat's last decision of his own: the 要不起 the table passed for him, a
        move the computer made when his time ran out or while it kept his seat (托管) are not his, so the play
        they answered stays in his list (everything kept, if his last decision is older than that)."""
        recent = self.recent
        i = last_decision(recent, seat)
        return recent if i is None else recent[i + 1 :]

    def this_trick(self) -> tuple[Entry, ...]:
        """The moves of the trick on the table, from its lead."""
        start = trick_start(self.recent, len(self.recent))
        return tuple(e for e in self.recent[start:] if e.kind in MOVES)

    def last_trick(self) -> tuple[Entry, ...]:
        """The moves of the trick before the one on the table, and who took it: what the group saw end
        (a play everybody was passed on ends its trick at once, in the same stretch)."""
        recent = self.recent
        end = trick_start(recent, len(recent)) - 1
        if end < 0 or recent[end].kind != "trick_won":
            return ()
        start = trick_start(recent, end)
        return (*(e for e in recent[start:end] if e.kind in MOVES), recent[end])


def last_decision(recent: Sequence[Entry], seat: int) -> int | None:
    """Where the seat's last decision of his own stands in the story (None: not in what is kept)."""
    for i in range(len(recent) - 1, -1, -1):
        e = recent[i]
        if (
            e.seat == seat
            and e.actor is None
            and (e.kind in DECISIONS or (e.kind in MOVES and e.kind != "auto_pass"))
        ):
            return i
    return None


def trick_start(recent: Sequence[Entry], end: int) -> int:
    """Where the trick that ``recent[:end]`` ends in began: after the last trick won or deal before it."""
    for i in range(end - 1, -1, -1):
        if recent[i].kind in ("trick_won", "dealt", "round_over"):
            return i + 1
    return 0


@dataclass(frozen=True)
class Table:
    id: int
    group: Group
    status: Status
    version: int
    rules: dict[str, Any]
    match: Match | None
    seats: tuple[Seat, ...]  # the occupied seats, in seat order
    round_no: int = 0
    last_seq: int = 0  # the table's log holds actions 1..last_seq
    created_by: int | None = None
    message_id: int | None = None  # the group message that shows the lobby, then the table
    summary_message_id: int | None = None  # the last round's summary (Next round / Stop)
    marks: Marks = field(default_factory=Marks)
    due: datetime | None = None  # the turn's deadline, when read with it
    thread_id: int = 0  # the group's topic the table lives in (0: none, or General)
    topic: str | None = None  # that topic's name
    bot_id: int = 0  # the bot that hosts it

    @property
    def group_id(self) -> int:
        return self.group.id

    @property
    def title(self) -> str:
        """How a player's private messages name the table: its group, and its topic where it has one."""
        group = self.group.title or str(self.group.id)
        return f"{group} · {self.topic}" if self.topic else group

    @property
    def playing(self) -> bool:
        return self.status == PLAYING

    def seat(self, n: int) -> Seat | None:
        return next((s for s in self.seats if s.n == n), None)

    def seat_of(self, user_id: int) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    @property
    def free_seats(self) -> list[int]:
        taken = {s.n for s in self.seats}
        return [n for n in range(6) if n not in taken]

    @property
    def to_act(self) -> Seat | None:
        """The seat whose decision the table waits on."""
        if self.match is None or not self.playing:
            return None
        cur = self.match.current_player
        return None if cur is None else self.seat(cur)

    @property
    def humans(self) -> list[Seat]:
        return [s for s in self.seats if s.human]

    def with_seat(self, seat: Seat) -> Table:
        seats = tuple(sorted([*(s for s in self.seats if s.n != seat.n), seat], key=lambda s: s.n))
        return replace(self, seats=seats)

    def without_seat(self, n: int) -> Table:
        return replace(self, seats=tuple(s for s in self.seats if s.n != n))
