"""End to end: every Bot API call the real bot makes through a round is one the published Bot API (10.1)
allows; the emulator holds each against it (and the emulator fixture fails any test whose bot made one it
refused)."""

from __future__ import annotations

import random

from players import Table
from telegram.ext import Application

from emulator import TelegramEmulator
from emulator.schema import load


async def test_a_rounds_calls_are_all_published_api(bot_app: Application, emulator: TelegramEmulator) -> None:
    emu = emulator
    assert emu.check_calls
    table = await Table.seated(emu, ["Alice", "Bob"])
    ann = table.humans[0]
    for command in ("/help", "/rules", "/settings", "/stats"):
        said = emu.user_sends(ann, table.group, command)
        await emu.wait_for_bot_message(table.group, after=said, timeout=10)
    said = emu.user_sends(ann, ann, "/help")
    await emu.wait_for_bot_message(ann, after=said, timeout=10)
    await table.begin()

    await table.play_until(table.round_over, random.Random(3))

    published = {method.name for method in load().methods.values()}
    used = {call["method"] for call in emu.api_log}
    assert used <= published
    assert {"setMyCommands", "sendMessage", "editMessageText", "answerCallbackQuery"} <= used
    assert emu.refused_calls == []
