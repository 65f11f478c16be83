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


def asked_kinds(m: Match) -> dict[int, str]:
    """Each asked seat and the kind of his question."""
    out = {}
    for s in m.asked:
        q = m.question(s)
        if q is not None:  # during the play the seat to act is asked a move, not a question
            out[s] = q.kind
    return out


def revolt_seats(m: Match) -> list[int]:
    """The seats asked 革命 now, in seat order from the leader."""
    return [s for s, k in asked_kinds(m).items() if k == "revolt"]


Answer = Callable[[Match, int], Action]


def answer_stage(
    m: Match, answer: Answer, order: Callable[[tuple[int, ...]], int] | None = None
) -> list[Event]:
    """Answer every open question before the first lead with ``answer(m, seat)``, the seat to answer next
    picked by ``order`` from the asked seats (default: the first), until the stage is over (the play, or
    要头/无头 after a revolution), or a redeal opened a new stage (deal_no changed)."""
    events: list[Event] = []
    deal_no = m.deal_no
    while m.step == "stage" and m.deal_no == deal_no:
        asked = m.asked
        seat = asked[0] if order is None else order(asked)
        events += m.apply(answer(m, seat), seat)
    return events


def find_seed(rules: Rules, pred: Callable[[Match], bool], limit: int = 20000) -> int:
    for seed in range(limit):
        if pred(Match(rules, seed)):
            return seed
    raise AssertionError("no seed found")
