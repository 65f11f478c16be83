"""The database a storage test runs on, and the check that every stored round rebuilds from its log. The
tables are seated and played through the table layer's use cases, as the bot does (tests/table/table_helpers.py).
(Not in conftest.py: tests/bot has a conftest too, and only one module can be imported as `conftest`.)"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from storage import make_engine
from storage.uow import UnitOfWorkFactory, uow_factory
from table import TableService
from table.rebuild import rebuild_round

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "table"))


@dataclass
class Database:
    backend: str
    url: str
    engine_kwargs: dict[str, Any]
    engine: AsyncEngine
    uow: UnitOfWorkFactory
    path: Path | None  # the SQLite file

    def new_engine(self) -> AsyncEngine:
        """Another engine on the same database, as a restarted bot or a second worker would have."""
        return make_engine(self.url, **self.engine_kwargs)

    def service(self, engine: AsyncEngine | None = None) -> TableService:
        """The table layer on this database (on ``engine``: as another process would have it)."""
        return TableService(uow_factory(engine) if engine is not None else self.uow)


async def assert_every_round_rebuilds(uow: UnitOfWorkFactory) -> None:
    """Every stored round replays from its seed and log: to the saved match, or to its recorded result."""
    async with uow() as u:
        for table in await u.tables.all():
            entries = await u.actions.of_table(table.id)
            assert [e.seq for e in entries] == list(range(1, table.last_seq + 1)), (
                "log has a gap or duplicate"
            )
            for info in await u.rounds.of_table(table.id):
                rebuilt = await rebuild_round(u, table.id, info.round_no)
                if info.round_no == table.round_no:
                    assert rebuilt == table.match
                if info.finished_at is not None:
                    assert rebuilt.round_over and rebuilt.round_no == info.round_no
                    assert list(rebuilt.places) == info.places
                    assert rebuilt.scores() == info.scores
                else:
                    assert not rebuilt.round_over
