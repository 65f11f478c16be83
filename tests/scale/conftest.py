"""The scale tests drive tables with the scripted players of the end-to-end tests, on a PostgreSQL database
of their own (skipped where there is none)."""

from __future__ import annotations

import os
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "bot"))

from emulator.pytest_fixtures import emulator

__all__ = ["emulator"]

PG_DSN = os.environ.get("GOUJI_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture
async def pg_database() -> AsyncIterator[str]:
    name = f"gouji_scale_{uuid.uuid4().hex[:10]}"
    try:
        conn = await asyncpg.connect(PG_DSN, timeout=3)
    except Exception as exc:  # any failure means there is no PostgreSQL to run against here
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {type(exc).__name__}: {exc}")
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    base = PG_DSN.rpartition("/")[0]
    yield f"{base}/{name}"
    conn = await asyncpg.connect(PG_DSN)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()
