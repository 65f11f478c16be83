"""Inline buttons: the lobby's and a round's end in the group, the hand composer and the moves in private.
The button data is decoded once (:mod:`bot.codec`); a stale, forged or foreign button is refused. Every tap is
answered first, with the news where it fits in the answer (a refusal, a hint)."""

from __future__ import annotations

import contextlib
import functools
import json

from telegram import Update
from telegram.error import TelegramError

from table import (
    CLOSED,
    LOBBY,
    AlreadyProcessed,
    IllegalMove,
    NotAllowed,
    Outcome,
    Table,
    TableError,
    TableNotFound,
)

from .. import codec
from ..i18n import t
from ..keyboards import hand_keyboard, stop_keyboard
from ..texts.player import action_label, hand_text, turn_text
from ..texts.words import reader_language
from .common import is_admin
from .context import CustomContext
from .group import add_computers, begin, leave, seat_user, stop
from .private import on_zone
from .refusals import refusal
from .settings import on_setting

OUT_OF_DATE = "That button is out of date."
ALERT_MAX = 200  # the characters of a callback answer's text (Bot API, answerCallbackQuery)


async def on_callback(update: Update, context: CustomContext) -> None:
    query = update.callback_query
    assert query is not None
    lang = context.language
    try:
        button = codec.decode(query.data)
    except codec.BadButton:
        await query.answer(t(lang, OUT_OF_DATE))
        return
    if isinstance(button, codec.Setting):
        await on_setting(update, context, button)
        return
    if isinstance(button, codec.Zone):
        await on_zone(update, context, button)
        return
    desk = context.desk
    service = desk.service
    if isinstance(button, codec.Act) and await _act_at_once(update, context, button):
        return
    if isinstance(button, codec.ShowHand):
        await _show_hand(update, context, button.table_id)
        return
    try:
        # A composer tap redraws the turn message, deadline included.
        table: Table | None = await service.reads.load(
            button.table_id, with_due=isinstance(button, codec.Compose)
        )
    except TableNotFound:
        table = None
    if table is None or table.status == CLOSED:
        await query.answer(t(lang, "That table is closed."))
        _drop_buttons(context, update)
        return
    chat = update.effective_chat
    if isinstance(button, codec.Lobby):
        if chat is None or chat.id != table.group_id:
            await query.answer(t(lang, OUT_OF_DATE))
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
        outcomes = await service.lobby.back(user.id, table.id)
        await query.answer(t(lang, "Welcome back: you play your own cards again."))
        await desk.after_all(outcomes)
        return
    match = table.match
    if match is None or seat.n not in match.asked or not _drawn_for_now(table, seat.n, button):
        await query.answer(t(lang, OUT_OF_DATE))
        _drop_buttons(context, update)
        return
    if isinstance(button, codec.Compose):
        if any(s > h for s, h in zip(button.selection, match.hand(seat.n), strict=True)):
            await query.answer(t(lang, OUT_OF_DATE))
            return
        await query.answer()
        if query.message is not None:
            desk.outbox.edit(
                user.id,
                query.message.message_id,
                turn_text(lang, table, seat.n, desk.clock(), selection=button.selection),
                hand_keyboard(lang, table, seat.n, button.selection),
                # A composer redraw that waits for his chat's pace goes only if the turn is still his then.
                still=functools.partial(service.reads.still_asks, table, seat.n),
            )
        return
    if isinstance(button, codec.Hint):
        try:
            hint = await service.reads.hint(table.id, user.id, button.version)
        except TableError as e:
            await query.answer(refusal(lang, e, "hint"))
            return
        await query.answer(t(lang, "Hint: {action}", action=action_label(lang, hint)), show_alert=True)
        return
    # A move the use case refused for this table's state (the checks above let it through).
    await query.answer(t(lang, OUT_OF_DATE))


async def _show_hand(update: Update, context: CustomContext, table_id: int) -> None:
    """His cards as they are now, in the tap's answer (nothing new in the chat, no ring) when they fit in it,
    else in a message of their own."""
    query, user, chat = update.callback_query, update.effective_user, update.effective_chat
    assert query is not None and user is not None
    lang = context.language
    try:
        table: Table | None = await context.desk.service.reads.load(table_id, with_due=True)
    except TableNotFound:
        table = None
    if table is None or table.status == CLOSED or table.match is None:
        await query.answer(t(lang, "That table is closed."))
        _drop_buttons(context, update)
        return
    seat = table.seat_of(user.id)
    if seat is None or chat is None or chat.id != user.id:
        await query.answer(t(lang, "You are not seated at this table."), show_alert=True)
        return
    text = hand_text(reader_language(table, seat.n), table, seat.n, context.desk.clock())
    if len(text.encode("utf-16-le")) // 2 <= ALERT_MAX:  # Telegram counts UTF-16 units
        await query.answer(text, show_alert=True)
        return
    await query.answer()
    context.desk.outbox.send(user.id, text, silent=True)


