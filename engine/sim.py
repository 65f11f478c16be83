"""``gouji-sim``: computer players play whole matches from seeds; per-level results are printed.

    gouji-sim --team-a strong --team-b heuristic --duplicate --rounds 1000 --budget-ms 200
    gouji-sim --team-a heuristic --team-b easy --swap --rounds 2000

Team A sits at seats 0, 2, 4 and team B at 1, 3, 5. With ``--swap`` the second half of the matches is played
with the levels exchanged, so seat and deal luck fall on both levels alike. With ``--duplicate`` every match
seed is played twice, the second time with the teams exchanged: both levels play the same deals from both
sides, and the pair is the unit of the 95% interval (mean over pairs of level A's points per round in the two
matches, ± 1.96 standard errors of that mean), which removes most of the luck of the cards.

Points per round are a team's round score (R11.1: its three seats' sum; 串三户 doubles). Decision times are
wall-clock seconds per computer decision, every decision included (a forced pass too).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, NoReturn

from tqdm import tqdm

from .ai import computer_action, make_player
from .match import Match
from .rules import Rules
from .scoring import PLACE_NAMES


@dataclass
class LevelStats:
    rounds: int = 0  # team-rounds played by this level
    score: int = 0
    places: Counter[int] = field(default_factory=Counter)
    burns: int = 0  # burns started (反烧 included)
    burns_won: int = 0
    revolutions: int = 0
    circled: int = 0  # 串三户 won by this level's team
    men: int = 0  # players of this level who were 闷 (R8.3)
    match_means: list[float] = field(default_factory=list)  # team score per round, per match


@dataclass
class SimResult:
    levels: dict[str, LevelStats]  # by label: the level, or level@A / level@B when both teams play one level
    rounds: int
    seconds: float
    decision_times: dict[str, list[float]]  # seconds per computer decision, by label
    redeals: int
    searched_times: dict[str, list[float]] = field(default_factory=dict)  # the searched decisions only
    pair_means: list[float] = field(default_factory=list)  # duplicate: team A's points per round, per pair
    mode: str = "plain"


@dataclass
class MatchRecord:
    """One match's outcome, by team (0 = seats 0,2,4; 1 = seats 1,3,5): what a worker process sends back."""

    seed: int
    labels: tuple[str, str]
    stats: tuple[LevelStats, LevelStats]
    times: tuple[list[float], list[float]]
    searched: tuple[list[float], list[float]]  # the decisions a searching player searched (not obvious ones)
    redeals: int
    rounds: int


def play_match(
    rules: Rules,
    seed: int,
    rounds: int,
    labels: tuple[str, str],
    options: dict[str, Any] | None = None,
    timed: bool = True,
) -> MatchRecord:
    """One match of ``rounds`` rounds; labels[0]'s level plays seats 0,2,4 and labels[1]'s seats 1,3,5.
    ``options`` go to every player (each level ignores those it has no use for)."""
    match = Match(rules, seed)
    levels = [label.split("@")[0] for label in labels]
    opts = dict(options or {})
    players = [make_player(levels[s % 2], **opts) for s in range(6)]
    rng = random.Random(seed)
    stats = (LevelStats(), LevelStats())
    times: tuple[list[float], list[float]] = ([], [])
    searched: tuple[list[float], list[float]] = ([], [])
    team_scores = [0, 0]
    redeals = 0
    for i in range(rounds):
        if i:
            for e in match.next_round():
                redeals += e.kind == "redeal"
        while (seat := match.current_player) is not None:
            t0 = time.perf_counter()
            action = computer_action(match, players[seat], rng)
            if timed:
                dt = time.perf_counter() - t0
                times[seat % 2].append(dt)
                last = getattr(players[seat], "last", None)
                if last is not None and last.searched:
                    searched[seat % 2].append(dt)
            for e in match.apply(action):
                if e.kind == "redeal":
                    redeals += 1
                elif e.seat is None:
                    continue
                elif e.kind == "burned":
                    stats[e.seat % 2].burns += 1
                elif e.kind == "burn_won":
                    stats[e.seat % 2].burns_won += 1
                elif e.kind == "laid_down":
                    stats[e.seat % 2].revolutions += 1
                elif e.kind == "men":
                    stats[e.seat % 2].men += 1
        res = match.last_result
        assert res is not None
        for team in (0, 1):
            st = stats[team]
            st.rounds += 1
            pts = sum(res["scores"][team::2])
            st.score += pts
            team_scores[team] += pts
            if res["circled"] and res["places"][0] % 2 == team:
                st.circled += 1
        for place, s in enumerate(res["places"]):
            stats[s % 2].places[place] += 1
    for team in (0, 1):
        stats[team].match_means.append(team_scores[team] / rounds)
    return MatchRecord(seed, labels, stats, times, searched, redeals, rounds)


