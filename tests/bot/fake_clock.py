"""Time for the outbox that moves only when a test moves it (``bot.pace.Clock``): a wait of Telegram's pace
costs the test nothing, and what goes out when is exact. A sleeper is woken when the test moves the time past
its moment; the tasks that are ready run in between (``settle``)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math

# How many times the tests' loop lets every ready task run before it deems them all waiting: a presented
# outcome reaches the recording bot in a handful of steps (a worker, a wait for a message id, a use case).
SETTLE_TURNS = 60


class FakeClock:
    def __init__(self, start: float = 1_000.0) -> None:
        self.now = start
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        # A sleep takes some time, however short: a wait shorter than the clock can tell (a pacing bucket
        # short of a whole token by a rounding error) must still end later, or it would be asked for again.
        at = max(self.now + seconds, math.nextafter(self.now, math.inf))
        wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (at, next(self._order), wake))
        await wake

    @property
    def sleeping(self) -> int:
        return sum(1 for *_, wake in self._sleepers if not wake.done())

    async def settle(self) -> None:
        """Let every task that can run, run, without time passing."""
        for _ in range(SETTLE_TURNS):
            await asyncio.sleep(0)

    async def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds``, waking each sleeper at its moment, in order."""
        until = self.now + seconds
        await self.settle()
        while self._sleepers and self._sleepers[0][0] <= until:
            self._wake_next()
            await self.settle()
        self.now = until

    async def run(self, most: float = 3_600.0) -> float:
        """Let time pass until nobody waits on it; how long that took."""
        start = self.now
        await self.settle()
        while self._sleepers:
            self._wake_next()
            await self.settle()
            assert self.now - start <= most, f"still waiting after {most} s"
        return self.now - start

    def _wake_next(self) -> None:
        at, _, wake = heapq.heappop(self._sleepers)
        self.now = max(self.now, at)
        if not wake.done():
            wake.set_result(None)
