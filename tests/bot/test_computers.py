"""The strong computers' pool as the bot uses it (bot/computers.py, bot/workers.py), on a pool the test
answers by hand and a clock it moves: the search's budget bends when decisions queue up and grows back when
they drain, a forced move waits in no queue, the budgets used are logged once a minute, a pool that broke is
replaced; and a worker's set-up: a lower priority, Ctrl+C left to the bot, SIGTERM its end, and an end of its
own when the bot is gone. (The real pool, SIGKILLed bots and fairness between tables: tests/robust/
test_pool_workers.py.)"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import subprocess
import sys
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

from bot import workers
from bot.computers import Computers, bent_budget
from engine.actions import Action
from engine.ai import HeuristicPlayer, computer_action
from engine.match import P_PLAY, Match, SeatView
from engine.rules import Rules

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
STRONG, NORMAL = 3, 2


def position(seed: int) -> tuple[SeatView, list[Action]]:
    """A seat's view in the middle of a round, with a choice to make."""
    m = Match(Rules.preset("qingdao"), seed)
    player, rng = HeuristicPlayer(), random.Random(seed)
    plays = 0
    while m.current_player is not None:
        if m.phase == P_PLAY and plays >= 20 and len(m.legal_actions()) > 2:
            return m.view(m.current_player), m.legal_actions()
        plays += m.phase == P_PLAY
        m.apply(computer_action(m, player, rng))
    raise AssertionError("the round ended")


VIEW, LEGAL = position(3)


class HeldPool(Executor):
    """A pool that answers when the test says so; it keeps the budget each decision was given."""

    def __init__(self) -> None:
        self.asked: list[tuple[float, Future[Any]]] = []
        self.shut = False

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        assert fn is workers.decide_timed
        _view, _legal, options, _seed = args
        done: Future[Any] = Future()
        self.asked.append((options.budget_ms, done))
        return done

    def answer(self, *which: int) -> None:
        for i in which:
            budget, done = self.asked[i]
            done.set_result((LEGAL[0], budget / 1000))

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.shut = True


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def computers(pool: HeldPool, clock: Clock | None = None, workers_: int = 2) -> Computers:
    return Computers(200.0, workers_, floor_ms=50.0, executor=lambda: pool, clock=clock or Clock())


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_the_budget_rule() -> None:
    full, floor, target = 200.0, 50.0, 500.0
    # Up to 2.5 decisions per worker queued or running, each gets the full budget: all done within 0.5 s.
    assert [bent_budget(n, 2, full, floor, target) for n in (1, 2, 5)] == [200.0, 200.0, 200.0]
    # Beyond, the queue still fits in the target: 10 decisions on 2 workers, 100 ms each.
    assert bent_budget(10, 2, full, floor, target) == 100.0
    assert bent_budget(10, 4, full, floor, target) == 200.0  # more workers, more room
    assert bent_budget(100, 2, full, floor, target) == floor
    # A floor above the full budget is the full budget; a target below it still gives a lone decision all.
    assert bent_budget(100, 2, 40.0, 60.0, target) == 40.0
    assert bent_budget(1, 1, 800.0, floor, target) == 800.0


async def test_budgets_bend_as_decisions_queue_and_grow_back_as_they_drain() -> None:
    pool = HeldPool()
    c = computers(pool)
    tables = [asyncio.ensure_future(c(STRONG, VIEW, LEGAL, seed)) for seed in range(30)]
    await settle()
    budgets = [round(b, 1) for b, _ in pool.asked]
    assert budgets[:5] == [200.0] * 5
    assert budgets[5:10] == [166.7, 142.9, 125.0, 111.1, 100.0]
    assert budgets[-1] == 50.0 and budgets.count(50.0) == 11  # 20 and more waiting: the floor
    pool.answer(*range(30))
    assert [await t for t in tables] == [LEGAL[0]] * 30
    # The queue drained: the next decision thinks for the full budget again.
    nxt = asyncio.ensure_future(c(STRONG, VIEW, LEGAL, 99))
    await settle()
    assert pool.asked[-1][0] == 200.0
    pool.answer(30)
    await nxt
    s = c.stats
    assert (s.decisions, s.at_floor, s.most_waiting) == (31, 11, 30)
    # The median of the 31 budgets is the 16th: 11 at the floor, then 53, 56, 59, 62 and 67 ms.
    assert (s.budget_at(0.0), s.budget_at(0.5), s.budget_at(1.0)) == (50.0, 67.0, 200.0)


