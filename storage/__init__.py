"""Persistence for gouji-bot: SQLAlchemy 2 (async) models, repositories, the unit of work, migrations.

It knows rows and the engine's Match as stored JSON; it decides no rule of the game or of the table.

The adapters (db, migrate, uow) are imported on first use of one of their names (PEP 562), not with the
package: the table layer imports ``storage.records`` and ``storage.errors``, and importing the package for
them loaded SQLAlchemy, Alembic and aiosqlite.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from storage.errors import StorageError, TableAlreadyOpen, VersionConflict

if TYPE_CHECKING:
    from storage.db import DEFAULT_DATABASE_URL, database_url, make_engine
    from storage.migrate import upgrade_to_head
    from storage.uow import UnitOfWork, UnitOfWorkFactory, uow_factory

_LAZY = {
    "DEFAULT_DATABASE_URL": "storage.db",
    "database_url": "storage.db",
    "make_engine": "storage.db",
    "upgrade_to_head": "storage.migrate",
    "UnitOfWork": "storage.uow",
    "UnitOfWorkFactory": "storage.uow",
    "uow_factory": "storage.uow",
}

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next look-up is an ordinary one
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
