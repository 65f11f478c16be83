"""``python -m engine.bench``: the figures the computer players and every button press depend on.

Prints legal-action times over random mid-round positions (median and p99), ``beats`` calls per second and
whole random-legal rounds per second, on one core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from .cards import NRANKS
from .plays import beats_shape, shape_of
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
    answer, lead, alls = [], [], []
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
    shapes = []
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


if __name__ == "__main__":
    main()
