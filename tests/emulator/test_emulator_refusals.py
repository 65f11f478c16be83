"""What Telegram refuses, the emulator refuses too, and PTB raises the matching exception."""

from __future__ import annotations

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden

from emulator import TelegramEmulator


async def test_bot_cannot_write_first_to_a_user(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    stranger = emulator.create_user("Stranger")
    with pytest.raises(Forbidden) as refused:
        await emulated_bot.send_message(stranger.id, "Hello")
    assert refused.value.message == "Forbidden: bot can't initiate conversation with a user"
    assert emulator.messages(stranger) == []


async def test_blocked_bot_is_refused_until_the_user_restarts_it(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(alice.id, "Your cards")
    emulator.block_bot(alice)

    with pytest.raises(Forbidden) as refused:
        await emulated_bot.send_message(alice.id, "Your turn")
    assert refused.value.message == "Forbidden: bot was blocked by the user"
    with pytest.raises(Forbidden, match="blocked by the user"):
        await emulated_bot.edit_message_text("edited", chat_id=alice.id, message_id=sent.message_id)

    emulator.start_bot(alice)
    assert (await emulated_bot.send_message(alice.id, "Welcome back")).text == "Welcome back"


async def test_callback_data_over_64_bytes(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    # 22 three-byte characters: 22 characters but 66 bytes, which is what Telegram counts.
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("play", callback_data="♠" * 22)]])
    just_fits = InlineKeyboardMarkup([[InlineKeyboardButton("play", callback_data="♠" * 21 + "x")]])

    with pytest.raises(BadRequest) as refused:
        await emulated_bot.send_message(alice.id, "Pick", reply_markup=too_long)
    assert refused.value.message.upper() == "BUTTON_DATA_INVALID"
    assert (
        await emulated_bot.send_message(alice.id, "Pick", reply_markup=just_fits)
    ).reply_markup == just_fits


async def test_text_length_is_counted_after_entity_parsing(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    body = "牌" * 4096

    with pytest.raises(BadRequest, match="Message is too long"):
        await emulated_bot.send_message(alice.id, body + "!")
    # The markup makes the request longer than 4096 characters but not the message.
    sent = await emulated_bot.send_message(
        alice.id, f"<b>{body[:10]}</b>{body[10:]}", parse_mode=ParseMode.HTML
    )
    assert len(sent.text) == 4096


async def test_empty_text_is_refused(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    with pytest.raises(BadRequest, match="Message text is empty"):
        await emulated_bot.send_message(alice.id, "")
    with pytest.raises(BadRequest, match="Message text is empty"):
        await emulated_bot.send_message(alice.id, "<b> </b>", parse_mode=ParseMode.HTML)


async def test_broken_markup_is_refused(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    with pytest.raises(BadRequest, match="Can't parse entities"):
        await emulated_bot.send_message(alice.id, "<b>unclosed", parse_mode=ParseMode.HTML)
    with pytest.raises(BadRequest, match="reserved and must be escaped"):
        await emulated_bot.send_message(alice.id, "Score: 3.5", parse_mode=ParseMode.MARKDOWN_V2)


async def test_edit_that_changes_nothing(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("pass", callback_data="pass")]])
    sent = await emulated_bot.send_message(alice.id, "Your turn", reply_markup=markup)

    with pytest.raises(BadRequest) as refused:
        await emulated_bot.edit_message_text(
            "Your turn", chat_id=alice.id, message_id=sent.message_id, reply_markup=markup
        )
    assert refused.value.message == (
        "Message is not modified: specified new message content and reply markup are exactly the same as a "
        "current content and reply markup of the message"
    )
    with pytest.raises(BadRequest, match="Message is not modified"):
        await emulated_bot.edit_message_reply_markup(alice.id, sent.message_id, reply_markup=markup)
    stored = emulator.last_bot_message(alice)
    assert stored is not None and stored.edits == []


async def test_editing_a_missing_message(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(alice.id, "soon gone")
    await emulated_bot.delete_message(alice.id, sent.message_id)

    for message_id in (sent.message_id, 999):
        with pytest.raises(BadRequest, match="Message to edit not found"):
            await emulated_bot.edit_message_text("edited", chat_id=alice.id, message_id=message_id)


async def test_editing_a_users_message(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    start = emulator.start_bot(alice)
    with pytest.raises(BadRequest, match="Message can't be edited"):
        await emulated_bot.edit_message_text("/stop", chat_id=alice.id, message_id=start.message_id)


async def test_migrated_group_answers_with_the_new_id(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice])
    old_message = await emulated_bot.send_message(group.id, "Table open")

    supergroup = emulator.migrate_to_supergroup(group)

    with pytest.raises(ChatMigrated) as refused:
        await emulated_bot.send_message(group.id, "Still here?")
    assert refused.value.new_chat_id == supergroup.id
    with pytest.raises(ChatMigrated):
        await emulated_bot.edit_message_text("edited", chat_id=group.id, message_id=old_message.message_id)
    moved = await emulated_bot.send_message(supergroup.id, "Moved")
    assert (moved.chat.type, moved.chat.id) == ("supergroup", supergroup.id)
    assert supergroup.members == group.members


async def test_kicked_bot(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], supergroup=True)
    emulator.kick_bot(group)
    with pytest.raises(Forbidden) as refused:
        await emulated_bot.send_message(group.id, "hello?")
    assert refused.value.message == "Forbidden: bot was kicked from the supergroup chat"
