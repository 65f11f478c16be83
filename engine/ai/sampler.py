"""Determinizations: whole rounds consistent with what one seat has seen, for the search to play out.

A seat sees its own hand, every card played (the pile), the 报户 counts (10 or fewer), who opened, passed,
went out or died, the top play and the burner (:class:`~engine.views.SeatView`); counting, it knows every
seat's count, what each played, and what each received before the first lead. Everything else is the unseen
pool: the deck less its hand, the pile and a revolutionary's laid-down hand. A world deals the pool to the
other seats:

- each gets exactly as many as he holds (counted; without the count, a seat whose count is shown gets that
  many and the others share the rest, each more than 10, 报户);
- cards a seat received in tribute, 还贡 or 买三 and has not played are his;
- a seat that led a rank alone, or played it padded with 2s or jokers, is dealt no more of it while another
  seat has room (players play a rank's cards together), and a seat that passed on an opponent's small play
  fewer cards than would have answered it cheaply (:func:`declined_caps`);
- a 闷 seat (R8.3) holds only 3s; under 憋三 every seat still in play keeps its 3s for its last play (R8.1),
  and nearly every seat has one (买三, R8.2), so each gets one 3 first while the pool has them;
- a revolutionary's laid-down hand (R9.3) is set aside as the table saw it (a view without it: a phantom
  hand of the deal's size without 2s or jokers, R9.1, is drawn for him and set aside).

The world never depends on the other seats' real cards: only the view and the random generator go in.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import YIELD, Action
from ..cards import BIG, FOUR, FULL_DECK, NRANKS, SMALL, THREE, TWO
from ..plays import GOUJI_THRESHOLD, NORMAL, Top, shape_of
from ..round import MEN, Round
from ..rules import Rules
from ..seats import opposite
from ..views import Declined, SeatView
from .policy import KEEP, answer
from .spots import RoundSpot

HIDDEN_MIN = 11  # 报户: a count that is not shown is more than 10
RESAMPLE = 6  # draws of a world whose passes disagree with the table's (see Sampler.world)


def deck_of(rules: Rules) -> list[int]:
    deck = list(FULL_DECK)
    if rules.zhangqiu:  # R1.5: ten 3s and ten 4s removed
        deck[THREE] -= 10
        deck[FOUR] -= 10
    return deck


def deal_size(rules: Rules) -> int:
    return 33 if rules.zhangqiu else 36


def unseen(view: SeatView) -> list[int]:
    """The deck less the seat's hand and every card played (R1.2: 216 cards; R1.5 with zhangqiu)."""
    deck = deck_of(view.rules)
    return [max(0, deck[r] - view.hand[r] - view.pile[r]) for r in range(NRANKS)]


def holders(view: SeatView) -> list[int]:
    """The other seats that still hold cards: not out, not the revolutionary; 闷 seats keep theirs."""
    gone = set(view.out)
    if view.revolted is not None:
        gone.add(view.revolted)
    return [t for t in range(6) if t != view.seat and t not in gone]


