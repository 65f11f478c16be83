"""Persistence for gouji-bot: SQLAlchemy 2 (async) models, repositories, the unit of work, migrations."""

from storage.db import DEFAULT_DATABASE_URL, database_url, make_engine
from storage.errors import (
    AlreadyProcessed,
    NoRoundInPlay,
    NotYourTurn,
    RoundInProgress,
    SeatTaken,
    StorageError,
    TableAlreadyOpen,
    TableNotFound,
    VersionConflict,
)
from storage.migrate import upgrade_to_head
from storage.uow import UnitOfWork, UnitOfWorkFactory, uow_factory

__all__ = [
    "DEFAULT_DATABASE_URL",
    "AlreadyProcessed",
    "NoRoundInPlay",
    "NotYourTurn",
    "RoundInProgress",
    "SeatTaken",
    "StorageError",
    "TableAlreadyOpen",
    "TableNotFound",
    "UnitOfWork",
    "UnitOfWorkFactory",
    "VersionConflict",
    "database_url",
    "make_engine",
    "uow_factory",
    "upgrade_to_head",
]
