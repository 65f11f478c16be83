"""The table's policy: who moves without being asked, and how long the table waits for a player.

The engine says what is legal; this says what the table does about it: computer seats and seats on 托管
are played by the computer at the table's level, a player who may only pass is passed (R4.3, shown as
要不起), a player who misses two turns in a row goes on 托管 (DESIGN.md), and a player to act gets a deadline.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Final, Literal

from engine import Action, Match
from engine.actions import PASS
from engine.phases import P_PLAY

from .model import Seat, Table

AUTOPLAY_AFTER_TIMEOUTS = 2  # DESIGN.md: two missed turns in a row, and the computer keeps the seat
REMIND_FROM_S = 600  # a reminder at half time when the turn time is this long or longer

# Computer levels as stored (a seat's, a group's); the engine's players by name.
COMPUTER_LEVELS = {1: "easy", 2: "heuristic", 3: "strong"}  # engine.ai.make_player's names
DEFAULT_LEVEL = 2

# As stored in the deadlines' table. A follow-on is due at once: the computers' moves after a player's move,
# made by the clock so that his tap is answered as soon as his own move is stored (issue 23).
DeadlineKind = Literal["timeout", "reminder", "follow"]
TIMEOUT: Final = "timeout"
REMINDER: Final = "reminder"
FOLLOW: Final = "follow"
PASS_ACTION = Action(PASS)

Automatic = Literal["computer", "pass"]


@dataclass(frozen=True, slots=True)
class Deadline:
    kind: DeadlineKind
    due_at: datetime


def level_name(level: int | None) -> str:
    return COMPUTER_LEVELS.get(level or DEFAULT_LEVEL, COMPUTER_LEVELS[DEFAULT_LEVEL])


def level_of(table: Table, seat: Seat | None) -> int:
    """A computer seat plays at its own level; a player's seat on 托管 (or timed out) at the table's."""
    if seat is not None and seat.computer_level:
        return seat.computer_level
    return table.group.computer_level or DEFAULT_LEVEL


def seed_of(table: Table, salt: int) -> int:
    """Where the table is, as a seed: the same position gets the same move in every process (a second worker,
    a restart)."""
    return (table.id * 1_000_003 + table.version) * 4_099 + salt


def rng_of(table: Table, salt: int) -> random.Random:
    return random.Random(seed_of(table, salt))


def automatic(table: Table, match: Match, late: Collection[int] = ()) -> tuple[int, Automatic] | None:
    """The next seat that moves without anyone tapping, and how: played by the computer (a computer seat, a
    seat on 托管, a ``late`` player whose time ran out: before the first lead every such seat asked answers at
    once), or passed (R4.3: 要不起); None when the table waits only on players (or on nobody)."""
    if not table.playing or not table.group.reachable:
        return None  # a group the bot cannot write in holds its tables: nothing moves, nothing is told
    for n in match.asked:
        seat = table.seat(n)
        if seat is None or not seat.plays_himself or n in late:
            return n, "computer"
        if match.step == P_PLAY and match.only_pass():
            return n, "pass"
    return None


def waits_on(table: Table, match: Match | None) -> list[Seat]:
    """The players the table waits on: the one to act, or before the first lead each asked player who plays
    himself."""
    if match is None or not table.playing or not table.group.reachable:
        return []
    seats = (table.seat(n) for n in match.asked)
    return [s for s in seats if s is not None and s.plays_himself]


def same_question(then: Table, now: Table, seat: int) -> bool:
    """Before the first lead, whether the seat is asked at ``now`` the question put to him at ``then``: the
    others' answers move the table on while his question, and the buttons drawn for it, still stand."""
    put = then.marks.asked_since_version(seat)
    return put is not None and now.marks.asked_since_version(seat) == put


def prompted(table: Table, seat: Seat) -> bool:
    """Whether the seat's turn message (or his question's) was delivered for what he is asked now: during the
    play for this version; before the first lead at the version his question was put or later (the others'
    answers make versions of their own)."""
    if seat.prompted is None:
        return False
    put = table.marks.asked_since_version(seat.n)
    return seat.prompted >= put if put is not None else seat.prompted == table.version


def deadlines(
    table: Table, match: Match | None, now: datetime, *, since: datetime | None = None
) -> tuple[Deadline, ...]:
    """What the table waits for at this state: the computers' moves (a follow-on, due at once), or a player's
    turn time (before the first lead one for every question of the stage, counted ``since`` it opened), and a
    reminder at half time."""
    if match is not None and automatic(table, match) is not None:
        return (Deadline(FOLLOW, now),)
    if not waits_on(table, match):
        return ()
    start = since or now
    seconds = table.group.turn_seconds
    planned = [Deadline(TIMEOUT, start + timedelta(seconds=seconds))]
    if seconds >= REMIND_FROM_S:
        planned.append(Deadline(REMINDER, start + timedelta(seconds=seconds / 2)))
    return tuple(planned)


def after_timeout(seat: Seat) -> Seat:
    """The seat after the computer played a turn its player let run out."""
    timeouts = seat.timeouts + 1
    return replace(seat, timeouts=timeouts, autoplay=seat.autoplay or timeouts >= AUTOPLAY_AFTER_TIMEOUTS)
