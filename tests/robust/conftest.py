"""The robustness tests use the scripted players of tests/bot (players.py)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from telegram.ext import Application

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bot"))

from bot.app import build_application, start_application, stop_application
from bot.config import Settings
from emulator import TelegramEmulator
from emulator.pytest_fixtures import emulator

__all__ = ["emulator"]


@pytest.fixture
async def bot_app(emulator: TelegramEmulator, tmp_path: Path) -> AsyncIterator[Application]:
    """The real Application polling the emulator, on a SQLite file of the test's own."""
    settings = Settings(
        bot_token=emulator.token,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'gouji.db'}",
        api_base_url=emulator.api_base_url,
        group_messages_per_minute=6000,  # no flood limits in the emulator here
        private_messages_per_3s=3000,
    )
    app = build_application(settings)
    await start_application(app)
    yield app
    await stop_application(app)
