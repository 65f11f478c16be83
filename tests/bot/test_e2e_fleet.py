"""A fleet in one process (issue 24): ``gouji-bot`` with two tokens in BOT_TOKEN serves both bots of the
emulator, each polling for its own updates and writing with its own token, on one database; a group that holds
both bots has one table per topic, and the bot that does not host it says which bot does; SIGTERM stops both.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from collections.abc import Iterable
from pathlib import Path

from players import Table

from emulator import EmulatedBot, TelegramEmulator

ROOT = Path(__file__).resolve().parents[2]


def chats_written(bot: EmulatedBot) -> set[int]:
    """Every chat the bot called a method about (sent, edited, deleted, pinned), refused or not."""
    return {int(call["params"]["chat_id"]) for call in bot.api_log if "chat_id" in call["params"]}


def own_chats(tables: Iterable[Table]) -> set[int]:
    return {chat for table in tables for chat in (table.group.id, *(u.id for u in table.humans))}


async def test_one_process_serves_two_bots_each_with_its_own_token(
    emulator: TelegramEmulator, tmp_path: Path
) -> None:
    first = emulator
    second = emulator.create_bot("Gouji Two", username="gouji_two_bot")
    env = {
        **os.environ,
        "BOT_TOKEN": f"{first.token}, {second.token}",
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'gouji.db'}",
        "TELEGRAM_API_BASE_URL": first.base_url,
        "GROUP_MESSAGES_PER_MINUTE": "6000",  # the emulator enforces no flood limits here
        "PRIVATE_MESSAGES_PER_3S": "3000",
        "PYTHONPATH": str(ROOT),
    }
    log = tmp_path / "fleet.log"
    with log.open("wb") as out:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.main", "--env-file", "", cwd=ROOT, env=env, stdout=out, stderr=out
        )
    try:
        await first.wait_for(
            lambda: first.calls["getUpdates"] and second.calls["getUpdates"],
            timeout=60,
            description="both bots polling",
        )
        mine = await Table.seated(first, ["Ann", "Abe"])
        theirs = await Table.seated(second, ["Bea", "Bo"])
        for table in (mine, theirs):
            await table.begin()
        await asyncio.gather(
            mine.play_until(mine.round_over, random.Random(1), type_some=False),
            theirs.play_until(theirs.round_over, random.Random(2), type_some=False),
        )
        # Each bot's messages only in its own group and its own players' private chats.
        assert chats_written(first) == own_chats([mine])
        assert chats_written(second) == own_chats([theirs])

        # The second bot added to the first one's group: the group's table stays the first bot's.
        ann = mine.humans[0]
        second.add_bot(mine.group, by=ann)
        said = second.user_sends(ann, mine.group, "/new@gouji_two_bot")
        told = await second.wait_for_bot_message(mine.group.id, after=said, timeout=10)
        # In the group's language (a new group speaks Chinese): the first bot hosts the table here.
        assert told.text == "这里的牌桌由 @gouji_test_bot 主持，请向 @gouji_test_bot 发命令。"
        assert [m.message_id for m in second.bot_messages(mine.group)] == [told.message_id]
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 40)
    text = log.read_text()
    assert code == 0, text
    assert "serving 2 bots: @gouji_test_bot, @gouji_two_bot" in text, text
    assert " ERROR " not in text, text