def _job(args: tuple[Rules, int, int, tuple[str, str], dict[str, Any]]) -> MatchRecord:
    rules, seed, rounds, labels, options = args
    return play_match(rules, seed, rounds, labels, options)


def schedule(
    seed: int, matches: int, team_a: str, team_b: str, swap: bool, duplicate: bool
) -> list[tuple[int, tuple[str, str]]]:
    """(match seed, (labels at seats 0,2,4, labels at 1,3,5)) for every match to play."""
    seeds = [seed * 1_000_003 + k for k in range(matches)]
    if duplicate:
        return [(s, labels) for s in seeds for labels in ((team_a, team_b), (team_b, team_a))]
    half = matches // 2
    return [(s, (team_b, team_a) if swap and k >= half else (team_a, team_b)) for k, s in enumerate(seeds)]


def simulate(
    rules: Rules,
    seed: int,
    rounds: int,
    per_match: int,
    team_a: str,
    team_b: str,
    swap: bool,
    progress: bool = True,
    duplicate: bool = False,
    jobs: int = 1,
    options: dict[str, Any] | None = None,
    report_every: int = 0,
) -> SimResult:
    """Play ``rounds`` rounds in matches of ``per_match``; with ``duplicate`` half as many match seeds, each
    played from both sides."""
    if team_a == team_b:
        team_a, team_b = f"{team_a}@A", f"{team_b}@B"
    result = SimResult(
        {team_a: LevelStats(), team_b: LevelStats()},
        0,
        0.0,
        {team_a: [], team_b: []},
        0,
        mode="duplicate" if duplicate else "swap" if swap else "plain",
    )
    matches = max(1, math.ceil(rounds / per_match))
    if duplicate:
        matches = max(1, math.ceil(matches / 2))
    plan = schedule(seed, matches, team_a, team_b, swap, duplicate)
    opts = dict(options or {})
    start = time.perf_counter()
    records: list[MatchRecord] = []
    with tqdm(total=len(plan) * per_match, unit="round", disable=not progress, file=sys.stderr) as bar:
        if jobs <= 1:
            for s, labels in plan:
                records.append(play_match(rules, s, per_match, labels, opts))
                bar.update(per_match)
                if report_every and len(records) % report_every == 0:
                    _interim(records, team_a, team_b, start, bar)
        else:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(_job, (rules, s, per_match, labels, opts)) for s, labels in plan]
                for f in as_completed(futures):
                    records.append(f.result())
                    bar.update(per_match)
                    if report_every and len(records) % report_every == 0:
                        _interim(records, team_a, team_b, start, bar)
    result.seconds = time.perf_counter() - start
    records.sort(key=lambda r: (r.seed, r.labels != (team_a, team_b)))
    for rec in records:
        for team in (0, 1):
            _merge(result.levels[rec.labels[team]], rec.stats[team])
            result.decision_times[rec.labels[team]].extend(rec.times[team])
            result.searched_times.setdefault(rec.labels[team], []).extend(rec.searched[team])
        result.redeals += rec.redeals
        result.rounds += rec.rounds
    if duplicate:
        by_seed: dict[int, list[float]] = {}
        for rec in records:
            team = rec.labels.index(team_a)
            by_seed.setdefault(rec.seed, []).append(rec.stats[team].match_means[0])
        result.pair_means = [statistics.fmean(v) for v in by_seed.values() if len(v) == 2]
    return result


def _interim(records: list[MatchRecord], team_a: str, team_b: str, start: float, bar: tqdm[NoReturn]) -> None:
    """A line on stderr with the figures so far (a long run stopped early still leaves them)."""
    by_seed: dict[int, list[float]] = {}
    for rec in records:
        by_seed.setdefault(rec.seed, []).append(rec.stats[rec.labels.index(team_a)].match_means[0])
    pairs = [statistics.fmean(v) for v in by_seed.values() if len(v) == 2]
    times = sorted(
        t for rec in records for team in (0, 1) if rec.labels[team] == team_a for t in rec.searched[team]
    )
    text = f"{sum(r.rounds for r in records)} rounds, {time.perf_counter() - start:.0f} s"
    if len(pairs) >= 2:
        mean, half = ci95(pairs)
        text += f"; [{team_a}] vs [{team_b}] {mean:+.3f} ± {half:.3f} over {len(pairs)} pairs"
    if times:
        text += (
            f"; {team_a} searched p99 {percentile(times, 0.99) * 1e3:.1f} ms, max {times[-1] * 1e3:.1f} ms"
        )
    bar.write(text, file=sys.stderr)


