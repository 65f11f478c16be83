"""``python -m engine.bench``: the figures the computer players and every button press depend on.

Prints legal-action times over random mid-round positions (median and p99), ``beats`` calls per second,
whole random-legal rounds per second, and what the computer players cost (engine/ai): a heuristic decision
through Match (SeatView and legal actions), a heuristic rollout of a whole round on a Round (what the strong
player's search plays thousands of), and Round.clone, on one core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from .cards import NRANKS
from .plays import Shape, beats_shape, shape_of
from .round import Round
from .rules import Rules


def random_round(rules: Rules, seed: int, positions: list[Round] | None = None, keep: float = 0.0) -> Round:
    rng = random.Random(seed)
    rnd = Round.deal(rules, seed)
    while not rnd.is_over:
        if positions is not None and rng.random() < keep:
            positions.append(Round.from_json(rnd.to_json()))
        rnd.apply(rng.choice(rnd.legal_actions()))
    return rnd


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def bench_legal_actions(n: int, rules: Rules) -> tuple[list[float], list[float], list[float]]:
    positions: list[Round] = []
    seed = 0
    while len(positions) < n:
        random_round(rules, 10_000 + seed, positions, keep=0.08)
        seed += 1
    positions = positions[:n]
    answer: list[float] = []
    lead: list[float] = []
    alls: list[float] = []
    clock = time.perf_counter_ns
    for rnd in positions:
        t0 = clock()
        rnd.legal_actions()
        dt = (clock() - t0) / 1000
        alls.append(dt)
        (lead if rnd.top is None else answer).append(dt)
    return alls, answer, lead


def bench_beats(n: int) -> float:
    rng = random.Random(1)
    shapes: list[Shape] = []
    while len(shapes) < 2000:
        c = [0] * NRANKS
        for _ in range(rng.randint(1, 6)):
            c[rng.choice((rng.randrange(12), 12, 13, 14))] += 1
        s = shape_of(tuple(c))
        if s is not None:
            shapes.append(s)
    pairs = [(rng.choice(shapes), rng.choice(shapes)) for _ in range(1000)]
    t0 = time.perf_counter()
    loops = max(1, n // len(pairs))
    for _ in range(loops):
        for a, b in pairs:
            beats_shape(a, b)
    return loops * len(pairs) / (time.perf_counter() - t0)


def bench_rounds(seconds: float, rules: Rules) -> tuple[float, float]:
    t0 = time.perf_counter()
    rounds = actions = 0
    seed = 0
    while time.perf_counter() - t0 < seconds:
        rng = random.Random(seed)
        rnd = Round.deal(rules, seed)
        while not rnd.is_over:
            rnd.apply(rng.choice(rnd.legal_actions()))
            actions += 1
        rounds += 1
        seed += 1
    dt = time.perf_counter() - t0
    return rounds / dt, actions / dt


def bench_ai(rules: Rules, rounds: int) -> tuple[list[float], list[float], float]:
    """Heuristic decisions through Match (µs each), heuristic rollouts of whole dealt rounds (ms each), and
    Round.clone (µs)."""
    from .ai import HeuristicPlayer, computer_action
    from .ai.rollout import play_out
    from .match import Match

    player = HeuristicPlayer()
    decisions: list[float] = []
    for seed in range(rounds):
        m = Match(rules, seed)
        rng = random.Random(seed)
        while m.current_player is not None:
            ns0 = time.perf_counter_ns()
            action = computer_action(m, player, rng)
            decisions.append((time.perf_counter_ns() - ns0) / 1000)
            m.apply(action)
    rollouts: list[float] = []
    for seed in range(rounds):
        rnd = Round.deal(rules, seed)
        t0 = time.perf_counter()
        play_out(rnd)
        rollouts.append((time.perf_counter() - t0) * 1000)
    rnd = Round.deal(rules, 0)
    t0 = time.perf_counter()
    for _ in range(10_000):
        rnd.clone()
    return decisions, rollouts, (time.perf_counter() - t0) / 10_000 * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--preset", default="qingdao")
    args = parser.parse_args(argv)
    rules = Rules.preset(args.preset)
    alls, answer, lead = bench_legal_actions(args.positions, rules)
    print(f"preset {args.preset}")
    for name, values in (("all", alls), ("answering", answer), ("leading", lead)):
        print(
            f"legal_actions ({name:9}, {len(values):5} positions): median {statistics.median(values):6.1f} µs"
            f"  p99 {percentile(values, 0.99):6.1f} µs  max {max(values):7.1f} µs"
        )
    print(f"beats: {bench_beats(2_000_000):,.0f} calls/s")
    rps, aps = bench_rounds(args.seconds, rules)
    print(f"random-legal rounds: {rps:,.1f} rounds/s ({aps:,.0f} actions/s)")
    decisions, rollouts, clone_us = bench_ai(rules, 100)
    print(
        f"heuristic decisions (Match, {len(decisions)}): median {statistics.median(decisions):.1f} µs"
        f"  p99 {percentile(decisions, 0.99):.1f} µs"
    )
    print(
        f"heuristic rollouts of a dealt round (Round, {len(rollouts)}): median {statistics.median(rollouts):.2f} ms"
        f"  p99 {percentile(rollouts, 0.99):.2f} ms; Round.clone {clone_us:.1f} µs"
    )


if __name__ == "__main__":
    main()
