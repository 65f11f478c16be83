"""Helpers for the match tests: driving a match with computer players and finding seeds with a property."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.actions import Action
from engine.ai import computer_action, make_player
from engine.cards import FOUR, FULL_DECK, NRANKS, THREE, Counts
from engine.events import Event
from engine.match import Match
from engine.rules import Rules


def deck(rules: Rules) -> Counts:
    """R1.2, or R1.5's 196 cards with zhangqiu."""
    d = list(FULL_DECK)
    if rules.zhangqiu:
        d[THREE] -= 10
        d[FOUR] -= 10
    return tuple(d)


def total(hands: list[list[int]] | list[Counts]) -> Counts:
    return tuple(sum(h[r] for h in hands) for r in range(NRANKS))


Chooser = Callable[[Match, random.Random], Action]


def computer(levels: tuple[str, str] = ("heuristic", "baseline")) -> Chooser:
    players = [make_player(levels[s % 2]) for s in range(6)]

    def choose(m: Match, rng: random.Random) -> Action:
        seat = m.current_player
        assert seat is not None
        return computer_action(m, players[seat], rng)

    return choose


def drive(
    m: Match,
    choose: Chooser,
    rng: random.Random,
    check: Callable[[Match], None] | None = None,
    log: list[str] | None = None,
) -> list[Event]:
    """Play until nobody is to act (the round is over); ``check`` runs after every action. ``log`` gets
    every action in notation, as the table's log keeps them (``Match.replay`` reads it)."""
    events: list[Event] = []
    while m.current_player is not None:
        action = choose(m, rng)
        events += m.apply(action)
        if log is not None:
            log.append(str(action))
        if check is not None:
            check(m)
    return events


def find_seed(rules: Rules, pred: Callable[[Match], bool], limit: int = 20000) -> int:
    for seed in range(limit):
        if pred(Match(rules, seed)):
            return seed
    raise AssertionError("no seed found")
