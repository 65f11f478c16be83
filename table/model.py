"""The table as one value: its group's settings, who sits where, the match and what the table shows.

A ``Table`` is read whole at the start of a use case and is never changed in place; a use case that moves
the match works on its own copy (``Match.copy``) and the outcome carries the table as committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from engine import Match, Rules

LOBBY, PLAYING, CLOSED = "lobby", "playing", "closed"
Status = Literal["lobby", "playing", "closed"]

# Who made a move: the player himself, the computer because his time ran out, or the computer for a
# computer seat or a seat on 托管 (and R4.3's automatic passes).
Actor = Literal["player", "timeout", "computer"]

TURN_TIMES = (30, 60, 120, 300, 1800, 7200, 86400)  # what /settings offers, 30 s … 24 h
DEFAULT_TURN_SECONDS = 120


@dataclass(frozen=True, slots=True)
class Group:
    """A group's settings for its tables."""

    id: int
    title: str | None = None
    language: str = "zh"
    turn_seconds: int = DEFAULT_TURN_SECONDS
    house_rules: dict[str, Any] | None = None  # None: the default preset
    rounds_played: int = 0

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

    @property
    def human(self) -> bool:
        return self.user_id is not None

    @property
    def plays_himself(self) -> bool:
        """A human who is not on 托管: the table waits for him."""
        return self.user_id is not None and not self.autoplay


@dataclass(frozen=True, slots=True)
class Marks:
    """What the table shows that the engine does not know. Stored with the table, so a restart or a second
    worker shows the same table."""

    auto_passed: frozenset[int] = frozenset()  # R4.3: passed by the table (要不起), until the trick ends

    def to_json(self) -> dict[str, Any]:
        return {"auto_passed": sorted(self.auto_passed)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Marks:
        if not data:
            return cls()
        return cls(auto_passed=frozenset(data.get("auto_passed", ())))


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
    marks: Marks = field(default_factory=Marks)
    due: datetime | None = None  # the turn's deadline, when read with it

    @property
    def group_id(self) -> int:
        return self.group.id

    @property
    def title(self) -> str:
        return self.group.title or str(self.group.id)

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
