"""What every update is handled with, where python-telegram-bot puts it (examples/contexttypesbot.py): the
context handed to each handler (:class:`CustomContext`: the desk, typed, and the language of the user who sent
the update) and the chores done for an update before any handler sees it (:func:`keep_user_current`, in group
-1): the user kept current for the tables, and given his seats back if the bot could not write to him."""

from __future__ import annotations

from typing import Any

from telegram import MessageEntity, Update
from telegram.constants import ChatType
from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot, JobQueue

from ..desk import Desk
from ..i18n import DEFAULT_LANGUAGE, normalise

DESK = "desk"  # the key of the desk in bot_data (bot/app.py's post_init puts it there)


def language_of(update: object) -> str:
    """The language the user who sent the update reads (his Telegram language; Chinese where it tells none)."""
    user = update.effective_user if isinstance(update, Update) else None
    return normalise(user.language_code if user is not None else None)


class CustomContext(CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]):
    """PTB's context with what the bot's handlers need: the desk, and the user's language."""

    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        chat_id: int | None = None,
        user_id: int | None = None,
    ) -> None:
        super().__init__(application=application, chat_id=chat_id, user_id=user_id)
        self._language = DEFAULT_LANGUAGE

    @classmethod
    def from_update(
        cls, update: object, application: Application[Any, Any, Any, Any, Any, Any]
    ) -> CustomContext:
        context = super().from_update(update, application)
        context._language = language_of(update)
        return context

    @property
    def desk(self) -> Desk:
        """What shows outcomes and reaches the table layer (built once, inside the event loop: bot/app.py)."""
        desk = self.bot_data.get(DESK)
        if not isinstance(desk, Desk):
            raise RuntimeError("no desk yet: updates are handled once post_init has built it")
        return desk

    @property
    def language(self) -> str:
        """The language of the user who sent the update: his private answers speak it."""
        return self._language


CONTEXT_TYPES = ContextTypes(context=CustomContext)
# The Application the bot runs: its handlers are called with a CustomContext, its jobs too.
GoujiApplication = Application[
    ExtBot[None], CustomContext, dict[Any, Any], dict[Any, Any], dict[Any, Any], JobQueue[CustomContext]
]


def talks_to_the_bot(update: Update, bot_username: str | None) -> bool:
    """A tap, anything in the private chat, or a command in a group that is not another bot's. Not the rest of
    a group's talk (a bot without privacy mode hears it all): a player the bot could not write to who chats
    in the group has not opened his private chat, and giving him his seat back would only have it taken
    again at the next message he cannot be sent."""
    if update.callback_query is not None:
        return True
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return False  # a member's status changed, a poll…: nothing he said to the bot
    if chat.type == ChatType.PRIVATE:
        return True
    entity = message.entities[0] if message.entities else None
    if entity is None or entity.type != MessageEntity.BOT_COMMAND or entity.offset != 0 or not message.text:
        return False
    _, at, addressee = message.text[: entity.length].partition("@")
    return not at or bot_username is None or addressee.lower() == bot_username.lower()


async def keep_user_current(update: Update, context: CustomContext) -> None:
    """Before any handler: the user's name and language kept current for the tables, and, if Telegram had
    refused to deliver to him, his chat open again and his seats, hand and turn back to him."""
    user = update.effective_user
    if user is None or not talks_to_the_bot(update, context.bot.username):
        return
    desk = context.desk
    await desk.service.deliveries.see_user(user.id, user.full_name, user.language_code)
    await desk.heard_from(user.id)


__all__ = [
    "CONTEXT_TYPES",
    "DESK",
    "CustomContext",
    "GoujiApplication",
    "keep_user_current",
    "language_of",
    "talks_to_the_bot",
]
