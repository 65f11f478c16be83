"""Flood limits: off by default; when on, 429 with retry_after, and sends inside the window are counted."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot
from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter, ExtBot

from emulator import FloodLimits, TelegramEmulator, User

# PTB itself reads RetryAfter.retry_after, which warns about its coming change to a timedelta.
pytestmark = pytest.mark.filterwarnings("ignore:.*retry_after.*:telegram.warnings.PTBDeprecationWarning")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
async def strict(clock: FakeClock) -> AsyncIterator[tuple[TelegramEmulator, Bot]]:
    async with (
        TelegramEmulator(flood_enabled=True, clock=clock) as emu,
        Bot(emu.token, base_url=emu.api_base_url) as bot,
    ):
        yield emu, bot


async def test_limits_are_off_by_default(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice])
    for n in range(25):
        await emulated_bot.send_message(group.id, f"message {n}")
    assert len(emulator.bot_messages(group)) == 25
    assert emulator.flood.refusals == 0
    assert emulator.calls["sendMessage"] == 25


async def test_group_allows_twenty_messages_a_minute_edits_included(
    strict: tuple[TelegramEmulator, Bot], clock: FakeClock
) -> None:
    emu, bot = strict
    alice = emulator_user(emu)
    group, other_group = emu.create_group("Table", [alice]), emu.create_group("Other", [alice])
    table = await bot.send_message(group.id, "table 0")
    for n in range(1, 20):
        clock.now += 0.5
        await bot.edit_message_text(f"table {n}", chat_id=group.id, message_id=table.message_id)

    clock.now += 0.5  # the 21st operation, 10 s after the first one
    with pytest.raises(RetryAfter):
        await bot.send_message(group.id, "one too many")
    assert retry_after_answered(emu) == 50
    assert emu.flood.violations == []  # refusing the first excess is not the bot's fault

    assert (await bot.send_message(other_group.id, "elsewhere")).text == "elsewhere"
    clock.now += 49
    with pytest.raises(RetryAfter):
        await bot.send_message(group.id, "too early")
    assert [(v.method, v.chat_id) for v in emu.flood.violations] == [("sendMessage", group.id)]

    clock.now += 1.5
    assert (await bot.send_message(group.id, "after the wait")).text == "after the wait"
    assert emu.flood.refusals == 2
    assert emu.calls["editMessageText"] == 19


async def test_private_chat_allows_a_short_burst_then_about_one_a_second(
    strict: tuple[TelegramEmulator, Bot], clock: FakeClock
) -> None:
    emu, bot = strict
    alice = emulator_user(emu)
    for n in range(3):
        await bot.send_message(alice.id, f"card {n}")
    with pytest.raises(RetryAfter):
        await bot.send_message(alice.id, "card 3")
    assert retry_after_answered(emu) == 3
    clock.now += 3
    await bot.send_message(alice.id, "card 3")
    assert [m.text for m in emu.bot_messages(alice)] == ["card 0", "card 1", "card 2", "card 3"]


async def test_thirty_messages_a_second_in_total(
    strict: tuple[TelegramEmulator, Bot], clock: FakeClock
) -> None:
    emu, bot = strict
    players = [emulator_user(emu) for _ in range(31)]
    for player in players[:30]:
        await bot.send_message(player.id, "your hand")
    with pytest.raises(RetryAfter):
        await bot.send_message(players[30].id, "your hand")
    assert retry_after_answered(emu) == 1
    assert emu.bot_messages(players[30]) == []


async def test_ptb_rate_limiter_waits_out_the_429_and_a_naive_retry_does_not() -> None:
    limits = FloodLimits(private_messages=2, private_period=1.0)
    async with TelegramEmulator(flood_enabled=True, flood_limits=limits) as emu:
        alice = emulator_user(emu)
        limited = ExtBot(emu.token, base_url=emu.api_base_url, rate_limiter=AIORateLimiter(max_retries=1))
        async with limited:
            for n in range(3):
                await limited.send_message(alice.id, f"polite {n}")
        assert (emu.flood.refusals, emu.flood.violations) == (1, [])

        async with Bot(emu.token, base_url=emu.api_base_url) as naive:
            with pytest.raises(RetryAfter):
                for n in range(3):
                    await naive.send_message(alice.id, f"rude {n}")
            with pytest.raises(RetryAfter):
                await naive.send_message(alice.id, "rude retry at once")
        assert len(emu.flood.violations) == 1
        assert emu.flood.refusals == 3


def emulator_user(emu: TelegramEmulator) -> User:
    user = emu.create_user("Player")
    emu.start_bot(user)
    return user


def retry_after_answered(emu: TelegramEmulator) -> int:
    # Read from the answer itself: PTB's RetryAfter.retry_after is mid-deprecation (int -> timedelta).
    return int(emu.api_log[-1]["response"]["parameters"]["retry_after"])
