"""Webhook mode: the emulator POSTs each update to the registered URL, as Telegram does."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiohttp import web
from telegram import Bot, Update
from telegram.error import Conflict
from telegram.ext import Application, CommandHandler, ContextTypes

from emulator import TelegramEmulator

SECRET = "table-secret_42"


@dataclass
class Receiver:
    """A tiny webhook endpoint that records what it is sent and answers as told."""

    url: str = ""
    received: list[tuple[dict[str, str], dict[str, Any]]] = field(default_factory=list)
    status: int = 200
    reply: dict[str, Any] | None = None

    async def handle(self, request: web.Request) -> web.Response:
        self.received.append((dict(request.headers), await request.json()))
        if self.reply is not None:
            return web.json_response(self.reply, status=self.status)
        return web.Response(status=self.status)


@pytest.fixture
async def receiver() -> AsyncIterator[Receiver]:
    found = Receiver()
    app = web.Application()
    app.router.add_post("/hook", found.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    found.url = f"http://{host}:{port}/hook"
    yield found
    await runner.cleanup()


async def test_updates_are_posted_with_the_secret_header(
    emulated_bot: Bot, emulator: TelegramEmulator, receiver: Receiver
) -> None:
    assert await emulated_bot.set_webhook(receiver.url, secret_token=SECRET)
    alice = emulator.create_user("Alice")
    start = emulator.start_bot(alice, payload="abc")

    await emulator.wait_for(lambda: receiver.received, description="a webhook delivery")

    headers, update = receiver.received[0]
    assert headers["X-Telegram-Bot-Api-Secret-Token"] == SECRET
    assert update["message"]["text"] == "/start abc"
    assert update["message"]["message_id"] == start.message_id
    info = await emulated_bot.get_webhook_info()
    assert (info.url, info.pending_update_count) == (receiver.url, 0)
    with pytest.raises(Conflict, match="webhook is active"):
        await emulated_bot.get_updates()


async def test_failed_delivery_is_reported_and_retried(
    emulated_bot: Bot, emulator: TelegramEmulator, receiver: Receiver
) -> None:
    receiver.status = 500
    await emulated_bot.set_webhook(receiver.url)
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)

    await emulator.wait_for(lambda: emulator.updates.webhook_info().get("last_error_message"))
    info = await emulated_bot.get_webhook_info()
    assert info.last_error_message == "Wrong response from the webhook: 500 Internal Server Error"
    assert info.pending_update_count == 1

    receiver.status = 200
    await emulator.wait_for(lambda: not emulator.updates.pending, description="the update redelivered")
    assert len(receiver.received) >= 2
    assert {u["update_id"] for _, u in receiver.received} == {receiver.received[0][1]["update_id"]}


async def test_deleting_the_webhook_returns_to_polling(
    emulated_bot: Bot, emulator: TelegramEmulator, receiver: Receiver
) -> None:
    receiver.status = 500
    await emulated_bot.set_webhook(receiver.url)
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice)
    await emulator.wait_for(lambda: receiver.received)

    await emulated_bot.delete_webhook()
    updates = await emulated_bot.get_updates(timeout=0)

    assert [u.message.text for u in updates if u.message] == ["/start"]
    assert (await emulated_bot.get_webhook_info()).url == ""


async def test_a_method_in_the_webhook_answer_is_executed(
    emulated_bot: Bot, emulator: TelegramEmulator, receiver: Receiver
) -> None:
    alice = emulator.create_user("Alice")
    receiver.reply = {"method": "sendMessage", "chat_id": alice.id, "text": "answered in the webhook reply"}
    await emulated_bot.set_webhook(receiver.url)
    emulator.start_bot(alice)

    reply = await emulator.wait_for_bot_message(alice)

    assert reply.text == "answered in the webhook reply"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def greet(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text("hello from a webhook bot")


async def test_ptb_application_in_webhook_mode(emulator: TelegramEmulator) -> None:
    app = Application.builder().token(emulator.token).base_url(emulator.api_base_url).build()
    app.add_handler(CommandHandler("start", greet))
    port = free_port()
    async with app:
        await app.start()
        assert app.updater is not None
        # PTB's webhook server answers 403 to a request without the right secret header.
        await app.updater.start_webhook(
            listen="127.0.0.1",
            port=port,
            url_path="tg",
            webhook_url=f"http://127.0.0.1:{port}/tg",
            secret_token=SECRET,
        )
        try:
            alice = emulator.create_user("Alice")
            emulator.start_bot(alice)
            reply = await emulator.wait_for_bot_message(alice)
        finally:
            await app.updater.stop()
            await app.stop()

    assert reply.text == "hello from a webhook bot"
    assert emulator.calls["setWebhook"] == 1
    assert emulator.updates.webhook is not None and emulator.updates.webhook.last_error_message is None
