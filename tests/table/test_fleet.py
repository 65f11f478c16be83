"""A fleet: several bots on one database (issue 24). Each bot's table service opens tables hosted by it, fires
the deadlines of its own tables only, keeps its own update ids (each bot numbers its own, so two bots' ids
overlap), and finds only its own tables in every sweep and read; a topic's one open table is the bot's that
opened it, and another bot asked to open one there is told whose it is."""

from __future__ import annotations

import pytest
from table_fakes import Clock, FakeStore
from table_helpers import SIX, begin, past_the_questions, seated_table, user_to_act

from table import AlreadyProcessed, SettingChange, Table, TableAlreadyOpen, TableNotFound, TableService
from table.policy import TIMEOUT

pytestmark = pytest.mark.unit

BOT_A, BOT_B = 111_111, 222_222
GROUP_A, GROUP_B = -901, -902
# Two of Ann's friends play at both bots' tables: each bot deals them their cards at its own table.
BOTH = (101, 102)


@pytest.fixture
def bot_a(store: FakeStore, clock: Clock) -> TableService:
    return TableService(store.uow, bot_id=BOT_A, clock=clock)


@pytest.fixture
def bot_b(store: FakeStore, clock: Clock) -> TableService:
    return TableService(store.uow, bot_id=BOT_B, clock=clock)


async def _first_lead(service: TableService, group_id: int, humans: tuple[int, ...]) -> Table:
    seated = await seated_table(service, group_id, humans=humans)
    return await past_the_questions(service, (await begin(service, seated)).table)


async def test_each_bot_fires_the_deadlines_of_its_own_tables_only(
    bot_a: TableService, bot_b: TableService, store: FakeStore, clock: Clock
) -> None:
    table_a = await _first_lead(bot_a, GROUP_A, SIX)
    table_b = await _first_lead(bot_b, GROUP_B, (*BOTH, 203, 204, 205, 206))
    assert (table_a.bot_id, table_b.bot_id) == (BOT_A, BOT_B)
    clock.advance(24 * 3600)  # every turn time long gone

    fired_by_b = [o.table.id async for o in bot_b.clock.fire_due("b-worker", clock.now)]
    assert set(fired_by_b) == {table_b.id}
    async with store.uow() as uow:
        left = await uow.deadlines.of_table(table_a.id)
    assert {d.kind for d in left} >= {TIMEOUT} and all(d.claimed_by is None for d in left), (
        "bot A's deadlines wait for bot A, unclaimed"
    )
    assert (await bot_a.reads.load(table_a.id)).version == table_a.version

    fired_by_a = [o.table.id async for o in bot_a.clock.fire_due("a-worker", clock.now)]
    assert set(fired_by_a) == {table_a.id}
    assert (await bot_a.reads.load(table_a.id)).version > table_a.version


async def test_the_same_update_id_from_two_bots_is_two_updates(
    bot_a: TableService, bot_b: TableService
) -> None:
    table_a = await _first_lead(bot_a, GROUP_A, SIX)
    table_b = await _first_lead(bot_b, GROUP_B, (*BOTH, 203, 204, 205, 206))
    assert table_a.match is not None and table_b.match is not None
    update_id = 700_000_042  # both bots' first updates carry the same ids (the emulator's, Telegram's)

    moved_a = await bot_a.play.act(
        table_a.id,
        user_to_act(table_a),
        table_a.match.legal_actions()[0],
        version=table_a.version,
        update_id=update_id,
    )
    moved_b = await bot_b.play.act(
        table_b.id,
        user_to_act(table_b),
        table_b.match.legal_actions()[0],
        version=table_b.version,
        update_id=update_id,
    )
    assert moved_a.table.version == table_a.version + 1
    assert moved_b.table.version == table_b.version + 1
    # Bot A's update delivered again (its tap, drawn for the version before) is known as A's, and skipped.
    with pytest.raises(AlreadyProcessed):
        await bot_a.play.act(
            table_a.id,
            user_to_act(table_a),
            table_a.match.legal_actions()[0],
            version=table_a.version,
            update_id=update_id,
        )


async def test_every_sweep_and_read_sees_only_the_bots_own_tables(
    bot_a: TableService, bot_b: TableService, store: FakeStore
) -> None:
    table_a = await _first_lead(bot_a, GROUP_A, SIX)
    table_b = await _first_lead(bot_b, GROUP_B, (*BOTH, 203, 204, 205, 206))
    # Both tables wait without their deadlines (a process died between its commit and them).
    async with store.uow() as uow:
        await uow.deadlines.drop_outdated(table_a.id, table_a.version + 1)
        await uow.deadlines.drop_outdated(table_b.id, table_b.version + 1)
        await uow.commit()

    assert await bot_b.clock.waiting_without_deadline() == [table_b.id]
    assert await bot_b.clock.open_tables() == [table_b.id]
    (resumed,) = [await bot_b.clock.resume(t) for t in await bot_b.clock.waiting_without_deadline()]
    assert resumed.rearmed and resumed.table.id == table_b.id
    assert {d.table_id for d in await bot_b.clock.pending_deadlines()} == {table_b.id}
    assert await bot_a.clock.pending_deadlines() == [], "bot B re-armed only its own table"
    assert await bot_a.clock.waiting_without_deadline() == [table_a.id]

    # A player at both bots' tables: each bot shows him (and hands him back after 托管) its own.
    assert [t.id for t in await bot_a.reads.tables_of(BOTH[0])] == [table_a.id]
    assert [t.id for t in await bot_b.reads.tables_of(BOTH[0])] == [table_b.id]
    assert await bot_b.reads.table_in_group(GROUP_A) is None
    assert await bot_b.reads.tables_in_group(GROUP_A) == []
    assert await bot_b.reads.host(GROUP_A) == BOT_A
    # He blocked bot B: the computer keeps his seat at B's table, not at A's.
    (away,) = await bot_b.deliveries.blocked(BOTH[0])
    assert away.table.id == table_b.id
    assert not any(s.autoplay for s in (await bot_a.reads.load(table_a.id)).seats)


