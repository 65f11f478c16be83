"""Benchmark: committed actions per second through the table layer and its unit of work, and bytes stored
per finished round.

    python -m benches.storage [--seconds 6] [--size-rounds 10] [--pg postgresql://postgres@127.0.0.1:5432/test] [--no-pg]

Each table seats six players who play random legal moves (``Match.legal_actions``) through
``TableService.act``, one committed unit of work per move (with R4.3's automatic passes after it, counted as
actions too), dealing the next round when one ends. SQLite runs on a file in a temporary directory;
PostgreSQL in a temporary schema that is dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from storage import make_engine, uow_factory, upgrade_to_head
from storage.models import Base
from storage.uow import UnitOfWorkFactory
from table import TableService

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"


@dataclass
class Backend:
    name: str
    engine: AsyncEngine
    uow: UnitOfWorkFactory
    sqlite_path: Path | None

    async def size(self) -> int:
        """Bytes on disk: the SQLite file after a checkpoint, or PostgreSQL's relations with indexes/TOAST."""
        if self.sqlite_path is not None:
            async with self.engine.connect() as connection:
                await connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
            return self.sqlite_path.stat().st_size
        total = 0
        async with self.engine.connect() as connection:
            for table in Base.metadata.tables:
                result = await connection.execute(text("SELECT pg_total_relation_size(:t)"), {"t": table})
                total += int(result.scalar_one())
        return total

    async def compact(self) -> None:
        """VACUUM FULL (PostgreSQL): drop the dead row versions each state update leaves behind
        (autovacuum would reuse that space over time)."""
        if self.sqlite_path is None:
            async with self.engine.connect() as connection:
                connection = await connection.execution_options(isolation_level="AUTOCOMMIT")
                await connection.execute(text("VACUUM FULL"))


@asynccontextmanager
async def sqlite_backend() -> AsyncIterator[Backend]:
    with tempfile.TemporaryDirectory(prefix="gouji-bench-") as directory:
        path = Path(directory) / "bench.db"
        engine = make_engine(f"sqlite+aiosqlite:///{path}")
        try:
            await upgrade_to_head(engine)
            yield Backend("SQLite", engine, uow_factory(engine), path)
        finally:
            await engine.dispose()


@asynccontextmanager
async def pg_backend(dsn: str) -> AsyncIterator[Backend]:
    import asyncpg

    schema = f"gouji_bench_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(dsn, timeout=5)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    engine = make_engine(
        dsn.replace("postgresql://", "postgresql+asyncpg://", 1),
        connect_args={"server_settings": {"search_path": schema}},
        pool_size=20,
        max_overflow=0,
    )
    try:
        await upgrade_to_head(engine)
        yield Backend("PostgreSQL", engine, uow_factory(engine), None)
    finally:
        await engine.dispose()
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()


async def new_tables(service: TableService, count: int, first_group: int) -> list[int]:
    """``count`` tables with six players each, dealt: their ids."""
    tables = []
    for group in range(first_group, first_group + count):
        users = [group * 10 + seat for seat in range(6)]
        for user in users:
            await service.deliveries.see_user(user, f"player {user}", "en")
        table_id = (await service.lobby.open(group, users[0])).table.id
        for seat, user in enumerate(users):
            await service.lobby.join(table_id, user, seat)
        await service.lobby.begin(table_id, users[0])
        tables.append(table_id)
    return tables


@dataclass
class Tally:
    actions: int = 0
    rounds: int = 0


async def play_table(
    service: TableService, table_id: int, rng: random.Random, tally: Tally, stop: Any
) -> None:
    """Play until ``stop(tally)`` says so, one move per unit of work, dealing the next round when one ends."""
    table = await service.reads.load(table_id)
    while not stop(tally):
        match, seat = table.match, table.to_act
        assert match is not None
        if match.round_over:
            tally.rounds += 1
            if stop(tally):
                return
            table = (await service.play.next_round(table_id, table.seats[0].user_id, table.version)).table
            continue
        assert seat is not None and seat.user_id is not None
        before = table.last_seq
        table = (await service.play.act(table_id, seat.user_id, rng.choice(match.legal_actions()))).table
        tally.actions += table.last_seq - before


async def throughput(backend: Backend, tables: int, seconds: float, first_group: int) -> tuple[float, int]:
    service = TableService(backend.uow)
    seated = await new_tables(service, tables, first_group)
    tally = Tally()
    deadline = time.perf_counter() + seconds
    rng = random.Random(first_group)
    started = time.perf_counter()
    await asyncio.gather(
        *(
            play_table(
                service, t, random.Random(rng.random()), tally, lambda _: time.perf_counter() >= deadline
            )
            for t in seated
        )
    )
    elapsed = time.perf_counter() - started
    return tally.actions / elapsed, tally.actions


async def size_per_round(backend: Backend, rounds: int, first_group: int) -> tuple[float, float | None, int]:
    """Bytes per finished round, from `rounds` tables each playing exactly one full round."""
    service = TableService(backend.uow)
    seated = await new_tables(service, rounds, first_group)
    await backend.compact()
    before = await backend.size()
    tallies = [Tally() for _ in seated]
    rng = random.Random(first_group)
    await asyncio.gather(
        *(
            play_table(service, t, random.Random(rng.random()), tally, lambda tl: tl.rounds >= 1)
            for t, tally in zip(seated, tallies, strict=True)
        )
    )
    actions = sum(t.actions for t in tallies)
    grown = (await backend.size() - before) / rounds
    compacted = None
    if backend.sqlite_path is None:
        await backend.compact()
        compacted = (await backend.size() - before) / rounds
    return grown, compacted, actions // rounds


async def run(backend: Backend, seconds: float, size_rounds: int) -> None:
    for n, group in ((1, 1_000_000), (100, 2_000_000)):
        rate, actions = await throughput(backend, n, seconds, group)
        print(
            f"{backend.name:<10}  {n:>3} concurrent table(s): {rate:8.0f} actions/s  ({actions} actions)",
            flush=True,
        )
    grown, compacted, per_round = await size_per_round(backend, size_rounds, 3_000_000)
    line = f"{backend.name:<10}  size per finished round: {grown / 1024:7.1f} KiB"
    if compacted is not None:
        line += f" (after VACUUM FULL: {compacted / 1024:.1f} KiB)"
    print(f"{line}  [{size_rounds} rounds, ~{per_round} actions each]", flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=6.0, help="length of each throughput run")
    parser.add_argument("--size-rounds", type=int, default=10, help="full rounds played to measure size")
    parser.add_argument("--pg", default=os.environ.get("GOUJI_BENCH_PG", DEFAULT_PG), help="PostgreSQL DSN")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    args = parser.parse_args()

    async with sqlite_backend() as backend:
        await run(backend, args.seconds, args.size_rounds)
    if args.no_pg:
        return
    try:
        backend_cm = pg_backend(args.pg)
        backend = await backend_cm.__aenter__()
    except Exception as exc:  # the SQLite figures stand on their own
        print(f"PostgreSQL  skipped: cannot reach {args.pg}: {type(exc).__name__}: {exc}")
        return
    try:
        await run(backend, args.seconds, args.size_rounds)
    finally:
        await backend_cm.__aexit__(None, None, None)


if __name__ == "__main__":
    asyncio.run(main())
