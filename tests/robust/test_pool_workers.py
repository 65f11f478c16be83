"""The strong computers' real process pool (bot/computers.py, bot/workers.py): its workers end with a bot
killed with SIGKILL, a worker ended with SIGTERM ends alone (the bot is not told, and its next decision is
answered by a new pool), the workers run at a lower priority with Ctrl+C left to the bot, and tables take
turns in the pool's queue while deciding as the engine does.

The bot here is a small program that makes strong decisions through ``Computers`` and handles SIGTERM as
the bot's event loop does (PTB's run_polling: ``loop.add_signal_handler``)."""

from __future__ import annotations

import asyncio
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benches.procs import Proc, alive, descendants, outliving
from bot import workers
from bot.computers import Computers
from engine.actions import Action
from engine.ai import HeuristicPlayer, computer_action
from engine.ai.search import SearchOptions, decide
from engine.match import P_PLAY, Match, SeatView
from engine.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
STRONG = 3

BOT = """
import asyncio, random, signal, sys
from bot.computers import Computers
from engine.ai import HeuristicPlayer, computer_action
from engine.match import P_PLAY, Match
from engine.rules import Rules

def position(seed):
    m = Match(Rules.preset("qingdao"), seed)
    player, rng, plays = HeuristicPlayer(), random.Random(seed), 0
    while True:
        if m.phase == P_PLAY and plays >= 20 and len(m.legal_actions()) > 2:
            return m.view(m.current_player), m.legal_actions()
        plays += m.phase == P_PLAY
        m.apply(computer_action(m, player, rng))

async def main():
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: print("SIGTERM reached the bot", flush=True))
    computers = Computers(50.0, 2)
    views = [position(seed) for seed in (3, 4)]
    while True:
        # Two decisions at once: the pool starts both its workers.
        await asyncio.gather(*(computers(3, view, legal, 1) for view, legal in views))
        print(" ".join(map(str, computers.pids())), flush=True)
        await loop.run_in_executor(None, sys.stdin.readline)  # the test says when to decide again

asyncio.run(main())
"""


class Bot:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", BOT],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def said(self, timeout: float = 60.0) -> str:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"the bot said nothing in {timeout} s"
        return self.proc.stdout.readline().strip()

    def workers(self) -> list[int]:
        return [int(pid) for pid in self.said().split()]

    def decide_again(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()


@pytest.fixture
def bot() -> Iterator[Bot]:
    b = Bot()
    yield b
    if b.proc.poll() is None:
        b.proc.kill()
        b.proc.wait()


def test_the_workers_end_with_a_bot_killed_with_sigkill(bot: Bot) -> None:
    pool = bot.workers()
    family = descendants(bot.proc.pid)  # the workers and multiprocessing's resource tracker
    assert len(pool) == 2 and set(pool) <= {p.pid for p in family}
    assert all(alive(p) for p in family)
    os.kill(bot.proc.pid, signal.SIGKILL)
    bot.proc.wait()
    assert outliving(family, within=5.0) == []


def test_a_worker_ended_with_sigterm_ends_alone_and_the_next_decision_is_answered(bot: Bot) -> None:
    first = bot.workers()
    family = {p.pid: p for p in descendants(bot.proc.pid)}
    os.kill(first[0], signal.SIGTERM)
    assert outliving([family[first[0]]], within=5.0) == []
    bot.decide_again()
    again = bot.workers()  # a new pool: both decisions answered
    assert len(again) == 2 and not set(again) & set(first)
    assert bot.proc.poll() is None
    os.kill(bot.proc.pid, signal.SIGKILL)
    bot.proc.wait()
    assert bot.proc.stdout is not None
    assert "SIGTERM reached the bot" not in bot.proc.stdout.read()


def set_up(pid: int) -> tuple[int, bool, bool]:
    """A process's niceness, and whether it ignores SIGINT and SIGTERM."""
    with open(f"/proc/{pid}/stat") as f:
        nice = int(f.read().rsplit(")", 1)[1].split()[16])
    with open(f"/proc/{pid}/status") as f:
        ignored = int(next(line for line in f if line.startswith("SigIgn:")).split()[1], 16)
    return nice, bool(ignored & 1 << (signal.SIGINT - 1)), bool(ignored & 1 << (signal.SIGTERM - 1))


def test_the_workers_yield_the_cpu_to_the_bot_and_leave_ctrl_c_to_it(bot: Bot) -> None:
    pool = bot.workers()
    # One worker may have answered both decisions while the other was still starting: its set-up comes
    # once it has imported what it needs (about a second).
    wanted = (os.nice(0) + workers.NICENESS, True, False)
    give_up = time.monotonic() + 20
    while time.monotonic() < give_up and any(set_up(pid) != wanted for pid in pool):
        time.sleep(0.1)
    assert [set_up(pid) for pid in pool] == [wanted, wanted]


def position(seed: int) -> tuple[SeatView, list[Action]]:
    m = Match(Rules.preset("qingdao"), seed)
    player, rng, plays = HeuristicPlayer(), random.Random(seed), 0
    while m.current_player is not None:
        if m.phase == P_PLAY and plays >= 20 and len(m.legal_actions()) > 2:
            return m.view(m.current_player), m.legal_actions()
        plays += m.phase == P_PLAY
        m.apply(computer_action(m, player, rng))
    raise AssertionError("the round ended")


async def test_tables_take_turns_in_the_pool_and_it_decides_as_the_engine_does() -> None:
    """One worker; table A's four computers move one after another (each move waits for the one before),
    tables B to E each have one to move, asked for just after A's first: A's second waits behind them."""
    options = SearchOptions(worlds=4)  # no clock: the same move whatever the machine's load
    computers = Computers(200.0, 1, options=options)
    spots = {seed: position(seed) for seed in range(3, 8)}
    answers: dict[tuple[str, int], Action] = {}
    order: list[str] = []

    async def table(name: str, seed: int, moves: int) -> None:
        view, legal = spots[seed]
        for n in range(moves):
            answers[name, n] = await computers(STRONG, view, legal, n)
            order.append(f"{name}{n}")

    try:
        await table("warm", 3, 1)  # the worker started
        order.clear()
        await asyncio.gather(table("A", 3, 4), *(table(name, 4 + i, 1) for i, name in enumerate("BCDE")))
    finally:
        computers.close()
    assert order == ["A0", "B0", "C0", "D0", "E0", "A1", "A2", "A3"]
    seeds = {"A": 3, "B": 4, "C": 5, "D": 6, "E": 7}
    for (name, n), action in answers.items():
        view, legal = spots[seeds.get(name, 3)]
        assert action == decide(view, legal, options, n)


def test_outliving_sees_a_process_that_lives_on() -> None:
    """The check of the tests above and of benches/crash.py finds a process that does not end."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (found,) = [p for p in descendants(os.getpid()) if p.pid == sleeper.pid]
        assert isinstance(found, Proc) and outliving([found], within=0.2) == [found]
    finally:
        sleeper.kill()
        sleeper.wait()
    assert outliving([found], within=1.0) == []
