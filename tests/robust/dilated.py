"""An event loop whose clock runs faster than the wall clock, for tests of minute-long limits."""

from __future__ import annotations

import asyncio
import selectors
import time
from typing import Any


class _ScaledSelector:
    """The loop's selector, waiting ``1/factor`` of the time the loop asks for."""

    def __init__(self, factor: float) -> None:
        self._inner = selectors.DefaultSelector()
        self._factor = factor

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        return self._inner.select(None if timeout is None else timeout / self._factor)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class DilatedLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock runs ``factor`` times faster than the wall clock.

    Everything that keeps time through the loop speeds up alike: asyncio.sleep, timeouts, PTB's
    AIORateLimiter (aiolimiter reads ``loop.time()``), waits for a 429's retry_after, and the emulator's
    flood windows when it is given ``loop.time`` as its clock. So Telegram's real limits (20 a minute in a
    group) and the bot's real settings meet at ``factor`` times the speed, with nothing scaled by hand.
    """

    def __init__(self, factor: float) -> None:
        super().__init__(_ScaledSelector(factor))  # type: ignore[arg-type]
        self._factor = factor
        self._t0 = time.monotonic()

    def time(self) -> float:
        return self._t0 + (time.monotonic() - self._t0) * self._factor
