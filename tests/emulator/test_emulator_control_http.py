"""The /_emu/ control routes a web page uses to play the users' side."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from emulator import TelegramEmulator


class Control:
    def __init__(self, http: aiohttp.ClientSession, base: str) -> None:
        self.http, self.base = http, base

    async def call(
        self, method: str, path: str, body: dict[str, Any] | None = None, status: int = 200
    ) -> Any:
        async with self.http.request(method, f"{self.base}/_emu/{path}", json=body) as response:
            payload = await response.json()
            assert response.status == status, payload
            return payload["result"] if payload["ok"] else payload["error"]


@pytest.fixture
async def control(emulator: TelegramEmulator) -> AsyncIterator[Control]:
    async with aiohttp.ClientSession() as http:
        yield Control(http, emulator.base_url)


async def test_a_page_can_play_a_whole_exchange(
    control: Control, emulator: TelegramEmulator, emulated_bot: Bot
) -> None:
    alice = await control.call("POST", "users", {"first_name": "Alice", "language_code": "zh"})
    bob = await control.call("POST", "users", {"first_name": "Bob"})
    group = await control.call("POST", "groups", {"title": "Table", "member_ids": [alice["id"], bob["id"]]})
    start = await control.call("POST", f"users/{alice['id']}/start", {"payload": "t1"})
    assert start["text"] == "/start t1"

    sent = await emulated_bot.send_message(
        alice["id"],
        "Join?",
        reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Yes", callback_data="y")]]),
    )
    query = await control.call(
        "POST",
        "tap",
        {"user_id": alice["id"], "chat_id": alice["id"], "message_id": sent.message_id, "text": "Yes"},
    )
    await emulated_bot.answer_callback_query(query["id"], "Welcome")
    await control.call("POST", "messages", {"user_id": bob["id"], "chat_id": group["id"], "text": "/newgame"})

    messages = await control.call("GET", f"chats/{alice['id']}/messages")
    answers = await control.call("GET", "callback_answers")
    stats = await control.call("GET", "stats")
    state = await control.call("GET", "state")

    assert [m["text"] for m in messages] == ["/start t1", "Join?"]
    assert messages[1]["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "y"
    assert [(a["data"], a["text"]) for a in answers] == [("y", "Welcome")]
    assert stats["calls"]["answerCallbackQuery"] == 1
    assert {u["first_name"]: u["started_bot"] for u in state["users"]} == {"Alice": True, "Bob": False}
    updates = await emulated_bot.get_updates()
    kinds = [
        u.callback_query.data if u.callback_query else u.message.text if u.message else None for u in updates
    ]
    assert "y" in kinds and "/newgame" in kinds and "/start t1" in kinds


async def test_impossible_actions_are_refused_with_a_reason(control: Control) -> None:
    alice = await control.call("POST", "users", {"first_name": "Alice"})
    error = await control.call(
        "POST", "messages", {"user_id": alice["id"], "chat_id": alice["id"], "text": "hi"}, 400
    )
    assert "has not started the bot" in error
    assert "required" in await control.call("POST", "messages", {"text": "hi"}, 400)


async def test_migration_and_block_over_http(control: Control, emulated_bot: Bot) -> None:
    alice = await control.call("POST", "users", {"first_name": "Alice"})
    group = await control.call("POST", "groups", {"title": "Table", "member_ids": [alice["id"]]})
    supergroup = await control.call("POST", f"groups/{group['id']}/migrate")
    await control.call("POST", f"users/{alice['id']}/start")
    await control.call("POST", f"users/{alice['id']}/block")

    state = await control.call("GET", "state")

    assert supergroup["type"] == "supergroup"
    old = next(c for c in state["chats"] if c["id"] == group["id"])
    assert old["migrated_to"] == supergroup["id"]
    assert next(u for u in state["users"] if u["id"] == alice["id"])["blocked_bot"] is True


async def test_events_long_poll_wakes_when_something_happens(
    control: Control, emulator: TelegramEmulator
) -> None:
    seen = (await control.call("GET", "events"))["last_seq"]
    waiting = asyncio.create_task(control.call("GET", f"events?after={seen}&timeout=30"))
    await asyncio.sleep(0.05)
    assert not waiting.done()

    emulator.create_user("Carol")

    # Far below the 30 s the page asked to wait: the poll ended because something happened.
    result = await asyncio.wait_for(waiting, 5)
    assert [e["kind"] for e in result["events"]] == ["user_created"]
    assert result["events"][0]["user"]["first_name"] == "Carol"


async def test_flood_limits_switch_over_http(control: Control, emulator: TelegramEmulator) -> None:
    answer = await control.call("POST", "flood", {"enabled": True, "group_messages": 5})
    assert answer["enabled"] and answer["limits"]["group_messages"] == 5
    assert emulator.flood.enabled and emulator.flood.limits.group_messages == 5
    await control.call("POST", "flood", {"enabled": False})
    assert not emulator.flood.enabled


async def test_forums_members_and_the_bots_status_over_http(
    control: Control, emulator: TelegramEmulator, emulated_bot: Bot
) -> None:
    alice = await control.call("POST", "users", {"first_name": "Alice"})
    bob = await control.call("POST", "users", {"first_name": "Bob"})
    forum = await control.call(
        "POST",
        "groups",
        {"title": "Club", "member_ids": [alice["id"], bob["id"]], "admin_ids": [bob["id"]], "forum": True},
    )
    topic = await control.call(
        "POST", f"groups/{forum['id']}/topics", {"name": "Tables", "user_id": bob["id"]}
    )
    thread = topic["message_thread_id"]
    await control.call(
        "POST",
        "messages",
        {"user_id": alice["id"], "chat_id": forum["id"], "text": "/new", "message_thread_id": thread},
    )
    anonymous = await control.call(
        "POST", "messages", {"user_id": bob["id"], "chat_id": forum["id"], "text": "/stop", "anonymous": True}
    )
    in_topic = await control.call("GET", f"chats/{forum['id']}/messages?message_thread_id={thread}")
    statuses = [
        await control.call("POST", f"groups/{forum['id']}/bot", {"status": status})
        for status in ("restricted", "member", "kicked", "administrator", "left")
    ]
    left = await control.call("DELETE", f"groups/{forum['id']}/members/{alice['id']}")
    topics = await control.call("GET", f"groups/{forum['id']}/topics")

    assert forum["is_forum"] and [t["name"] for t in topics] == ["Tables"]
    assert [m["text"] for m in in_topic] == [None, "/new"]  # the topic's creation, then Alice
    assert anonymous["sender_chat_id"] == forum["id"] and anonymous["message_thread_id"] is None
    assert statuses == ["restricted", "member", "kicked", "administrator", "left"]
    assert left["service"]["left_chat_member"]["id"] == alice["id"]
    assert "status is one of" in await control.call(
        "POST", f"groups/{forum['id']}/bot", {"status": "owner"}, 400
    )


async def test_time_over_http(control: Control, emulator: TelegramEmulator, emulated_bot: Bot) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    sent = await emulated_bot.send_message(alice.id, "old")

    aged = await control.call(
        "POST", "messages/age", {"chat_id": alice.id, "message_id": sent.message_id, "seconds": 172800}
    )
    clock = await control.call("POST", "clock", {"advance": 60})
    settings = await control.call("POST", "settings", {"callback_answer_window": 2.5})

    assert aged["date"] == int(sent.date.timestamp()) - 172800
    assert (
        clock["offset"] == 60 and emulator.callback_answer_window == settings["callback_answer_window"] == 2.5
    )
