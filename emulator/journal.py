"""A numbered log of everything that happens, and waiting until something has happened."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
RECHECK_INTERVAL = 0.05


class Journal:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._changed = asyncio.Event()

    @property
    def last_seq(self) -> int:
        return len(self.events)

    def add(self, kind: str, **data: Any) -> dict[str, Any]:
        event = {"seq": len(self.events) + 1, "kind": kind, **data}
        self.events.append(event)
        self.wake()
        return event

    def wake(self) -> None:
        # Replacing the event lets synchronous code wake every waiter without holding a lock.
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    def since(self, seq: int) -> list[dict[str, Any]]:
        return self.events[max(seq, 0) :]

    async def wait_for(self, condition: Callable[[], T | None], timeout: float, description: str = "") -> T:
        """Return the first truthy value of ``condition``, checked after every change."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            result = condition()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"gave up after {timeout}s waiting for {description or condition!r}")
            # Also recheck now and then: a condition may depend on things outside the emulator.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), min(remaining, RECHECK_INTERVAL))

    async def changed(self, timeout: float) -> bool:
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return False
        return True
