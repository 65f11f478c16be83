"""The heuristic's play-phase decisions, written once for two callers: the 'heuristic' computer player (which
sees a :class:`~engine.views.SeatView` and the legal actions) and the search's rollouts (which play a whole
:class:`~engine.round.Round` with every seat's cards, thousands of times a decision).

Both describe the seat to act as a :class:`Spot`; :func:`choose_play` decides on it. The cheapest beating play
is built directly from the hand instead of scoring every legal multiset (an answer with 2s and jokers to
attach lists hundreds), which is what makes a rollout cheap: see engine/ai/rollout.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..actions import BURN, PASS_ACTION, PLAY, YIELD_ACTION, Action
from ..cards import BIG, FOUR, NRANKS, SMALL, THREE, TWO, Counts
from ..plays import GOUJI_THRESHOLD, NORMAL, Shape, Top, beats_shape, counts_of, shape_of
from ..rules import Rules
from ..seats import opposite

# What a card is worth keeping: low cards are to be shed, 2s and jokers kept for answers and burns.
KEEP = (0, 0, 0, 0, 0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 8, 14, 20)


@dataclass(frozen=True, slots=True)
class Tuning:
    """The heuristic's fixes tried in issue 16, each switchable so gouji-sim can measure it against the old play
    (engine/ai/README.md has the figures). The defaults are what measured better; the others stay off."""

    # Extra cost of splitting a gouji group to answer a small play. gouji-sim 2,000 duplicate rounds against
    # the old heuristic: 6 gave −0.41 ± 0.38, 2 (with stop_open) +0.38 ± 0.39 against +0.64 ± 0.36 without.
    keep_gouji: float = 0.0
    # Extra budget against the 对头's pure gouji while he is unopened (R5.1): +0.64 ± 0.36 at 12; 6 gave
    # +0.26, 20 +0.30, 30 −0.06.
    stop_open: float = 12.0
    # Extra budget when an opponent holds 3 cards or fewer: 16 gave +0.10 ± 0.26 (nothing measurable).
    stop_finisher: float = 0.0
    # Under 憋三 keep a stopper for the last play before the 3s (R8.1, R8.3): −0.73 ± 0.31, and no fewer 闷.
    guard_threes: bool = False


OLD = Tuning(stop_open=0.0)  # the heuristic before issue 16
DEFAULT = Tuning()


class Spot(Protocol):
    """The seat to act in the play phase, as the heuristic needs it. Only the seat's own cards and what the
    table shows; the capabilities come from the legal actions (SeatView) or the rules (Round)."""

    seat: int
    hand: Sequence[int]
    top: Top | None
    opened: Sequence[bool]
    free: bool
    rules: Rules
    burner: int | None

    def count(self, seat: int) -> int | None: ...  # 报户: another seat's cards when 10 or fewer

    def can_answer(self) -> bool: ...

    def can_yield(self) -> bool: ...

    def burns(self) -> list[Counts]: ...  # every legal burn (usually none)

    def other_plays(self) -> list[Counts]: ...  # every legal answer, for the rare rules the builder skips

    def burner_leads(self) -> list[Counts]: ...  # every legal lead of a burner (R6.3)

    def extra_leads(self) -> list[Counts]: ...  # plain leads that are not one rank group (2s, jokers)


def pure_groups(hand: Sequence[int]) -> list[int]:
    return [r for r, need in GOUJI_THRESHOLD.items() if hand[r] >= need]


def jokers(cards: Sequence[int]) -> int:
    return cards[SMALL] + cards[BIG]


def play_cost(hand: Sequence[int], cards: Sequence[int], guard_pure: bool, tuning: Tuning = DEFAULT) -> float:
    """How much playing ``cards`` weakens ``hand``: the cards' keep value, plus splitting a rank group (one more
    lead needed later), breaking a pure gouji that could still open the point, and (tuning) breaking any gouji
    group, a lead only the 对头 may answer (R3.3)."""
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
                if need is not None and hand[r] >= need > left:
                    if guard_pure:
                        cost += 15.0
                    cost += tuning.keep_gouji
            else:
                cost -= 1.0  # one lead fewer to make
    return cost


# ----------------------------------------------------------------- building answers


def cheapest_answer(
    hand: Sequence[int], old: Shape, rules: Rules, four_ok: bool, guard: bool, tuning: Tuning = DEFAULT
) -> tuple[float, Counts] | None:
    """The beating play (no burn) of least :func:`play_cost`, built from the hand instead of scoring every
    legal multiset. R2.4: the new play needs an R against each of ``old``'s B's, then B's and normal cards of a
    higher value. For a base rank the cheapest play takes as many base cards as the hand has, then 2s; extra
    R's beyond those needed are never taken (a B or a 2 does the same work for less). None when nothing beats
    ``old``, or when it holds an R (R2.5 is left to the caller)."""
    if old.nr:
        return None
    m = old.size
    big, small, twos = hand[BIG], hand[SMALL], hand[TWO]
    nr = old.nb
    if nr > big or nr > m:
        return None
    max_t = twos if rules.tie_two else 0
    bie_san = rules.bie_san
    n = sum(hand)
    n3 = hand[THREE] if bie_san else 0
    held_jokers = small + big
    keep_gouji = tuning.keep_gouji
    # R8.1/R8.3 (tuning.guard_threes): with 3s to finish on, the last play before them must win its trick or
    # the seat is 闷. Playing down to only 3s without a big joker in the play leaves the 3s at the mercy of
    # whoever beats it (+6); spending the last joker on an answer leaves nothing to make sure of it (+8). The
    # same for every candidate but one made of the 3s themselves.
    three_rest = n - n3 - m if (tuning.guard_threes and n3) else None
    best: tuple[int, int, int, int] | None = None  # base, k, 2s, small jokers
    best_cost = 1e9
    for nb in range(min(small, m - nr) + 1):
        jc = KEEP[BIG] * nr + KEEP[SMALL] * nb
        if three_rest is not None:
            if three_rest <= 0:
                jc += 0.0 if nr else 6.0
            elif held_jokers and nr + nb == held_jokers:
                jc += 8.0
        if jc >= best_cost:
            break
        rest = m - nr - nb
        if rest == 0:
            best, best_cost = (-1, 0, 0, nb), jc
            continue
        if not old.n:
            continue
        if rest <= twos and old.v < 13:
            cost = jc + KEEP[TWO] * rest
            if cost < best_cost:
                best, best_cost = (-1, 0, rest, nb), cost
        for r in range(old.v, 12):
            c = hand[r]
            if not c:
                continue
            if r == THREE and bie_san:
                if c == rest == n and not nb and not nr and best_cost > 0:
                    best, best_cost = (r, c, 0, 0), 0.0
                continue
            if r == FOUR and not four_ok:
                continue
            k = c if c < rest else rest
            t = rest - k
            if t > max_t:
                continue
            cost = jc + KEEP[r] * k + KEEP[TWO] * t
            left = c - k
            if left:
                cost += 2.0
                need = GOUJI_THRESHOLD.get(r)
                if need is not None and c >= need > left:
                    cost += keep_gouji + (15.0 if guard else 0.0)
            else:
                cost -= 1.0
            if cost < best_cost:
                best, best_cost = (r, k, t, nb), cost
    if best is None:
        return None
    r, k, t, nb = best
    return best_cost, counts_of(r, k, t, nb, nr)


# ----------------------------------------------------------------- deciding


def choose_play(spot: Spot, tuning: Tuning = DEFAULT) -> Action:
    """The heuristic's play-phase action: a lead when the table is empty, else an answer."""
    if spot.top is None:
        return Action(PLAY, lead_cards(spot, tuning))
    return answer(spot, tuning)


