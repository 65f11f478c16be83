"""Real groups as Telegram makes them, on the real Application and a recording bot (issue 24): an admin who
posts anonymously (as the group) may do what an admin may; the bot removed from a group holds its table."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest
from desk_stage import GROUP, TITLE, DeskStage, staged
from telegram import Update

pytestmark = pytest.mark.unit

ANONYMOUS = 1087968824  # Telegram's GroupAnonymousBot


@pytest.fixture
async def stage() -> AsyncIterator[DeskStage]:
    async with staged() as s:
        yield s


def as_the_group(stage: DeskStage, text: str) -> Update:
    """A command an admin posts anonymously: from GroupAnonymousBot, with the group as its sender_chat."""
    update = stage.message(101, text)
    data: dict[str, Any] = update.to_dict()
    data["message"]["from"] = {
        "id": ANONYMOUS,
        "is_bot": True,
        "first_name": "Group",
        "username": "GroupAnonymousBot",
    }
    data["message"]["sender_chat"] = stage.chat(GROUP)
    return Update.de_json(data, stage.bot.as_bot())


async def test_an_anonymous_admin_may_open_the_settings(stage: DeskStage) -> None:
    await stage.lobby({0: 102})
    stage.bot.forget()
    await stage.send(as_the_group(stage, "/settings"))
    (panel,) = [c for c in stage.bot.calls if c.method == "sendMessage" and c.chat_id == GROUP]
    assert str(panel.text).startswith("设置") or "Settings" in str(panel.text)
    assert panel.buttons, "the panel, not a refusal"


async def test_an_anonymous_admin_is_not_seated(stage: DeskStage) -> None:
    await stage.lobby({0: 102})
    stage.bot.forget()
    await stage.send(as_the_group(stage, "/join"))
    table = await stage.service.reads.table_in_group(GROUP)
    assert table is not None and table.seat_of(ANONYMOUS) is None
    assert any("Post as yourself" in t or "自己的身份" in t for t in stage.said(GROUP))


async def test_the_bot_removed_holds_the_table_and_tells_each_player(stage: DeskStage) -> None:
    table = await stage.playing()
    left = {
        "update_id": 9_000,
        "my_chat_member": {
            "chat": stage.chat(GROUP),
            "from": stage.user(101),
            "date": int(datetime.now(UTC).timestamp()),
            "old_chat_member": {"status": "member", "user": {"id": 1, "is_bot": True, "first_name": "Bot"}},
            "new_chat_member": {
                "status": "left",
                "user": {"id": 1, "is_bot": True, "first_name": "Bot"},
            },
        },
    }
    await stage.send(Update.de_json(left, stage.bot.as_bot()))
    assert not (await stage.load(table.id)).group.reachable
    assert [c for c in stage.bot.calls if c.chat_id == GROUP] == [], "nothing to a group it left"
    for seat in table.humans:
        assert seat.user_id is not None
        assert any(TITLE in t and ("removed" in t or "移出" in t) for t in stage.said(seat.user_id))