class Sampler:
    """Draws worlds for one decision. Build once per decision (the pool is computed once), then
    :meth:`hands` as often as the budget allows."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.pool = unseen(view)
        self.others = holders(view)
        self.dead = set(view.dead)
        # A revolutionary's hand was laid down for all to see (R9.3): out of the pool, no phantom drawn.
        self.laid_down_known = view.revolted is not None and sum(view.laid_down) > 0
        if self.laid_down_known:
            self.pool = [max(0, p - d) for p, d in zip(self.pool, view.laid_down, strict=True)]
        # Every seat's count, from counting the table (SeatView.sizes); None for a view without it.
        self.exact = list(view.sizes) if len(view.sizes) == 6 else None
        self.known = []
        if view.received and view.played:
            for t in self.others:
                left = [(r, view.received[t][r] - view.played[t][r]) for r in range(NRANKS)]
                self.known.append((t, [(r, k) for r, k in left if k > 0]))
        # At most this many of a rank per seat (99: no bound): none of a rank he led alone or padded, fewer than
        # would have answered a play he passed on.
        self.cap = [[99] * NRANKS for _ in range(6)]
        if view.plain and view.padded:
            for t in self.others:
                void = view.plain[t] | view.padded[t]
                for r in range(TWO):
                    if void >> r & 1:
                        self.cap[t][r] = 0
        if view.declined and view.played:
            for t in self.others:
                for d in view.declined[t]:
                    for r, k in declined_caps(d, view.rules, view.played[t]):
                        self.cap[t][r] = min(self.cap[t][r], k)
        self.barred = [sum(self.cap[t][r] < 99 for t in self.others) for r in range(NRANKS)]

    def hands(self, rng: random.Random) -> list[list[int]]:
        """Six hands: the seat's own, and for every other seat a sample consistent with the view."""
        view = self.view
        pool = self.pool[:]
        hands = [[0] * NRANKS for _ in range(6)]
        hands[view.seat] = list(view.hand)
        if view.revolted is not None and not self.laid_down_known:
            _take_phantom(pool, deal_size(view.rules), rng)
        sizes = self._sizes(sum(pool), rng)
        bie_san = view.rules.bie_san

        def give(t: int, r: int, k: int) -> None:
            k = min(k, pool[r], sizes[t])
            hands[t][r] += k
            pool[r] -= k
            sizes[t] -= k

        # 闷 seats hold only 3s.
        for t in self.others:
            if t in self.dead:
                give(t, THREE, sizes[t])
        # Cards the table saw a seat receive before the first lead, less what he has played since (the search
        # gains most from knowing where the 2s and jokers are: with every hand known the strong player scored
        # +10.9 a round against the heuristic, against +2.4 without).
        for t, known in self.known:
            for r, k in known:
                give(t, r, k)
        if bie_san:
            for t in self.others:
                if t not in self.dead and not hands[t][THREE]:
                    give(t, THREE, 1)
        # The rest, at random, each card to a seat with room for it, in proportion to that room, within what his
        # plays and passes tell (self.cap), unless no seat with room is left for that card.
        order = sorted(range(NRANKS), key=lambda r: -self.barred[r])  # the most barred first
        for r in order:
            for _ in range(pool[r]):
                room = [t for t in self.others if sizes[t] and hands[t][r] < self.cap[t][r]]
                if not room:
                    room = [t for t in self.others if sizes[t]]
                    if not room:
                        break
                t = rng.choices(room, [sizes[u] for u in room])[0] if len(room) > 1 else room[0]
                hands[t][r] += 1
                pool[r] -= 1
                sizes[t] -= 1
        # Cards left over (a count estimate too low) go round the hidden-count seats, so none vanish. With
        # every count known there are none, except in a set position (Match.from_round) whose cards do not
        # make up the deck: those are out of play.
        hidden = [t for t in self.others if self.exact is None and view.counts[t] is None]
        rest = [r for r in range(NRANKS) for _ in range(pool[r])]
        for i, r in enumerate(rest if hidden else ()):
            hands[hidden[i % len(hidden)]][r] += 1
        return hands

    def _sizes(self, total: int, rng: random.Random) -> list[int]:
        """How many cards each other seat holds: as counted (SeatView.sizes) when the view has it; else the 报户
        counts as shown, the rest shared among the seats whose count is hidden, each at least 11, the remainder
        spread at random."""
        if self.exact is not None:
            return self.exact[:]
        view = self.view
        sizes = [0] * 6
        hidden: list[int] = []
        for t in self.others:
            c = view.counts[t]
            if c is None:
                hidden.append(t)
            else:
                sizes[t] = c
                total -= c
        if hidden:
            base = max(HIDDEN_MIN, total // len(hidden))
            extra = total - base * len(hidden)
            for t in hidden:
                sizes[t] = base
            # Spread what is left one card at a time, and shift a few cards between hidden seats: their true
            # counts differ by how much each has played, which the view does not tell.
            for _ in range(max(0, extra)):
                sizes[rng.choice(hidden)] += 1
            if len(hidden) > 1:
                for _ in range(len(hidden) * 2):
                    a, b = rng.sample(hidden, 2)
                    if sizes[a] > HIDDEN_MIN:
                        sizes[a] -= 1
                        sizes[b] += 1
        return sizes

    def world(self, rng: random.Random, legal: Sequence[Action]) -> Round:
        """A whole round in the view's state, with sampled hands for the other seats (play phase only).

        A seat that passed in this trick (R4.2) most likely could not or would not beat the play: worlds in
        which the heuristic, holding that seat's sampled cards, would beat the top play are drawn again, up
        to RESAMPLE times (then the last is kept, so a seat that passed on purpose is still possible)."""
        rnd = round_from_view(self.view, self.hands(rng), legal)
        for _ in range(RESAMPLE):
            if passes_agree(rnd):
                break
            rnd = round_from_view(self.view, self.hands(rng), legal)
        return rnd


def declined_caps(d: Declined, rules: Rules, played_now: Sequence[int]) -> list[tuple[int, int]]:
    """What a pass on an opponent's plain play tells of the hand, as (rank, at most this many now).

    Players answer a small play when it costs them little: the heuristic (engine/ai/policy.py) plays the
    cheapest beating play whose cost is within its budget, 6 when nobody is near going out, and m cards of one
    rank cost KEEP·m, +2 when that splits the rank (−1 when it empties it). So a seat that passed held fewer
    than m cards of every rank above the play whose m cards cost at most 4. Only passes at that budget are
    recorded (Tally.note_pass): with the play's owner near going out, his own hand short or in 四户乱缠 the
    heuristic spends more (2s, jokers), and a strong player's passes there are choices of its search
    (gouji-sim, 200 duplicate rounds: +2.90 reading them too, +3.80 not). Ranks that would break a pure gouji an unopened seat keeps
    for its 开点 (R5.1), 3s under 憋三 and locked 4s (R8.1, R5.4) tell nothing; nor does a rank he has since
    played more of than the pass allowed (he does not play so)."""
    shape = shape_of(d.top)
    if shape is None or shape.nb or shape.nr or shape.v >= TWO:
        return []
    m = shape.size
    budget = 6.0
    guard = not d.opened and rules.dian_gong
    four_locked = rules.dian_si_active and not d.opened
    out = []
    for r in range(shape.v, TWO):
        if (r == THREE and rules.bie_san) or (r == FOUR and four_locked) or (guard and r in GOUJI_THRESHOLD):
            continue
        if KEEP[r] * m + 2.0 <= budget:
            left = m - 1 - (played_now[r] - d.played[r])
            if left >= 0:
                out.append((r, left))
    return out


def _take_phantom(pool: list[int], size: int, rng: random.Random) -> None:
    """Set aside a revolutionary's laid-down hand: no 2s, no jokers (R9.1)."""
    cards = [r for r in range(NRANKS) if r not in (TWO, SMALL, BIG) for _ in range(pool[r])]
    rng.shuffle(cards)
    for r in cards[:size]:
        pool[r] -= 1


def round_from_view(view: SeatView, hands: list[list[int]], legal: Sequence[Action]) -> Round:
    """The :class:`Round` the view describes, with these hands. What the view does not carry is rebuilt from
    the rules: who is still to be asked about the top play (R4.7), a pending 让牌 (R4.4), whether the top play
    闷s its owner (R8.3, from his sampled hand)."""
    s = view.seat
    rules = view.rules
    rnd = Round(rules, hands, s)
    rnd.pile = list(view.pile)
    rnd.opened = list(view.opened)
    rnd.natural = [False] * 6
    rnd.declared = list(view.declared)
    rnd.out = list(view.out)
    rnd.dead = [(d, MEN) for d in view.dead]
    rnd.revolted = view.revolted
    rnd.gousi_left = list(view.gousi_left)
    rnd.free = view.free
    rnd.bound = list(view.passed)
    top = view.top
    if top is not None:
        owner_hand = hands[top.owner]
        left = sum(owner_hand)
        men = rules.bie_san and left > 0 and owner_hand[THREE] == left
        rnd.top = Top(top.owner, top.cards, top.kind, men)
        x = top.owner
        offset = (s - x) % 6
        rnd.queue = [(x + i) % 6 for i in range(offset + 1, 6)]
        o = opposite(x)
        may_yield_now = any(a.kind == YIELD for a in legal)
        if top.kind == NORMAL and not view.free:
            if s == o and not may_yield_now:
                # The 对头 is asked again with no yield offered: he yielded and the decision came back (R4.4).
                rnd.yielder, rnd.yielder_back = s, True
                rnd.queue = []
            elif 0 < (o - x) % 6 < offset and rnd.active(o) and not rnd.bound[o]:
                rnd.yielder, rnd.yielder_back = (
                    o,
                    False,
                )  # asked before me, neither passed nor played: yielded
    if view.burner is not None:
        b = view.burner
        rnd.burner, rnd.burn_stake = b, 1
        # The burned seat is not in the view; it only decides who pays the 烧贡, not the round's score.
        rnd.burn_victim = next((t for t in ((b + 1) % 6, (b + 3) % 6, (b + 5) % 6) if t != s), (b + 1) % 6)
    rnd.current = s
    return rnd


def passes_agree(rnd: Round) -> bool:
    """Whether every opponent of the top play's owner who passed in this trick would pass it in this world."""
    top = rnd.top
    if top is None:
        return True
    x = top.owner
    for t in range(6):
        if t % 2 == x % 2 or not rnd.bound[t] or not rnd.active(t):
            continue
        rnd.bound[t] = False
        try:
            act = answer(RoundSpot(rnd, t))
        finally:
            rnd.bound[t] = True
        if act.cards is not None:
            return False
    return True
