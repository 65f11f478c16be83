"""/settings in the group (issue 22, defect 4): each change says from when it holds, and one panel per group
is live (the one before it loses its buttons, a tap on either shows the settings as they are)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from desk_stage import GROUP, DeskStage, staged

from bot import codec
from table import SettingChange

pytestmark = pytest.mark.unit


@pytest.fixture
async def stage() -> AsyncIterator[DeskStage]:
    async with staged() as stage:
        yield stage


def panels(stage: DeskStage) -> list[int]:
    """The group messages that are settings panels with buttons, as Telegram shows them now."""
    return [
        message_id
        for (chat, message_id), shown in stage.bot.messages.items()
        if chat == GROUP and shown.text.startswith("Settings of this group's tables") and shown.buttons
    ]


async def test_a_second_panel_takes_the_buttons_of_the_first(stage: DeskStage) -> None:
    await stage.english_group()
    await stage.lobby({0: 101})
    await stage.send(stage.message(101, "/settings"))
    (first,) = panels(stage)
    await stage.send(stage.message(101, "/settings"))
    (second,) = panels(stage)
    assert second != first


async def test_a_rule_changed_in_play_says_it_holds_from_the_next_round(stage: DeskStage) -> None:
    await stage.english_group()
    table = await stage.playing()
    await stage.send(stage.message(101, "/settings"))
    (panel,) = panels(stage)
    stage.bot.forget()
    await stage.send(
        stage.tap(
            101, codec.setting_data(SettingChange("preset", "qingdao")), chat_id=GROUP, message_id=panel
        )
    )
    (answer,) = stage.answers()
    assert answer.text == "Saved: from the next round (this round keeps its rules)."
    shown = stage.bot.shows(GROUP, panel)
    assert shown is not None
    assert "This round keeps the rules it was dealt with, Classic (经典);" in shown.text
    assert (await stage.load(table.id)).rules == table.rules, "the round in play keeps its rules"
