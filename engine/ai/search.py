"""The 'strong' computer player: determinized Monte Carlo search over the heuristic's candidate moves.

For one decision: list a few candidates (the heuristic's move first, then the other sensible ones: every rank
group to lead, the cheapest beating play of each rank, pass, 让牌, the cheapest burn of each rank, …); then,
world after world, deal the unseen cards consistently with the seat's view (engine/ai/sampler.py), play every
live candidate in that same world and roll the round out with the heuristic at every seat
(engine/ai/rollout.py). The candidate whose team scores best on average over the same worlds is played; the
heuristic's own move keeps a small head start, so noise alone does not overturn it.

:func:`decide` is the whole decision as a module-level function of picklable values (a SeatView, the legal
actions, :class:`SearchOptions`, a seed), so the bot can run it in a ``ProcessPoolExecutor``. With
``SearchOptions.worlds`` set it uses no clock: the same view, legal actions and seed give the same move.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..actions import (
    BURN,
    DECLARE,
    NO_DECLARE,
    PASS_ACTION,
    PLAY,
    RETURN,
    REVOLT,
    WUTOU,
    YAOTOU,
    YIELD,
    YIELD_ACTION,
    Action,
    Head,
)
from ..cards import NRANKS, Counts
from ..phases import P_DECLARE, P_HEAD, P_PLAY, P_RETURN, P_REVOLT
from ..plays import has_pure_gouji, shape_of
from ..refusals import IllegalAction
from ..round import Round
from ..seats import opposite
from ..views import SeatView
from .heuristic import HeuristicPlayer
from .policy import DEFAULT, Tuning, group_lead_ok, play_cost
from .rollout import fast_copy, play_out, team_score
from .sampler import Sampler
from .spots import ViewSpot


@dataclass(frozen=True, slots=True)
class SearchOptions:
    budget_ms: float = 200.0  # wall time a decision may take (the clock is read between rollouts)
    worlds: int | None = None  # deterministic mode: exactly this many worlds, no clock
    max_candidates: int = 6
    # The heuristic's move wins ties and near-ties: another move must score this much more per round on the
    # same worlds, less select_z standard errors of that gain. gouji-sim, the same 200 duplicate rounds at
    # 200 ms: z 1.5 +2.36 [+1.63, +3.09], z 0 +1.58 [+1.00, +2.16]; with no z and no tribute in the value,
    # at 50 ms, −3.05 (noise overturned good moves, 26 revolutions in 200 rounds). On 880 play decisions of
    # 12 worlds, each choice scored by one rollout on the true hands, z 0 looked best (+1.20 a decision
    # against +0.43 at z 1.5): that one-step measure flatters deviations the real continuation punishes.
    prefer_heuristic: float = 0.15
    select_z: float = 1.5
    preplay_z: float = 1.5  # before the first lead (革命, 要头/无头, 宣点, 还贡)
    min_worlds: int = 6  # before pruning a candidate
    # With the heuristic's move still ahead of every alternative after this many worlds, stop. 8 worlds of
    # the same deal cost little, and the full budget on every decision made a 200 ms player take 12 s a
    # round (60 decisions searched by its team), too slow for the table and for gouji-sim.
    settle_worlds: int = 8
    prune_z: float = 2.0  # see _prune
    # What one card of tribute owed at the round's end is worth in points of the next round: moving the
    # payer's best R/B/2 from one team to the other in 4,000 heuristic rounds (each deal played with and
    # without the move) gained the receiving team +1.29 ± 0.13 points; a little less, for the last round
    # of a match and for 还贡 (R10.6), which sends a card back.
    tribute_card_points: float = 1.2
    tuning: Tuning = DEFAULT


@dataclass
class SearchStats:
    """What a decision did, for tests and the bench: how many worlds and rollouts, and the candidates."""

    worlds: int = 0
    rollouts: int = 0
    candidates: int = 0
    searched: bool = False


_HEURISTIC = HeuristicPlayer()

# What a finished world is worth to the deciding seat's team (see _value).
Value = Callable[[Round], float]
# One world: the candidate played in it and the round rolled out, valued.
World = Callable[[Action, Value], float]
# Draws the next world for the candidates.
Builder = Callable[[list[Action], random.Random], World]


def decide(
    view: SeatView,
    legal: Sequence[Action],
    options: SearchOptions = SearchOptions(),
    seed: int = 0,
    stats: SearchStats | None = None,
) -> Action:
    """The strong player's action for the seat of ``view``, from the view and the legal actions only."""
    start = time.perf_counter()
    stats = stats if stats is not None else SearchStats()
    rng = random.Random(seed)
    heuristic = HeuristicPlayer(options.tuning)
    if len(legal) == 1:
        return legal[0]
    phase = view.phase
    if phase == P_PLAY:
        first = heuristic.choose(view, legal, rng)
        cands = play_candidates(view, legal, first, options)
        build = _play_builder(view, legal)
    elif phase == P_RETURN:
        first = heuristic.choose(view, legal, rng)
        cands = _return_candidates(view, legal, first, options)
        build = _preplay_builder(view)
    elif phase in (P_REVOLT, P_HEAD, P_DECLARE):
        first = heuristic.choose(view, legal, rng)
        cands = [first] + [a for a in legal if a != first]
        build = _preplay_builder(view)
    else:
        return legal[0]
    stats.candidates = len(cands)
    if len(cands) == 1:
        return cands[0]
    stats.searched = True
    value = _value(view.seat, options.tribute_card_points)
    z = options.select_z if phase == P_PLAY else options.preplay_z
    return _search(cands, build, value, options, z, rng, start, stats)


