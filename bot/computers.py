"""How the bot's computer players decide: the easy and normal levels in the event loop (microseconds), the
strong level in a process pool the loop awaits, so that a 200 ms search never stalls every other table
(engine/ai/search.py; issue 16: the loop's longest stall must stay under 50 ms).

The pool has a worker per core by default (``STRONG_WORKERS``); the workers run at a lower priority than the
bot, die with it and leave Ctrl+C to it (bot/workers.py). Its queue is first in, first out: a decision waits
behind those submitted before it, from every table. A table has at most one decision in it at a time (each
depends on the previous move, and the table layer decides one move after another), so its next one goes to
the back of the queue behind every other table's: tables take turns, and one table's four computers do not
hold the others back. When the queue is long the search's budget bends (:func:`bent_budget`).

What crosses to a worker is the seat's view, the legal actions, the options and a seed: 1.5-3.2 KB pickled in
at most 0.2 ms (20 mid-round positions), and pickled by the queue's feeder thread, not on the loop."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from engine import Action
from engine.ai.search import SearchOptions
from engine.match import SeatView
from table.context import decide_here
from table.policy import level_name

from . import workers

log = logging.getLogger(__name__)

STRONG = "strong"
# The longest a strong decision should take from the moment it is asked for, its wait in the queue included.
# Between one human's move and the next human's turn at a table of two humans and four strong computers
# come two computer moves on average and four in a go round the table, so a human waits about 1 s for them,
# 2 s in a go round.
TARGET_WAIT_MS = 500.0
STRETCH_MS = 600.0  # the computers' thought a player may wait for between two turns of his table
LOG_EVERY_S = 60.0  # the budgets actually used are logged (INFO) at most this often, not per decision


def bent_budget(waiting: int, workers: int, full_ms: float, floor_ms: float, target_ms: float) -> float:
    """The search budget of a decision asked for when ``waiting`` decisions (this one included) are queued or
    running in a pool of ``workers``.

    The pool runs the queue first in, first out, ``workers`` at a time, so this decision is done about
    ``waiting / workers`` budgets from now. With the full budget that is within ``target_ms`` while
    ``waiting / workers <= target_ms / full_ms`` (2.5 at 500 and 200 ms); beyond it each decision gets
    ``target_ms * workers / waiting``, so the queue ahead of it, and it, still fit in ``target_ms``. The search
    is anytime, so a smaller budget is a weaker move, not a late one; the floor keeps it a search (40-60 ms:
    strong against heuristic measured at the floor in README's Figures). Decisions asked for once the queue
    has drained get the full budget again. The budget bounds a decision's time; many end sooner (one legal
    move, the heuristic's move settled after 8 worlds), so this errs on the side of waiting less."""
    floor_ms = min(floor_ms, full_ms)
    target_ms = max(target_ms, full_ms)  # a lone decision always gets the full budget
    return max(floor_ms, min(full_ms, target_ms * workers / max(waiting, 1)))


@dataclass
class PoolStats:
    """What the pool did: counters that only grow (``since`` gives a window of them)."""

    decisions: int = 0  # strong decisions made in the pool
    forced: int = 0  # strong decisions with one legal action, answered without the pool
    at_floor: int = 0  # decisions whose budget was bent down to the floor
    budgets: Counter[int] = field(default_factory=Counter)  # budget in ms -> decisions
    waits: Counter[int] = field(default_factory=Counter)  # asked until answered, in 10 ms steps -> decisions
    busy_s: float = 0.0  # the workers' time deciding, summed
    most_waiting: int = 0  # the longest the queue was (queued and running), in the window logged
    broken: int = 0  # times the pool broke (a worker killed) and was started again

    def since(self, earlier: PoolStats) -> PoolStats:
        """The counts between ``earlier`` (a copy) and now; the queue's longest is not known for it."""
        budgets, waits = Counter(self.budgets), Counter(self.waits)
        budgets.subtract(earlier.budgets)
        waits.subtract(earlier.waits)
        return PoolStats(
            self.decisions - earlier.decisions,
            self.forced - earlier.forced,
            self.at_floor - earlier.at_floor,
            +budgets,
            +waits,
            self.busy_s - earlier.busy_s,
            0,
            self.broken - earlier.broken,
        )

    def copy(self) -> PoolStats:
        return dataclasses.replace(self, budgets=Counter(self.budgets), waits=Counter(self.waits))

    def budget_at(self, q: float) -> float:
        """The q-quantile of the budgets used, in ms (NaN for none)."""
        return _quantile(self.budgets, q)

    def wait_at(self, q: float) -> float:
        """The q-quantile of the time from a decision asked for until answered, in ms (to 10 ms)."""
        return 10.0 * _quantile(self.waits, q)

    def summary(self) -> str:
        if not self.decisions:
            return f"no strong decision in the pool ({self.forced} with one legal action)"
        mean = sum(b * n for b, n in self.budgets.items()) / self.decisions
        return (
            f"{self.decisions:,} strong decisions in the pool ({self.forced:,} more with one legal action);"
            f" budget mean {mean:.0f} ms, p50 {self.budget_at(0.5):.0f} ms, min {self.budget_at(0.0):.0f} ms,"
            f" at the floor {self.at_floor:,} ({100 * self.at_floor / self.decisions:.0f}%);"
            f" asked until answered p50 {self.wait_at(0.5):,.0f} ms, p99 {self.wait_at(0.99):,.0f} ms"
            + (f"; at most {self.most_waiting} queued or running" if self.most_waiting else "")
            + (f"; the pool broke and was started again {self.broken} times" if self.broken else "")
        )


def _quantile(counts: Counter[int], q: float) -> float:
    total = sum(counts.values())
    if not total:
        return float("nan")
    rank = min(total - 1, int(q * total))
    for value in sorted(counts):
        rank -= counts[value]
        if rank < 0:
            return float(value)
    return float(max(counts))


class Computers:
    """The decider handed to the table layer (``TableService(decide=...)``): ``await computers(level, view,
    legal, seed)`` is the action; ``close()`` stops the pool."""

    def __init__(
        self,
        budget_ms: float = 200.0,
        workers: int | None = None,
        *,
        floor_ms: float = 50.0,
        target_wait_ms: float = TARGET_WAIT_MS,
        options: SearchOptions | None = None,
        clock: Callable[[], float] = time.monotonic,
        log_every_s: float = LOG_EVERY_S,
        executor: Callable[[], Executor] | None = None,
    ) -> None:
        # The search's other options (tests: a fixed number of worlds) with the bot's budget.
        self.options = dataclasses.replace(options or SearchOptions(), budget_ms=budget_ms)
        self.floor_ms = min(floor_ms, budget_ms)
        self.target_wait_ms = target_wait_ms
        self.workers = workers or os.cpu_count() or 1
        self.stats = PoolStats()
        self._window = PoolStats()
        self._clock = clock
        self._log_every_s = log_every_s
        self._logged_at = clock()
        self._waiting = 0  # decisions queued or running in the pool
        self._executor = executor or self._process_pool
        self._pool: Executor | None = None

    def _process_pool(self) -> Executor:
        # Started on the first strong decision, each worker when the queue first needs one (Python 3.11 spawns
        # on demand). Measured on this 2-core machine: the spawn holds the loop 9-11 ms per worker; a worker
        # then spends 0.7-1 s of its own importing the bot's main module and the engine (so the first strong
        # decision after a start waits about a second) and holds 85 MB; 'fork' took 0.1 ms and shared the
        # bot's memory but copied its loop, sockets, threads and signal handlers (bot/workers.py).
        log.info(
            "the strong computers' pool: %d workers, budget %.0f ms bending down to %.0f ms under load",
            self.workers,
            self.options.budget_ms,
            self.floor_ms,
        )
        # A worker is started by a submit, on the loop's thread: the kernel's parent-death signal follows the
        # thread that started a process, and the loop's thread lives as long as the bot.
        return ProcessPoolExecutor(
            self.workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=workers.start,
            initargs=(os.getpid(),),
        )

    def budget_ms(self) -> float:
        """The budget a strong decision asked for now gets."""
        return bent_budget(
            self._waiting + 1, self.workers, self.options.budget_ms, self.floor_ms, self.target_wait_ms
        )

    async def __call__(
        self, level: int, view: SeatView, legal: list[Action], seed: int, *, spent: float = 0.0
    ) -> Action:
        if level_name(level) != STRONG:
            return await decide_here(level, view, legal, seed)
        if len(legal) == 1:
            # What the search would answer at once (engine/ai/search.py's decide), without a place in the
            # queue: a forced pass does not wait behind other tables' searches.
            self.stats.forced += 1
            self._window.forced += 1
            return legal[0]
        # The player waits for every computer of the stretch: past STRETCH_MS of thought, each one left
        # thinks at the floor (benches.load, 20 tables of two humans: a move until the next human's turn p99
        # 2.5 s with up to a dozen decisions at 200 ms between two humans).
        budget = min(self.budget_ms(), max(self.floor_ms, STRETCH_MS - 1000 * spent))
        options = dataclasses.replace(self.options, budget_ms=budget)
        asked = self._clock()
        self._waiting += 1
        self.stats.most_waiting = max(self.stats.most_waiting, self._waiting)
        self._window.most_waiting = max(self._window.most_waiting, self._waiting)
        try:
            action, busy = await self._decide(view, legal, options, seed)
        finally:
            self._waiting -= 1
        self._count(budget, self._clock() - asked, busy)
        return action

    async def _decide(
        self, view: SeatView, legal: list[Action], options: SearchOptions, seed: int
    ) -> tuple[Action, float]:
        for attempt in (1, 2):
            pool = self._pool
            if pool is None:
                pool = self._pool = self._executor()
            try:
                done = pool.submit(workers.decide_timed, view, legal, options, seed)
                return await asyncio.wrap_future(done)
            except BrokenProcessPool:
                # A worker was killed (the OOM killer, an operator): the pool fails every decision in it and
                # takes no more. Start another and ask again, once.
                if self._pool is pool:
                    pool.shutdown(wait=False, cancel_futures=True)
                    self._pool = None
                    self.stats.broken += 1
                    self._window.broken += 1
                    log.warning("the strong computers' pool broke (a worker died); starting another")
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _count(self, budget: float, waited_s: float, busy_s: float) -> None:
        for stats in (self.stats, self._window):
            stats.decisions += 1
            stats.at_floor += budget <= self.floor_ms
            stats.budgets[round(budget)] += 1
            stats.waits[int(waited_s * 100)] += 1
            stats.busy_s += busy_s
        now = self._clock()
        if now - self._logged_at >= self._log_every_s:
            log.info(
                "the last %.0f s: %s; %d workers", now - self._logged_at, self._window.summary(), self.workers
            )
            self._window = PoolStats(most_waiting=self._waiting)
            self._logged_at = now

    @property
    def waiting(self) -> int:
        """Strong decisions queued or running in the pool now."""
        return self._waiting

    def pids(self) -> list[int]:
        """The pool's worker processes now (none before the first strong decision)."""
        processes = getattr(self._pool, "_processes", None) or {}
        return list(processes)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


__all__ = ["Computers", "PoolStats", "bent_budget"]
