"""Bringing a database's schema up to date with the Alembic migrations in storage/migrations."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from storage.db import make_engine

ALEMBIC_INI = Path(__file__).with_name("alembic.ini")


def alembic_config() -> Config:
    config = Config(str(ALEMBIC_INI))
    config.set_main_option("script_location", str(ALEMBIC_INI.with_name("migrations")))
    return config


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


async def upgrade_to_head(engine: AsyncEngine | str | None = None) -> None:
    """Upgrade the database to the newest revision; the bot calls this at start-up (idempotent).

    Takes the bot's AsyncEngine, or a URL (default: DATABASE_URL, else the SQLite file).
    """
    if isinstance(engine, AsyncEngine):
        await _upgrade(engine)
        return
    own = make_engine(engine)
    try:
        await _upgrade(own)
    finally:
        await own.dispose()


async def _upgrade(engine: AsyncEngine) -> None:
    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")

    async with engine.begin() as connection:
        await connection.run_sync(run)


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision recorded in the database (None for an empty one)."""

    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with engine.connect() as connection:
        return await connection.run_sync(read)