# ----------------------------------------------------------------- the search loop


def _search(
    cands: list[Action],
    build: Builder,
    value: Value,
    options: SearchOptions,
    z: float,
    rng: random.Random,
    start: float,
    stats: SearchStats,
) -> Action:
    k = len(cands)
    totals = [0.0] * k
    diffs = [[0.0, 0.0] for _ in range(k)]  # sum and sum of squares of (candidate − heuristic) per world
    live = list(range(k))
    deadline = start + options.budget_ms / 1000.0
    fixed = options.worlds
    rollout_s = 0.0
    n = 0
    while True:
        if fixed is not None and n >= fixed:
            break
        world = build(cands, rng)
        results: dict[int, float] = {}
        complete = True
        for i in live:
            t0 = time.perf_counter()
            results[i] = world(cands[i], value)
            stats.rollouts += 1
            now = time.perf_counter()
            rollout_s = max(rollout_s * 0.8, now - t0) if rollout_s else now - t0
            if fixed is None and now + rollout_s > deadline and len(results) < len(live):
                complete = False
                break
        if not complete:
            break
        n += 1
        base = results.get(0, 0.0)
        for i in live:
            v = results[i]
            totals[i] += v
            d = v - base
            diffs[i][0] += d
            diffs[i][1] += d * d
        if n >= options.min_worlds and len(live) > 1:
            live = _prune(live, diffs, n, options)
            if len(live) == 1:
                break  # no alternative can still beat the heuristic's move: settled
            if n >= options.settle_worlds and all(diffs[i][0] <= 0 for i in live):
                break  # the heuristic's move is still the best: settled (most decisions end here)
        if fixed is None and time.perf_counter() + rollout_s * len(live) > deadline:
            break
    stats.worlds = n
    if n == 0:
        return cands[0]
    # Another move replaces the heuristic's only on evidence: its gain on the same worlds, less z standard
    # errors, must exceed prefer_heuristic.
    best, best_gain = 0, options.prefer_heuristic
    for i in live:
        if not i:
            continue
        mean = diffs[i][0] / n
        se = math.sqrt(max(diffs[i][1] / n - mean * mean, 0.0) / n)
        gain = mean - z * se
        if gain > best_gain:
            best, best_gain = i, gain
    return cands[best]


def _prune(live: list[int], diffs: list[list[float]], n: int, options: SearchOptions) -> list[int]:
    """Keep the heuristic's move (index 0) and every alternative that may still replace it: its gain over the
    heuristic's move on the same worlds, plus prune_z standard errors, still reaches both the head start
    (prefer_heuristic) and the best alternative's gain less prune_z standard errors."""
    z = options.prune_z
    bounds: dict[int, tuple[float, float]] = {}
    for i in live:
        if i:
            mean = diffs[i][0] / n
            se = math.sqrt(max(diffs[i][1] / n - mean * mean, 0.0) / n) + 0.05
            bounds[i] = (mean - z * se, mean + z * se)
    floor = max([options.prefer_heuristic, *(lo for lo, _ in bounds.values())])
    return [0] + [i for i in live if i and bounds[i][1] >= floor]


def _value(seat: int, card_points: float) -> Value:
    """A finished world's worth to ``seat``'s team: its round score (R11.1) plus the tribute the round leaves
    owed (R10: 点贡, 烧贡, 闷贡, 落贡, 圈贡), each card counted at ``card_points`` for the receiver's team and
    against the payer's. That is what stopping the 对头 opening (R5.1), burning and avoiding 闷 are worth
    beyond the round itself."""
    team = seat % 2

    def value(rnd: Round) -> float:
        net = 0
        for d in rnd.debts():
            net += d.n if d.receiver % 2 == team else -d.n
        return team_score(rnd, seat) + card_points * net

    return value


