"""What the handlers share: the group an update came from, short answers, the admin check, the handler types,
and the error handler that keeps tracebacks away from users (a table error that reaches it is worded as a
refusal, anything else as a failure to try again)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, TelegramError
from telegram.ext import ApplicationHandlerStop

from table import AlreadyProcessed, Group, TableError

from ..i18n import t
from ..where import where
from .context import CustomContext
from .refusals import refusal

log = logging.getLogger(__name__)

# What PTB calls with an update (a coroutine function: CommandHandler and the others ask for one).
Handler = Callable[[Update, CustomContext], Coroutine[Any, Any, None]]


async def this_group(context: CustomContext, update: Update) -> Group:
    """The group the update came from, its title kept current."""
    chat = update.effective_chat
    assert chat is not None
    return await context.desk.service.deliveries.see_group(chat.id, chat.title)


def in_private(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type == ChatType.PRIVATE


async def reply(
    context: CustomContext, update: Update, text: str, markup: InlineKeyboardMarkup | None = None
) -> None:
    """An answer in the chat the update came from, at that chat's pace (through the outbox). Silent: the one
    who asked is looking, and in a group the others need not be rung for it."""
    chat = update.effective_chat
    if chat is not None:
        thread = thread_of(update)
        extra = {"message_thread_id": thread} if thread else {}
        context.desk.outbox.send(chat.id, text, markup, silent=True, **extra)


def thread_of(update: Update) -> int:
    """The forum topic the update came from (0: a group without topics, its General topic, a private chat)."""
    message = update.effective_message
    if message is None or not message.is_topic_message or message.message_thread_id is None:
        return 0
    return message.message_thread_id


def topic_of(update: Update) -> str | None:
    """The name of that topic, as Telegram tells it with every message in it (the topic's first message)."""
    message = update.effective_message
    replied = message.reply_to_message if message is not None and message.is_topic_message else None
    created = replied.forum_topic_created if replied is not None else None
    return created.name if created is not None else None


# Telegram's stand-in for a group admin who posts as the group (anonymous admin).
ANONYMOUS_ADMIN = 1087968824


def anonymous_admin(update: Update) -> bool:
    """A message the group itself sent: an admin of it posting anonymously."""
    message, chat = update.effective_message, update.effective_chat
    return bool(message and chat and message.sender_chat and message.sender_chat.id == chat.id)


async def is_admin(update: Update, context: CustomContext) -> bool:
    """A group admin or owner (Telegram's word; asked only when it matters)."""
    user, chat = update.effective_user, update.effective_chat
    if anonymous_admin(update):
        return True  # what an admin may do, he may do anonymously
    if user is None or chat is None:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def hosted_elsewhere(context: CustomContext, group: Group, host: int | None) -> str | None:
    """What a command about the topic's table is told when another bot of the fleet hosts that table (None:
    this bot hosts it, or none is open): that bot's name, so the command goes to it. Only that bot can show
    the table and deal the cards (its messages are its own), and one table per topic is all a group has."""
    if host is None or host == context.desk.service.bot_id:
        return None
    try:
        other = (await context.bot.get_chat_member(group.id, host)).user
    except TelegramError:
        return t(group.language, "Another bot hosts the table here: send your commands to it.")
    name = f"@{other.username}" if other.username else other.first_name
    return t(group.language, "{bot} hosts the table here: send your commands to {bot}.", bot=name)


async def on_error(update: object, context: CustomContext) -> None:
    # Log the kind of failure only: texts and hands stay out of the logs. No traceback reaches a user.
    err = context.error
    if isinstance(err, BadRequest) and "query is too old" in str(err).lower():
        # An answer to a tap came after Telegram stopped waiting for it (a slow moment, or the same update
        # delivered to a second worker): the tap itself was handled; the player only missed the little
        # confirmation. (PTB capitalises Telegram's message, hence lower().)
        log.info("a tap was answered too late")
        return
    if isinstance(err, AlreadyProcessed):
        return  # a redelivered update: what it did stands, and was said the first time
    if isinstance(err, TableError):
        # A refusal no handler words itself (the table changed between a handler's read and its use case).
        log.info("a use case refused: %s", type(err).__name__)
        text = refusal(context.language, err)
    else:
        log.error(
            "error handling an update: %s at %s",
            type(err).__name__,
            where(err),
            exc_info=err if log.isEnabledFor(logging.DEBUG) else None,
        )
        text = t(context.language, "Something went wrong; please try again.")
    if not isinstance(update, Update):
        return
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(text)
        elif update.effective_message is not None and update.effective_chat is not None:
            await update.effective_message.reply_text(text, do_quote=False)
    except TelegramError:
        pass
    # The update is answered: if the chores before the handlers failed, the handler does not run as well
    # (one answer, not two).
    raise ApplicationHandlerStop
