"""The 'heuristic' computer player: it plans its hand instead of playing the smallest card.

- Leads whole rank groups, the small ones first, so opponents must match the count; opens early with its
  strongest pure gouji (R5.1) while opening still pays (R5.5).
- Answers opponents with the play that hurts its hand least, within a budget that grows when an opponent is
  close to going out; it keeps 2s and jokers for gouji answers and burns.
- Never beats a teammate unless the play empties its hand; yields (R4.4) rather than passes, so the teammate
  behind gets his chance.
- Burns an opponent's gouji when the burn can finish (R6.3; the engine offers only finishable burns).
- Issue 16: keeps its gouji groups whole against small plays, spends more to stop its 对头 opening (R5.1) and
  an opponent about to go out, and under 憋三 keeps a stopper for its last play before the 3s (R8.3 闷).

The play-phase decisions live in engine/ai/policy.py, shared with the search's rollouts.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import DECLARE, NO_DECLARE, NO_REVOLT, REVOLT, WUTOU, YAOTOU, Action
from ..cards import THREE, TWO, Counts
from ..phases import P_DECLARE, P_HEAD, P_RETURN, P_REVOLT
from ..seats import opposite
from ..views import SeatView
from .policy import DEFAULT, KEEP, Tuning, choose_play, jokers, play_cost, pure_groups
from .spots import ViewSpot

__all__ = ["HeuristicPlayer", "KEEP", "play_cost", "pure_groups"]


class HeuristicPlayer:
    level = "heuristic"

    def __init__(self, tuning: Tuning = DEFAULT) -> None:
        self.tuning = tuning

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        phase = view.phase
        if phase == P_RETURN:
            return self.give_back(view, legal)
        if phase == P_REVOLT:
            return Action(REVOLT) if self.revolt(view.hand) else Action(NO_REVOLT)
        if phase == P_HEAD:
            return Action(YAOTOU) if self.yaotou(view.hand) else Action(WUTOU)
        if phase == P_DECLARE:
            return Action(DECLARE) if self.declare(view) else Action(NO_DECLARE)
        if len(legal) == 1 and view.top is not None:
            return legal[0]
        return choose_play(ViewSpot(view, legal), self.tuning)

    # ----------------------------------------------------------------- before the first lead

    def give_back(self, view: SeatView, legal: Sequence[Action]) -> Action:
        hand = view.hand

        def cost(a: Action) -> float:
            cards = a.cards
            assert cards is not None
            c = play_cost(hand, cards, True, self.tuning)
            if view.rules.bie_san:
                c -= 3.0 * cards[THREE]  # a 3 handed back is a burden handed over (R8.1)
            return c

        return min(legal, key=cost)

    def revolt(self, hand: Counts) -> bool:
        return not pure_groups(hand)

    def yaotou(self, hand: Counts) -> bool:
        # 要头 pays when there are gouji plays to make 够死级 (R9.4).
        gouji = len(pure_groups(hand)) + jokers(hand) + (hand[TWO] >= 2)
        return gouji >= 2

    def declare(self, view: SeatView) -> bool:
        # R5.6 costs the declarer 2-3 cards whenever his 对头 opens, and he cannot see whether the 对头 can:
        # in simulation any looser rule lost points, so only a crushing hand against a hidden 对头 declares.
        hand = view.hand
        o = opposite(view.seat)
        if view.opened[view.seat] or view.opened[o]:
            return False
        return len(pure_groups(hand)) >= 3 and jokers(hand) >= 4
