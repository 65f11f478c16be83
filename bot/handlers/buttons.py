"""Inline buttons: the lobby's and a round's end in the group, the hand composer and the moves in private.
The button data is decoded once (:mod:`bot.codec`); a stale, forged or foreign button is refused."""

from __future__ import annotations

import contextlib

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from table import (
    CLOSED,
    LOBBY,
    AlreadyProcessed,
    IllegalMove,
    RoundInProgress,
    StaleVersion,
    Table,
    TableError,
    TableNotFound,
)

from .. import codec, render
from ..i18n import t
from ..keyboards import hand_keyboard
from .common import desk, reply, user_language
from .group import add_computers, begin, leave, seat_user, stop
from .private import act, refusal
from .settings import on_setting


async def on_callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    assert query is not None
    lang = await user_language(context, update)
    try:
        button = codec.decode(query.data)
    except codec.BadButton:
        await query.answer(t(lang, "That button is out of date."))
        return
    if isinstance(button, codec.Setting):
        await on_setting(update, context, button)
        return
    service = desk(context).service
    if isinstance(button, codec.Act) and await _act_at_once(update, context, button, lang):
        return
    try:
        table = await service.load(button.table_id)
    except TableNotFound:
        table = None
    if table is None or table.status == CLOSED:
        await query.answer(t(lang, "That table is closed."))
        return
    chat = update.effective_chat
    if isinstance(button, codec.Lobby):
        if chat is None or chat.id != table.group_id:
            await query.answer(t(lang, "That button is out of date."))
            return
        await on_lobby(update, context, table, button)
        return
    user = update.effective_user
    assert user is not None
    seat = table.seat_of(user.id)
    if seat is None or chat is None or chat.id != user.id:
        await query.answer(t(lang, "You are not seated at this table."), show_alert=True)
        return
    if seat.autoplay:
        outcomes = await service.back(user.id, table.id)
        await query.answer(t(lang, "Welcome back: you play your own cards again."))
        await desk(context).after_all(outcomes)
        return
    match = table.match
    if match is None or table.version != button.version or match.current_player != seat.n:
        await query.answer(t(lang, "That button is out of date."))
        if query.message is not None:
            with contextlib.suppress(TelegramError):
                await query.edit_message_reply_markup(None)
        return
    if isinstance(button, codec.Compose):
        if any(s > h for s, h in zip(button.selection, match.hand(seat.n), strict=True)):
            await query.answer(t(lang, "That button is out of date."))
            return
        await query.answer()
        text = render.hand_text(lang, table, seat.n, selection=button.selection, your_turn=True)
        with contextlib.suppress(TelegramError):
            await query.edit_message_text(
                text, reply_markup=hand_keyboard(lang, table, seat.n, button.selection)
            )
        return
    if isinstance(button, codec.Hint):
        try:
            hint = await service.hint(table.id, user.id, button.version)
        except TableError:
            await query.answer(t(lang, "That button is out of date."))
            return
        await query.answer(t(lang, "Hint: {action}", action=render.action_label(lang, hint)), show_alert=True)
        return
    tapped = query.message.message_id if query.message is not None else None
    outcome, refused = await act(context, update, table, button.action, button.version, lang, tapped)
    if refused is not None:
        await query.answer(refused, show_alert=True)
        return
    # A redelivered update may have been answered already by the delivery that applied it.
    with contextlib.suppress(TelegramError):
        await query.answer()
    await desk(context).after(outcome)


async def _act_at_once(
    update: Update, context: ContextTypes.DEFAULT_TYPE, button: codec.Act, lang: str
) -> bool:
    """A move tapped in private goes straight to the use case, which checks seat, version and turn itself:
    reading the table first as well was a second read per tap (benches.load, cProfile). Whether the tap was
    handled; a refusal is looked at again below (a seat on 托管 comes back, an old keyboard goes)."""
    query, user, chat = update.callback_query, update.effective_user, update.effective_chat
    assert query is not None and user is not None
    if chat is None or chat.id != user.id:
        return False
    tapped = query.message.message_id if query.message is not None else None
    try:
        outcome = await desk(context).service.act(
            button.table_id,
            user.id,
            button.action,
            version=button.version,
            update_id=update.update_id,
            from_message=tapped,
        )
    except AlreadyProcessed:
        # A redelivery: the move stands. It is answered again, since the first delivery may have died
        # between its commit and its answer (what it would have shown comes from the restart's resume).
        with contextlib.suppress(TelegramError):
            await query.answer()
        return True
    except IllegalMove as e:
        await query.answer(refusal(lang, e), show_alert=True)
        return True
    except TableError:
        return False
    # A redelivered update may have been answered already by the delivery that applied it.
    with contextlib.suppress(TelegramError):
        await query.answer()
    await desk(context).after(outcome)
    return True


async def on_lobby(
    update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table, button: codec.Lobby
) -> None:
    query = update.callback_query
    user = update.effective_user
    assert query is not None and user is not None
    lang = table.group.language
    service = desk(context).service
    if button.what in ("next", "stop"):
        if table.seat_of(user.id) is None:
            await query.answer(t(lang, "You are not seated at this table."), show_alert=True)
            return
        # A round's end is drawn for its version: an old summary's buttons do nothing to the match now.
        if table.version != button.version or table.match is None or not table.match.round_over:
            await query.answer(t(lang, "That button is out of date."))
            return
        await query.answer()
        if button.what == "stop":
            await stop(context, update, table, version=button.version)
            return
        try:
            outcome = await service.next_round(table.id, user.id, button.version)
        except (StaleVersion, RoundInProgress):
            return
        await desk(context).after(outcome)
        return
    if table.status != LOBBY:
        await query.answer(t(lang, "That button is out of date."))
        return
    if table.message_id is None and query.message is not None:
        # Tapped before the bot had stored the lobby's id (Telegram's answer with it was still on its way):
        # this is the lobby message, to be edited, not posted a second time.
        await service.table_message_posted(table.id, query.message.message_id)
    if button.what == "join":
        refused = await seat_user(context, update, table.id, button.seat)
        if refused is None:
            await query.answer(t(lang, "You are seated."))
        else:
            await query.answer()
            await reply(update, *refused)
        return
    await query.answer()
    if button.what == "leave":
        await leave(context, update, table)
    elif button.what == "bots":
        await add_computers(context, update, table)
    elif button.what == "begin":
        await begin(context, update, table)


__all__ = ["on_callback", "refusal"]
