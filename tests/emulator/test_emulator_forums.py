"""Forum supergroups as Telegram makes them: topics whose id is their first message's, messages that carry it,
a bot that writes into a topic or, without one, into General."""

from __future__ import annotations

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, ReplyParameters
from telegram.error import BadRequest

from emulator import GENERAL_TOPIC, EmulatorError, TelegramEmulator

pytestmark = pytest.mark.unit


async def test_a_topic_is_named_by_its_first_message(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    forum = emulator.create_forum("Gouji club", [alice])

    tables = emulator.create_topic(forum, "Tables")
    chat = emulator.create_topic(forum, "Chat", by=alice)

    created = [m for m in emulator.messages(forum) if "forum_topic_created" in m.service]
    assert [m.message_id for m in created] == [tables, chat] == emulator.topics(forum)
    assert created[0].service["forum_topic_created"]["name"] == "Tables"
    updates = await emulated_bot.get_updates()
    assert updates[0].my_chat_member is not None and updates[0].my_chat_member.chat.is_forum
    opened = [u.message for u in updates if u.message and u.message.forum_topic_created]
    assert [(m.message_id, m.message_thread_id, m.is_topic_message) for m in opened] == [
        (tables, tables, True),
        (chat, chat, True),
    ]


async def test_a_users_message_in_a_topic_carries_it(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    forum = emulator.create_forum("Gouji club", [alice], announce=False)
    tables = emulator.create_topic(forum, "Tables")
    await emulated_bot.get_updates()  # the topic's creation

    in_topic = emulator.user_sends(alice, forum, "/new", topic=tables)
    in_general = emulator.user_sends(alice, forum, "/new")

    first, second = await emulated_bot.get_updates(offset=-2)
    assert first.message is not None and second.message is not None
    assert (first.message.message_thread_id, first.message.is_topic_message) == (tables, True)
    # Telegram makes a message in a topic a reply to the topic's first message.
    assert first.message.reply_to_message is not None
    assert first.message.reply_to_message.message_id == tables
    assert (second.message.message_thread_id, second.message.is_topic_message) == (None, None)
    assert emulator.messages(forum, topic=tables)[-1] is in_topic
    assert emulator.messages(forum, topic=GENERAL_TOPIC)[-1] is in_general


async def test_the_bot_writes_into_a_topic_or_general(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    forum = emulator.create_forum("Gouji club", [alice])
    tables = emulator.create_topic(forum, "Tables")
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="join")]])

    lobby = await emulated_bot.send_message(forum.id, "Lobby", message_thread_id=tables, reply_markup=markup)
    news = await emulated_bot.send_message(forum.id, "Bot restarted")
    said = emulator.user_sends(alice, forum, "what now?", topic=tables)
    answer = await emulated_bot.send_message(
        forum.id, "Tap Join", reply_parameters=ReplyParameters(message_id=said.message_id)
    )
    await emulated_bot.edit_message_text("Lobby: Alice", forum.id, lobby.message_id, reply_markup=markup)

    assert (lobby.message_thread_id, lobby.is_topic_message) == (tables, True)
    assert news.message_thread_id is None  # General
    assert answer.message_thread_id == tables  # a reply goes where what it answers is
    assert [m.text for m in emulator.bot_messages(forum, topic=tables)] == ["Lobby: Alice", "Tap Join"]
    assert [m.text for m in emulator.bot_messages(forum, topic=GENERAL_TOPIC)] == ["Bot restarted"]
    query = emulator.tap(alice, emulator.bot_messages(forum, topic=tables)[0], "join")
    update = (await emulated_bot.get_updates(allowed_updates=["callback_query"]))[-1]
    assert update.callback_query is not None and update.callback_query.id == query.id
    assert update.callback_query.message.message_thread_id == tables  # type: ignore[union-attr]


async def test_a_thread_that_is_no_topic_of_the_chat(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    forum = emulator.create_forum("Gouji club", [alice])
    tables = emulator.create_topic(forum, "Tables")
    plain = emulator.create_group("Plain", [alice], supergroup=True)

    for thread in (tables + 100, GENERAL_TOPIC):
        with pytest.raises(BadRequest, match="Message thread not found"):
            await emulated_bot.send_message(forum.id, "Lobby", message_thread_id=thread)
    # Outside forums Telegram ignores the thread.
    sent = await emulated_bot.send_message(plain.id, "Lobby", message_thread_id=tables)
    assert sent.message_thread_id is None
    with pytest.raises(EmulatorError, match="no topic"):
        emulator.user_sends(alice, forum, "/new", topic=tables + 100)
    with pytest.raises(EmulatorError, match="not a forum"):
        emulator.user_sends(alice, plain, "/new", topic=tables)
