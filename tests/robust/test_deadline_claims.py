"""A turn deadline claimed by a process that died before making its move still fires (issue 14: "a table
hung for good"). A process that claims a deadline and is killed before the computer's move leaves the row
claimed; the deadline must not wait the claim's lease out (minutes) while the table and its players wait.

The state such a kill leaves is made here on purpose, so that the test does not depend on hitting the few
milliseconds between the claim and the move (benches/crash.py's kills do hit them): the bot stopped during
Alice's turn, her deadline past due and claimed by a worker that is gone, the bot started again.
"""

from __future__ import annotations

import os
import socket
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest
from players import Table
from sqlalchemy import update

from bot.app import build_application, start_application, stop_application
from bot.config import Settings
from emulator import TelegramEmulator
from storage import make_engine
from storage.models import Deadline, utcnow


def _gone_pid() -> int:
    """The pid of a process of this host that has ended (and been reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.mark.parametrize(
    "claimer",
    [
        "a process of this host that died",
        "this worker's own name, from before the start",
        "a worker elsewhere",
    ],
)
async def test_a_deadline_claimed_by_a_process_that_is_gone_fires_after_a_restart(
    emulator: TelegramEmulator, tmp_path: Path, claimer: str
) -> None:
    emu = emulator
    settings = Settings(
        bot_token=emu.token,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'gouji.db'}",
        api_base_url=emu.api_base_url,
        group_messages_per_minute=6000,
        private_messages_per_3s=3000,
        sweep_every_s=1.0,
    )
    app = build_application(settings)
    await start_application(app)
    try:
        table = await Table.seated(emu, ["Alice"])
        await table.begin()
        alice = table.humans[0]
        await emu.wait_for(lambda: table.turn_to_act_on(alice.id), timeout=10, description="Alice's turn")
    finally:
        await stop_application(app)

    now = utcnow()
    host = socket.gethostname()
    worker, claimed_at = {
        "a process of this host that died": (f"{host}:{_gone_pid()}", now),
        # A restarted container runs the bot under the same host name and often the same pid.
        "this worker's own name, from before the start": (f"{host}:{os.getpid()}", now),
        # Another machine's worker died with it two minutes ago (longer than any move takes).
        "a worker elsewhere": ("elsewhere:4242", now - timedelta(minutes=2)),
    }[claimer]
    engine = make_engine(settings.database_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(
                update(Deadline.__table__).values(
                    due_at=now - timedelta(seconds=1), claimed_by=worker, claimed_at=claimed_at
                )
            )
    finally:
        await engine.dispose()

    app = build_application(settings)
    await start_application(app)
    try:
        await emu.wait_for(
            lambda: any(
                "Time ran out" in (rev.text or "") for m in emu.bot_messages(alice.id) for rev in m.history
            ),
            timeout=20,
            description="Alice's turn to time out",
        )
        async with app.bot_data["uow"]() as u:
            left = await u.deadlines.of_table(1)
        assert all(d.claimed_by is None for d in left), "the next turn's deadline is nobody's yet"
    finally:
        await stop_application(app)
