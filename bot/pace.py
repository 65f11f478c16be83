"""Telegram's pace as the outbox keeps it: the limits (:class:`Pace`), a chat's sliding window of calls
(:class:`Window`), the overall limit shared by every chat (:class:`Gate`), and the clock they keep time by."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass
from typing import Protocol

REST_SHARE = 4  # under the overall limit, what does not ring gets at least one slot in this many (Gate)


class Clock(Protocol):
    """The time the outbox keeps Telegram's pace by, in seconds, and its way of waiting for it."""

    def time(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class LoopClock:
    """The event loop's clock (the bot's): what the outbox keeps time by unless a test gives its own."""

    def time(self) -> float:
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


@dataclass(frozen=True)
class Pace:
    """Telegram's limits as the outbox keeps them: ``messages`` per sliding ``period`` seconds."""

    group_messages: int = 20
    group_period: float = 60.0
    private_messages: int = 3
    private_period: float = 3.0
    total_messages: int = 30
    total_period: float = 1.0
    # A call reaches Telegram a little after it leaves: each window is kept this much longer.
    margin: float = 0.2


class Window:
    """A sliding window of the moments calls went out, and for a group a bucket of ``burst`` calls refilled
    evenly, so that a burst (a round's end, a new round's table) goes at once and steady play is spread over
    the minute: burst + refill over the period never exceeds the window's limit."""

    __slots__ = ("burst", "messages", "period", "rate", "times", "tokens", "updated")

    def __init__(self, messages: int, period: float, burst: int = 0) -> None:
        self.messages, self.period, self.burst = messages, period, burst
        self.rate = (messages - burst) / period  # tokens a second
        self.tokens, self.updated = float(burst), 0.0
        self.times: deque[float] = deque()

    def _refill(self, now: float) -> None:
        if self.burst:
            self.tokens = min(float(self.burst), self.tokens + (now - self.updated) * self.rate)
        self.updated = now

    def wait(self, now: float) -> float:
        """Seconds until one more call fits."""
        times = self.times
        while times and times[0] <= now - self.period:
            times.popleft()
        wait = 0.0
        if len(times) >= self.messages:
            wait = times[0] + self.period - now
        if self.burst:
            self._refill(now)
            if self.tokens < 1:
                wait = max(wait, (1 - self.tokens) / self.rate)
        return max(0.0, wait)

    def use(self, now: float) -> None:
        self.times.append(now)
        if self.burst:
            self._refill(now)
            self.tokens -= 1


@dataclass
class Gate:
    """The overall limit, shared by every chat. When more is queued than the token may send, a message that
    rings goes first: a turn message, what keeps a table moving (only what asks something of the reader
    rings); the rest (edits: a composer redrawn, a mover's line, a group's table, which later edits coalesce
    into; silent news) follows first come, first served, and gets every :data:`REST_SHARE`-th slot while it
    waits, so it is never starved. Measured where the token is the ceiling (``benches.load --tables 100``):
    first come, first served made a move wait p50 5.3 s, p99 16.0 s for the next human's turn message at
    tables of two humans and four strong computers (issue 23); private chats before groups, every message of
    theirs alike, made it p50 24.7 s, p99 55 s at tables of six humans (all their messages are private)."""

    __slots__ = ("clock", "first", "rest", "runner", "since_rest", "window")

    def __init__(self, window: Window, clock: Clock) -> None:
        self.window, self.clock = window, clock
        self.first: deque[asyncio.Future[None]] = deque()
        self.rest: deque[asyncio.Future[None]] = deque()
        self.since_rest = 0  # slots given to the first since the waiting rest last had one
        self.runner: asyncio.Task[None] | None = None

    async def enter(self, first: bool) -> None:
        now = self.clock.time()
        if not self.first and not self.rest and self.window.wait(now) == 0:
            self.window.use(now)  # nobody waits: go at once, as an uncontended lock lets one through
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        (self.first if first else self.rest).append(fut)
        if self.runner is None or self.runner.done():
            self.runner = asyncio.create_task(self._run())
        await fut

    async def _run(self) -> None:
        while self.first or self.rest:
            wait = self.window.wait(self.clock.time())
            if wait > 0:
                await self.clock.sleep(wait)
                continue
            rest_turn = bool(self.rest) and (not self.first or self.since_rest >= REST_SHARE - 1)
            fut = (self.rest if rest_turn else self.first).popleft()
            if fut.done():  # its worker was cancelled while it waited
                continue
            self.since_rest = 0 if rest_turn or not self.rest else self.since_rest + 1
            self.window.use(self.clock.time())
            fut.set_result(None)
