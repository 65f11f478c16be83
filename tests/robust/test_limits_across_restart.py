"""What Telegram told one process is known to the next (issue 14): a 429's ``retry_after`` still running is
honoured after a SIGKILL and a start, and a player who blocked the bot is not written to again, by this
process or the next, until he talks to the bot, when his seat and hand come back.

The bot is a process of its own (``benches.crash.BotProcess``), killed with SIGKILL: nothing it had in
memory survives, only what it committed.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from players import Table
from sqlalchemy import select

from benches.crash import BotProcess
from emulator import TelegramEmulator
from emulator.flood import FloodLimits
from storage import make_engine
from storage.models import ChatLimit, Seat


@pytest.fixture
async def bot(emulator: TelegramEmulator, tmp_path: Path) -> AsyncIterator[BotProcess]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'gouji.db'}"
    process = BotProcess(emulator, url, tmp_path / "bot.log")
    process.url = url  # type: ignore[attr-defined]
    await process.start()
    await process.polling()
    try:
        yield process
    finally:
        if process.running:
            await process.stop()
        log = (tmp_path / "bot.log").read_text(errors="replace")
        assert " ERROR " not in log and "Traceback" not in log, log[-3000:]


async def _rows(url: str, statement: Any) -> list[Any]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return list((await conn.execute(statement)).all())
    finally:
        await engine.dispose()


def _calls_to(emu: TelegramEmulator, chat_id: int, since: int = 0) -> list[dict[str, Any]]:
    return [c for c in emu.api_log[since:] if str(c["params"].get("chat_id")) == str(chat_id)]


async def test_a_retry_window_told_to_a_killed_process_is_kept_by_the_next(
    emulator: TelegramEmulator, bot: BotProcess
) -> None:
    emu = emulator
    # Telegram stricter than the bot was told (it thinks a group takes 6000 a minute): the 429 comes soon.
    emu.flood.limits = FloodLimits(group_messages=4, group_period=12.0)
    emu.flood.enabled = True
    table = await Table.seated(emu, ["Alice", "Bob"])
    group = table.group.id
    url = bot.url  # type: ignore[attr-defined]
    await table.tap_lobby(table.humans[0], "begin")

    async def windows_kept() -> bool:
        # Every chat Telegram told to wait (the group, and a private chat when his deal and turn came at once):
        # a window the process was told but had not yet written down when killed is lost with it.
        told = {str(c["params"].get("chat_id")) for c in emu.api_log if "retry_after" in str(c["response"])}
        kept = {str(row[0]) for row in await _rows(url, select(ChatLimit.chat_id))}
        quiet = time.time() - emu.api_log[-1]["at"] > 0.3  # the deal's messages are all out (or refused)
        return quiet and str(group) in told and told <= kept

    for _ in range(400):
        if emu.flood.refusals_by_limit["group"] and await windows_kept():
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the group was never told to wait, or the wait was not kept")
    await bot.kill()
    await bot.start()
    await bot.polling()

    # The new process shows the table in the group, but only once the window has run out ...
    await emu.wait_for(
        lambda: any(
            "Round 1" in (m.text or "") or "第 1 局" in (m.text or "") for m in emu.bot_messages(group)
        ),
        timeout=40,
        description="the table in the group",
    )
    await asyncio.sleep(1.0)
    assert emu.flood.violations == [], [
        (v.method, v.scope, round(v.seconds_early, 2)) for v in emu.flood.violations
    ]


async def test_a_player_who_blocked_the_bot_is_not_written_to_until_he_comes_back(
    emulator: TelegramEmulator, bot: BotProcess
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Alice", "Bob"])
    alice, bob = table.humans
    url = bot.url  # type: ignore[attr-defined]
    emu.block_bot(alice)
    table.humans = [bob]
    await table.tap_lobby(bob, "begin")
    await emu.wait_for(
        lambda: any(
            "/start" in (m.text or "") and "Alice" in (m.text or "") for m in emu.bot_messages(table.group.id)
        ),
        timeout=20,
        description="the group told how Alice gets her seat back",
    )
    refused = [c for c in _calls_to(emu, alice.id) if not c["response"]["ok"]]
    assert refused and all(c["response"]["error_code"] == 403 for c in refused)
    first_refusal = emu.api_log.index(refused[0])

    # Bob plays on, the computer plays Alice's seat; the bot is killed and started again on the way.
    rng = random.Random(3)
    for _ in range(3):
        calls = len(emu.api_log)
        await table.play_until(lambda n=calls + 12: len(emu.api_log) >= n, rng)
        await bot.kill()
        await bot.start()
        await bot.polling()
    after = _calls_to(emu, alice.id, first_refusal + 1)
    assert after == [], [(c["method"], c["response"].get("description")) for c in after]
    seats = await _rows(url, select(Seat.autoplay).where(Seat.user_id == alice.id))
    assert seats == [(True,)], "the computer plays her seat meanwhile"

    # She starts the bot again: her seat, her hand (and her turn, if it is hers) come back.
    mark = len(emu.api_log)
    emu.start_bot(alice)
    await emu.wait_for(
        lambda: any(
            c["method"] == "sendMessage"
            and c["response"]["ok"]
            and "Your cards" in c["params"].get("text", "")
            for c in _calls_to(emu, alice.id, mark)
        ),
        timeout=20,
        description="her hand again",
    )
    assert [c for c in _calls_to(emu, alice.id, mark) if not c["response"]["ok"]] == []
    seats = await _rows(url, select(Seat.autoplay).where(Seat.user_id == alice.id))
    assert seats == [(False,)], "her seat is hers again"
