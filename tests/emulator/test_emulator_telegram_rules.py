"""What Telegram documents and a bot depends on: 48 hours to delete a message, a few seconds to answer a tap,
no private chat opened by the bot."""

from __future__ import annotations

import asyncio

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden

from emulator import TelegramEmulator

pytestmark = pytest.mark.unit

HOUR = 3600
PICK = InlineKeyboardMarkup([[InlineKeyboardButton("Pick", callback_data="pick")]])


async def test_a_message_may_be_deleted_only_within_48_hours(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    fresh = await emulated_bot.send_message(alice.id, "fresh")
    old = await emulated_bot.send_message(alice.id, "old")
    emulator.age_message((alice.id, old.message_id), 48 * HOUR)

    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await emulated_bot.delete_message(alice.id, old.message_id)
    assert await emulated_bot.delete_message(alice.id, fresh.message_id)
    assert [m.text for m in emulator.bot_messages(alice)] == ["old"]


async def test_the_emulators_clock_ages_every_message(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], bot_is_admin=True)
    sent = await emulated_bot.send_message(group.id, "Lobby")
    said = emulator.user_sends(alice, group, "/join")
    emulator.advance_clock(47 * HOUR)
    assert await emulated_bot.delete_message(group.id, said.message_id)

    emulator.advance_clock(1 * HOUR)

    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await emulated_bot.delete_message(group.id, sent.message_id)
    later = await emulated_bot.send_message(group.id, "Still here")
    assert later.date.timestamp() - sent.date.timestamp() >= 48 * HOUR


async def test_a_tap_must_be_answered_while_fresh(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    emulator.callback_answer_window = 0.2
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(alice.id, "Pick", reply_markup=PICK)
    in_time = emulator.tap(alice, (alice.id, sent.message_id), "pick")
    late = emulator.tap(alice, (alice.id, sent.message_id), "pick")
    assert await emulated_bot.answer_callback_query(in_time.id, "Picked")

    await asyncio.sleep(0.3)

    with pytest.raises(BadRequest, match="Query is too old and response timeout expired"):
        await emulated_bot.answer_callback_query(late.id, "Picked")
    assert [q.id for q in emulator.callback_answers] == [in_time.id]


async def test_telegrams_window_is_about_15_seconds(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    assert emulator.callback_answer_window == 15
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(alice.id, "Pick", reply_markup=PICK)
    query = emulator.tap(alice, (alice.id, sent.message_id), "pick")

    emulator.advance_clock(16)

    with pytest.raises(BadRequest, match="Query is too old"):
        await emulated_bot.answer_callback_query(query.id)


async def test_the_bot_cannot_open_a_private_chat(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    bob = emulator.create_user("Bob")
    group = emulator.create_group("Table", [bob])
    emulator.user_sends(bob, group, "/join")  # Bob is known to the bot, but never wrote to it in private

    with pytest.raises(Forbidden) as refused:
        await emulated_bot.send_message(bob.id, "Your cards")

    assert refused.value.message == "Forbidden: bot can't initiate conversation with a user"
    emulator.start_bot(bob)
    assert (await emulated_bot.send_message(bob.id, "Your cards")).text == "Your cards"
