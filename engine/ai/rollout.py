"""Rollouts: a round played to its end with the heuristic at every seat, as fast as the engine allows.

The search plays thousands of these a decision, so a rollout works on a :class:`~engine.round.Round` (never a
Match, never a SeatView), copies it with :meth:`Round.clone`, and applies the policy's actions through the
round's own transition code without re-validating them (the policy only builds legal actions:
tests/ai/test_rollout.py checks every one of them against ``Round.illegal_reason``).
"""

from __future__ import annotations

from ..actions import BURN, PASS, YIELD, Action
from ..events import Event
from ..round import MEN, Round
from .policy import DEFAULT, Tuning, choose_play
from .spots import RoundSpot

# A safety net, far above any real round (a heuristic round takes about 270 actions).
MAX_ACTIONS = 5_000


class RolloutRound(Round):
    """A Round whose hottest seat queries are written for speed; they answer exactly as Round's (the dead list
    is nearly always empty, and Round's generator expressions over it were a fifth of a rollout's time)."""

    def active(self, s: int) -> bool:
        if s in self.out or s == self.revolted:
            return False
        return not self.dead or all(d != s for d, _ in self.dead)

    def has_head(self, s: int) -> bool:
        if self.gousi_left[s]:
            return True
        o = (s + 3) % 6
        if o in self.out or o == self.revolted:
            return False
        return not self.dead or all(d != o or how == MEN for d, how in self.dead)

    def _check_over(self, events: list[Event]) -> bool:
        team = -1
        for s in range(6):
            if self.active(s):
                if team < 0:
                    team = s % 2
                elif s % 2 != team:
                    return False
        self.over = True
        self.current = None
        self.top = None
        events.append(Event("round_over"))
        return True


def fast_copy(rnd: Round) -> RolloutRound:
    """A :class:`RolloutRound` copy of ``rnd`` (Round.clone, then the faster class)."""
    copy = rnd.clone()
    copy.__class__ = RolloutRound
    assert isinstance(copy, RolloutRound)  # what the class assignment made it, which mypy cannot follow
    return copy


def apply_unchecked(rnd: Round, action: Action) -> None:
    """``rnd.apply(action)`` for an action known to be legal, without its legality check and events."""
    s = rnd.current
    assert s is not None
    events: list[Event] = []
    kind = action.kind
    if kind == PASS:
        rnd.bound[s] = True
        if rnd.yielder == s:
            rnd.yielder = None
        rnd._advance(events)
    elif kind == YIELD:
        rnd.yielder, rnd.yielder_back = s, False
        rnd._advance(events)
    else:
        assert action.cards is not None
        rnd._play(s, action.cards, kind == BURN, events)


def policy_action(rnd: Round, tuning: Tuning = DEFAULT) -> Action:
    s = rnd.current
    assert s is not None
    return choose_play(RoundSpot(rnd, s), tuning)


def play_out(rnd: Round, tuning: Tuning = DEFAULT) -> Round:
    """Play ``rnd`` (changed in place) to its end with the heuristic at every seat."""
    n = 0
    while not rnd.over and n < MAX_ACTIONS:
        apply_unchecked(rnd, policy_action(rnd, tuning))
        n += 1
    return rnd


def team_score(rnd: Round, seat: int) -> int:
    """The round score of ``seat``'s team (R11.1: its three seats' sum) once ``rnd`` is over."""
    scores = rnd.scores()
    assert scores is not None, "the round is not over"
    return sum(scores[seat % 2 :: 2])