async def test_a_topic_has_one_table_and_another_bot_is_told_whose_it_is(
    bot_a: TableService, bot_b: TableService
) -> None:
    await bot_a.deliveries.see_group(GROUP_A, "both bots here")
    opened = await bot_a.lobby.open(GROUP_A, 101, thread_id=7)
    with pytest.raises(TableAlreadyOpen) as refused:
        await bot_b.lobby.open(GROUP_A, 102, thread_id=7)
    assert refused.value.host == BOT_A
    # Another topic of the same group is free for bot B.
    other = await bot_b.lobby.open(GROUP_A, 102, thread_id=8)
    assert other.table.bot_id == BOT_B
    assert await bot_b.reads.table_in_group(GROUP_A, 7) is None
    found = await bot_b.reads.table_in_group(GROUP_A, 8)
    assert found is not None and found.id == other.table.id
    assert [t.id for t in await bot_a.reads.tables_in_group(GROUP_A)] == [opened.table.id]

    # /settings through bot B changes the group's settings, and writes nothing to bot A's table (its
    # messages and buttons are bot A's: a new version would leave them stale without telling anyone).
    group, shown, _applies = await bot_b.settings.change(
        GROUP_A, 102, SettingChange("preset", "classic"), is_admin=True, thread_id=7
    )
    assert shown is None and group.rules.to_dict() != opened.table.rules
    assert (await bot_a.reads.load(opened.table.id)).version == opened.table.version


async def test_the_first_bot_to_start_takes_the_tables_opened_before_bots_were_told_apart(
    store: FakeStore, clock: Clock, bot_a: TableService, bot_b: TableService
) -> None:
    before = TableService(store.uow, clock=clock)  # the bot as it ran before: bot 0
    legacy = await _first_lead(before, GROUP_A, SIX)
    assert await bot_a.clock.open_tables() == []

    assert await bot_a.clock.adopt() == 1
    assert await bot_b.clock.adopt() == 0, "taken once"
    assert await bot_a.clock.open_tables() == [legacy.id]
    assert await bot_b.clock.open_tables() == []


async def test_what_telegram_says_to_one_bot_holds_for_that_bot_only(
    bot_a: TableService, bot_b: TableService, clock: Clock
) -> None:
    await bot_a.deliveries.see_group(GROUP_A, "both bots here")
    a_table = (await bot_a.lobby.open(GROUP_A, 101, thread_id=7)).table
    b_table = (await bot_b.lobby.open(GROUP_A, 102, thread_id=8)).table

    # Bot B removed from the group: its table there holds; bot A's, in the next topic, goes on.
    (held,) = await bot_b.deliveries.group_reach(GROUP_A, False)
    assert held.table.id == b_table.id and not held.table.group.reachable
    assert (await bot_a.reads.load(a_table.id)).group.reachable
    assert await bot_a.deliveries.group_reach(GROUP_A, True) == [], "bot A was never out"

    # A player blocked bot A, and Telegram asked bot A for a pause in the group: not said to bot B.
    await bot_a.deliveries.blocked(101)
    await bot_a.deliveries.chat_paused(GROUP_A, clock.now)
    limits_a, limits_b = await bot_a.deliveries.chat_limits(), await bot_b.deliveries.chat_limits()
    assert limits_a.blocked == {101} and set(limits_a.retry_until) == {GROUP_A}
    assert limits_b.blocked == {GROUP_A} and limits_b.retry_until == {}


async def test_a_table_named_to_another_bot_is_no_table_for_it(
    bot_a: TableService, bot_b: TableService
) -> None:
    """A forged tap or a crafted /start link may name any table id: only the bot that hosts it acts on it."""
    table = await _first_lead(bot_a, GROUP_A, SIX)
    assert table.match is not None
    action = table.match.legal_actions()[0]
    for attempt in (
        bot_b.play.act(table.id, user_to_act(table), action, version=table.version),
        bot_b.lobby.join(table.id, 201),
        bot_b.lobby.stop(table.id, None, is_admin=True),
        bot_b.clock.resume(table.id),
        bot_b.reads.load(table.id),
    ):
        with pytest.raises(TableNotFound):
            await attempt
    assert (await bot_a.reads.load(table.id)).version == table.version, "nothing written"
