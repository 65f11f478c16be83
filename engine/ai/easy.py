"""The 'easy' computer player: the heuristic as it was before issue 16, played a little carelessly.

It leads and answers like the old heuristic (engine/ai/policy.py ``OLD``), but burns only when the burn takes
it out at once, never yields (R4.4), and lets one opponent's play in four go by when it could beat it. A
beginner at the table sees a plausible partner; the heuristic beats it (gouji-sim, see engine/ai/README.md).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import BURN, PASS_ACTION, YIELD, Action
from ..phases import P_PLAY
from ..views import SeatView
from .heuristic import HeuristicPlayer
from .policy import OLD

CARELESS = 0.25  # the share of beatable opponent plays it lets go by


class EasyPlayer:
    level = "easy"

    def __init__(self, **_options: object) -> None:
        self._heuristic = HeuristicPlayer(OLD)

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        action = self._heuristic.choose(view, legal, rng)
        if view.phase != P_PLAY or view.top is None or len(legal) == 1:
            return action
        going_out = action.cards is not None and sum(action.cards) == sum(view.hand)
        if going_out:
            return action
        if action.kind == BURN or action.kind == YIELD:
            return PASS_ACTION
        if action.cards is not None and view.top.owner % 2 != view.seat % 2 and rng.random() < CARELESS:
            return PASS_ACTION
        return action
