"""The real Application, polling a local Bot API emulator, on a SQLite file of the test's own."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from telegram.ext import Application

from bot.app import build_application, start_application, stop_application
from bot.config import Settings
from emulator import TelegramEmulator
from emulator.pytest_fixtures import emulator

__all__ = ["emulator"]


@dataclass
class Running:
    app: Application
    settings: Settings


@pytest.fixture
def bot_settings(emulator: TelegramEmulator, tmp_path: Path) -> Settings:
    return Settings(
        bot_token=emulator.token,
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'gouji.db'}",
        api_base_url=emulator.api_base_url,
        # The emulator enforces no flood limits here (the flood tests turn them on); keep the game fast.
        group_messages_per_minute=6000,
        private_messages_per_3s=3000,
    )


@pytest.fixture
async def start_bot(bot_settings: Settings) -> AsyncIterator[Callable[..., object]]:
    """Start (and restart) the bot; every instance is stopped at the end of the test."""
    running: list[Application] = []

    async def start(settings: Settings | None = None) -> Application:
        app = build_application(settings or bot_settings)
        await start_application(app)
        running.append(app)
        return app

    yield start
    for app in running:
        await stop_application(app)


@pytest.fixture
async def bot_app(start_bot: Callable[..., object]) -> Application:
    return await start_bot()  # type: ignore[misc]
