"""``gouji-sim``: computer players play whole matches from a seed; per-level results are printed.

    gouji-sim --rounds 2000 --team-a heuristic --team-b baseline --swap --preset qingdao

Team A sits at seats 0, 2, 4 and team B at 1, 3, 5; with ``--swap`` the second half of the matches is played
with the levels exchanged, so seat and deal luck fall on both levels alike.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

from tqdm import tqdm

from .ai import computer_action, make_player
from .match import Match
from .round import PLACE_NAMES
from .rules import Rules


@dataclass
class LevelStats:
    rounds: int = 0  # team-rounds played by this level
    score: int = 0
    places: Counter[int] = field(default_factory=Counter)
    burns: int = 0  # burns started (反烧 included)
    burns_won: int = 0
    revolutions: int = 0
    circled: int = 0  # 串三户 won by this level's team
    match_means: list[float] = field(default_factory=list)  # team score per round, per match


@dataclass
class SimResult:
    levels: dict[str, LevelStats]  # by label: the level, or level@A / level@B when both teams play one level
    rounds: int
    seconds: float
    decision_times: dict[str, list[float]]  # seconds per computer decision, by level
    redeals: int


def play_match(
    rules: Rules, seed: int, rounds: int, labels: tuple[str, str], result: SimResult, timed: bool = True
) -> Match:
    """One match of ``rounds`` rounds; labels[0]'s level plays seats 0,2,4 and labels[1]'s seats 1,3,5."""
    match = Match(rules, seed)
    levels = [label.split("@")[0] for label in labels]
    players = [make_player(levels[s % 2]) for s in range(6)]
    rng = random.Random(seed)
    times = [result.decision_times.setdefault(level, []) for level in levels]
    stats = [result.levels[labels[0]], result.levels[labels[1]]]
    team_scores = [0, 0]
    for i in range(rounds):
        if i:
            for e in match.next_round():
                result.redeals += e.kind == "redeal"
        while (seat := match.current_player) is not None:
            t0 = time.perf_counter()
            action = computer_action(match, players[seat], rng)
            if timed:
                times[seat % 2].append(time.perf_counter() - t0)
            for e in match.apply(action):
                if e.kind == "burned":
                    stats[e.seat % 2].burns += 1  # type: ignore[operator]
                elif e.kind == "burn_won":
                    stats[e.seat % 2].burns_won += 1  # type: ignore[operator]
                elif e.kind == "laid_down":
                    stats[e.seat % 2].revolutions += 1  # type: ignore[operator]
                elif e.kind == "redeal":
                    result.redeals += 1
        res = match.last_result
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
        result.rounds += 1
    for team in (0, 1):
        stats[team].match_means.append(team_scores[team] / rounds)
    return match


def simulate(
    rules: Rules,
    seed: int,
    rounds: int,
    per_match: int,
    team_a: str,
    team_b: str,
    swap: bool,
    progress: bool = True,
) -> SimResult:
    if team_a == team_b:
        team_a, team_b = f"{team_a}@A", f"{team_b}@B"
    result = SimResult({team_a: LevelStats(), team_b: LevelStats()}, 0, 0.0, {}, 0)
    matches = max(1, math.ceil(rounds / per_match))
    start = time.perf_counter()
    with tqdm(total=matches * per_match, unit="round", disable=not progress, file=sys.stderr) as bar:
        for k in range(matches):
            levels = (team_b, team_a) if swap and k >= matches // 2 else (team_a, team_b)
            play_match(rules, seed * 1_000_003 + k, per_match, levels, result)
            bar.update(per_match)
    result.seconds = time.perf_counter() - start
    return result


def _ci95(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, float("nan")
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def report(result: SimResult, preset: str) -> str:
    lines = [
        f"preset {preset}: {result.rounds} rounds in {result.seconds:.1f} s "
        f"({result.rounds / result.seconds:.1f} rounds/s), {result.redeals} redeals (R9.2)"
    ]
    for level, unsorted in result.decision_times.items():
        times = sorted(unsorted)
        if not times:
            continue
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        lines.append(
            f"{level} decisions: {len(times)}, median {statistics.median(times) * 1e3:.3f} ms, "
            f"p99 {p99 * 1e3:.3f} ms, max {times[-1] * 1e3:.3f} ms"
        )
    for level, st in result.levels.items():
        if not st.rounds:
            continue
        mean, half = _ci95(st.match_means)
        total = sum(st.places.values())
        dist = "  ".join(f"{PLACE_NAMES[p]} {100 * st.places[p] / total:4.1f}%" for p in range(6))
        lines += [
            f"[{level}] team score per round {st.score / st.rounds:+.3f} "
            f"(95% CI over {len(st.match_means)} matches: {mean:+.3f} ± {half:.3f})",
            f"  places: {dist}",
            f"  burns {st.burns} (won {st.burns_won}), revolutions {st.revolutions}, 串三户 {st.circled}",
        ]
    return "\n".join(lines)


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
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    try:
        make_player(args.team_a)
        make_player(args.team_b)
    except ValueError as e:
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
    )
    print(report(result, args.preset))
    return 0


if __name__ == "__main__":
    sys.exit(main())
