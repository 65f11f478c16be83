"""The unit of work: one transaction, with the repositories that share it.

    async with uow_factory() as uow:
        ...
        await uow.commit()

Leaving the block without commit() (an exception, a return, a cancelled task) rolls everything back.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Self

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from storage.db import make_session_factory
from storage.repositories import (
    ActionLog,
    DeadlineRepository,
    GroupRepository,
    RoundRepository,
    SeatRepository,
    TableRepository,
    UpdateRepository,
    UserRepository,
)


class UnitOfWork:
    groups: GroupRepository
    users: UserRepository
    tables: TableRepository
    seats: SeatRepository
    rounds: RoundRepository
    actions: ActionLog
    deadlines: DeadlineRepository
    updates: UpdateRepository

    def __init__(self, session_factory: async_sessionmaker[AsyncSession]) -> None:
        self._session_factory = session_factory
        self.session: AsyncSession | None = None

    async def __aenter__(self) -> Self:
        session = self._session_factory()
        bind = session.bind
        assert bind is not None, "the session factory must be bound to an engine"
        dialect = bind.dialect.name
        self.session = session
        self.groups = GroupRepository(session, dialect)
        self.users = UserRepository(session, dialect)
        self.tables = TableRepository(session, dialect)
        self.seats = SeatRepository(session, dialect)
        self.rounds = RoundRepository(session, dialect)
        self.actions = ActionLog(session, dialect)
        self.deadlines = DeadlineRepository(session, dialect)
        self.updates = UpdateRepository(session, dialect)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self.session is not None
        try:
            await self.session.rollback()  # nothing to undo after commit()
        finally:
            await self.session.close()
            self.session = None

    async def commit(self) -> None:
        assert self.session is not None, "commit() outside `async with`"
        await self.session.commit()

    async def rollback(self) -> None:
        assert self.session is not None, "rollback() outside `async with`"
        await self.session.rollback()


UnitOfWorkFactory = Callable[[], UnitOfWork]


def uow_factory(engine: AsyncEngine) -> UnitOfWorkFactory:
    """A factory of units of work on `engine`, what the service functions take."""
    sessions = make_session_factory(engine)
    return lambda: UnitOfWork(sessions)
