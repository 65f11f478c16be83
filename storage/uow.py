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

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from storage.repositories import (
    ActionLog,
    ChatLimitRepository,
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
    chats: ChatLimitRepository

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        # A Core connection, not an ORM Session: the repositories issue Core statements only, and the
        # Session's bookkeeping on every execute was a fifth of a busy bot's time in SQLAlchemy.
        self.connection: AsyncConnection | None = None

    async def __aenter__(self) -> Self:
        connection = await self._engine.connect()
        dialect = self._engine.dialect.name
        self.connection = connection
        self.groups = GroupRepository(connection, dialect)
        self.users = UserRepository(connection, dialect)
        self.tables = TableRepository(connection, dialect)
        self.seats = SeatRepository(connection, dialect)
        self.rounds = RoundRepository(connection, dialect)
        self.actions = ActionLog(connection, dialect)
        self.deadlines = DeadlineRepository(connection, dialect)
        self.updates = UpdateRepository(connection, dialect)
        self.chats = ChatLimitRepository(connection, dialect)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self.connection is not None
        try:
            await self.connection.rollback()  # nothing to undo after commit()
        finally:
            await self.connection.close()
            self.connection = None

    async def commit(self) -> None:
        assert self.connection is not None, "commit() outside `async with`"
        await self.connection.commit()

    async def rollback(self) -> None:
        assert self.connection is not None, "rollback() outside `async with`"
        await self.connection.rollback()


UnitOfWorkFactory = Callable[[], UnitOfWork]


def uow_factory(engine: AsyncEngine) -> UnitOfWorkFactory:
    """A factory of units of work on `engine`, what the service functions take."""
    return lambda: UnitOfWork(engine)
