"""Every call is held against the published Bot API (10.1): each kind of mistake gets Telegram's 400.

The calls are posted as PTB posts them (form fields, objects JSON-encoded) and read back as Telegram's raw
answer, since PTB rewrites the description's case when it raises.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest

from emulator import TelegramEmulator, User
from emulator.schema import load

pytestmark = pytest.mark.unit


class Api:
    def __init__(self, http: aiohttp.ClientSession, emu: TelegramEmulator) -> None:
        self.http, self.emu = http, emu

    async def __call__(self, method: str, **params: Any) -> tuple[int, dict[str, Any]]:
        form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
        async with self.http.post(f"{self.emu.api_base_url}{self.emu.token}/{method}", data=form) as response:
            return response.status, await response.json()


@pytest.fixture
async def api(emulator: TelegramEmulator) -> AsyncIterator[Api]:
    async with aiohttp.ClientSession() as http:
        yield Api(http, emulator)


@pytest.fixture
def alice(emulator: TelegramEmulator) -> User:
    user = emulator.create_user("Alice")
    emulator.start_bot(user)
    return user


def refused(description: str) -> tuple[int, dict[str, Any]]:
    return 400, {"ok": False, "error_code": 400, "description": f"Bad Request: {description}"}


def keyboard(*buttons: dict[str, Any]) -> dict[str, Any]:
    return {"inline_keyboard": [list(buttons)]}


async def test_unknown_method_is_telegrams_404(api: Api, emulator: TelegramEmulator) -> None:
    assert await api("sendHologram", chat_id=1) == (
        404,
        {"ok": False, "error_code": 404, "description": "Not Found"},
    )
    assert emulator.refused_calls == ["sendHologram: Not Found"]


async def test_unknown_parameter(api: Api, emulator: TelegramEmulator, alice: User) -> None:
    answer = await api("sendMessage", chat_id=alice.id, text="Your turn", colour="red")
    assert answer == refused('method sendMessage has no parameter "colour"')
    assert emulator.bot_messages(alice) == []


async def test_missing_required_parameter(api: Api, alice: User) -> None:
    assert await api("sendMessage", chat_id=alice.id) == refused("message text is empty")
    assert await api("sendMessage", text="hello") == refused("chat_id is empty")
    assert await api("setMyCommands") == refused('parameter "commands" is required')


async def test_wrong_type_at_top_level(api: Api, alice: User) -> None:
    answer = await api("sendMessage", chat_id=alice.id, text="hi", disable_notification="often")
    assert answer == refused('parameter "disable_notification" must be of type Boolean')
    answer = await api("sendMessage", chat_id=alice.id, text="hi", message_thread_id="general")
    assert answer == refused('parameter "message_thread_id" must be of type Integer')
    answer = await api("sendMessage", chat_id=alice.id, text="hi", reply_markup="{not json")
    assert answer == refused("can't parse reply keyboard markup JSON object")


async def test_wrong_type_nested_inside_a_keyboard(api: Api, alice: User) -> None:
    answer = await api(
        "sendMessage", chat_id=alice.id, text="Pick", reply_markup=keyboard({"text": 7, "callback_data": "7"})
    )
    assert answer == refused('can\'t parse inline keyboard button: Field "text" must be of type String')
    answer = await api(
        "sendMessage",
        chat_id=alice.id,
        text="Pick",
        reply_markup=keyboard({"text": "7", "callback_data": "7", "style": "pink"}),
    )
    assert answer[1]["description"].startswith(
        'Bad Request: can\'t parse inline keyboard button: Field "style"'
    )
    answer = await api("sendMessage", chat_id=alice.id, text="hi", reply_parameters={"message_id": "1"})
    assert answer == refused('can\'t parse reply parameters: Field "message_id" must be of type Number')


async def test_a_field_no_button_has(api: Api, alice: User) -> None:
    answer = await api(
        "sendMessage",
        chat_id=alice.id,
        text="Pick",
        reply_markup=keyboard({"text": "7", "callback_data": "7", "colour": "red"}),
    )
    assert answer == refused(
        'can\'t parse inline keyboard button: Field "colour" is not a field of InlineKeyboardButton'
    )


async def test_text_too_long_after_entities_parsing(api: Api, alice: User) -> None:
    body = "牌" * 4096
    assert await api("sendMessage", chat_id=alice.id, text=body + "!") == refused("message is too long")
    # The tags make the request longer than 4096 characters, not the message.
    status, sent = await api("sendMessage", chat_id=alice.id, text=f"<b>{body}</b>", parse_mode="HTML")
    assert status == 200 and len(sent["result"]["text"]) == 4096
    answer = await api("sendMessage", chat_id=alice.id, text=f"<b>{body}</b>!", parse_mode="HTML")
    assert answer == refused("message is too long")


async def test_callback_data_over_64_bytes(api: Api, alice: User) -> None:
    # 22 three-byte characters: 22 characters, 66 bytes, and Telegram counts bytes.
    too_long = keyboard({"text": "play", "callback_data": "♠" * 22})
    assert await api("sendMessage", chat_id=alice.id, text="Pick", reply_markup=too_long) == refused(
        "BUTTON_DATA_INVALID"
    )
    fits = keyboard({"text": "play", "callback_data": "♠" * 21 + "x"})
    assert (await api("sendMessage", chat_id=alice.id, text="Pick", reply_markup=fits))[0] == 200


async def test_a_button_with_two_kinds(api: Api, alice: User) -> None:
    two = keyboard({"text": "Rules", "callback_data": "rules", "url": "https://example.org/rules"})
    answer = await api("sendMessage", chat_id=alice.id, text="Pick", reply_markup=two)
    assert answer == refused(
        "can't parse inline keyboard button: exactly one of the fields other than text, "
        "icon_custom_emoji_id, style must be used, found url and callback_data"
    )


async def test_a_button_of_no_kind(api: Api, alice: User) -> None:
    answer = await api("sendMessage", chat_id=alice.id, text="Pick", reply_markup=keyboard({"text": "Rules"}))
    assert answer == refused(
        "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
    )


async def test_malformed_html(api: Api, alice: User, emulator: TelegramEmulator) -> None:
    answer = await api("sendMessage", chat_id=alice.id, text="<b>Your turn", parse_mode="HTML")
    assert answer == refused("can't parse entities: Can't find end tag corresponding to start tag \"b\"")
    answer = await api("sendMessage", chat_id=alice.id, text="<b>Your <i>turn</b></i>", parse_mode="HTML")
    assert answer[1]["description"].startswith("Bad Request: can't parse entities: Unmatched end tag")
    assert emulator.bot_messages(alice) == []


async def test_malformed_markdown_v2(api: Api, alice: User) -> None:
    answer = await api("sendMessage", chat_id=alice.id, text="Score: 3.5", parse_mode="MarkdownV2")
    assert answer == refused(
        "can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'"
    )
    answer = await api("sendMessage", chat_id=alice.id, text="*bold", parse_mode="MarkdownV2")
    assert answer[1]["description"].startswith("Bad Request: can't parse entities: Can't find end of Bold")


async def test_lengths_stated_in_descriptions(api: Api, alice: User, emulator: TelegramEmulator) -> None:
    sent = emulator.store_bot_message(emulator.world.private_chat(alice), "Pick", [], None, None, None)
    query = emulator.forge_tap(alice, sent, "x")
    assert await api("answerCallbackQuery", callback_query_id=query.id, text="x" * 201) == refused(
        "MESSAGE_TOO_LONG"
    )
    assert await api("setMyCommands", commands=[{"command": "new", "description": "d" * 257}]) == refused(
        "BOT_COMMAND_DESCRIPTION_INVALID"
    )
    assert await api("deleteMessages", chat_id=alice.id, message_ids=list(range(1, 102))) == refused(
        'field "message_ids" must be 1-100 items, not 101'
    )


async def test_subtypes_are_told_apart_by_their_type(api: Api) -> None:
    commands = [{"command": "new", "description": "Open a table"}]
    assert (await api("setMyCommands", commands=commands, scope={"type": "all_group_chats"}))[0] == 200
    assert await api("setMyCommands", commands=commands, scope={"type": "chat"}) == refused(
        "can't parse BotCommandScope: Can't find field \"chat_id\""
    )
    assert await api("setMyCommands", commands=commands, scope={"type": "planet"}) == refused(
        'can\'t parse BotCommandScope: unsupported type "planet"'
    )


async def test_what_ptb_sends_passes(emulated_bot: Bot, emulator: TelegramEmulator, alice: User) -> None:
    """PTB's own serialisation of the calls a bot makes: keyboards, replies, link previews, formatting."""
    markup = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton("Play", callback_data="p"),
                InlineKeyboardButton("Rules", url="https://x.org"),
            ]
        ]
    )
    sent = await emulated_bot.send_message(
        alice.id,
        "<b>Your turn</b>",
        parse_mode=ParseMode.HTML,
        reply_markup=markup,
        disable_notification=True,
        disable_web_page_preview=True,
        reply_to_message_id=1,
    )
    await emulated_bot.edit_message_text("Played", alice.id, sent.message_id, reply_markup=markup)
    await emulated_bot.edit_message_reply_markup(alice.id, sent.message_id)
    await emulated_bot.get_updates(timeout=0, allowed_updates=["message", "callback_query"])
    assert emulator.refused_calls == []


