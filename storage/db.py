"""Connecting to the database: the URL, the async engine and the SQLite connection settings."""

from __future__ import annotations

import os
from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///gouji.db"


def database_url() -> str:
    """The URL the bot uses: DATABASE_URL from the environment, else a SQLite file in the working directory."""
    return os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL


def is_sqlite(engine: AsyncEngine) -> bool:
    return engine.dialect.name == "sqlite"


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets the renderers read while a move is being written; foreign keys are off by default in SQLite;
    # NORMAL synchronous is durable across a process crash in WAL mode (only an OS crash can lose the last
    # commits), which is the failure this bot has to survive.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def make_engine(url: str | None = None, **kwargs: Any) -> AsyncEngine:
    """An AsyncEngine for `url` (default: `database_url()`), with the SQLite pragmas set on every connection."""
    url = url or database_url()
    if url.startswith("sqlite"):
        # One connection, so the pool's FIFO queue is the only wait: with several, writers queued on
        # SQLite's lock inside its busy handler, which sleeps in steps of up to 100 ms, and a busy bot
        # spent most of an update's latency there (bench_load: p50 1.4 s with the default pool of 5 + 10,
        # 0.3 s with one). A second process still waits on busy_timeout rather than failing at once.
        kwargs.setdefault("pool_size", 1)
        kwargs.setdefault("max_overflow", 0)
        kwargs.setdefault("connect_args", {}).setdefault("timeout", 30)
    else:
        kwargs.setdefault("pool_pre_ping", True)
    engine = create_async_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_on_connect)
    return engine
