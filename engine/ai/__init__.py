"""Computer players: one interface for empty seats, 托管 and simulation.

A player is ``choose(view, legal, rng) -> Action``. ``view`` is the :class:`~engine.match.SeatView` of the seat
to act (its own hand and what the table shows, never another hand); ``legal`` is
:meth:`Match.legal_actions` (while leading in play, the plain leads); a player may also compose a lead of his
own (attaching 2s and jokers), which :func:`computer_action` accepts only when the match judges it legal.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from ..actions import Action
from ..match import Match, SeatView
from .baseline import BaselinePlayer
from .heuristic import HeuristicPlayer


class Player(Protocol):
    level: str

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action: ...


LEVELS: dict[str, type[BaselinePlayer] | type[HeuristicPlayer]] = {
    "baseline": BaselinePlayer,
    "heuristic": HeuristicPlayer,
}


def make_player(level: str) -> Player:
    try:
        return LEVELS[level]()
    except KeyError:
        raise ValueError(f"unknown computer level {level!r} ({', '.join(LEVELS)})") from None


def computer_action(match: Match, player: Player, rng: random.Random) -> Action:
    """The action ``player`` takes for the seat to act (which must exist)."""
    seat = match.current_player
    if seat is None:
        raise ValueError("nobody is to act")
    legal = match.legal_actions()
    action = player.choose(match.view(seat), legal, rng)
    if action in legal or match.is_legal(action):
        return action
    return legal[0]


__all__ = ["LEVELS", "Player", "computer_action", "make_player", "BaselinePlayer", "HeuristicPlayer"]
