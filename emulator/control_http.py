"""The control API over HTTP (JSON in, JSON out) under /_emu/, for a web page or another process to drive the
emulator.

Answers are ``{"ok": true, "result": ...}``, or ``{"ok": false, "error": "..."}`` with status 400 when the
action is impossible (unknown user, tapping a button that is not there, ...). Every route acts for one bot:
the one its ``bot`` field names (its token, id or @username, in the body or the query), else the first.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .flood import FloodLimits
from .state import EmulatorError

if TYPE_CHECKING:
    from .bots import EmulatedBot
    from .server import TelegramEmulator

Action = Callable[["EmulatedBot", dict[str, Any]], Awaitable[Any]]
MAX_EVENT_WAIT = 60.0
BOT_STATUSES = {"member", "administrator", "restricted", "left", "kicked"}


def _ok(result: Any) -> web.Response:
    return web.json_response({"ok": True, "result": result}, dumps=_dumps)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _int(body: dict[str, Any], name: str) -> int:
    try:
        return int(body[name])
    except (KeyError, TypeError, ValueError):
        raise EmulatorError(f"{name} (an integer) is required") from None


def _optional_int(body: dict[str, Any], name: str) -> int | None:
    return None if body.get(name) in (None, "") else _int(body, name)


def register(app: web.Application, emu: TelegramEmulator) -> None:
    def route(method: str, path: str, action: Action) -> None:
        async def handle(request: web.Request) -> web.Response:
            body: dict[str, Any] = dict(request.query)
            body.update(request.match_info)
            if request.can_read_body:
                try:
                    payload = await request.json()
                except ValueError:
                    return web.json_response({"ok": False, "error": "the body must be JSON"}, status=400)
                if isinstance(payload, dict):
                    body.update(payload)
            try:
                try:
                    bot = emu.bot(body["bot"]) if body.get("bot") not in (None, "") else emu
                except KeyError:
                    raise EmulatorError(f"no bot {body['bot']!r}") from None
                return _ok(await action(bot, body))
            except EmulatorError as error:
                return web.json_response({"ok": False, "error": str(error)}, status=400)

        app.router.add_route(method, f"/_emu/{path}", handle)

    async def create_bot(_: EmulatedBot, body: dict[str, Any]) -> Any:
        try:
            bot = emu.create_bot(
                str(body.get("first_name", "Another Test Bot")),
                username=body.get("username"),
                token=body.get("token"),
                privacy_mode=bool(body.get("privacy_mode", True)),
            )
        except ValueError as error:
            raise EmulatorError(str(error)) from None
        return _bot_summary(bot)

    async def list_bots(_: EmulatedBot, body: dict[str, Any]) -> Any:
        return [_bot_summary(bot) for bot in emu.bots]

    route("GET", "state", _state)
    route("GET", "bots", list_bots)
    route("POST", "bots", create_bot)
    route("POST", "users", _create_user)
    route("POST", "groups", _create_group)
    route("POST", "groups/{chat_id}/members", _add_member)
    route("DELETE", "groups/{chat_id}/members/{user_id}", _remove_member)
    route("POST", "groups/{chat_id}/migrate", _migrate)
    route("POST", "groups/{chat_id}/kick_bot", _kick_bot)
    route("POST", "groups/{chat_id}/bot", _set_bot_status)
    route("GET", "groups/{chat_id}/topics", _topics)
    route("POST", "groups/{chat_id}/topics", _create_topic)
    route("POST", "users/{user_id}/start", _start)
    route("POST", "users/{user_id}/block", _block)
    route("POST", "messages", _send)
    route("POST", "messages/age", _age)
    route("POST", "tap", _tap)
    route("GET", "chats/{chat_id}/messages", _messages)
    route("GET", "callback_answers", _answers)
    route("GET", "stats", _stats)
    route("POST", "flood", _flood)
    route("POST", "clock", _clock)
    route("POST", "settings", _settings)
    route("GET", "events", _events)


def _bot_summary(bot: EmulatedBot) -> dict[str, Any]:
    return {**bot.world.bot.to_api(), "token": bot.token, "privacy_mode": bot.privacy_mode}


async def _state(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    return bot.world.summary()


async def _create_user(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    user = bot.create_user(
        str(body.get("first_name", "User")),
        language_code=body.get("language_code", "en"),
        username=body.get("username"),
        last_name=body.get("last_name"),
    )
    return bot.world.user_summary(user)


async def _create_group(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    members = [int(uid) for uid in body.get("member_ids", [])]
    chat = bot.create_group(
        str(body.get("title", "Group")),
        members,
        admins=[int(uid) for uid in body.get("admin_ids", [])],
        bot_is_admin=bool(body.get("bot_is_admin", False)),
        supergroup=bool(body.get("supergroup", False)),
        forum=bool(body.get("forum", False)),
        announce=bool(body.get("announce", True)),
    )
    return bot.world.chat_to_api(chat)


async def _add_member(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    return bot.add_member(_int(body, "chat_id"), _int(body, "user_id")).to_json()


async def _remove_member(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    return bot.remove_member(_int(body, "chat_id"), _int(body, "user_id")).to_json()


async def _migrate(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    return bot.world.chat_to_api(bot.migrate_to_supergroup(_int(body, "chat_id")))


async def _kick_bot(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    bot.kick_bot(_int(body, "chat_id"), by=_optional_int(body, "by"))
    return True


async def _set_bot_status(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    """The bot's status in a group, as an administrator (``by``, else the creator) sets it."""
    chat_id, status, by = _int(body, "chat_id"), str(body.get("status", "")), _optional_int(body, "by")
    if status not in BOT_STATUSES:
        raise EmulatorError(f"status is one of {', '.join(sorted(BOT_STATUSES))}")
    now = bot.bot_status(chat_id)
    if status == now:
        return bot.bot_status(chat_id)
    if now in ("left", "kicked") and status in ("member", "administrator"):
        bot.add_bot(chat_id, by=by, admin=status == "administrator")
    elif status == "left":
        bot.remove_bot(chat_id, by=by)
    elif status == "kicked":
        bot.kick_bot(chat_id, by=by)
    elif status == "restricted":
        bot.restrict_bot(chat_id, by=by)
    elif status == "administrator":
        bot.promote_bot(chat_id, by=by)
    elif now == "restricted":
        bot.unrestrict_bot(chat_id, by=by)
    else:
        bot.demote_bot(chat_id, by=by)
    return bot.bot_status(chat_id)