def whole_hand(spot: Spot) -> Counts | None:
    """The rest of the hand as one play, when the rules let it be led (R2.1, R2.6, R5.4, R8.1)."""
    hand = tuple(spot.hand)
    s = shape_of(hand)
    if s is None:
        return None
    rules = spot.rules
    n = sum(hand)
    if hand[THREE] and rules.bie_san and n != hand[THREE]:
        return None
    if s.base >= 0 and s.twos and not rules.tie_two:
        return None
    if hand[FOUR] and _four_locked(spot) and n != hand[FOUR]:
        return None
    return hand


def _four_locked(spot: Spot) -> bool:
    return spot.rules.dian_si_active and not spot.opened[spot.seat] and not spot.free


def group_lead_ok(spot: Spot, r: int) -> bool:
    """Whether the whole group of rank r is a legal plain lead (R8.1 3s last; R5.4 4s after opening, or alone
    when nothing else is left)."""
    hand = spot.hand
    if r == THREE and spot.rules.bie_san:
        return sum(hand) == hand[THREE]
    if r == FOUR and _four_locked(spot):
        return hand[THREE] + hand[FOUR] == sum(hand)
    return True


def lead_cards(spot: Spot, tuning: Tuning = DEFAULT) -> Counts:
    hand = spot.hand
    s = spot.seat
    if spot.burner == s:
        # R6.3: every lead must carry a joker; spend as few as possible, small jokers first.
        leads = spot.burner_leads()
        n = sum(hand)
        for c in leads:
            if sum(c) == n:
                return c
        return min(leads, key=lambda c: (c[BIG], c[SMALL], -sum(c)))
    whole = whole_hand(spot)
    if whole is not None:
        return whole
    if not spot.opened[s] and not spot.free and spot.rules.dian_gong:
        # R5.1: open early with the pure gouji the 对头 is least likely to beat.
        pure = [r for r in pure_groups(hand) if group_lead_ok(spot, r)]
        if pure:
            r = max(pure, key=lambda r: (hand[r] - GOUJI_THRESHOLD[r], r))
            return counts_of(r, hand[r], 0, 0, 0)
    best_r = -1
    best_key = (2, 99)
    for r in range(12):
        if hand[r] and group_lead_ok(spot, r):
            key = (int(hand[r] >= GOUJI_THRESHOLD.get(r, 99)), r)
            if key < best_key:
                best_r, best_key = r, key
    if best_r >= 0:
        return counts_of(best_r, hand[best_r], 0, 0, 0)
    extra = spot.extra_leads()
    return min(extra, key=lambda c: play_cost(hand, c, False, tuning))


