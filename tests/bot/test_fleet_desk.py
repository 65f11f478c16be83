"""Two bots of a fleet in one group, on one store (issue 24): the topic's table is the bot's that opened it.
The other bot, asked to open one there or to act on it, names the bot that has it and does nothing else; its
desk's sweeps fire none of that table's deadlines, and nothing about that table is sent with its token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from desk_stage import GROUP, SIX, DeskStage, staged
from table_fakes import Clock, FakeStore
from telegram import User

pytestmark = pytest.mark.unit

BOT_A, BOT_B = 7_001, 7_002


@dataclass
class Fleet:
    a: DeskStage
    b: DeskStage


@pytest.fixture
async def fleet() -> AsyncIterator[Fleet]:
    store, when = FakeStore(), Clock()
    async with (
        staged(store=store, when=when, bot_id=BOT_A, username="gouji_a_bot") as a,
        staged(store=store, when=when, bot_id=BOT_B, username="gouji_b_bot") as b,
    ):
        # Each is in the group and knows the other by asking Telegram (getChatMember).
        a.bot.others[BOT_B] = User(BOT_B, "Gouji B", True, username="gouji_b_bot")
        b.bot.others[BOT_A] = User(BOT_A, "Gouji A", True, username="gouji_a_bot")
        yield Fleet(a, b)


async def test_the_other_bot_asked_to_open_a_table_names_the_bot_that_has_one(fleet: Fleet) -> None:
    a, b = fleet.a, fleet.b
    await a.english_group()
    await a.send(a.message(101, "/new"))
    (table_id,) = await a.service.clock.open_tables()
    b.bot.forget()

    await b.send(b.message(102, "/new@gouji_b_bot"))
    await b.send(b.message(102, "/join@gouji_b_bot"))

    told = b.said(GROUP)
    assert told == ["@gouji_a_bot hosts the table here: send your commands to @gouji_a_bot."] * 2
    assert [c.method for c in b.bot.calls] == ["sendMessage", "sendMessage"], "nothing else, no lobby"
    assert await b.service.clock.open_tables() == []
    table = await a.load(table_id)
    assert table.bot_id == BOT_A and table.seat_of(102) is None, "bot B seated nobody at bot A's table"


async def test_the_other_bots_sweeps_leave_the_table_to_the_bot_that_hosts_it(fleet: Fleet) -> None:
    a, b = fleet.a, fleet.b
    table = await a.playing()
    late = table.to_act
    assert late is not None
    due = next(d.due_at for d in await a.service.clock.pending_deadlines() if d.table_id == table.id)
    a.when.advance((due - a.when.now).total_seconds() + 1)
    a.bot.forget()
    b.bot.forget()

    # Bot B's every sweep: deadlines, the gone workers' claims, the invariant, a start.
    assert await b.desk.sweep() == 0
    assert await b.desk.release_claims_of_the_gone() == 0
    assert await b.desk.keep_invariant() == 0
    await b.desk.start()
    await b.settle()
    assert b.bot.calls == [], "nothing of bot A's table went out with bot B's token"
    assert (await a.load(table.id)).version == table.version

    assert await a.desk.sweep() == 1
    await a.settle()
    after = await a.load(table.id)
    assert after.version > table.version and after.seat(late.n).timeouts == 1
    assert a.bot.calls and {c.chat_id for c in a.bot.calls} <= {GROUP, *SIX}, "its group and its players"
