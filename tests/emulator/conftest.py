from collections.abc import AsyncIterator

import pytest

from emulator import TelegramEmulator
from emulator.pytest_fixtures import emulated_bot, unpublished

__all__ = ["emulated_bot", "emulator"]


@pytest.fixture
async def emulator() -> AsyncIterator[TelegramEmulator]:
    """The emulator's own tests make calls the Bot API refuses on purpose: its internal errors fail them, and
    so does anything it sent a bot that is not what the published Bot API describes."""
    async with TelegramEmulator() as emu:
        yield emu
    assert not emu.internal_errors, f"the emulator failed internally: {emu.internal_errors}"
    assert not unpublished(emu), f"the emulator sent what the Bot API does not describe: {unpublished(emu)}"
