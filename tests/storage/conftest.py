"""Fixtures: a freshly migrated database on each backend (a SQLite file, a PostgreSQL schema)."""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from storage_helpers import Database, assert_every_round_rebuilds  # also puts tests/table on the path

from storage import make_engine, uow_factory, upgrade_to_head

PG_DSN = os.environ.get("GOUJI_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def _pg_unreachable_reason() -> str | None:
    async def probe() -> None:
        connection = await asyncpg.connect(PG_DSN, timeout=3)
        await connection.close()

    try:
        asyncio.run(probe())
    except Exception as exc:  # any failure means the PostgreSQL half of the suite cannot run here
        return f"PostgreSQL not reachable at {PG_DSN}: {type(exc).__name__}: {exc}"
    return None


@pytest.fixture(scope="session")
def pg_unreachable() -> str | None:
    return _pg_unreachable_reason()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, pg_unreachable: str | None) -> str:
    if request.param == "postgresql" and pg_unreachable:
        pytest.skip(pg_unreachable)
    return str(request.param)


@pytest.fixture
async def empty_db(backend: str, tmp_path: Path) -> AsyncIterator[tuple[str, dict[str, Any], Path | None]]:
    """The URL and engine options of an empty database: a new SQLite file, or a new PostgreSQL schema."""
    if backend == "sqlite":
        path = tmp_path / "gouji.db"
        yield f"sqlite+aiosqlite:///{path}", {}, path
        return
    schema = f"gouji_test_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(PG_DSN)
    try:
        await admin.execute(f'CREATE SCHEMA "{schema}"')
        base = PG_DSN.replace("postgresql://", "postgresql+asyncpg://", 1)
        yield base, {"connect_args": {"server_settings": {"search_path": schema}}}, None
    finally:
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()


@pytest.fixture
async def db(empty_db: tuple[str, dict[str, Any], Path | None], backend: str) -> AsyncIterator[Database]:
    url, kwargs, path = empty_db
    engine = make_engine(url, **kwargs)
    await upgrade_to_head(engine)
    database = Database(backend, url, kwargs, engine, uow_factory(engine), path)
    try:
        yield database
        # Whatever a test played, its log must rebuild every round it stored.
        await assert_every_round_rebuilds(database.uow)
    finally:
        await engine.dispose()


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    # Seeded per test so a failure is reproducible; the seed shows in the test id's hash.
    return random.Random(request.node.nodeid)