@pytest.mark.filterwarnings("ignore:Please use 'Bot.sendMessage'")
async def test_the_check_may_be_turned_off_for_the_emulators_own_tests() -> None:
    async with TelegramEmulator(check_calls=False) as emu, Bot(emu.token, base_url=emu.api_base_url) as bot:
        alice = emu.create_user("Alice")
        emu.start_bot(alice)
        sent = await bot.do_api_request("sendMessage", api_kwargs={"chat_id": alice.id, "text": "hi", "x": 1})
        assert sent["text"] == "hi" and emu.refused_calls == []
        with pytest.raises(BadRequest):  # the methods' own checks still hold
            await bot.send_message(alice.id, "<b>unclosed", parse_mode=ParseMode.HTML)


def test_the_schema_states_the_limits_the_checks_use() -> None:
    spec = load()
    assert spec.version == "Bot API 10.1"
    text = spec.method("sendmessage").fields["text"]  # type: ignore[union-attr]
    assert (text.limit.low, text.limit.high, text.limit.unit, text.limit.after_entities) == (  # type: ignore[union-attr]
        1,
        4096,
        "characters",
        True,
    )
    button = spec.types["InlineKeyboardButton"]
    assert button.fields["callback_data"].limit.unit == "bytes"  # type: ignore[union-attr]
    assert button.one_of is not None and button.one_of.excluded == ("text", "icon_custom_emoji_id", "style")
    assert spec.types["BotCommandScopeChat"].tag == ("type", "chat")