async def test_a_forced_move_and_the_other_levels_wait_in_no_queue() -> None:
    pool = HeldPool()
    c = computers(pool)
    only = [LEGAL[0]]
    assert await c(STRONG, VIEW, only, 1) == LEGAL[0]
    assert await c(NORMAL, VIEW, LEGAL, 1) in LEGAL
    assert pool.asked == [] and c.pids() == []
    assert (c.stats.forced, c.stats.decisions) == (1, 0)


async def test_the_budgets_used_are_logged_once_a_minute_not_per_decision(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pool, clock = HeldPool(), Clock()
    c = computers(pool, clock)
    caplog.set_level(logging.INFO, logger="bot.computers")
    for n in range(8):  # one decision every 10 s
        asking = asyncio.ensure_future(c(STRONG, VIEW, LEGAL, n))
        await settle()
        clock.now += 10
        pool.answer(n)
        await asking
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1, lines
    assert lines[0].startswith("the last 60 s: 6 strong decisions in the pool")
    assert "p50 200 ms, min 200 ms, at the floor 0 (0%)" in lines[0]
    assert "asked until answered p50 10,000 ms" in lines[0]


async def test_a_pool_broken_by_a_dead_worker_is_replaced_and_the_decision_asked_again() -> None:
    broken, fresh = HeldPool(), HeldPool()
    pools = iter([broken, fresh])
    c = Computers(200.0, 2, executor=lambda: next(pools))
    asking = asyncio.ensure_future(c(STRONG, VIEW, LEGAL, 1))
    await settle()
    broken.asked[0][1].set_exception(BrokenProcessPool("a worker died"))
    await settle()
    assert broken.shut and len(fresh.asked) == 1
    fresh.answer(0)
    assert await asking == LEGAL[0]
    assert (c.stats.broken, c.stats.decisions) == (1, 1)


def test_a_worker_without_prctl_ends_when_its_parent_is_gone() -> None:
    parents = iter([41, 41, 41, 1])
    ended: list[int] = []
    naps: list[float] = []
    workers.watch(41, getppid=lambda: next(parents), exit=ended.append, sleep=naps.append)
    assert ended == [0] and naps == [1.0, 1.0, 1.0]
    # A parent that died before the worker's set-up: the worker ends at once.
    ended.clear()
    assert workers.die_with(41, platform="darwin", getppid=lambda: 1, exit=ended.append) == "gone"
    assert ended == [0]


def run_worker_setup(parent: int | None) -> subprocess.CompletedProcess[str]:
    """bot.workers.start in a fresh interpreter (a child of this test), as the pool's initializer runs it."""
    code = (
        "import os, signal, sys\n"
        "from bot import workers\n"
        "workers.start(int(sys.argv[1]))\n"
        "print(os.nice(0), signal.getsignal(signal.SIGINT) is signal.SIG_IGN,"
        " signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(parent if parent is not None else os.getpid())],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_worker_yields_the_cpu_to_the_bot_leaves_ctrl_c_to_it_and_ends_on_sigterm() -> None:
    done = run_worker_setup(None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(os.nice(0) + workers.NICENESS), "True", "True"]


def test_a_worker_whose_bot_died_before_its_set_up_ends_there() -> None:
    done = run_worker_setup(os.getpid() + 10**6)  # a pid that is not its parent's
    assert (done.returncode, done.stdout) == (0, "")
