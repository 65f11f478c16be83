"""What every handler shares: the desk, who the user is and which language he reads, short answers, the
admin check, and the error handler that keeps tracebacks away from users."""

from __future__ import annotations

import logging

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import ContextTypes

from table import Group

from ..desk import Desk
from ..i18n import DEFAULT_LANGUAGE, normalise, t
from ..where import where

log = logging.getLogger(__name__)


def desk(context: ContextTypes.DEFAULT_TYPE) -> Desk:
    return context.application.bot_data["desk"]


async def user_language(context: ContextTypes.DEFAULT_TYPE, update: Update) -> str:
    """The user's language, after keeping his name and language current for the tables. A user the bot could
    not write to who talks to it again gets his seats and hand back here."""
    user = update.effective_user
    if user is None:
        return DEFAULT_LANGUAGE
    d = desk(context)
    await d.service.see_user(user.id, user.full_name, user.language_code)
    await d.heard_from(user.id)
    return normalise(user.language_code)


async def this_group(context: ContextTypes.DEFAULT_TYPE, update: Update) -> Group:
    chat = update.effective_chat
    assert chat is not None
    return await desk(context).service.see_group(chat.id, chat.title)


def in_private(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type == ChatType.PRIVATE


async def reply(
    context: ContextTypes.DEFAULT_TYPE, update: Update, text: str, markup: InlineKeyboardMarkup | None = None
) -> None:
    """An answer in the chat the update came from, at that chat's pace (through the outbox)."""
    chat = update.effective_chat
    if chat is not None:
        desk(context).outbox.send(chat.id, text, markup)


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """A group admin or owner (Telegram's word; asked only when it matters)."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    # Log the kind of failure only: texts and hands stay out of the logs. No traceback reaches a user.
    err = context.error
    if isinstance(err, BadRequest) and "query is too old" in str(err).lower():
        # An answer to a tap came after Telegram stopped waiting for it (a slow moment, or the same update
        # delivered to a second worker): the tap itself was handled; the player only missed the little
        # confirmation. (PTB capitalises Telegram's message, hence lower().)
        log.info("a tap was answered too late")
        return
    log.error(
        "error handling an update: %s at %s",
        type(err).__name__,
        where(err),
        exc_info=err if log.isEnabledFor(logging.DEBUG) else None,
    )
    if isinstance(update, Update):
        lang = normalise(update.effective_user.language_code if update.effective_user else None)
        try:
            if update.callback_query is not None:
                await update.callback_query.answer(t(lang, "Something went wrong; please try again."))
            elif update.effective_message is not None and update.effective_chat is not None:
                await update.effective_message.reply_text(
                    t(lang, "Something went wrong; please try again."), do_quote=False
                )
        except TelegramError:
            pass
