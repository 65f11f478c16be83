"""Pytest fixtures for tests that talk to the emulator.

Import them into a conftest (``from emulator.pytest_fixtures import emulated_bot, emulator``)
or list the module in the root conftest's ``pytest_plugins``; a test then
asks for ``emulator`` (a started :class:`TelegramEmulator`) and ``emulated_bot`` (an initialised
``telegram.Bot`` pointed at it). The ``emulator`` fixture fails the test, after it ran, if the emulator failed
internally, refused a call the published Bot API does not allow, or sent anything not of a published type.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from .schema import load
from .schema_check import conformance_problem
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
    assert not unpublished(emu), f"the emulator sent what the Bot API does not describe: {unpublished(emu)}"


@pytest.fixture
async def emulated_bot(emulator: TelegramEmulator) -> AsyncIterator[Bot]:
    async with Bot(
        emulator.token, base_url=emulator.api_base_url, base_file_url=emulator.file_base_url
    ) as bot:
        yield bot


def unpublished(emu: TelegramEmulator) -> list[str]:
    """Every update the emulator queued and every result it answered, for any of its bots, that is not of the
    type the published Bot API gives it: an emulator bug a bot's test would otherwise build on."""
    spec, found = load(), []
    for bot in emu.bots:
        for update in bot.updates.history:
            if problem := conformance_problem(update, "Update", spec):
                found.append(f"update {update}: {problem}")
        for call in bot.api_log:
            method, body = spec.method(call["method"]), call["response"]
            if method is None or not body["ok"] or len(method.returns) != 1:
                continue
            if problem := conformance_problem(body["result"], method.returns[0], spec):
                found.append(f"{call['method']} answered {body['result']}: {problem}")
    return found
