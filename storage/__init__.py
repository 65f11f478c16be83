"""Persistence for gouji-bot: SQLAlchemy 2 (async) models, repositories, the unit of work, migrations.

It knows rows and the engine's Match as stored JSON; it decides no rule of the game or of the table."""

from storage.db import DEFAULT_DATABASE_URL, database_url, make_engine
from storage.errors import StorageError, TableAlreadyOpen, VersionConflict
from storage.migrate import upgrade_to_head
from storage.uow import UnitOfWork, UnitOfWorkFactory, uow_factory

__all__ = [
    "DEFAULT_DATABASE_URL",
    "StorageError",
    "TableAlreadyOpen",
    "UnitOfWork",
    "UnitOfWorkFactory",
    "VersionConflict",
    "database_url",
    "make_engine",
    "uow_factory",
    "upgrade_to_head",
]
