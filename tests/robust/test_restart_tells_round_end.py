"""A round whose end never reached the players is told by the next start (issue 14).

``benches/crash.py`` found it: killed after committing a round's last move but before posting the summary,
the bot came back to a table that waited, rightly, on nobody but a Next tap, with no Next button anywhere;
the group saw the last play and nothing more. What a start knows is the committed state only, so the state
it finds here is made on purpose: the round over, its summary not recorded as told (and gone from the
group, as if it had never been sent).
"""

from __future__ import annotations

import random
from pathlib import Path

from players import ROUND_OVER, Table, buttons
from sqlalchemy import select, update

from bot.app import build_application, start_application, stop_application
from bot.config import Settings
from emulator import TelegramEmulator
from storage import make_engine
from storage.models import GameTable as TableRow


def _settings(emu: TelegramEmulator, tmp_path: Path) -> Settings:
    return Settings(
        bot_token=emu.token,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'gouji.db'}",
        api_base_url=emu.api_base_url,
        group_messages_per_minute=6000,
        private_messages_per_3s=3000,
    )


def _told_round_end(emu: TelegramEmulator, chat_id: int) -> list[str]:
    return [m.text or "" for m in emu.bot_messages(chat_id) if ROUND_OVER.search(m.text or "")]


async def test_a_start_tells_a_round_end_that_never_reached_the_players(
    emulator: TelegramEmulator, tmp_path: Path
) -> None:
    emu = emulator
    settings = _settings(emu, tmp_path)
    app = build_application(settings)
    await start_application(app)
    try:
        table = await Table.seated(emu, ["Alice"])
        await table.begin()
        await table.play_until(lambda: table.next_round_offered() is not None, random.Random(5))
        summary = table.next_round_offered()
        assert summary is not None
        alice = table.humans[0]
        await emu.wait_for(lambda: _told_round_end(emu, alice.id), timeout=10, description="her round end")
        await app.bot_data["desk"].flush()
    finally:
        await stop_application(app)

    # As if the process had died before the summary and her round end went out.
    emu.apply_delete(summary)
    for m in emu.bot_messages(alice.id):
        if ROUND_OVER.search(m.text or ""):
            emu.apply_delete(m)
    engine = make_engine(settings.database_url)
    try:
        async with engine.begin() as conn:
            marks = (await conn.execute(select(TableRow.marks))).scalar_one()
            assert marks["summarized"] is True, "a posted summary is recorded as told"
            await conn.execute(update(TableRow).values(marks={**marks, "summarized": False}))
    finally:
        await engine.dispose()
    assert table.next_round_offered() is None and not _told_round_end(emu, alice.id)

    for restart in range(2):
        app = build_application(settings)
        await start_application(app)
        try:
            await emu.wait_for(
                lambda: table.next_round_offered() is not None, timeout=10, description="the summary again"
            )
            await emu.wait_for(
                lambda: _told_round_end(emu, alice.id), timeout=10, description="her round end"
            )
            await app.bot_data["desk"].flush()
            # Told once: a second start finds it told and says nothing again.
            assert len(_told_round_end(emu, table.group.id)) == 1, restart
            assert len(_told_round_end(emu, alice.id)) == 1, restart
        finally:
            await stop_application(app)

    # And the Next button it brought works.
    app = build_application(settings)
    await start_application(app)
    try:
        offered = table.next_round_offered()
        assert offered is not None
        nxt = next(b["callback_data"] for b in buttons(offered) if b["callback_data"].endswith(":next"))
        before = max(m.message_id for m in emu.bot_messages(alice.id))
        await emu.wait_for_answer(emu.tap(alice, offered, nxt))
        await emu.wait_for(
            lambda: any(
                m.message_id > before and ("round 2 is dealt" in (m.text or "") or buttons(m))
                for m in emu.bot_messages(alice.id)
            ),
            timeout=10,
            description="round 2 dealt to her",
        )
    finally:
        await stop_application(app)
