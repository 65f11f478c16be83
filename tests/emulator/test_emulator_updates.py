"""getUpdates long polling and the updates users' actions produce, read through PTB."""

from __future__ import annotations

import asyncio

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ChatMemberStatus, MessageEntityType
from telegram.error import Conflict

from emulator import EmulatorError, TelegramEmulator


async def test_long_poll_returns_as_soon_as_an_update_arrives(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    polling = asyncio.create_task(emulated_bot.get_updates(timeout=30))
    await asyncio.sleep(0.05)
    assert not polling.done()

    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)

    # Far below the 30 s poll: it ended because the update came.
    updates = await asyncio.wait_for(polling, 5)
    assert [u.message.text for u in updates if u.message] == ["/start"]


async def test_offset_confirms_updates(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    emulator.user_sends(alice, alice, "one")
    first = await emulated_bot.get_updates()
    again = await emulated_bot.get_updates()
    after = await emulated_bot.get_updates(offset=first[-1].update_id + 1)

    assert [u.message.text for u in first if u.message] == ["/start", "one"]
    assert [u.update_id for u in again] == [u.update_id for u in first]
    assert first[1].update_id == first[0].update_id + 1
    assert after == ()
    assert emulator.updates.pending == []


async def test_allowed_updates_filters_kinds(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(
        alice.id, "Pick", reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="a")]])
    )
    emulator.tap(alice, (alice.id, sent.message_id), "a")

    updates = await emulated_bot.get_updates(allowed_updates=["callback_query"])

    assert [u.callback_query.data for u in updates if u.callback_query] == ["a"]
    assert all(u.message is None for u in updates)


async def test_a_second_bot_instance_polling_ends_the_first_ones_poll(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    older = asyncio.create_task(emulated_bot.get_updates(timeout=30))
    await asyncio.sleep(0.05)
    async with Bot(emulator.token, base_url=emulator.api_base_url) as second_instance:
        newer = asyncio.create_task(second_instance.get_updates(timeout=30))

        with pytest.raises(Conflict, match="terminated by other getUpdates request"):
            await asyncio.wait_for(older, 5)
        emulator.start_bot(emulator.create_user("Alice"))
        assert len(await asyncio.wait_for(newer, 5)) == 1


async def test_group_commands_carry_bot_command_entities(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], announce=False)
    emulator.user_sends(alice, group, "/bid@gouji_test_bot 3 for @someone")

    (update,) = await emulated_bot.get_updates()

    assert update.message is not None
    assert (
        update.message.parse_entities([MessageEntityType.BOT_COMMAND]).popitem()[1] == "/bid@gouji_test_bot"
    )
    assert update.message.parse_entities([MessageEntityType.MENTION]).popitem()[1] == "@someone"


async def test_membership_changes_reach_the_bot(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], bot_is_admin=True)
    emulator.start_bot(alice)
    emulator.block_bot(alice)

    updates = await emulated_bot.get_updates()
    member_changes = [
        (u.my_chat_member.chat.id, u.my_chat_member.new_chat_member.status)
        for u in updates
        if u.my_chat_member
    ]
    service = [u.message for u in updates if u.message and u.message.group_chat_created]

    assert member_changes == [(group.id, ChatMemberStatus.ADMINISTRATOR), (alice.id, ChatMemberStatus.BANNED)]
    assert len(service) == 1 and service[0].from_user is not None and service[0].from_user.id == alice.id


async def test_migration_service_messages(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], announce=False)
    supergroup = emulator.migrate_to_supergroup(group)

    updates = await emulated_bot.get_updates()

    moves = [
        (u.message.chat.id, u.message.migrate_to_chat_id, u.message.migrate_from_chat_id) for u in updates
    ]
    assert moves == [(group.id, supergroup.id, None), (supergroup.id, None, group.id)]
    with pytest.raises(EmulatorError, match="became supergroup"):
        emulator.user_sends(alice, group, "/newgame")


async def test_tapping_a_button_that_is_not_there_is_a_test_mistake(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice, bob = emulator.create_user("Alice"), emulator.create_user("Bob")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(
        alice.id, "Pick", reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="a")]])
    )
    with pytest.raises(EmulatorError, match="no callback button"):
        emulator.tap(alice, (alice.id, sent.message_id), "b")
    with pytest.raises(EmulatorError, match="private chat of another user"):
        emulator.tap(bob, (alice.id, sent.message_id), "a")