def _drop_buttons(context: CustomContext, update: Update) -> None:
    """A message whose buttons are out of date keeps its text and loses them. Not when the tapped data is not
    among the message's buttons as the bot drew them: a modified client forged it, and the message may well
    be a live turn."""
    query, chat = update.callback_query, update.effective_chat
    if query is None or query.message is None or chat is None:
        return
    outbox = context.desk.outbox
    tapped = json.dumps(query.data or "")
    shown = outbox.shows(chat.id, query.message.message_id)
    if shown is not None and tapped not in shown[1]:
        return
    outbox.drop_keyboard(chat.id, query.message.message_id, tapped)


async def _act_at_once(update: Update, context: CustomContext, button: codec.Act) -> bool:
    """A move tapped in private goes straight to the use case, which checks seat, version and turn itself:
    reading the table first as well was a second read per tap (benches.load, cProfile). Whether the tap was
    handled; a refusal is looked at again by the caller (a seat on 托管 comes back, an old keyboard goes)."""
    query, user, chat = update.callback_query, update.effective_user, update.effective_chat
    assert query is not None and user is not None
    if chat is None or chat.id != user.id:
        return False
    tapped = query.message.message_id if query.message is not None else None
    try:
        outcome = await context.desk.service.play.act(
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
        await query.answer(refusal(context.language, e, "play"), show_alert=True)
        return True
    except TableError:
        return False
    # The answer carries the news of the tap itself: one call, no extra message.
    with contextlib.suppress(TelegramError):
        await query.answer("✓ " + action_label(context.language, button.action))
    await context.desk.after(outcome, tapped=tapped)
    return True


async def on_lobby(update: Update, context: CustomContext, table: Table, button: codec.Lobby) -> None:
    query = update.callback_query
    user = update.effective_user
    assert query is not None and user is not None
    lang = table.group.language
    desk = context.desk
    if button.what == "table":
        # The way back to a table that other messages pushed up (where the bot may not pin it): posted anew.
        await query.answer()
        fresh = await desk.service.reads.load(table.id, with_due=True)
        await desk.after(Outcome(table=fresh, repost=True))
        return
    if button.what in ("next", "stop", "stopok", "keep"):
        # A seated player, the table's creator or a group admin (asked of Telegram only when it matters).
        may = button.what == "keep" or table.seat_of(user.id) is not None or user.id == table.created_by
        admin = False
        if not may:
            admin = await is_admin(update, context)
        if not (may or admin):
            await query.answer(
                t(lang, "You are not seated at this table.")
                if button.what == "next"
                else refusal(lang, NotAllowed(table.id), "stop"),
                show_alert=True,
            )
            return
        # Drawn for their version: an old summary's or an old question's buttons do nothing to the match now.
        if table.version != button.version:
            await query.answer(t(lang, OUT_OF_DATE))
            _drop_buttons(context, update)
            return
        if button.what == "keep":
            await query.answer(t(lang, "The match goes on."))
            if query.message is not None:
                desk.outbox.delete(table.group_id, query.message.message_id)
            return
        if button.what == "stop":
            await query.answer()
            desk.presenter.teller.to_group(
                table,
                t(
                    lang,
                    "Stop the match and close the table for everyone? The final standings will be posted.",
                ),
                stop_keyboard(lang, table),
            )
            return
        if button.what == "stopok":
            refused = await stop(context, update, table, version=button.version)
            await query.answer(refused or t(lang, "The table is closed."), show_alert=refused is not None)
            if refused is None and query.message is not None:
                desk.outbox.delete(table.group_id, query.message.message_id)
            return
        if table.match is None or not table.match.round_over:
            await query.answer(t(lang, OUT_OF_DATE))
            return
        try:
            outcome = await desk.service.play.next_round(table.id, user.id, button.version, is_admin=admin)
        except TableError as e:
            await query.answer(refusal(lang, e, "next_round"))
            return
        await query.answer()
        await desk.after(outcome)
        return
    if table.status != LOBBY:
        await query.answer(t(lang, "The match has begun; wait for the next table."))
        return
    if table.message_id is None and query.message is not None:
        # Tapped before the bot had stored the lobby's id (Telegram's answer with it was still on its way):
        # this is the lobby message, to be edited, not posted a second time.
        await desk.service.deliveries.table_message_posted(table.id, query.message.message_id)
    if button.what == "join":
        not_seated = await seat_user(context, update, table.id, button.seat)
        if not_seated is None:
            await query.answer(t(lang, "You are seated."))
            return
        text, markup = not_seated
        if markup is None:
            await query.answer(text, show_alert=True)
        else:  # the deep link must be a button: a message in the group
            await query.answer()
            desk.presenter.teller.to_group(table, text, markup)
        return
    action = {"leave": leave, "bots": add_computers, "begin": begin}[button.what]
    refused = await action(context, update, table)
    if refused is not None:
        await query.answer(refused, show_alert=True)
    else:
        await query.answer()


__all__ = ["on_callback"]


def _drawn_for_now(table: Table, seat: int, button: codec.Act | codec.Compose | codec.Hint) -> bool:
    """A composer's or hint's button acts on the table as it was drawn for; before the first lead, while the
    seat is still asked to give back cards (还贡), the composer stays good whoever answered meanwhile."""
    if table.version == button.version:
        return True
    question = table.match.question(seat) if table.match is not None else None
    return isinstance(button, codec.Compose) and question is not None and question.kind == "return"
