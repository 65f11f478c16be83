"""Telegram's flood limits, off unless a test switches them on.

Sliding windows per chat and overall. Once a 429 has been answered, every further send into the
same scope before its ``retry_after`` has run out is counted as a violation: a well-behaved bot
(PTB's AIORateLimiter, for one) waits, so tests can assert the count stays at zero.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import too_many_requests


@dataclass(frozen=True)
class FloodLimits:
    group_messages: int = 20
    group_period: float = 60.0
    # "About one per second" in a private chat; Telegram tolerates a short burst, so do we.
    private_messages: int = 3
    private_period: float = 3.0
    total_messages: int = 30
    total_period: float = 1.0


@dataclass
class Violation:
    method: str
    chat_id: int
    scope: str
    seconds_early: float


GLOBAL = "all chats"


@dataclass
class FloodControl:
    limits: FloodLimits = field(default_factory=FloodLimits)
    enabled: bool = False
    clock: Callable[[], float] = time.monotonic
    refusals: int = 0
    # The 429s answered, by the kind of limit that refused: "private chat", "group" or GLOBAL.
    refusals_by_limit: Counter[str] = field(default_factory=Counter)
    violations: list[Violation] = field(default_factory=list)
    _windows: dict[str, deque[float]] = field(default_factory=dict)
    _blocked_until: dict[str, float] = field(default_factory=dict)
    _held: dict[str, float] = field(default_factory=dict)  # see hold()

    def reset(self) -> None:
        self.refusals = 0
        self.refusals_by_limit.clear()
        self.violations.clear()
        self._windows.clear()
        self._blocked_until.clear()
        self._held.clear()

    def _scopes(self, chat_id: int, chat_type: str) -> list[tuple[str, int, float]]:
        limits = self.limits
        if chat_type == "private":
            local = (f"chat {chat_id}", limits.private_messages, limits.private_period)
        else:
            local = (f"chat {chat_id}", limits.group_messages, limits.group_period)
        return [local, (GLOBAL, limits.total_messages, limits.total_period)]

    def check(self, method: str, chat_id: int, chat_type: str) -> None:
        """Raise the 429 Telegram would answer for one more message into ``chat_id`` now."""
        if not self.enabled:
            return
        now = self.clock()
        for scope, _, _ in self._scopes(chat_id, chat_type):
            held = self._held.pop(scope, None)
            if held is not None:
                self._blocked_until[scope] = now + held
                self._refused(scope, chat_type)
                raise too_many_requests(max(1, math.ceil(held)))
            until = self._blocked_until.get(scope, 0.0)
            if now < until:
                self.violations.append(Violation(method, chat_id, scope, until - now))
                self._refused(scope, chat_type)
                raise too_many_requests(max(1, math.ceil(until - now)))
        for scope, allowed, period in self._scopes(chat_id, chat_type):
            window = self._windows.setdefault(scope, deque())
            while window and window[0] <= now - period:
                window.popleft()
            if len(window) >= allowed:
                retry_after = max(1, math.ceil(window[0] + period - now))
                self._blocked_until[scope] = now + retry_after
                self._refused(scope, chat_type)
                raise too_many_requests(retry_after)

    def _refused(self, scope: str, chat_type: str) -> None:
        self.refusals += 1
        kind = GLOBAL if scope == GLOBAL else "private chat" if chat_type == "private" else "group"
        self.refusals_by_limit[kind] += 1

    def hold(self, seconds: float, chat_id: int | None = None) -> None:
        """Answer the next message into one chat, or into any, with a 429 and a ``retry_after`` of ``seconds``:
        as Telegram does when other work of the same bot (another table, another worker) used up the limit."""
        self._held[GLOBAL if chat_id is None else f"chat {chat_id}"] = seconds

    def record(self, chat_id: int, chat_type: str) -> None:
        """Count a message that went through (refused sends do not use up the quota)."""
        if not self.enabled:
            return
        now = self.clock()
        for scope, _, _ in self._scopes(chat_id, chat_type):
            self._windows.setdefault(scope, deque()).append(now)
