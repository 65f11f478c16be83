"""How the bot's computer players decide: the easy and normal levels in the event loop (microseconds), the
strong level in a process pool the loop awaits, so that a 200 ms search never stalls every other table
(engine/ai/search.py; issue 16: the loop's longest stall must stay under 50 ms)."""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ProcessPoolExecutor

from engine import Action
from engine.ai.search import SearchOptions, decide
from engine.match import SeatView
from table.context import decide_here
from table.policy import level_name

STRONG = "strong"


def _warm() -> None:
    import engine.ai  # noqa: F401 - the import is most of a worker's start (0.4 s), done before the first move


class Computers:
    """The decider handed to the table layer (``TableService(decide=...)``)."""

    def __init__(self, budget_ms: float = 200.0, workers: int | None = None) -> None:
        self.options = SearchOptions(budget_ms=budget_ms)
        self.workers = workers or max(1, (os.cpu_count() or 2) - 1)
        self._pool: ProcessPoolExecutor | None = None

    async def __call__(self, level: int, view: SeatView, legal: list[Action], seed: int) -> Action:
        if level_name(level) != STRONG:
            return await decide_here(level, view, legal, seed)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, initializer=_warm)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, decide, view, legal, self.options, seed)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


__all__ = ["Computers"]
