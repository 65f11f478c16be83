"""The Bot API methods a python-telegram-bot bot calls, with Telegram's own refusals."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .entities import format_text
from .errors import NOT_MODIFIED, bad_request, forbidden
from .params import Params
from .state import GENERAL_TOPIC, Chat, StoredMessage

if TYPE_CHECKING:
    from .bots import EmulatedBot as TelegramEmulator

Handler = Callable[["TelegramEmulator", Params], Awaitable[Any]]
METHODS: dict[str, tuple[str, Handler]] = {}  # lower-case name -> (canonical name, handler)

MAX_CALLBACK_DATA_BYTES = 64
CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
QUERY_INVALID = "query is too old and response timeout expired or query ID is invalid"
THREAD_NOT_FOUND = "message thread not found"


def api(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        METHODS[name.lower()] = (name, handler)
        return handler

    return register


def lookup(method: str) -> tuple[str, Handler] | None:
    # Telegram matches method names without regard to case.
    return METHODS.get(method.lower())


# --- shared checks --------------------------------------------------------------------------------


def resolve_chat(emu: TelegramEmulator, p: Params, name: str = "chat_id") -> Chat:
    chat = emu.world.find_chat(p.chat_id(name))
    if chat is None:
        raise bad_request("chat not found")
    if chat.migrated_to is not None:
        raise bad_request(
            "group chat was upgraded to a supergroup chat", {"migrate_to_chat_id": chat.migrated_to}
        )
    return chat


def check_can_write(emu: TelegramEmulator, chat: Chat, *, sending: bool = True) -> None:
    """Refuse as Telegram does a bot that may not write here: one the user never started (a bot can't open a
    private chat) or blocked; one removed or kicked from the group; one restricted there (``sending``)."""
    if chat.type == "private":
        if chat.blocked:
            raise forbidden("bot was blocked by the user")
        if not chat.started:
            raise forbidden("bot can't initiate conversation with a user")
        return
    check_can_read(emu, chat)
    if sending and emu.world.status_in(chat) == "restricted":
        raise bad_request("not enough rights to send text messages to the chat")


def check_can_read(emu: TelegramEmulator, chat: Chat) -> None:
    status = emu.world.status_in(chat)
    if chat.is_group and status == "kicked":
        raise forbidden(f"bot was kicked from the {chat.type} chat")
    if chat.is_group and status == "left":
        raise forbidden(f"bot is not a member of the {chat.type} chat")


def _message_of(chat: Chat, message_id: int | None, missing: str) -> StoredMessage:
    if message_id is None:
        raise bad_request("message identifier is not specified")
    message = chat.messages.get(message_id)
    if message is None or message.deleted:
        raise bad_request(missing)
    return message


def _check_inline_button(button: Any) -> None:
    if not isinstance(button, dict) or not isinstance(button.get("text"), str):
        raise bad_request('can\'t parse inline keyboard button: Field "text" must be of type String')
    if not button["text"].strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    actions = [key for key in button if key != "text"]
    if not actions:
        raise bad_request(
            "can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard"
        )
    if "callback_data" in button:
        data = button["callback_data"]
        if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES:
            raise bad_request("BUTTON_DATA_INVALID")
    if "url" in button:
        url = button["url"]
        if not isinstance(url, str) or not url.startswith(("http://", "https://", "tg://")):
            raise bad_request("BUTTON_URL_INVALID")


def parse_markup(
    p: Params, *, inline_only: bool = False
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Split reply_markup into the inline keyboard a message keeps and any other keyboard."""
    markup = p.obj("reply_markup")
    if markup is None:
        return None, None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise bad_request("can't parse inline keyboard markup JSON object")
        for row in rows:
            for button in row:
                _check_inline_button(button)
        return ({"inline_keyboard": rows} if any(rows) else None), None
    if inline_only:
        raise bad_request("inline keyboard expected")
    if "keyboard" in markup or "remove_keyboard" in markup or "force_reply" in markup:
        return None, markup
    raise bad_request("can't parse reply keyboard markup JSON object")


def _text_and_entities(p: Params) -> tuple[str, list[dict[str, Any]]]:
    text = p.str("text")
    if text is None or text == "":
        raise bad_request("message text is empty")
    entities = p.obj("entities")
    if entities is not None and not isinstance(entities, list):
        raise bad_request("can't parse entities JSON object")
    return format_text(text, p.str("parse_mode"), entities)


