"""Telegram's flood limits on, the bot's real limits: a fast round among six people still ends with every
message right, and after a 429 the bot never sends early.

A minute of Telegram's 20-messages-a-minute group limit would make a round take minutes, so the test runs on
a loop whose clock goes ``SPEED`` times faster than the wall clock (dilated.DilatedLoop): the emulator's flood
windows, PTB's AIORateLimiter and every sleep and timeout read that clock. The limits themselves are the real
ones: FloodLimits() in the emulator and Settings' defaults in the bot.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from dilated import DilatedLoop
from players import Table, round_summaries

from bot.app import build_application, start_application, stop_application
from bot.config import Settings
from bot.texts.group import table_text
from emulator import FloodLimits, TelegramEmulator
from storage.models import utcnow

SPEED = 10.0  # emulated seconds per real second

PATIENCE = 300.0  # emulated seconds a player waits for the bot (a 429 may pause it a minute)


async def play_round(table: Table, rng: random.Random) -> None:
    """The humans act as soon as they have a turn, tapping (sometimes typing), until the round is over."""
    emu = table.emu
    for _ in range(3000):
        if table.round_over():
            return
        if not table.step(rng):
            await emu.wait_for(
                lambda: table.round_over() or table.has_new_turn(),
                timeout=PATIENCE,
                description="the bot to move on",
            )
    raise AssertionError("the round did not end")


async def a_round_under_flood_limits(db: Path) -> dict[str, object]:
    loop = asyncio.get_running_loop()
    began = loop.time()
    emu = TelegramEmulator(flood_enabled=True, flood_limits=FloodLimits(), clock=loop.time)
    await emu.start()
    settings = Settings(
        bot_token=emu.token, database_url=f"sqlite+aiosqlite:///{db}", api_base_url=emu.api_base_url
    )
    assert settings.group_messages_per_minute == 20 and settings.messages_per_second == 30
    app = build_application(settings)
    await start_application(app)
    try:
        table = await Table.seated(emu, ["Ann", "Ben", "Cai", "Dan", "Eve", "Fay"], bots=False)
        await table.begin()
        await play_round(table, random.Random(11))
        outbox = app.bot_data["outbox"]
        await outbox.flush(timeout=PATIENCE)
        stored = await app.bot_data["service"].reads.load(1)
        assert stored.match is not None and stored.match.round_over
        final = table_text(stored.group.language, stored, utcnow())
        shown = emu.world.chat(table.group.id).messages[stored.message_id]
        group_sends = [
            c
            for c in emu.api_log
            if c["method"] in ("sendMessage", "editMessageText", "editMessageReplyMarkup")
            and str(c["params"].get("chat_id")) == str(table.group.id)
            and c["response"]["ok"]
        ]
        table.assert_no_hand_in_group()
        return {
            "shown": shown.text,
            "final": final,
            "summaries": len(round_summaries(emu, table.group.id)),
            "violations": list(emu.flood.violations),
            "refusals": emu.flood.refusals,
            "group_sends": len(group_sends),
            "emulated_s": round(loop.time() - began),
            "internal": list(emu.internal_errors),
        }
    finally:
        await stop_application(app)
        await emu.stop()


def test_a_fast_round_under_telegrams_flood_limits_ends_right_and_never_sends_early(tmp_path: Path) -> None:
    with asyncio.Runner(loop_factory=lambda: DilatedLoop(SPEED)) as runner:
        result = runner.run(a_round_under_flood_limits(tmp_path / "gouji.db"))
    print({k: v for k, v in result.items() if k not in ("shown", "final")})
    assert result["internal"] == []
    assert result["summaries"] == 1
    # More than a minute's quota went to the group: the round could not have passed without pacing.
    assert result["group_sends"] > 20
    assert result["violations"] == [], "the bot sent again before a 429's retry_after ran out"
    assert result["shown"] == result["final"], "the table message does not show how the round ended"
