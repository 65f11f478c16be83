"""A group the bot cannot write in holds its tables (issue 24): nothing moves, no deadline runs, a tap is
refused with the reason; when the bot is back the tables go on, their deadlines counted from then. And a table
per topic."""

from __future__ import annotations

import pytest
from table_fakes import Clock, FakeStore
from table_helpers import begin, past_the_questions, seated_table, user_to_act

from table import Held, Resumed, TableAlreadyOpen, TableHeld, TableService

pytestmark = pytest.mark.unit

GROUP = -801


async def test_a_held_table_moves_nothing_and_goes_on_when_the_bot_is_back(
    service: TableService, store: FakeStore, clock: Clock
) -> None:
    seated = await seated_table(service, GROUP, humans=(1, 2, 3, 4, 5, 6))
    table = await past_the_questions(service, (await begin(service, seated)).table)
    assert table.match is not None
    (held,) = await service.deliveries.group_reach(GROUP, False)
    assert held.notices == (Held(),) and held.table.group.reachable is False
    async with store.uow() as uow:
        assert await uow.deadlines.of_table(table.id) == [], "no time runs while it is held"
    with pytest.raises(TableHeld):
        await service.play.act(
            table.id, user_to_act(table), table.match.legal_actions()[0], version=table.version
        )
    assert await service.clock.waiting_without_deadline() == [], "the invariant sweep leaves it held"
    assert await service.deliveries.group_reach(GROUP, False) == [], "told once"

    clock.advance(3600)
    (back,) = await service.deliveries.group_reach(GROUP, True)
    assert Resumed() in back.notices and back.repost and back.prompt
    assert back.due is not None and back.due > clock.now, "a fresh turn time from now"
    moved = await service.play.act(
        table.id, user_to_act(table), table.match.legal_actions()[0], version=table.version
    )
    assert moved.table.version > table.version


async def test_one_open_table_per_topic(service: TableService) -> None:
    await service.deliveries.see_group(GROUP, "g")
    first = await service.lobby.open(GROUP, 1, thread_id=11, topic="周末局")
    second = await service.lobby.open(GROUP, 2, thread_id=12, topic="晚上")
    assert first.table.id != second.table.id and first.table.title == "g · 周末局"
    with pytest.raises(TableAlreadyOpen):
        await service.lobby.open(GROUP, 3, thread_id=11)
    found = await service.reads.table_in_group(GROUP, 12)
    assert found is not None and found.id == second.table.id and found.thread_id == 12
    assert await service.reads.table_in_group(GROUP) is None, "none in General"
