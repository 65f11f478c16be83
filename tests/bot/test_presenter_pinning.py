"""The table one tap away (issue 22, defect 8): where the bot may pin, the live table is pinned silently (the
lobby that became it, each round's table posted anew) and unpinned when the table closes; where it may not,
the news that pushes the table up carries a button that brings it back."""

from __future__ import annotations

import random

import pytest
from recording_bot import Call
from telegram.error import BadRequest
from unit_support import GROUP, SIX, Stage

from bot import codec

pytestmark = pytest.mark.unit


@pytest.fixture
def stage() -> Stage:
    return Stage()


def pins(calls: list[Call]) -> list[Call]:
    return [c for c in calls if c.method in ("pinChatMessage", "unpinChatMessage")]


async def _round_over(stage: Stage, seed: int) -> None:
    rng = random.Random(seed)
    table = await stage.load(1)
    while table.match is not None and not table.match.round_over:
        await stage.show(await stage.act(table, rng.choice(table.match.legal_actions())))
        table = await stage.load(table.id)


async def test_the_live_table_is_pinned_silently_each_round_and_unpinned_at_the_end(stage: Stage) -> None:
    table = await stage.in_play(dict(enumerate(SIX)))
    (pin,) = pins(stage.bot.calls)
    assert (pin.method, pin.chat_id, pin.message_id) == ("pinChatMessage", GROUP, table.message_id)
    assert pin.params.get("disable_notification") is True
    assert (await stage.load(table.id)).group.pinning is True

    await _round_over(stage, 3)
    stage.bot.forget()
    dealt = await stage.next_round(await stage.load(table.id), SIX[0])
    await stage.show(dealt)
    again = await stage.load(table.id)
    (pin,) = pins(stage.bot.calls)
    assert pin.message_id == again.message_id != table.message_id, "the table posted anew is pinned"

    stage.bot.forget()
    await stage.show(await stage.stop(table.id, SIX[0]))
    (unpin,) = pins(stage.bot.calls)
    assert (unpin.method, unpin.message_id) == ("unpinChatMessage", again.message_id)


async def test_where_the_bot_may_not_pin_the_news_carries_the_way_back(stage: Stage) -> None:
    stage.bot.fail("pinChatMessage", BadRequest("Bad Request: not enough rights to manage pinned messages"))
    table = await stage.in_play({0: 101, 1: 102})
    assert (await stage.load(table.id)).group.pinning is False
    await _round_over(stage, 5)
    back = codec.lobby_data(table.id, 0, "table")
    with_way_back = [c for c in stage.bot.to(GROUP) if c.method == "sendMessage" and back in c.buttons]
    assert with_way_back, "news in play carries the way back to the table"
    assert len(pins(stage.bot.calls)) == 1, "not asked again once refused"
