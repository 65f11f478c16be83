"""What a use case did, for the bot to show: the table as committed, the moves and events, the deadlines
armed, and the notices for particular people. Nothing here is text: the bot words it in each reader's
language."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from engine import Action, Event

from .model import Actor, Entry, Table
from .policy import Deadline


@dataclass(frozen=True, slots=True)
class Move:
    seat: int | None
    action: Action
    actor: Actor
    events: tuple[Event, ...]


# ----------------------------------------------------------------------------- notices


@dataclass(frozen=True, slots=True)
class TimedOut:
    """The computer played a turn the player let run out; ``autoplay``: the seat is on 托管 from now on."""

    seat: int
    action: Action
    autoplay: bool


@dataclass(frozen=True, slots=True)
class Reminder:
    """Half of the player's turn time is gone."""

    seat: int


@dataclass(frozen=True, slots=True)
class WentAutoplay:
    """The player left the match (/leave) or cannot be written to: the computer plays his seat (托管)."""

    seat: int
    blocked: bool  # Telegram refused to deliver to him
    left: bool = False  # he left the match: the seat is a computer's from the next deal, unless he comes back


@dataclass(frozen=True, slots=True)
class SeatFreed:
    """A player who left the match did not come back before this deal: a computer plays the seat now."""

    seat: int
    user_id: int
    name: str
    language: str | None


@dataclass(frozen=True, slots=True)
class CameBack:
    """The player plays his own cards again."""

    seat: int


@dataclass(frozen=True, slots=True)
class Nudged:
    """催一下: ``by`` reminded ``seat`` that the table waits for him."""

    seat: int
    by: int


@dataclass(frozen=True, slots=True)
class Closed:
    """The table was closed; the group may open another."""

    by: int | None


@dataclass(frozen=True, slots=True)
class Held:
    """The bot is out of the table's group, or may not write there: the table holds where it is."""


@dataclass(frozen=True, slots=True)
class Resumed:
    """The bot may write in the group again: the table goes on where it was."""


Notice = TimedOut | Reminder | WentAutoplay | SeatFreed | CameBack | Nudged | Closed | Held | Resumed

# What the group's message shows: the lobby, or the table of a match.
LOBBY_VIEW, TABLE_VIEW = "lobby", "table"


@dataclass(frozen=True)
class Outcome:
    table: Table  # as committed
    moves: tuple[Move, ...] = ()
    dealt: tuple[Event, ...] = ()  # the deal of a new round and what came with it (tribute, 买三 …)
    deadlines: tuple[Deadline, ...] = ()  # armed with this version: the scheduler arms them
    notices: tuple[Notice, ...] = ()
    repost: bool = False  # the group's message is to be posted anew (and the old one frozen)
    prompt: bool = False  # the seat to act gets a new turn message (his phone rings)
    hands: frozenset[int] = field(default_factory=frozenset)  # seats whose own cards changed
    rearmed: bool = False  # the table had waited without its deadline (resume)
    unsummarized: bool = False  # the round is over and its end never reached the players (resume)
    told: tuple[Entry, ...] = ()  # what this outcome added to the table's public story
    # Private messages (user, message) whose buttons belong to a turn that is over: the player acted from
    # another message (one a restart sent, say).
    stale: tuple[tuple[int, int], ...] = ()
    # Before the first lead: the seats asked a question they were not asked before (each gets a message that
    # asks it; the others' questions stand, their messages unchanged).
    asked_anew: frozenset[int] = field(default_factory=frozenset)
    # The seat whose own move this stretch of computer moves follows (a follow-on, fired by the clock).
    follows: int | None = None

    @property
    def pending(self) -> bool:
        """The computers' moves follow (a follow-on armed): the group and the next player hear of this move
        with them, in one edit and one turn message."""
        return any(d.kind == "follow" for d in self.deadlines)

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event in order: the deal's, then the moves'."""
        return self.dealt + tuple(e for m in self.moves for e in m.events)

    @property
    def view(self) -> str:
        return TABLE_VIEW if self.table.match is not None else LOBBY_VIEW

    @property
    def due(self) -> datetime | None:
        """The turn's deadline the table shows."""
        return next((d.due_at for d in self.deadlines if d.kind == "timeout"), self.table.due)
