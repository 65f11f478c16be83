"""A fleet's bots on one database, on both backends: each claims the due deadlines of the tables it hosts and
no other (two bots claiming at the same moment split them by host), finds only its own open tables, tables
waiting without a deadline and tables of a player, and keeps update ids of its own (each bot numbers its own
updates, so two bots' ids overlap). The tables and update ids of a bot that ran alone before go to the first
bot that starts."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine
from storage_helpers import Database
from table_helpers import begin, seated_table

from storage import make_engine, uow_factory, upgrade_to_head
from storage.migrate import alembic_config
from storage.records import DeadlineRecord
from table import TableAlreadyOpen, TableService

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
BOT_A, BOT_B = 5_000_000_001, 5_000_000_002  # Telegram's bot ids are past 2**32 nowadays: BIGINT


def _bot(db: Database, bot_id: int) -> TableService:
    return TableService(db.uow, bot_id=bot_id, clock=lambda: T0)


async def _claim(db: Database, worker: str, bot_id: int, now: datetime) -> list[DeadlineRecord]:
    async with db.uow() as u:
        claimed = await u.deadlines.claim_due(worker, bot_id=bot_id, now=now)
        await u.commit()
    return claimed


async def _dealt(db: Database, bot_id: int, group_id: int, humans: tuple[int, ...]) -> int:
    service = _bot(db, bot_id)
    seated = await seated_table(service, group_id, humans=humans)
    await begin(service, seated)
    return seated.table_id


async def test_each_bot_claims_the_deadlines_of_its_own_tables(db: Database) -> None:
    a_tables = [await _dealt(db, BOT_A, -6001 - i, (101 + i,)) for i in range(3)]
    b_tables = [await _dealt(db, BOT_B, -6101 - i, (201 + i,)) for i in range(3)]
    async with db.uow() as u:
        pending_a, pending_b = await u.deadlines.pending(BOT_A), await u.deadlines.pending(BOT_B)
    assert {d.table_id for d in pending_a} == set(a_tables)
    assert {d.table_id for d in pending_b} == set(b_tables)

    later = T0 + timedelta(days=1)
    # Both bots' workers claim at the same moment: each gets its own tables' deadlines, all of them.
    by_a, by_b = await asyncio.gather(_claim(db, "a:1", BOT_A, later), _claim(db, "b:1", BOT_B, later))
    assert {d.table_id for d in by_a} == set(a_tables) and len(by_a) == len(pending_a)
    assert {d.table_id for d in by_b} == set(b_tables) and len(by_b) == len(pending_b)
    assert await _claim(db, "b:2", BOT_B, later) == [], "claimed once"
    assert await _claim(db, "c:1", 0, later) == [], "a bot with no tables claims nothing"


async def test_each_bot_finds_only_its_own_tables(db: Database) -> None:
    table_a = await _dealt(db, BOT_A, -6201, (101, 102))
    table_b = await _dealt(db, BOT_B, -6202, (101, 103))  # player 101 sits at both
    async with db.uow() as u:
        await u.deadlines.drop_outdated(table_a, 10**6)  # both wait without their deadlines
        await u.deadlines.drop_outdated(table_b, 10**6)
        await u.commit()
    async with db.uow() as u:
        assert [t.id for t in await u.tables.all_open(BOT_A)] == [table_a]
        assert [t.id for t in await u.tables.all_open(BOT_B)] == [table_b]
        assert await u.tables.waiting_without_deadline(BOT_A) == [table_a]
        assert await u.tables.waiting_without_deadline(BOT_B) == [table_b]
        assert await u.seats.tables_of_user(101, BOT_A) == [table_a]
        assert await u.seats.tables_of_user(101, BOT_B) == [table_b]
        assert await u.tables.all_open(0) == []


async def test_a_topics_table_is_one_bots_and_the_other_is_told_which(db: Database) -> None:
    a, b = _bot(db, BOT_A), _bot(db, BOT_B)
    await a.deliveries.see_group(-6301, "both bots")
    for user_id in (101, 102):
        await a.deliveries.see_user(user_id, f"player {user_id}", "en")
    opened = await a.lobby.open(-6301, 101, thread_id=4)
    # On PostgreSQL the refused INSERT spoils its transaction: the host is read in another.
    with pytest.raises(TableAlreadyOpen) as refused:
        await b.lobby.open(-6301, 102, thread_id=4)
    assert refused.value.host == BOT_A
    assert await b.reads.table_in_group(-6301, 4) is None
    table = await a.reads.table_in_group(-6301, 4)
    assert table is not None and table.id == opened.table.id and table.bot_id == BOT_A


async def test_update_ids_are_each_bots_own(db: Database) -> None:
    async with db.uow() as u:
        assert await u.updates.record(700_000_001, BOT_A)
        assert await u.updates.record(700_000_001, BOT_B), "the same id from another bot is another update"
        assert not await u.updates.record(700_000_001, BOT_A)
        assert await u.updates.seen(700_000_001, BOT_B) and not await u.updates.seen(700_000_002, BOT_B)
        await u.commit()


async def test_the_first_bot_to_start_takes_what_was_stored_before_bots_were_told_apart(
    db: Database,
) -> None:
    legacy = await _dealt(db, 0, -6401, (101,))
    async with db.uow() as u:
        await u.updates.record(41)  # bot 0: recorded before the upgrade
        await u.updates.record(42)
        await u.updates.record(42, BOT_A)  # and one the bot recorded itself since
        await u.commit()

    async with db.uow() as u:
        assert await u.tables.adopt(BOT_A) == 1
        assert await u.updates.adopt(BOT_A) == 1
        await u.commit()
    async with db.uow() as u:
        assert await u.tables.adopt(BOT_B) == 0
        assert [t.id for t in await u.tables.all_open(BOT_A)] == [legacy]
        assert await u.updates.seen(41, BOT_A) and await u.updates.seen(42, BOT_A)
        assert {d.table_id for d in await u.deadlines.pending(BOT_A)} == {legacy}


async def test_a_group_held_before_the_upgrade_is_held_for_the_bot_that_takes_its_tables(
    empty_db: tuple[str, dict[str, Any], Path | None],
) -> None:
    url, kwargs, _ = empty_db
    engine = make_engine(url, **kwargs)
    try:
        await _migrate(engine, "0005")
        async with engine.begin() as connection:
            for statement in (
                "INSERT INTO groups (id, language, reachable) VALUES (-7001, 'en', false), (-7002, 'en', true)",
                "INSERT INTO tables (group_id, kind, status, rules, version, round_no, last_seq)"
                " VALUES (-7001, 'match', 'lobby', '{}', 0, 0, 0), (-7002, 'match', 'lobby', '{}', 0, 0, 0)",
                "INSERT INTO chat_limits (chat_id, blocked_at) VALUES (4242, CURRENT_TIMESTAMP)",
            ):
                await connection.execute(text(statement))
        await upgrade_to_head(engine)

        first, second = (
            TableService(uow_factory(engine), bot_id=BOT_A),
            TableService(uow_factory(engine), bot_id=BOT_B),
        )
        assert await first.clock.adopt() == 2, (
            "the upgrade kept every table (SQLite's copy of groups would not)"
        )
        held, free = [await first.reads.load(t) for t in await first.clock.open_tables()]
        assert (held.group.id, held.group.reachable) == (-7001, False), "its tables still hold"
        assert (free.group.id, free.group.reachable) == (-7002, True)
        assert (await first.deliveries.chat_limits()).blocked == {-7001, 4242}
        # The bot that did not take them was told nothing: it may write to the group and to the user.
        assert (await second.deliveries.chat_limits()).blocked == frozenset()
        # The other bot removed from the group, then added back: the first bot's tables do not notice.
        assert await second.deliveries.group_reach(-7002, False) == []  # no table of its own there
        assert (await first.reads.load(free.id)).group.reachable
        assert await second.deliveries.group_reach(-7002, True) == []
    finally:
        await engine.dispose()


async def test_the_fleet_schema_goes_back_and_forth(
    empty_db: tuple[str, dict[str, Any], Path | None],
) -> None:
    url, kwargs, _ = empty_db
    engine = make_engine(url, **kwargs)
    try:
        await upgrade_to_head(engine)
        bot = TableService(uow_factory(engine), bot_id=BOT_A)
        await bot.deliveries.see_group(-7101, "g")
        table = (await bot.lobby.open(-7101, None)).table
        await bot.deliveries.group_reach(-7101, False)
        await _migrate(engine, "0005", down=True)
        async with engine.connect() as connection:
            held = (
                await connection.execute(text("SELECT reachable FROM groups WHERE id = -7101"))
            ).scalar_one()
            kept = (await connection.execute(text("SELECT count(*) FROM tables"))).scalar_one()
        assert (bool(held), kept) == (False, 1), "held as before bots were told apart, nothing lost"
        await upgrade_to_head(engine)
        await bot.clock.adopt()  # as its next start does: what was said before bots were told apart is its
        assert not (await bot.reads.load(table.id)).group.reachable
    finally:
        await engine.dispose()


async def _migrate(engine: AsyncEngine, revision: str, *, down: bool = False) -> None:
    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        (command.downgrade if down else command.upgrade)(config, revision)

    async with engine.begin() as connection:
        await connection.run_sync(run)