def _reply_target(chat: Chat, p: Params) -> int | None:
    parameters = p.obj("reply_parameters")
    if isinstance(parameters, dict):
        message_id, allow_missing = (
            parameters.get("message_id"),
            bool(parameters.get("allow_sending_without_reply")),
        )
        if parameters.get("chat_id") not in (None, chat.id, str(chat.id)):
            raise bad_request("replying to messages of other chats is not supported by the emulator")
    else:
        message_id, allow_missing = p.int("reply_to_message_id"), p.bool("allow_sending_without_reply")
    if message_id is None:
        return None
    original = chat.messages.get(int(message_id))
    if original is None or original.deleted:
        if allow_missing:
            return None
        raise bad_request("message to be replied not found")
    return int(message_id)


def _thread(emu: TelegramEmulator, chat: Chat, p: Params, reply_to: int | None) -> int | None:
    """The forum topic a message goes to: the one named, else the one of the message it replies to, else
    General. Outside forums Telegram ignores message_thread_id."""
    if not chat.is_forum:
        return None
    thread_id = p.int("message_thread_id")
    if thread_id is None:
        replied = chat.messages.get(reply_to) if reply_to is not None else None
        return replied.thread_id if replied is not None else None
    if thread_id == GENERAL_TOPIC or thread_id not in chat.topics:
        raise bad_request(THREAD_NOT_FOUND)
    return thread_id


def _flood_checked(emu: TelegramEmulator, method: str, chat: Chat) -> None:
    emu.flood.check(method, chat.id, chat.type)


# --- bot identity and updates ---------------------------------------------------------------------


@api("getMe")
async def get_me(emu: TelegramEmulator, p: Params) -> Any:
    return {
        **emu.world.bot.to_api(),
        "can_join_groups": True,
        "can_read_all_group_messages": not emu.privacy_mode,
        "supports_inline_queries": False,
        "can_connect_to_business": False,
        "has_main_web_app": False,
    }


@api("logOut")
async def log_out(emu: TelegramEmulator, p: Params) -> Any:
    return True


@api("close")
async def close(emu: TelegramEmulator, p: Params) -> Any:
    return True


@api("getUpdates")
async def get_updates(emu: TelegramEmulator, p: Params) -> Any:
    allowed = p.obj("allowed_updates")
    return await emu.updates.get_updates(
        p.int("offset"),
        p.int("limit", 100) or 100,
        p.float("timeout", 0.0) or 0.0,
        allowed if isinstance(allowed, list) else None,
    )


@api("setWebhook")
async def set_webhook(emu: TelegramEmulator, p: Params) -> Any:
    url = p.str("url", "") or ""
    if not url:
        await emu.updates.delete_webhook(p.bool("drop_pending_updates"))
        return True
    allowed = p.obj("allowed_updates")
    await emu.updates.set_webhook(
        url,
        secret_token=p.str("secret_token"),
        allowed_updates=allowed if isinstance(allowed, list) else None,
        drop_pending_updates=p.bool("drop_pending_updates"),
        max_connections=p.int("max_connections", 40) or 40,
        ip_address=p.str("ip_address"),
    )
    return True


@api("deleteWebhook")
async def delete_webhook(emu: TelegramEmulator, p: Params) -> Any:
    await emu.updates.delete_webhook(p.bool("drop_pending_updates"))
    return True


@api("getWebhookInfo")
async def get_webhook_info(emu: TelegramEmulator, p: Params) -> Any:
    return emu.updates.webhook_info()


# --- commands and descriptions ----------------------------------------------------------------------


def _scope_key(p: Params) -> tuple[str, str]:
    scope = p.obj("scope") or {"type": "default"}
    return json.dumps(scope, sort_keys=True), p.str("language_code", "") or ""


@api("setMyCommands")
async def set_my_commands(emu: TelegramEmulator, p: Params) -> Any:
    commands = p.obj("commands")
    if not isinstance(commands, list) or len(commands) > 100:
        raise bad_request("can't parse commands JSON object")
    cleaned = []
    for command in commands:
        if not isinstance(command, dict):
            raise bad_request("can't parse BotCommand JSON object")
        name = str(command.get("command", "")).removeprefix("/")
        description = str(command.get("description", ""))
        if not 1 <= len(name) <= 32 or not all(
            c.isascii() and (c.islower() or c.isdigit() or c == "_") for c in name
        ):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(description.strip()) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        cleaned.append({"command": name, "description": description})
    emu.world.commands[_scope_key(p)] = cleaned
    emu.journal.add("commands_set", scope=_scope_key(p)[0], language_code=_scope_key(p)[1], commands=cleaned)
    return True