def _merge(into: LevelStats, st: LevelStats) -> None:
    into.rounds += st.rounds
    into.score += st.score
    into.places.update(st.places)
    into.burns += st.burns
    into.burns_won += st.burns_won
    into.revolutions += st.revolutions
    into.circled += st.circled
    into.men += st.men
    into.match_means.extend(st.match_means)


def ci95(values: list[float]) -> tuple[float, float]:
    """Mean and half-width of its 95% interval (normal approximation: 1.96 standard errors)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def percentile(values: list[float], q: float) -> float:
    """The q-quantile of sorted ``values`` (nearest rank)."""
    return values[min(len(values) - 1, max(0, math.ceil(q * len(values)) - 1))]


def report(result: SimResult, preset: str) -> str:
    lines = [
        f"preset {preset}, {result.mode}: {result.rounds} rounds in {result.seconds:.1f} s "
        f"({result.rounds / result.seconds:.2f} rounds/s), {result.redeals} redeals (R9.2)"
    ]
    for level, unsorted in result.decision_times.items():
        for what, values in (
            ("decisions", unsorted),
            ("searched decisions", result.searched_times.get(level)),
        ):
            times = sorted(values or ())
            if not times:
                continue
            lines.append(
                f"{level} {what}: {len(times)}, median {statistics.median(times) * 1e3:.3f} ms, "
                f"p99 {percentile(times, 0.99) * 1e3:.3f} ms, max {times[-1] * 1e3:.3f} ms"
            )
    labels = list(result.levels)
    if result.pair_means:
        mean, half = ci95(result.pair_means)
        lines.append(
            f"[{labels[0]}] vs [{labels[1]}]: {mean:+.3f} points per round, 95% interval "
            f"[{mean - half:+.3f}, {mean + half:+.3f}] over {len(result.pair_means)} duplicate pairs "
            "(each seed played from both sides; 1.96 standard errors of the pair means)"
        )
    for level, st in result.levels.items():
        if not st.rounds:
            continue
        mean, half = ci95(st.match_means)
        total = sum(st.places.values())
        dist = "  ".join(f"{PLACE_NAMES[p]} {100 * st.places[p] / total:4.1f}%" for p in range(6))
        lines += [
            f"[{level}] team score per round {st.score / st.rounds:+.3f} "
            f"(95% interval over {len(st.match_means)} matches: {mean:+.3f} ± {half:.3f})",
            f"  places: {dist}",
            f"  burns {st.burns} (won {st.burns_won}), 闷 {st.men} ({st.men / st.rounds:.2f} per team-round), "
            f"revolutions {st.revolutions}, 串三户 {st.circled}",
        ]
    return "\n".join(lines)


def _number(text: str) -> int | float | bool:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return float(text) if any(c in text for c in ".e") else int(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="gouji-sim", description="Computer players play 够级 matches from a seed."
    )
    p.add_argument("--rounds", type=int, default=200, help="rounds in all (default 200)")
    p.add_argument("--per-match", type=int, default=10, help="rounds per match (default 10)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--preset", choices=("qingdao", "classic", "zhangqiu"), default="qingdao")
    p.add_argument("--team-a", default="heuristic", help="level at seats 0, 2, 4")
    p.add_argument("--team-b", default="baseline", help="level at seats 1, 3, 5")
    p.add_argument(
        "--swap", action="store_true", help="exchange the levels for the second half of the matches"
    )
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="play every match seed twice, the teams exchanged (the interval is over these pairs)",
    )
    p.add_argument("--budget-ms", type=float, default=200.0, help="the strong level's time per decision")
    p.add_argument(
        "--worlds",
        type=int,
        default=None,
        help="strong level in deterministic mode: this many worlds per decision, no clock",
    )
    p.add_argument(
        "--search",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a field of the strong level's SearchOptions (engine/ai/search.py), e.g. settle_worlds=12",
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes (timings need a core each)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument(
        "--report-every", type=int, default=0, help="print the figures so far every N matches (stderr)"
    )
    args = p.parse_args(argv)
    options: dict[str, Any] = {"budget_ms": args.budget_ms}
    if args.worlds is not None:
        options.update(deterministic=True, worlds=args.worlds)
    for item in args.search:
        key, _, value = item.partition("=")
        options[key] = _number(value)
    try:
        make_player(args.team_a, **options)
        make_player(args.team_b, **options)
    except (ValueError, TypeError) as e:
        p.error(str(e))
    result = simulate(
        Rules.preset(args.preset),
        args.seed,
        args.rounds,
        args.per_match,
        args.team_a,
        args.team_b,
        args.swap,
        progress=not args.no_progress,
        duplicate=args.duplicate,
        jobs=args.jobs,
        options=options,
        report_every=args.report_every,
    )
    print(report(result, args.preset))
    return 0


if __name__ == "__main__":
    sys.exit(main())
