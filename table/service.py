"""The table layer's use cases, grouped by what they are about; one object per bot in the process, built once.

Every change names the version it was decided on; the save of the new version is conditional on that
version, so of two writers exactly one wins (the other gets StaleVersion) and a refused use case has written
nothing. Each use case is one unit of work for what it writes and returns an :class:`~table.outcome.Outcome`
(or a read) for the bot to show.

- ``lobby`` (:mod:`table.lobby`): coming and going, the match begun, the table closed;
- ``play`` (:mod:`table.play`): a player's move, a nudge, the next round;
- ``clock`` (:mod:`table.clock`): deadlines fired, tables resumed, the invariant the sweep keeps;
- ``deliveries`` (:mod:`table.deliveries`): what Telegram told (users, message ids, blocked chats, pauses,
  migrations);
- ``settings`` (:mod:`table.settings`): the group's settings;
- ``reads`` (:mod:`table.reads`): the table, a player's tables, statistics, a hint.

A move and the moves after it that nobody taps for are one write (:mod:`table.stretch`); what that adds to
the table's public story is :mod:`table.story`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from .clock import Clock
from .context import Context, Decider, decide_here, utcnow
from .deliveries import Deliveries
from .lobby import Lobby
from .play import Play
from .ports import UnitOfWorkFactory
from .reads import Reads
from .settings import Settings


class TableService:
    """The use cases of one bot's tables: ``bot_id`` is the bot's Telegram id (its token's first part). The
    tables it opens are hosted by it; it records its own update ids, fires the deadlines of its own tables only
    and finds only its own tables, however many bots share the database (a fleet)."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        *,
        bot_id: int = 0,
        clock: Callable[[], datetime] = utcnow,
        languages: Sequence[str] = ("zh", "en"),
        decide: Decider = decide_here,
    ) -> None:
        self.bot_id = bot_id
        self.context = Context(uow, bot_id=bot_id, clock=clock, decide=decide, languages=tuple(languages))
        self.lobby = Lobby(self.context)
        self.play = Play(self.context)
        self.clock = Clock(self.context)
        self.deliveries = Deliveries(self.context, self.lobby, self.clock)
        self.settings = Settings(self.context)
        self.reads = Reads(self.context)
