"""The 'heuristic' computer player: it plans its hand instead of playing the smallest card.

- Leads whole rank groups, the small ones first, so opponents must match the count; opens early with its
  strongest pure gouji (R5.1) while opening still pays (R5.5).
- Answers opponents with the play that hurts its hand least, within a budget that grows when an opponent is
  close to going out; it keeps 2s and jokers for gouji answers and burns.
- Never beats a teammate unless the play empties its hand; yields (R4.4) rather than passes, so the teammate
  behind gets his chance.
- Burns an opponent's gouji when the burn can finish (R6.3; the engine offers only finishable burns).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import BURN, PASS, PLAY, YIELD, Action
from ..cards import BIG, FOUR, NRANKS, SMALL, THREE, TWO, Counts
from ..match import (
    DECLARE,
    NO_DECLARE,
    NO_REVOLT,
    P_DECLARE,
    P_HEAD,
    P_RETURN,
    P_REVOLT,
    REVOLT,
    WUTOU,
    YAOTOU,
    SeatView,
)
from ..plays import GOUJI_THRESHOLD, counts_of, shape_of
from ..round import NORMAL, opposite

# What a card is worth keeping: low cards are to be shed, 2s and jokers kept for answers and burns.
KEEP = (0, 0, 0, 0, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 8, 14, 20)


def pure_groups(hand: Counts) -> list[int]:
    return [r for r, need in GOUJI_THRESHOLD.items() if hand[r] >= need]


def play_cost(hand: Counts, cards: Counts, guard_pure: bool) -> float:
    """How much playing ``cards`` weakens ``hand``: the cards' keep value, plus splitting a rank group (one more
    lead needed later) and breaking a pure gouji that could still open the point."""
    cost = 0.0
    for r in range(NRANKS):
        k = cards[r]
        if not k:
            continue
        cost += KEEP[r] * k
        if r < 12:
            left = hand[r] - k
            if left:
                cost += 2.0
                need = GOUJI_THRESHOLD.get(r)
                if guard_pure and need is not None and hand[r] >= need > left:
                    cost += 15.0
            else:
                cost -= 1.0  # one lead fewer to make
    return cost


def _jokers(cards: Counts) -> int:
    return cards[SMALL] + cards[BIG]


class HeuristicPlayer:
    level = "heuristic"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        phase = view.phase
        if phase == P_RETURN:
            return self._give_back(view, legal)
        if phase == P_REVOLT:
            return Action(REVOLT) if self._revolt(view.hand) else Action(NO_REVOLT)
        if phase == P_HEAD:
            return Action(YAOTOU) if self._yaotou(view.hand) else Action(WUTOU)
        if phase == P_DECLARE:
            return Action(DECLARE) if self._declare(view) else Action(NO_DECLARE)
        if view.top is None:
            return self._lead(view, legal)
        return self._answer(view, legal)

    # ----------------------------------------------------------------- before the first lead

    def _give_back(self, view: SeatView, legal: Sequence[Action]) -> Action:
        hand = view.hand

        def cost(a: Action) -> float:
            cards = a.cards
            assert cards is not None
            c = play_cost(hand, cards, True)
            if view.rules.bie_san:
                c -= 3.0 * cards[THREE]  # a 3 handed back is a burden handed over (R8.1)
            return c

        return min(legal, key=cost)

    def _revolt(self, hand: Counts) -> bool:
        return not pure_groups(hand)

    def _yaotou(self, hand: Counts) -> bool:
        # 要头 pays when there are gouji plays to make 够死级 (R9.4).
        gouji = len(pure_groups(hand)) + _jokers(hand) + (hand[TWO] >= 2)
        return gouji >= 2

    def _declare(self, view: SeatView) -> bool:
        # R5.6 costs the declarer 2-3 cards whenever his 对头 opens, and he cannot see whether the 对头 can:
        # in simulation any looser rule lost points, so only a crushing hand against a hidden 对头 declares.
        hand = view.hand
        o = opposite(view.seat)
        if view.opened[view.seat] or view.opened[o]:
            return False
        return len(pure_groups(hand)) >= 3 and _jokers(hand) >= 4

    # ----------------------------------------------------------------- leading

    def _whole_hand(self, view: SeatView) -> Action | None:
        """The rest of the hand as one play, when the rules let it be led (R2.1, R2.6, R5.4, R8.1)."""
        hand = view.hand
        s = shape_of(hand)
        if s is None:
            return None
        rules = view.rules
        if hand[THREE] and rules.bie_san and sum(hand) != hand[THREE]:
            return None
        if s.base >= 0 and s.twos and not rules.tie_two:
            return None
        four_locked = rules.dian_si_active and not view.opened[view.seat] and not view.free
        if hand[FOUR] and four_locked and sum(hand) != hand[FOUR]:
            return None
        return Action(PLAY, hand)

    def _lead(self, view: SeatView, legal: Sequence[Action]) -> Action:
        hand = view.hand
        n = sum(hand)
        s = view.seat
        if view.burner == s:
            # R6.3: every lead must carry a joker; spend as few as possible, small jokers first.
            for a in legal:
                if sum(a.cards) == n:  # type: ignore[arg-type]
                    return a
            return min(legal, key=lambda a: (a.cards[BIG], a.cards[SMALL], -sum(a.cards)))  # type: ignore[index]
        whole = self._whole_hand(view)
        if whole is not None:
            return whole
        plain = {a.cards: a for a in legal if a.cards is not None}
        rules = view.rules
        if not view.opened[s] and not view.free and rules.dian_gong:
            # R5.1: open early with the pure gouji the 对头 is least likely to beat.
            pure = [r for r in pure_groups(hand) if counts_of(r, hand[r], 0, 0, 0) in plain]
            if pure:
                r = max(pure, key=lambda r: (hand[r] - GOUJI_THRESHOLD[r], r))
                return plain[counts_of(r, hand[r], 0, 0, 0)]
        best: Action | None = None
        best_key: tuple[int, int] | None = None
        for r in range(12):
            if not hand[r]:
                continue
            a = plain.get(counts_of(r, hand[r], 0, 0, 0))
            if a is None:
                continue
            need = GOUJI_THRESHOLD.get(r, 99)
            key = (int(hand[r] >= need), r)
            if best_key is None or key < best_key:
                best, best_key = a, key
        if best is not None:
            return best
        return min(legal, key=lambda a: play_cost(hand, a.cards, False))  # type: ignore[arg-type]

    # ----------------------------------------------------------------- answering

    def _answer(self, view: SeatView, legal: Sequence[Action]) -> Action:
        hand = view.hand
        n = sum(hand)
        s = view.seat
        top = view.top
        assert top is not None
        plays: list[Action] = []
        burns: list[Action] = []
        pass_a = yield_a = None
        for a in legal:
            if a.kind == PLAY:
                plays.append(a)
            elif a.kind == BURN:
                burns.append(a)
            elif a.kind == PASS:
                pass_a = a
            elif a.kind == YIELD:
                yield_a = a
        fallback = yield_a or pass_a or legal[0]
        for a in burns + plays:
            if sum(a.cards) == n:  # type: ignore[arg-type]
                return a  # out now (a burn that empties the hand wins its 烧贡 too)
        owner = top.owner
        if owner % 2 == s % 2:
            return pass_a or legal[0]  # never beat a teammate without reason
        guard = not view.opened[s] and not view.free and view.rules.dian_gong
        if burns and top.kind != NORMAL:
            best = min(burns, key=lambda a: play_cost(hand, a.cards, False))  # type: ignore[arg-type]
            return best
        if not plays:
            return fallback
        best = min(plays, key=lambda a: play_cost(hand, a.cards, guard))  # type: ignore[arg-type]
        cost = play_cost(hand, best.cards, guard)  # type: ignore[arg-type]
        if cost <= self._budget(view, n):
            return best
        return fallback

    def _budget(self, view: SeatView, n: int) -> float:
        top = view.top
        assert top is not None
        owner = top.owner
        budget = 6.0
        if top.kind != NORMAL and owner == opposite(view.seat):
            # Only I may answer my 对头's gouji: stop him opening the point, take the lead.
            budget = 16.0 if not view.opened[owner] else 10.0
        left = view.counts[owner]
        if left is not None and left <= 6:
            budget += 14.0  # he is close to going out
        if n <= 8:
            budget += 8.0
        if view.free:
            budget += 4.0
        return budget
