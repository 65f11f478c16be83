"""What every use case of a table shares: the unit of work it opens, the clock, how a computer decides, the
process's copy of each table's last committed match, and one use case at a time per table.

The clock is injected (tests and benches run on their own time) and this module's default reads the system's
UTC clock: the table layer loads no storage adapter to learn the time.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Protocol, Unpack

from engine import Action
from engine.ai import make_player
from engine.match import SeatView
from storage.errors import VersionConflict
from storage.records import DeadlineRecord, TableChanges

from . import policy
from .errors import StaleVersion
from .load import MatchCache, read_table
from .model import Table
from .ports import UnitOfWork, UnitOfWorkFactory


class Decider(Protocol):
    """How a computer decides: (level, the seat's view, the legal actions, a seed) -> its action; ``spent``:
    the seconds the computers have already thought in this stretch (the player waits for all of it). The
    default decides in this thread; the bot hands the strong level to a process pool (bot/app.py)."""

    def __call__(
        self, level: int, view: SeatView, legal: list[Action], seed: int, *, spent: float = 0.0
    ) -> Awaitable[Action]: ...


async def decide_here(
    level: int, view: SeatView, legal: list[Action], seed: int, *, spent: float = 0.0
) -> Action:
    return make_player(policy.level_name(level)).choose(view, legal, random.Random(seed))


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class Context:
    """The table layer's share of one bot in the process: built once per bot by
    :class:`table.service.TableService`. ``bot_id``: the bot whose tables these are (a fleet's bots share one
    database; each opens, shows and moves only its own, 0 where bots are not told apart)."""

    uow: UnitOfWorkFactory
    bot_id: int = 0
    clock: Callable[[], datetime] = utcnow
    decide: Decider = decide_here
    languages: tuple[str, ...] = ("zh", "en")
    matches: MatchCache = field(default_factory=MatchCache)
    _locks: dict[int, asyncio.Lock] = field(default_factory=dict)

    @asynccontextmanager
    async def turn(self, table_id: int) -> AsyncIterator[None]:
        """One use case at a time per table in this process: a tap and a time-out of the same table would
        otherwise both read one version and one of them lose."""
        lock = self._locks.setdefault(table_id, asyncio.Lock())
        async with lock:
            yield

    async def load(self, table_id: int, *, with_due: bool = False) -> Table:
        """The table as stored (its match the caller's own), with the turn's deadline when asked."""
        async with self.uow() as uow:
            table = await read_table(uow, table_id, self.matches, host=self.bot_id)
            if with_due:
                table = replace(table, due=await turn_due(uow, table))
        return table

    async def save(self, uow: UnitOfWork, table: Table, **changes: Unpack[TableChanges]) -> int:
        """The table's next version, if nobody saved one since it was read."""
        try:
            return await uow.tables.save(table.id, table.version, **changes)
        except VersionConflict:
            self.matches.forget(table.id)
            raise StaleVersion(table.id, table.version) from None


async def armed(uow: UnitOfWork, table: Table) -> list[DeadlineRecord]:
    """The deadlines armed for the table's current version."""
    return [d for d in await uow.deadlines.of_table(table.id) if d.version == table.version]


async def turn_due(uow: UnitOfWork, table: Table) -> datetime | None:
    return next((d.due_at for d in await armed(uow, table) if d.kind == policy.TIMEOUT), None)