# ----------------------------------------------------------------- candidates in play


def play_candidates(
    view: SeatView, legal: Sequence[Action], first: Action, options: SearchOptions
) -> list[Action]:
    """The heuristic's move first, then the alternatives worth a rollout; a single one means 'obvious'."""
    hand = view.hand
    n = sum(hand)
    top = view.top
    if first.kind in (PLAY, BURN) and first.cards is not None and sum(first.cards) == n:
        return [first]  # out now: nothing plays better than that
    if top is not None:
        if top.owner % 2 == view.seat % 2:
            return [first]  # a teammate's play: never beaten but to go out (what the heuristic does)
        plays = [a for a in legal if a.kind in (PLAY, BURN) and a.cards is not None]
        if not plays:
            return [first]  # only pass or 让牌 left: the heuristic's choice between them
        guard = not view.opened[view.seat] and not view.free and view.rules.dian_gong
        best: dict[tuple[str, int], tuple[float, Action]] = {}
        for a in plays:
            cards = a.cards
            assert cards is not None
            key = (a.kind, _base_rank(cards))
            cost = play_cost(hand, cards, guard, options.tuning)
            if key not in best or cost < best[key][0]:
                best[key] = (cost, a)
        others = [a for _, a in sorted(best.values(), key=lambda ca: ca[0])]
        quiet = [YIELD_ACTION if any(a.kind == YIELD for a in legal) else PASS_ACTION]
        if quiet[0].kind == YIELD:
            quiet.append(PASS_ACTION)
        return _dedup([first, *quiet, *others])[: options.max_candidates]
    if view.burner == view.seat:
        leads = [a for a in legal if a.kind == PLAY and a.cards is not None]
        best_lead: dict[int, tuple[float, Action]] = {}
        for a in leads:
            cards = a.cards
            assert cards is not None
            rank = _base_rank(cards)
            cost = play_cost(hand, cards, False, options.tuning)
            if rank not in best_lead or cost < best_lead[rank][0]:
                best_lead[rank] = (cost, a)
        others = [a for _, a in sorted(best_lead.values(), key=lambda ca: ca[0])]
        return _dedup([first, *others])[: options.max_candidates]
    spot = ViewSpot(view, legal)
    groups = [Action(PLAY, _group(r, hand[r])) for r in range(12) if hand[r] and group_lead_ok(spot, r)]
    # Of the 2-plays and joker plays only the biggest of each kind: a lead of them is a bid for the lead.
    by_kind: dict[int, tuple[int, Action]] = {}  # by base rank: (cards, the play)
    for a in legal:
        cards = a.cards
        if cards is None or shape_of(cards) is None or (rank := _base_rank(cards)) < 12:
            continue
        if rank not in by_kind or sum(cards) > by_kind[rank][0]:
            by_kind[rank] = (sum(cards), a)
    return _dedup([first, *groups, *(a for _, a in by_kind.values())])[: options.max_candidates]


def _base_rank(cards: Counts) -> int:
    """The rank a play is built on: 0..11 a base rank, 12 a 2-play, 13 jokers only."""
    s = shape_of(cards)
    if s is None:
        return 99
    if s.base >= 0:
        return s.base
    return 12 if s.twos else 13


def _group(r: int, k: int) -> Counts:
    c = [0] * NRANKS
    c[r] = k
    return tuple(c)


def _dedup(actions: list[Action]) -> list[Action]:
    seen: set[Action] = set()
    out: list[Action] = []
    for a in actions:
        if a not in seen:
            seen.add(a)
            out.append(a)
    return out


def _play_builder(view: SeatView, legal: Sequence[Action]) -> Builder:
    sampler = Sampler(view)

    def build(cands: list[Action], rng: random.Random) -> World:
        base = sampler.world(rng, legal)

        def run(action: Action, value: Value) -> float:
            rnd = fast_copy(base)
            try:
                rnd.apply(action)
            except IllegalAction:
                return -1e6  # never: the candidates are the seat's own legal moves
            return value(play_out(rnd))

        return run

    return build


# ----------------------------------------------------------------- before the first lead


def _return_candidates(
    view: SeatView, legal: Sequence[Action], first: Action, options: SearchOptions
) -> list[Action]:
    """还贡 (R10.6): the heuristic's cards first, then the next cheapest ways to give back."""
    hand = view.hand

    def cost(a: Action) -> float:
        assert a.cards is not None
        return play_cost(hand, a.cards, True, options.tuning) - (
            3.0 * a.cards[0] if view.rules.bie_san else 0.0
        )

    ranked = sorted(legal, key=cost)
    return _dedup([first, *ranked])[: options.max_candidates]


