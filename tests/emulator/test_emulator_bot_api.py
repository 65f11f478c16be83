"""The Bot API methods, called through python-telegram-bot's own ``Bot`` against the emulator."""

from __future__ import annotations

import aiohttp
import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    ChatMemberAdministrator,
    ChatMemberLeft,
    ChatMemberMember,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    ReplyParameters,
)
from telegram.constants import ChatType, MessageEntityType, ParseMode
from telegram.error import BadRequest, EndPointNotFound, Forbidden

from emulator import TelegramEmulator


def keyboard(*labels: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=f"pick:{label}") for label in labels]]
    )


async def test_get_me_names_the_emulated_bot(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    me = await emulated_bot.get_me()
    assert me.is_bot
    assert me.id == int(emulator.token.split(":")[0])
    assert me.username == "gouji_test_bot"
    assert me.can_read_all_group_messages is False  # privacy mode is Telegram's default


async def test_sent_message_is_kept_with_its_keyboard_and_formatting(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)

    sent = await emulated_bot.send_message(
        alice.id, "Your hand: <b>♠A ♥K</b>", parse_mode=ParseMode.HTML, reply_markup=keyboard("♠A", "♥K")
    )

    assert sent.text == "Your hand: ♠A ♥K"
    assert sent.entities[0].type == MessageEntityType.BOLD
    assert (sent.entities[0].offset, sent.entities[0].length) == (11, 5)
    stored = emulator.last_bot_message(alice)
    assert stored is not None
    assert stored.message_id == sent.message_id
    assert stored.text == sent.text
    assert [b["callback_data"] for b in stored.buttons[0]] == ["pick:♠A", "pick:♥K"]


async def test_message_ids_count_up_per_chat(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice, bob = emulator.create_user("Alice"), emulator.create_user("Bob")
    emulator.start_bot(alice)
    emulator.start_bot(bob)
    first_to_alice = await emulated_bot.send_message(alice.id, "one")
    first_to_bob = await emulated_bot.send_message(bob.id, "one")
    second_to_alice = await emulated_bot.send_message(alice.id, "two")
    # Each private chat already holds the user's /start as message 1.
    assert (first_to_alice.message_id, second_to_alice.message_id) == (2, 3)
    assert first_to_bob.message_id == 2


async def test_reply_by_reply_parameters_and_by_legacy_id(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    start = emulator.start_bot(alice)

    modern = await emulated_bot.send_message(
        alice.id, "welcome", reply_parameters=ReplyParameters(message_id=start.message_id)
    )
    legacy = await emulated_bot.send_message(alice.id, "again", reply_to_message_id=start.message_id)

    assert modern.reply_to_message is not None and modern.reply_to_message.text == "/start"
    assert legacy.reply_to_message is not None and legacy.reply_to_message.message_id == start.message_id
    assert emulator.last_bot_message(alice).reply_to_message_id == start.message_id  # type: ignore[union-attr]


async def test_replying_to_a_missing_message(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    with pytest.raises(BadRequest, match="Message to be replied not found"):
        await emulated_bot.send_message(alice.id, "hi", reply_parameters=ReplyParameters(message_id=99))
    sent = await emulated_bot.send_message(
        alice.id, "hi", reply_parameters=ReplyParameters(message_id=99, allow_sending_without_reply=True)
    )
    assert sent.reply_to_message is None


async def test_edits_are_recorded_and_text_edit_without_markup_drops_the_keyboard(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(alice.id, "Your turn", reply_markup=keyboard("pass"))

    await emulated_bot.edit_message_reply_markup(
        alice.id, sent.message_id, reply_markup=keyboard("pass", "play")
    )
    edited = await emulated_bot.edit_message_text(
        "Waiting for Bob", chat_id=alice.id, message_id=sent.message_id
    )

    assert edited.text == "Waiting for Bob"
    assert edited.edit_date is not None
    assert edited.reply_markup is None
    stored = emulator.last_bot_message(alice)
    assert stored is not None
    assert [r.text for r in stored.history] == ["Your turn", "Your turn", "Waiting for Bob"]
    assert [len(r.reply_markup["inline_keyboard"][0]) if r.reply_markup else 0 for r in stored.history] == [
        1,
        2,
        0,
    ]
    assert len(stored.edits) == 2


async def test_deleted_message_stays_in_history_but_cannot_be_deleted_twice(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(alice.id, "temporary")

    assert await emulated_bot.delete_message(alice.id, sent.message_id) is True

    assert emulator.last_bot_message(alice) is None
    assert [m.text for m in emulator.messages(alice) if m.deleted] == ["temporary"]
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await emulated_bot.delete_message(alice.id, sent.message_id)


async def test_bot_cannot_delete_players_messages_in_a_group_unless_admin(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    plain = emulator.create_group("Plain", [alice], announce=False)
    admin = emulator.create_group("Admin", [alice], bot_is_admin=True, announce=False)
    in_plain = emulator.user_sends(alice, plain, "/join")
    in_admin = emulator.user_sends(alice, admin, "/join")

    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await emulated_bot.delete_message(plain.id, in_plain.message_id)
    assert await emulated_bot.delete_message(admin.id, in_admin.message_id)
    assert in_admin.deleted and not in_plain.deleted


async def test_callback_answers_are_recorded_once(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(alice.id, "Pick", reply_markup=keyboard("♠A"))
    query = emulator.tap(alice, (alice.id, sent.message_id), "pick:♠A")

    assert await emulated_bot.answer_callback_query(query.id, "Not your turn", show_alert=True)

    assert [(q.answer_text, q.show_alert) for q in emulator.callback_answers] == [("Not your turn", True)]
    with pytest.raises(BadRequest, match="Query is too old"):
        await emulated_bot.answer_callback_query(query.id)


async def test_chat_and_member_lookups(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice, bob, carol = (emulator.create_user(name) for name in ("Alice", "Bob", "Carol"))
    group = emulator.create_group("Gouji table", [alice, bob], admins=[bob], bot_is_admin=True)

    chat = await emulated_bot.get_chat(group.id)
    assert (chat.type, chat.title) == (ChatType.GROUP, "Gouji table")
    assert isinstance(await emulated_bot.get_chat_member(group.id, alice.id), ChatMemberOwner)
    assert isinstance(await emulated_bot.get_chat_member(group.id, bob.id), ChatMemberAdministrator)
    assert isinstance(await emulated_bot.get_chat_member(group.id, carol.id), ChatMemberLeft)
    admins = await emulated_bot.get_chat_administrators(group.id)
    assert sorted(a.user.first_name for a in admins) == ["Alice", "Bob", "Gouji Test Bot"]
    emulator.start_bot(carol)
    assert (await emulated_bot.get_chat(carol.id)).first_name == "Carol"
    assert isinstance(await emulated_bot.get_chat_member(carol.id, carol.id), ChatMemberMember)
    with pytest.raises(BadRequest, match="no administrators in the private chat"):
        await emulated_bot.get_chat_administrators(carol.id)
    with pytest.raises(BadRequest, match="Chat not found"):
        await emulated_bot.get_chat(-42)


async def test_after_leaving_a_group_the_bot_can_no_longer_post_there(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], announce=False)

    assert await emulated_bot.leave_chat(group.id)

    assert emulator.bot_status(group) == "left"
    with pytest.raises(Forbidden, match="bot is not a member of the group chat"):
        await emulated_bot.send_message(group.id, "still here?")


async def test_commands_are_kept_per_scope_and_language(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    await emulated_bot.set_my_commands([BotCommand("start", "Begin"), BotCommand("help", "Rules")])
    await emulated_bot.set_my_commands([BotCommand("start", "开始")], language_code="zh")
    await emulated_bot.set_my_commands(
        [BotCommand("newgame", "Open a table")], scope=BotCommandScopeAllGroupChats()
    )

    assert [c.command for c in await emulated_bot.get_my_commands()] == ["start", "help"]
    assert [c.description for c in await emulated_bot.get_my_commands(language_code="zh")] == ["开始"]
    group_commands = await emulated_bot.get_my_commands(scope=BotCommandScopeAllGroupChats())
    assert [c.command for c in group_commands] == ["newgame"]
    with pytest.raises(BadRequest, match="(?i)BOT_COMMAND_INVALID"):
        await emulated_bot.set_my_commands([BotCommand("New Game", "spaces are not allowed")])


async def test_close_and_log_out_are_harmless(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    assert await emulated_bot.log_out() is True
    assert await emulated_bot.close() is True
    assert (await emulated_bot.get_me()).username == "gouji_test_bot"


async def test_unknown_method_is_telegrams_404(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    with pytest.raises(EndPointNotFound, match="sendHologram"):
        await emulated_bot.do_api_request("sendHologram", api_kwargs={"chat_id": 1})
    assert emulator.calls["sendHologram"] == 1


async def test_plain_http_clients_get_telegram_shaped_answers(emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    base = f"{emulator.api_base_url}{emulator.token}"
    async with aiohttp.ClientSession() as http:
        # JSON bodies and any capitalisation of the method name, as api.telegram.org accepts.
        async with http.post(
            f"{base}/SENDMESSAGE", json={"chat_id": alice.id, "text": "json body"}
        ) as response:
            sent = await response.json()
        async with http.get(f"{base}/nosuchmethod") as response:
            missing = (response.status, await response.json())
        async with http.get(f"{emulator.api_base_url}1:wrong/getMe") as response:
            wrong_token = (response.status, await response.json())

    assert sent["ok"] and sent["result"]["text"] == "json body"
    assert missing == (404, {"ok": False, "error_code": 404, "description": "Not Found"})
    assert wrong_token == (401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
    assert emulator.calls["sendMessage"] == 1
