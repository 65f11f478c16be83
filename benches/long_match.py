"""Benchmark: does a move cost more late in a long match? One table of six players plays a match of N rounds
(random legal moves, each through ``TableService.act``: one unit of work on a SQLite file) and prints, for
round 1, the middle round and the last, the median time per move and the size of the state that every move
reads and writes.

    python -m benches.long_match [--rounds 100] [--seed 1]

The finished rounds' moves stay in the append-only log; the live state is one round's (issue 12: before,
the state carried every move since round 1: 4.8 KB in round 1, 259 KB in round 100, 1.7 → 10.7 ms a move).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from storage import make_engine, uow_factory, upgrade_to_head
from table import TableService

PLAYERS = tuple(range(1, 7))


async def play(rounds: int, seed: int) -> dict[int, tuple[list[float], int, int]]:
    """Per measured round: the seconds of each move, the stored state's bytes and the cached pickle's bytes."""
    rng = random.Random(seed)
    measured = {1, max(1, rounds // 2), rounds}
    out: dict[int, tuple[list[float], int, int]] = {}
    with tempfile.TemporaryDirectory(prefix="gouji-long-") as directory:
        engine = make_engine(f"sqlite+aiosqlite:///{Path(directory) / 'long.db'}")
        await upgrade_to_head(engine)
        service = TableService(uow_factory(engine))
        for user in PLAYERS:
            await service.deliveries.see_user(user, f"player {user}", "en")
        table = (await service.lobby.open(-1, PLAYERS[0])).table
        for seat, user in enumerate(PLAYERS):
            await service.lobby.join(table.id, user, seat)
        table = (await service.lobby.begin(table.id, PLAYERS[0])).table
        with tqdm(total=rounds, unit="round", file=sys.stderr) as bar:
            for round_no in range(1, rounds + 1):
                times: list[float] = []
                while table.match is not None and not table.match.round_over:
                    seat = table.to_act
                    assert seat is not None and seat.user_id is not None
                    action = rng.choice(table.match.legal_actions())
                    t0 = time.perf_counter()
                    table = (
                        await service.play.act(table.id, seat.user_id, action, version=table.version)
                    ).table
                    times.append(time.perf_counter() - t0)
                if round_no in measured:
                    assert table.match is not None
                    state = len(json.dumps(table.match.to_json(), separators=(",", ":")))
                    cached = len(pickle.dumps(table.match, pickle.HIGHEST_PROTOCOL))
                    out[round_no] = (times, state, cached)
                bar.update(1)
                if round_no < rounds:
                    table = (await service.play.next_round(table.id, PLAYERS[0], table.version)).table
        await engine.dispose()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    results = asyncio.run(play(args.rounds, args.seed))
    first = statistics.median(results[1][0])
    for round_no, (times, state, cached) in sorted(results.items()):
        median = statistics.median(times)
        print(
            f"round {round_no:>4}: {len(times):>4} moves, median {median * 1e3:6.2f} ms per move "
            f"({median / first:4.2f}× round 1), p90 {statistics.quantiles(times, n=10)[-1] * 1e3:6.2f} ms; "
            f"stored state {state / 1024:5.1f} KiB, cached {cached / 1024:5.1f} KiB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