def answer(spot: Spot, tuning: Tuning = DEFAULT) -> Action:
    hand = spot.hand
    n = sum(hand)
    s = spot.seat
    top = spot.top
    assert top is not None
    old = shape_of(top.cards)
    assert old is not None
    rules = spot.rules
    gouji_top = top.kind != NORMAL
    burns: list[Counts] | None = None
    if old.size == n:
        whole = whole_hand(spot)
        whole_shape = None if whole is None else shape_of(whole)  # whole_hand returns only plays
        if (
            whole is not None
            and whole_shape is not None
            and beats_shape(whole_shape, old, rules.two_big_kill_one)
        ):
            if spot.can_answer():
                return Action(PLAY, whole)  # out now
            if gouji_top:
                burns = spot.burns()
                if whole in burns:
                    return Action(BURN, whole)  # out now, and the burn wins its 烧贡 (R6.6)
    if top.owner % 2 == s % 2:
        return PASS_ACTION  # never beat a teammate without reason
    if gouji_top:
        if burns is None:
            burns = spot.burns()
        if burns:
            return Action(BURN, min(burns, key=lambda c: play_cost(hand, c, False, tuning)))
    if not spot.can_answer():
        return _quiet(spot)
    guard = not spot.opened[s] and not spot.free and rules.dian_gong
    if rules.two_big_kill_one and old.nr:
        plays = spot.other_plays()
        if not plays:
            return _quiet(spot)
        cards = min(plays, key=lambda c: play_cost(hand, c, guard, tuning))
        found: tuple[float, Counts] | None = (play_cost(hand, cards, guard, tuning), cards)
    else:
        four_ok = spot.opened[s] or not rules.dian_si_active or spot.free
        found = cheapest_answer(hand, old, rules, four_ok, guard, tuning)
    if found is not None and found[0] <= budget(spot, n, tuning):
        return Action(PLAY, found[1])
    return _quiet(spot)


def _quiet(spot: Spot) -> Action:
    """Not answering: 让牌 where it is allowed (R4.4), else pass. Asked only then: in a rollout it is a rule
    check (Round.illegal_reason) on every answer, a twentieth of the rollout's time (cProfile)."""
    return YIELD_ACTION if spot.can_yield() else PASS_ACTION


def budget(spot: Spot, n: int, tuning: Tuning = DEFAULT) -> float:
    """How much hand strength an answer may cost: more against the 对头's gouji (only I may answer it, R3.3),
    more when an opponent is close to going out, when my own hand is short, and in 四户乱缠."""
    top = spot.top
    assert top is not None
    owner = top.owner
    value = 6.0
    if top.kind != NORMAL and owner == opposite(spot.seat):
        value = 16.0 if not spot.opened[owner] else 10.0
        if not spot.opened[owner] and _is_pure(top.cards):
            value += tuning.stop_open  # R5.1: if it stands he opens the point
    left = spot.count(owner)
    if left is not None and left <= 6:
        value += 14.0  # he is close to going out
        if left <= 3:
            value += tuning.stop_finisher
    if n <= 8:
        value += 8.0
    if spot.free:
        value += 4.0
    return value


def _is_pure(cards: Counts) -> bool:
    s = shape_of(cards)
    if s is None or s.nr or s.nb or s.twos or s.base < 0:
        return False
    need = GOUJI_THRESHOLD.get(s.base)
    return need is not None and s.n >= need


__all__ = [
    "DEFAULT",
    "KEEP",
    "OLD",
    "Spot",
    "Tuning",
    "answer",
    "cheapest_answer",
    "choose_play",
    "jokers",
    "lead_cards",
    "play_cost",
    "pure_groups",
    "whole_hand",
]