def _preplay_builder(view: SeatView) -> Builder:
    """Worlds for the decisions before the first lead (还贡, 革命, 要头/无头, 宣点): the round as it would start
    after the decision (Match._start_play), the others' later choices made by the heuristic."""
    sampler = Sampler(view)
    s = view.seat
    rules = view.rules

    def build(cands: list[Action], rng: random.Random) -> World:
        hands = sampler.hands(rng)
        # The 落贡 payer who receives the 还贡 (the question names him; a view built without it: an opponent).
        asked = view.asked
        payer = (
            asked.to
            if asked is not None and asked.to is not None
            else rng.choice([t for t in range(6) if t % 2 != s % 2])
        )

        def run(action: Action, value: Value) -> float:
            h = [list(x) for x in hands]
            revolted = view.revolted
            head: Head | None = None
            declared = list(view.declared)
            if action.kind == RETURN:
                assert action.cards is not None
                for r in range(NRANKS):
                    h[s][r] -= action.cards[r]
                    h[payer][r] += action.cards[r]
            elif action.kind == REVOLT:
                revolted = s
                h[s] = [0] * NRANKS
            elif action.kind == YAOTOU or action.kind == WUTOU:
                head = action.kind
            elif action.kind in (DECLARE, NO_DECLARE):
                declared[s] = action.kind == DECLARE
            if revolted is not None and head is None:
                o = opposite(revolted)
                head = YAOTOU if _HEURISTIC.yaotou(tuple(h[o])) else WUTOU
            if rules.xuan_dian_active:
                for t in range(6):
                    if t != s and not declared[t] and revolted not in (t, opposite(t)):
                        declared[t] = _would_declare(h, t)
            rnd = _first_lead(view, h, revolted, head, declared)
            return value(play_out(fast_copy(rnd)))

        return run

    return build


def _would_declare(hands: list[list[int]], t: int) -> bool:
    """The heuristic's 宣点 rule (engine/ai/heuristic.py) on a sampled hand."""
    from .policy import jokers, pure_groups

    h = hands[t]
    return has_pure_gouji(h) and len(pure_groups(h)) >= 3 and jokers(h) >= 4


def _first_lead(
    view: SeatView, hands: list[list[int]], revolted: int | None, head: Head | None, declared: list[bool]
) -> Round:
    """The round at its first lead, as Match._start_play builds it."""
    rules = view.rules
    leader = view.leader
    if leader == revolted:
        leader = (leader + 1) % 6
    rnd = Round(rules, hands, leader)
    natural = [not has_pure_gouji(h) for h in hands]  # R5.2, judged on the hands now (dealt ones unknown)
    rnd.natural = natural
    rnd.opened = list(natural)
    rnd.declared = declared
    if revolted is not None:
        rnd.revolted = revolted
        rnd.opened[revolted] = False  # R9.3
        o = opposite(revolted)
        rnd.opened[o] = True  # R9.4
        if head == YAOTOU:
            rnd.gousi_left[o] = 3
    rnd.free = rnd.free_due()
    return rnd


# ----------------------------------------------------------------- the player


class StrongPlayer:
    """Level 'strong': :func:`decide` with a time budget per decision, or a fixed number of worlds
    (``deterministic=True``) for tests and reproducible simulations."""

    level = "strong"

    def __init__(
        self,
        budget_ms: float = 200.0,
        seed: int | None = None,
        deterministic: bool = False,
        worlds: int = 16,
        **extra: Any,  # other fields of SearchOptions; a wrong name or value is the TypeError it raises
    ) -> None:
        self.options = SearchOptions(budget_ms=budget_ms, worlds=worlds if deterministic else None, **extra)
        self.seed = seed
        self.last = SearchStats()

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        seed = self.seed if self.seed is not None else rng.getrandbits(32)
        self.last = SearchStats()
        return decide(view, legal, self.options, seed, self.last)

    def job(
        self, view: SeatView, legal: Sequence[Action], rng: random.Random
    ) -> tuple[SeatView, list[Action], SearchOptions, int]:
        """The arguments of :func:`decide` for a process pool: ``pool.submit(decide, *player.job(...))``."""
        seed = self.seed if self.seed is not None else rng.getrandbits(32)
        return (view, list(legal), self.options, seed)


__all__ = ["SearchOptions", "SearchStats", "StrongPlayer", "decide", "play_candidates"]
