"""The table's policy: who moves without being asked, and how long the table waits for a player.

The engine says what is legal; this says what the table does about it: computer seats and seats on 托管
are played by the computer, a player who may only pass is passed (R4.3, shown as 要不起), a player who
misses two turns in a row goes on 托管 (DESIGN.md), and a player to act gets a deadline.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from engine import Action, Match
from engine.actions import PASS
from engine.ai import computer_action, make_player

from .model import Actor, Seat, Table

AUTOPLAY_AFTER_TIMEOUTS = 2  # DESIGN.md: two missed turns in a row, and the computer keeps the seat
REMIND_FROM_S = 600  # a reminder at half time when the turn time is this long or longer

# Computer levels as stored in a seat; the engine's players by name.
COMPUTER_LEVELS = {1: "baseline", 2: "heuristic"}
DEFAULT_LEVEL = 2

TIMEOUT, REMINDER = "timeout", "reminder"
PASS_ACTION = Action(PASS)


@dataclass(frozen=True, slots=True)
class Deadline:
    kind: str  # TIMEOUT or REMINDER
    due_at: datetime


def level_name(level: int | None) -> str:
    return COMPUTER_LEVELS.get(level or DEFAULT_LEVEL, COMPUTER_LEVELS[DEFAULT_LEVEL])


def computer_move(table: Table, match: Match, seat: Seat | None, salt: int) -> Action:
    """The computer's move for the seat to act. Seeded by where the table is, so the same position gets
    the same move in every process (a second worker, a restart)."""
    level = seat.computer_level if seat is not None and seat.computer_level else DEFAULT_LEVEL
    rng = random.Random((table.id * 1_000_003 + table.version) * 4_099 + salt)
    return computer_action(match, make_player(level_name(level)), rng)


def automatic_move(table: Table, match: Match, salt: int) -> tuple[Action, Actor] | None:
    """The move nobody has to tap for, with who made it; None when the table waits for a player."""
    cur = match.current_player
    if cur is None or not table.playing:
        return None
    seat = table.seat(cur)
    if seat is None or not seat.plays_himself:
        return computer_move(table, match, seat, salt), "computer"
    if match.only_pass():
        return PASS_ACTION, "computer"  # R4.3: 要不起
    return None


def deadlines(table: Table, match: Match | None, now: datetime) -> tuple[Deadline, ...]:
    """What the table waits for at this state: a player's turn time, and a reminder at half time."""
    cur = match.current_player if match is not None and table.playing else None
    seat = table.seat(cur) if cur is not None else None
    if seat is None or not seat.plays_himself:
        return ()
    seconds = table.group.turn_seconds
    planned = [Deadline(TIMEOUT, now + timedelta(seconds=seconds))]
    if seconds >= REMIND_FROM_S:
        planned.append(Deadline(REMINDER, now + timedelta(seconds=seconds / 2)))
    return tuple(planned)


def after_timeout(seat: Seat) -> Seat:
    """The seat after the computer played a turn its player let run out."""
    timeouts = seat.timeouts + 1
    return replace(seat, timeouts=timeouts, autoplay=seat.autoplay or timeouts >= AUTOPLAY_AFTER_TIMEOUTS)
