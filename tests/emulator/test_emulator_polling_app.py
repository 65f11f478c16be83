"""A real PTB ``Application`` polling the emulator: updates flow from users to handlers and back."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from emulator import TelegramEmulator


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text(f"echo: {update.effective_message.text}", do_quote=True)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    payload = context.args[0] if context.args else "none"
    await update.effective_message.reply_text(
        f"started with {payload}",
        reply_markup=InlineKeyboardMarkup([[InlineKeyboardButton("Join", callback_data=f"join:{payload}")]]),
    )


async def join(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None and query.data is not None
    await query.answer(f"joined {query.data.removeprefix('join:')}", show_alert=True)
    await query.edit_message_text("You are in")


async def table(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_chat is not None
    await context.bot.send_message(update.effective_chat.id, "table opened")


@pytest.fixture
async def polling_app(emulator: TelegramEmulator) -> AsyncIterator[Application]:
    app = (
        Application.builder()
        .token(emulator.token)
        .base_url(emulator.api_base_url)
        .base_file_url(emulator.file_base_url)
        .build()
    )
    app.add_handler(CommandHandler("start", start))
    app.add_handler(CommandHandler("newtable", table))
    app.add_handler(CallbackQueryHandler(join, pattern=r"^join:"))
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=10)
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()


async def test_echo_round_trip(polling_app: Application, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    greeting = emulator.start_bot(alice)
    first = await emulator.wait_for_bot_message(alice, after=greeting)
    said = emulator.user_sends(alice, alice, "hello, table")

    reply = await emulator.wait_for_bot_message(alice, after=said)

    assert first.text == "started with none"
    assert reply.text == "echo: hello, table"
    assert reply.reply_to_message_id == said.message_id
    assert emulator.calls["deleteWebhook"] == 1  # PTB clears any webhook before polling


async def test_deep_link_button_tap_answer_and_edit(
    polling_app: Application, emulator: TelegramEmulator
) -> None:
    alice = emulator.create_user("Alice")
    emulator.start_bot(alice, payload="table-42")
    invitation = await emulator.wait_for_bot_message(alice, contains="table-42")

    query = emulator.tap(alice, invitation, "join:table-42")
    answered = await emulator.wait_for_answer(query)
    await emulator.wait_for(lambda: invitation.text == "You are in", description="the invitation edited")

    assert (answered.answer_text, answered.show_alert) == ("joined table-42", True)
    assert invitation.buttons == []  # the edit did not resend the keyboard
    assert [revision.text for revision in invitation.history] == ["started with table-42", "You are in"]


async def test_group_privacy_mode_hides_chatter_but_not_commands(
    polling_app: Application, emulator: TelegramEmulator
) -> None:
    alice, bob = emulator.create_user("Alice"), emulator.create_user("Bob")
    group = emulator.create_group("Table", [alice, bob])
    emulator.user_sends(bob, group, "anyone up for a game?")
    command = emulator.user_sends(alice, group, "/newtable@gouji_test_bot")

    opened = await emulator.wait_for_bot_message(group, after=command)

    assert opened.text == "table opened"
    # The chatter came first; had the bot seen it, its echo would be the first bot message.
    assert [m.text for m in emulator.bot_messages(group)] == ["table opened"]
