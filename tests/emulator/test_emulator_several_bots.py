"""Several bots on one emulated Telegram, each with its own token, id, update ids, queue, private chats and
groups, as several bots are in Telegram."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden, InvalidToken

from emulator import EmulatedBot, TelegramEmulator

pytestmark = pytest.mark.unit


@pytest.fixture
def second(emulator: TelegramEmulator) -> EmulatedBot:
    return emulator.create_bot("Second Bot", username="second_bot")


@pytest.fixture
async def second_bot(second: EmulatedBot) -> AsyncIterator[Bot]:
    async with Bot(second.token, base_url=second.api_base_url) as bot:
        yield bot


async def test_each_token_is_its_own_bot(
    emulated_bot: Bot, second_bot: Bot, second: EmulatedBot, emulator: TelegramEmulator
) -> None:
    first_me, second_me = await emulated_bot.get_me(), await second_bot.get_me()

    assert (first_me.username, second_me.username) == ("gouji_test_bot", "second_bot")
    assert second_me.id == second.bot_id != first_me.id
    assert emulator.bot(second.token) is emulator.bot("@second_bot") is second
    with pytest.raises(InvalidToken):
        async with Bot("999:unknown", base_url=emulator.api_base_url):
            pass


async def test_private_chats_share_the_users_id_but_not_their_messages(
    emulated_bot: Bot, second_bot: Bot, second: EmulatedBot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    # Alice started the first bot only: the second may not write to her first.
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await second_bot.send_message(alice.id, "Hello from the second")
    second.start_bot(alice, payload="t2")

    to_first = await emulated_bot.send_message(alice.id, "Your cards (first)")
    to_second = await second_bot.send_message(alice.id, "Your cards (second)")

    assert to_first.chat.id == to_second.chat.id == alice.id
    assert (to_first.message_id, to_second.message_id) == (2, 2)  # each chat counts its own
    assert [m.text for m in emulator.messages(alice)] == ["/start", "Your cards (first)"]
    assert [m.text for m in second.messages(alice)] == ["/start t2", "Your cards (second)"]
    first_updates, second_updates = await emulated_bot.get_updates(), await second_bot.get_updates()
    assert [u.message.text for u in first_updates if u.message] == ["/start"]
    assert [u.message.text for u in second_updates if u.message] == ["/start t2"]
    # Update ids are each bot's own count, so they overlap.
    assert first_updates[0].update_id == second_updates[0].update_id


async def test_a_call_with_one_token_never_touches_another_bots_messages(
    emulated_bot: Bot, second_bot: Bot, second: EmulatedBot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], announce=False)
    second.add_bot(group, by=alice)
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data="join")]])
    lobby = await emulated_bot.send_message(group.id, "Lobby", reply_markup=markup)

    with pytest.raises(BadRequest, match="Message can't be edited"):
        await second_bot.edit_message_text("Mine now", group.id, lobby.message_id)
    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await second_bot.delete_message(group.id, lobby.message_id)
    query = emulator.tap(alice, (group.id, lobby.message_id), "join")
    with pytest.raises(BadRequest, match="Query is too old"):
        await second_bot.answer_callback_query(query.id, "not mine")

    assert emulator.bot_messages(group)[0].text == "Lobby" and second.bot_messages(group) == []
    assert await emulated_bot.answer_callback_query(query.id, "Joined")
    taps = [u.callback_query for u in await second_bot.get_updates() if u.callback_query]
    assert taps == []  # the tap went to the bot whose button it was


async def test_a_bot_sees_only_the_groups_it_was_added_to(
    second_bot: Bot, second: EmulatedBot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    first_only = emulator.create_group("First's table", [alice])
    with pytest.raises(BadRequest, match="Chat not found"):
        await second_bot.send_message(first_only.id, "hello")
    emulator.user_sends(alice, first_only, "/new")

    second.add_bot(first_only, by=alice)
    emulator.user_sends(alice, first_only, "/new@second_bot")

    texts = [u.message.text for u in await second_bot.get_updates() if u.message and u.message.text]
    assert texts == ["/new@second_bot"]


async def test_no_bot_sees_another_bots_messages(
    emulated_bot: Bot, second_bot: Bot, second: EmulatedBot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], announce=False, bot_is_admin=True)
    second.add_bot(group, by=alice, admin=True)
    await emulated_bot.get_updates(allowed_updates=["message", "my_chat_member"])

    await second_bot.send_message(group.id, "I am the second bot")
    emulator.user_sends(alice, group, "hello both")

    texts = [u.message.text for u in await emulated_bot.get_updates() if u.message]
    assert texts[-1:] == ["hello both"] and "I am the second bot" not in texts


async def test_commands_without_a_name_go_to_the_last_bot_that_posted(
    emulated_bot: Bot, second_bot: Bot, second: EmulatedBot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], announce=False)
    second.add_bot(group, by=alice)
    await second_bot.get_updates()

    emulator.user_sends(alice, group, "/new")  # no bot has posted yet: both hear it
    await second_bot.send_message(group.id, "Second's lobby")
    emulator.user_sends(alice, group, "/help")  # privacy mode: only the last bot that posted
    emulator.user_sends(alice, group, "/help@gouji_test_bot")

    first = [u.message.text for u in await emulated_bot.get_updates() if u.message and u.message.text]
    later = [u.message.text for u in await second_bot.get_updates(offset=-10) if u.message]
    assert first == ["/new", "/help@gouji_test_bot"]
    assert [t for t in later if t] == ["/new", "/help"]


async def test_control_api_addresses_a_bot_by_token_or_handle(
    second: EmulatedBot, second_bot: Bot, emulator: TelegramEmulator
) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as http:
        base = f"{emulator.base_url}/_emu"
        async with http.post(f"{base}/bots", json={"first_name": "Third", "username": "third_bot"}) as r:
            third = (await r.json())["result"]
        alice = emulator.create_user("Alice")
        async with http.post(f"{base}/users/{alice.id}/start", json={"bot": second.token}) as r:
            assert r.status == 200
        async with http.get(f"{base}/chats/{alice.id}/messages?bot=@second_bot") as r:
            assert [m["text"] for m in (await r.json())["result"]] == ["/start"]
        async with http.get(f"{base}/state?bot={third['id']}") as r:
            state = (await r.json())["result"]
        async with http.get(f"{base}/bots") as r:
            bots = (await r.json())["result"]

    assert emulator.messages(alice) == []  # the first bot's chat with Alice stays empty
    assert state["bot"]["username"] == "third_bot"
    assert next(u for u in state["users"] if u["id"] == alice.id)["started_bot"] is False
    assert [b["username"] for b in bots] == ["gouji_test_bot", "second_bot", "third_bot"]
    async with Bot(third["token"], base_url=emulator.api_base_url) as bot:
        assert (await bot.get_me()).username == "third_bot"
