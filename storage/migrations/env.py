"""Alembic environment: runs on a connection handed over by storage.migrate, or on DATABASE_URL (CLI)."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from storage.db import database_url, make_engine
from storage.models import Base

config = context.config
target_metadata = Base.metadata


def run_on_connection(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things; batch mode rebuilds tables so later revisions work on both.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_from_url() -> None:
    engine = make_engine(config.get_main_option("sqlalchemy.url") or database_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(run_on_connection)
            await connection.commit()
    finally:
        await engine.dispose()


if context.is_offline_mode():
    context.configure(url=database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()
elif (connection := config.attributes.get("connection")) is not None:
    run_on_connection(connection)
else:
    asyncio.run(run_from_url())
