"""Computer players: one interface for empty seats, 托管 and simulation.

A player is ``choose(view, legal, rng) -> Action``. ``view`` is the :class:`~engine.views.SeatView` of the seat
asked (its own hand and what the table shows, never another hand or a sealed answer; ``view.phase`` is the kind
of question it is asked, ``view.asked`` the question); ``legal`` is :meth:`Match.legal_actions` for that seat
(while leading in play, the plain leads); a player may also compose a lead of his own (attaching 2s and
jokers), which :func:`computer_action` accepts only when the match judges it legal. Before the first lead
several seats are asked at once (:attr:`Match.asked`): each decides on its own view, in any order.

Levels (:func:`make_player`): ``easy`` (the old heuristic, a little careless), ``heuristic`` (the bot's
"normal"; ``normal`` is an alias), ``strong`` (determinized search, engine/ai/search.py), and ``baseline``
(the smallest legal play: a floor for tests). Every level takes the same keyword options and ignores those it
has no use for, so a table can pass its settings (``budget_ms``, ``seed``, ``deterministic``) to any level.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..actions import Action
from ..match import Match
from ..views import SeatView
from .baseline import BaselinePlayer
from .easy import EasyPlayer
from .heuristic import HeuristicPlayer
from .search import SearchOptions, StrongPlayer, decide


class Player(Protocol):
    level: str

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action: ...


def _baseline(**_options: Any) -> Player:
    return BaselinePlayer()


def _heuristic(**_options: Any) -> Player:
    return HeuristicPlayer()


def _strong(**options: Any) -> Player:
    return StrongPlayer(**options)


LEVELS: dict[str, Callable[..., Player]] = {
    "easy": EasyPlayer,
    "heuristic": _heuristic,
    "normal": _heuristic,
    "strong": _strong,
    "baseline": _baseline,
}


def make_player(level: str, **options: Any) -> Player:
    """A computer player of ``level``; ``strong`` takes ``budget_ms`` (default 200), ``seed`` and
    ``deterministic`` (a fixed number of worlds, ``worlds``, instead of the clock)."""
    try:
        factory = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown computer level {level!r} ({', '.join(LEVELS)})") from None
    return factory(**options)


def computer_action(match: Match, player: Player, rng: random.Random, seat: int | None = None) -> Action:
    """The action ``player`` takes for ``seat`` (default: the current player), which must be asked something:
    before the first lead any seat of :attr:`Match.asked`, each deciding on his own view alone."""
    if seat is None:
        seat = match.current_player
    if seat is None or seat not in match.asked:
        raise ValueError("nobody is to act" if seat is None else f"seat {seat} is asked nothing")
    legal = match.legal_actions(seat)
    action = player.choose(match.view(seat), legal, rng)
    if action in legal or match.is_legal(action, seat):
        return action
    return legal[0]


__all__ = [
    "LEVELS",
    "BaselinePlayer",
    "EasyPlayer",
    "HeuristicPlayer",
    "Player",
    "SearchOptions",
    "StrongPlayer",
    "computer_action",
    "decide",
    "make_player",
]
