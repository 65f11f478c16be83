"""Connecting to the database: the URL, the async engine and the SQLite connection settings."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Awaitable, Callable, Generator
from typing import Any

import aiosqlite
from sqlalchemy import event
from sqlalchemy.engine import make_url
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


class LoopThreadConnection(aiosqlite.Connection):
    """aiosqlite's connection with every call run at once on the event loop's own thread.

    aiosqlite hands each statement to a thread of its own and back; on a busy loop each hand-back waits
    two turns of the loop behind everything else that is ready, and the one pooled connection stayed
    checked out for all of those turns, so every other update queued for it (bench_load, 300 tables:
    p50 1.5 s with most tasks waiting for the connection). A statement here is a point read or write on a
    local file in WAL mode, tens of microseconds, cheaper than the hand-off itself. The cost: a wait for
    SQLite's lock (another process writing the same file) blocks the loop up to busy_timeout, so more than
    one process belongs on PostgreSQL.
    """

    def __await__(self) -> Generator[Any, None, LoopThreadConnection]:  # no thread to start
        return self._open().__await__()

    async def _open(self) -> LoopThreadConnection:
        if self._connection is None:
            self._connection = self._connector()
        return self

    async def _execute(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if not self._running or self._connection is None:
            raise ValueError("Connection closed")
        return fn(*args, **kwargs)

    def stop(self) -> None:  # nothing runs elsewhere, so nothing to wait for
        self._running = False
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def close(self) -> None:
        self.stop()


def _loop_thread_creator(
    url: str, connect_args: dict[str, Any]
) -> Callable[[], Awaitable[LoopThreadConnection]]:
    sa_url = make_url(url)
    args, params = sa_url.get_dialect()().create_connect_args(sa_url)
    (database,) = args  # the SQLite dialects name the file as the one positional argument
    params = {**params, **connect_args}

    async def connect() -> LoopThreadConnection:
        return await LoopThreadConnection(lambda: sqlite3.connect(database, **params), 64)

    return connect


def make_engine(url: str | None = None, **kwargs: Any) -> AsyncEngine:
    """An AsyncEngine for `url` (default: `database_url()`), with the SQLite pragmas set on every connection."""
    url = url or database_url()
    if url.startswith("sqlite"):
        # One connection, so the pool's FIFO queue is the only wait: with several, writers queued on
        # SQLite's lock inside its busy handler, which sleeps in steps of up to 100 ms, and a busy bot
        # spent most of an update's latency there (bench_load: p50 1.4 s with the default pool of 5 + 10,
        # 0.3 s with one). A second process still waits on busy_timeout rather than failing at once.
        # With the statements on the loop's thread (LoopThreadConnection) one is also required: a second
        # connection waiting for SQLite's lock would block the loop that the holder needs to finish.
        kwargs.setdefault("pool_size", 1)
        kwargs.setdefault("max_overflow", 0)
        kwargs.setdefault("connect_args", {}).setdefault("timeout", 30)
        kwargs.setdefault("async_creator", _loop_thread_creator(url, kwargs["connect_args"]))
    else:
        kwargs.setdefault("pool_pre_ping", True)
    engine = create_async_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":
        event.listen(engine.sync_engine, "connect", _sqlite_on_connect)
    return engine
