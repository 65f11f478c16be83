"""The control API over HTTP (JSON in, JSON out) under /_emu/, for a web page to drive the emulator.

Answers are ``{"ok": true, "result": ...}``, or ``{"ok": false, "error": "..."}`` with status 400
when the action is impossible (unknown user, tapping a button that is not there, ...).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .flood import FloodLimits
from .state import EmulatorError

if TYPE_CHECKING:
    from .server import TelegramEmulator

Action = Callable[["TelegramEmulator", dict[str, Any]], Awaitable[Any]]
MAX_EVENT_WAIT = 60.0


def _ok(result: Any) -> web.Response:
    return web.json_response({"ok": True, "result": result}, dumps=_dumps)


def _dumps(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False)


def _int(body: dict[str, Any], name: str) -> int:
    try:
        return int(body[name])
    except (KeyError, TypeError, ValueError):
        raise EmulatorError(f"{name} (an integer) is required") from None


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
                return _ok(await action(emu, body))
            except EmulatorError as error:
                return web.json_response({"ok": False, "error": str(error)}, status=400)

        app.router.add_route(method, f"/_emu/{path}", handle)

    route("GET", "state", _state)
    route("POST", "users", _create_user)
    route("POST", "groups", _create_group)
    route("POST", "groups/{chat_id}/members", _add_member)
    route("POST", "groups/{chat_id}/migrate", _migrate)
    route("POST", "groups/{chat_id}/kick_bot", _kick_bot)
    route("POST", "users/{user_id}/start", _start)
    route("POST", "users/{user_id}/block", _block)
    route("POST", "messages", _send)
    route("POST", "tap", _tap)
    route("GET", "chats/{chat_id}/messages", _messages)
    route("GET", "callback_answers", _answers)
    route("GET", "stats", _stats)
    route("POST", "flood", _flood)
    route("GET", "events", _events)


async def _state(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    return emu.world.summary()


async def _create_user(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    user = emu.create_user(
        str(body.get("first_name", "User")),
        language_code=body.get("language_code", "en"),
        username=body.get("username"),
        last_name=body.get("last_name"),
    )
    return user.summary()


async def _create_group(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    members = [int(uid) for uid in body.get("member_ids", [])]
    chat = emu.create_group(
        str(body.get("title", "Group")),
        members,
        admins=[int(uid) for uid in body.get("admin_ids", [])],
        bot_is_admin=bool(body.get("bot_is_admin", False)),
        supergroup=bool(body.get("supergroup", False)),
        announce=bool(body.get("announce", True)),
    )
    return emu.world.chat_to_api(chat)


async def _add_member(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    return emu.add_member(_int(body, "chat_id"), _int(body, "user_id")).to_json()


async def _migrate(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    return emu.world.chat_to_api(emu.migrate_to_supergroup(_int(body, "chat_id")))


async def _kick_bot(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    emu.kick_bot(_int(body, "chat_id"))
    return True


async def _start(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    return emu.start_bot(_int(body, "user_id"), body.get("payload") or None).to_json()


async def _block(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    emu.block_bot(_int(body, "user_id"))
    return True


async def _send(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    reply_to = body.get("reply_to_message_id")
    message = emu.user_sends(
        _int(body, "user_id"),
        _int(body, "chat_id"),
        str(body.get("text", "")),
        reply_to=int(reply_to) if reply_to is not None else None,
    )
    return message.to_json()


async def _tap(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    query = emu.tap(
        _int(body, "user_id"),
        (_int(body, "chat_id"), _int(body, "message_id")),
        body.get("data"),
        text=body.get("text"),
    )
    return query.to_json()


async def _messages(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    return [m.to_json() for m in emu.messages(_int(body, "chat_id"))]


async def _answers(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    return [q.to_json() for q in emu.callback_answers]


async def _stats(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    return {
        "calls": dict(emu.calls),
        "flood": {
            "enabled": emu.flood.enabled,
            "refusals": emu.flood.refusals,
            "violations": [vars(v) for v in emu.flood.violations],
        },
        "pending_updates": len(emu.updates.pending),
        "webhook": emu.updates.webhook_info(),
        "internal_errors": emu.internal_errors,
    }


async def _flood(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    emu.flood.enabled = bool(body.get("enabled", True))
    fields = {name: body[name] for name in FloodLimits.__dataclass_fields__ if name in body}
    if fields:
        emu.flood.limits = FloodLimits(**{**vars(emu.flood.limits), **fields})
    return {"enabled": emu.flood.enabled, "limits": vars(emu.flood.limits)}


async def _events(emu: TelegramEmulator, body: dict[str, Any]) -> Any:
    """Journal entries after ``after``; waits up to ``timeout`` seconds for one if there are none yet."""
    after = int(body.get("after", 0))
    timeout = min(float(body.get("timeout", 0)), MAX_EVENT_WAIT)
    if not emu.journal.since(after) and timeout > 0:
        await emu.journal.changed(timeout)
    return {"events": emu.journal.since(after), "last_seq": emu.journal.last_seq}
