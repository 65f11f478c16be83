from collections.abc import AsyncIterator

import pytest

from emulator import TelegramEmulator
from emulator.pytest_fixtures import emulated_bot

__all__ = ["emulated_bot", "emulator"]


@pytest.fixture
async def emulator() -> AsyncIterator[TelegramEmulator]:
    """The emulator's own tests make calls the Bot API refuses on purpose: only its internal errors fail them."""
    async with TelegramEmulator() as emu:
        yield emu
    assert not emu.internal_errors, f"the emulator failed internally: {emu.internal_errors}"