async def _topics(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    chat = bot.world.chat(_int(body, "chat_id"))
    return [topic.to_json() for topic in chat.topics.values()]


async def _create_topic(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    chat_id = _int(body, "chat_id")
    thread_id = bot.create_topic(
        chat_id,
        str(body.get("name", "")),
        by=_optional_int(body, "user_id"),
        icon_color=int(body.get("icon_color", 0x6FB9F0)),
    )
    return bot.world.chat(chat_id).topics[thread_id].to_json()


async def _start(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    return bot.start_bot(_int(body, "user_id"), body.get("payload") or None).to_json()


async def _block(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    bot.block_bot(_int(body, "user_id"))
    return True


async def _send(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    """A user writes; with ``anonymous`` an administrator writes as the group (GroupAnonymousBot)."""
    user_id, chat_id, text = _int(body, "user_id"), _int(body, "chat_id"), str(body.get("text", ""))
    reply_to, topic = _optional_int(body, "reply_to_message_id"), _optional_int(body, "message_thread_id")
    if body.get("anonymous"):
        message = bot.anonymous_admin_sends(user_id, chat_id, text, reply_to=reply_to, topic=topic)
    else:
        message = bot.user_sends(user_id, chat_id, text, reply_to=reply_to, topic=topic)
    return message.to_json()


async def _age(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    """Make a message ``seconds`` older (the 48 hours in which a bot may delete it)."""
    message = bot.age_message(
        (_int(body, "chat_id"), _int(body, "message_id")), float(body.get("seconds", 0))
    )
    return message.to_json()


async def _tap(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    query = bot.tap(
        _int(body, "user_id"),
        (_int(body, "chat_id"), _int(body, "message_id")),
        body.get("data"),
        text=body.get("text"),
    )
    return query.to_json()


async def _messages(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    """A chat's messages (of one forum topic with ``message_thread_id``; 1 is General)."""
    topic = _optional_int(body, "message_thread_id")
    return [m.to_json() for m in bot.messages(_int(body, "chat_id"), topic=topic)]


async def _answers(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    return [q.to_json() for q in bot.callback_answers]


async def _stats(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    return {
        "calls": dict(bot.calls),
        "flood": {
            "enabled": bot.flood.enabled,
            "refusals": bot.flood.refusals,
            "violations": [vars(v) for v in bot.flood.violations],
        },
        "pending_updates": len(bot.updates.pending),
        "webhook": bot.updates.webhook_info(),
        "internal_errors": bot.internal_errors,
        "refused_calls": bot.refused_calls,
    }


async def _flood(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    bot.flood.enabled = bool(body.get("enabled", True))
    fields = {name: body[name] for name in FloodLimits.__dataclass_fields__ if name in body}
    if fields:
        bot.flood.limits = FloodLimits(**{**vars(bot.flood.limits), **fields})
    return {"enabled": bot.flood.enabled, "limits": vars(bot.flood.limits)}


async def _clock(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    """Move Telegram's clock on by ``advance`` seconds; answers the emulator's time now."""
    bot.advance_clock(float(body.get("advance", 0)))
    return {"now": bot.network.now(), "offset": bot.network.clock_offset}


async def _settings(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    """``callback_answer_window``: the seconds after a tap in which it may be answered."""
    if "callback_answer_window" in body:
        bot.callback_answer_window = float(body["callback_answer_window"])
    return {"callback_answer_window": bot.callback_answer_window}


async def _events(bot: EmulatedBot, body: dict[str, Any]) -> Any:
    """Journal entries after ``after``; waits up to ``timeout`` seconds for one if there are none yet."""
    after = int(body.get("after", 0))
    timeout = min(float(body.get("timeout", 0)), MAX_EVENT_WAIT)
    if not bot.journal.since(after) and timeout > 0:
        await bot.journal.changed(timeout)
    return {"events": bot.journal.since(after), "last_seq": bot.journal.last_seq}
