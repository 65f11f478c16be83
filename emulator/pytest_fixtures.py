"""Pytest fixtures for tests that talk to the emulator.

Import them into a conftest (``from emulator.pytest_fixtures import emulated_bot, emulator``)
or list the module in the root conftest's ``pytest_plugins``; a test then
asks for ``emulator`` (a started :class:`TelegramEmulator`) and ``emulated_bot`` (an initialised
``telegram.Bot`` pointed at it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from .server import TelegramEmulator


@pytest.fixture
async def emulator() -> AsyncIterator[TelegramEmulator]:
    emu = TelegramEmulator()
    await emu.start()
    try:
        yield emu
    finally:
        await emu.stop()
    # A request the emulator could not handle would otherwise pass as a 500 the bot shrugged off, and a call
    # the published Bot API does not allow as a 400 the bot logged and went on.
    assert not emu.internal_errors, f"the emulator failed internally: {emu.internal_errors}"
    assert not emu.refused_calls, f"calls the Bot API does not allow: {emu.refused_calls}"


@pytest.fixture
async def emulated_bot(emulator: TelegramEmulator) -> AsyncIterator[Bot]:
    async with Bot(
        emulator.token, base_url=emulator.api_base_url, base_file_url=emulator.file_base_url
    ) as bot:
        yield bot