@api("getMyCommands")
async def get_my_commands(emu: TelegramEmulator, p: Params) -> Any:
    return emu.world.commands.get(_scope_key(p), [])


@api("deleteMyCommands")
async def delete_my_commands(emu: TelegramEmulator, p: Params) -> Any:
    emu.world.commands.pop(_scope_key(p), None)
    return True


def _description_api(kind: str, field_name: str) -> None:
    async def set_value(emu: TelegramEmulator, p: Params) -> Any:
        emu.world.descriptions[(kind, p.str("language_code", "") or "")] = p.str(field_name, "") or ""
        return True

    async def get_value(emu: TelegramEmulator, p: Params) -> Any:
        return {field_name: emu.world.descriptions.get((kind, p.str("language_code", "") or ""), "")}

    capitalised = field_name[0].upper() + field_name[1:].replace("_d", "D").replace("_", "")
    api(f"setMy{capitalised}")(set_value)
    api(f"getMy{capitalised}")(get_value)


_description_api("description", "description")
_description_api("short_description", "short_description")
_description_api("name", "name")


# --- messages -----------------------------------------------------------------------------------------


@api("sendMessage")
async def send_message(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    check_can_write(emu, chat)
    text, entities = _text_and_entities(p)
    inline, other = parse_markup(p)
    reply_to = _reply_target(chat, p)
    thread_id = _thread(emu, chat, p, reply_to)
    _flood_checked(emu, "sendMessage", chat)
    silent = p.bool("disable_notification")
    message = emu.store_bot_message(chat, text, entities, inline, other, reply_to, silent, thread_id)
    emu.flood.record(chat.id, chat.type)
    return emu.world.message_to_api(message)


def _editable(emu: TelegramEmulator, p: Params) -> tuple[Chat, StoredMessage]:
    if "inline_message_id" in p:
        raise bad_request("MESSAGE_ID_INVALID")
    chat = resolve_chat(emu, p)
    check_can_write(emu, chat, sending=False)
    message = _message_of(chat, p.int("message_id"), "message to edit not found")
    # Only the bot's own messages: not a user's, not another bot's.
    if message.sender_id != emu.bot_id:
        raise bad_request("message can't be edited")
    return chat, message


@api("editMessageText")
async def edit_message_text(emu: TelegramEmulator, p: Params) -> Any:
    chat, message = _editable(emu, p)
    if message.text is None:
        raise bad_request("there is no text in the message to edit")
    text, entities = _text_and_entities(p)
    inline, _ = parse_markup(p, inline_only=True)
    # Leaving reply_markup out of an edit removes the keyboard, so that counts as a change too.
    if (text, entities, inline) == (message.text, message.entities, message.reply_markup):
        raise bad_request(NOT_MODIFIED)
    _flood_checked(emu, "editMessageText", chat)
    emu.apply_bot_edit(message, text, entities, inline)
    emu.flood.record(chat.id, chat.type)
    return emu.world.message_to_api(message)


@api("editMessageReplyMarkup")
async def edit_message_reply_markup(emu: TelegramEmulator, p: Params) -> Any:
    chat, message = _editable(emu, p)
    inline, _ = parse_markup(p, inline_only=True)
    if inline == message.reply_markup:
        raise bad_request(NOT_MODIFIED)
    _flood_checked(emu, "editMessageReplyMarkup", chat)
    emu.apply_bot_edit(message, message.text, message.entities, inline)
    emu.flood.record(chat.id, chat.type)
    return emu.world.message_to_api(message)


def _check_can_delete(emu: TelegramEmulator, chat: Chat, message: StoredMessage) -> None:
    """Telegram's rules: a bot deletes its own messages, and in a group others' only as an administrator;
    never a message sent 48 hours ago or more."""
    if chat.is_group and message.sender_id != emu.bot_id and emu.world.status_in(chat) != "administrator":
        raise bad_request("message can't be deleted")
    if emu.network.now() - message.date >= emu.network.delete_window:
        raise bad_request("message can't be deleted")


@api("deleteMessage")
async def delete_message(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    check_can_read(emu, chat)
    message = _message_of(chat, p.int("message_id"), "message to delete not found")
    _check_can_delete(emu, chat, message)
    emu.apply_delete(message)
    return True


@api("deleteMessages")
async def delete_messages(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    check_can_read(emu, chat)
    ids = p.obj("message_ids")
    if not isinstance(ids, list) or not 1 <= len(ids) <= 100:
        raise bad_request("message identifiers are not specified")
    found = [m for m in (chat.messages.get(int(i)) for i in ids) if m is not None and not m.deleted]
    if not found:
        raise bad_request("message to delete not found")
    for message in found:
        _check_can_delete(emu, chat, message)
    for message in found:
        emu.apply_delete(message)
    return True


@api("sendChatAction")
async def send_chat_action(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    check_can_write(emu, chat)
    if p.str("action") not in CHAT_ACTIONS:
        raise bad_request("wrong parameter action in request")
    _thread(emu, chat, p, None)
    return True


@api("pinChatMessage")
async def pin_chat_message(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    check_can_write(emu, chat)
    message = _message_of(chat, p.int("message_id"), "message to pin not found")
    if chat.is_group and emu.world.status_in(chat) != "administrator":
        raise bad_request("not enough rights to manage pinned messages in the chat")
    emu.set_pinned(chat, message.message_id)
    return True


@api("unpinChatMessage")
async def unpin_chat_message(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    check_can_read(emu, chat)
    if chat.is_group and emu.world.status_in(chat) != "administrator":
        raise bad_request("not enough rights to manage pinned messages in the chat")
    emu.set_pinned(chat, None)
    return True


# --- callback queries -------------------------------------------------------------------------------


@api("answerCallbackQuery")
async def answer_callback_query(emu: TelegramEmulator, p: Params) -> Any:
    # Only the bot whose button was tapped may answer, once, and only within the window after the tap.
    query = emu.world.callback_queries.get(p.required_str("callback_query_id"))
    if query is None or query.answered:
        raise bad_request(QUERY_INVALID)
    if emu.network.clock() - query.tapped_at > emu.network.callback_answer_window:
        emu.journal.add("callback_too_late", **query.to_json())
        raise bad_request(QUERY_INVALID)
    text = p.str("text")
    if text is not None and len(text) > 200:
        raise bad_request("MESSAGE_TOO_LONG")
    query.answered, query.answer_text, query.show_alert = True, text, p.bool("show_alert")
    query.url, query.cache_time = p.str("url"), p.int("cache_time")
    emu.journal.add("callback_answered", **query.to_json())
    return True


# --- chats and members ------------------------------------------------------------------------------


@api("getChat")
async def get_chat(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    check_can_read(emu, chat)
    info = emu.world.chat_full_info(chat)
    if chat.pinned_message_id is not None and chat.pinned_message_id in chat.messages:
        info["pinned_message"] = emu.world.message_to_api(chat.messages[chat.pinned_message_id])
    return info


def _member_user(emu: TelegramEmulator, p: Params) -> Any:
    user_id = p.int("user_id")
    user = emu.world.users.get(user_id) if user_id is not None else None
    if user is None:
        raise bad_request("user not found")
    return user


@api("getChatMember")
async def get_chat_member(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    check_can_read(emu, chat)
    user = _member_user(emu, p)
    if chat.type == "private" and user.id not in (chat.private_user_id, emu.world.bot.id):
        raise bad_request("user not found")
    return emu.world.member_to_api(chat, user)


@api("getChatAdministrators")
async def get_chat_administrators(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    if chat.type == "private":
        raise bad_request("there are no administrators in the private chat")
    check_can_read(emu, chat)
    # Anonymous admins are hidden from those who may not manage the chat, as Telegram hides them.
    hidden = set() if emu.world.status_in(chat) == "administrator" else chat.anonymous_admins
    people = [uid for uid in chat.admin_ids() if uid not in hidden]
    bots = [bid for bid, status in chat.bots.items() if status == "administrator"]
    return [emu.world.member_to_api(chat, emu.world.users[uid]) for uid in people + bots]


@api("getChatMemberCount")
async def get_chat_member_count(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    if chat.type == "private":
        return 2
    check_can_read(emu, chat)
    return len(chat.member_ids()) + len(chat.bot_ids())


@api("leaveChat")
async def leave_chat(emu: TelegramEmulator, p: Params) -> Any:
    chat = resolve_chat(emu, p)
    if chat.type == "private":
        raise bad_request("chat member status can't be changed in private chats")
    check_can_read(emu, chat)
    emu.set_bot_status(chat, "left", by=emu.world.bot)
    emu.store_service(chat, emu.world.bot, {"left_chat_member": emu.world.bot.to_api()})
    return True
