"""Who receives what: a message stored in a chat reaches the bots that would see it in Telegram, a change of
membership the bots it concerns. Shared by the control API (the users' side) and the Bot API methods (the
bot's side); each method acts for one bot, ``self``.

In a group a bot sees everything when privacy mode is off or it is an administrator; otherwise service
messages, replies to its own messages, @mentions of it, commands addressed to it (/new@its_name), and commands
addressed to no bot when it was the last bot to post there (or no bot has posted yet), as Telegram documents.
No bot sees what another bot writes. ``chat_member`` goes to the group's administrator bots only (and reaches
a bot only if it asked for it in allowed_updates: ``updates`` filters).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .state import BOT_IN_CHAT, Chat, StoredMessage, User
from .world import ANONYMOUS_ADMIN_ID

if TYPE_CHECKING:
    from .journal import Journal
    from .updates import UpdateQueue
    from .world import Network, World


class Delivery:
    network: Network
    world: World
    updates: UpdateQueue
    journal: Journal
    privacy_mode: bool

    # --- who sees a message ------------------------------------------------------------------------

    def deliver(self, chat: Chat, message: StoredMessage) -> None:
        """Queue a user's message (or a service message) for every bot that would receive it."""
        if chat.type == "private":
            assert chat.private_bot_id is not None
            bot = self.network.bots[chat.private_bot_id]
            bot.updates.push("message", bot.world.message_to_api(message))
            return
        for bot in list(self.network.bots.values()):
            if bot.sees(chat, message):
                bot.updates.push("message", bot.world.message_to_api(message))

    def sees(self, chat: Chat, message: StoredMessage) -> bool:
        """Whether this bot receives ``message``, written in the group ``chat``."""
        me = self.world.bot
        status = chat.bots.get(me.id)
        if status not in BOT_IN_CHAT:
            return False
        if message.service:
            return True
        if self.network.users[message.sender_id].is_bot and message.sender_id != ANONYMOUS_ADMIN_ID:
            return False
        if not self.privacy_mode or status == "administrator":
            return True
        replied = chat.messages.get(message.reply_to_message_id or 0)
        if replied is not None and replied.sender_id == me.id:
            return True
        text, username = message.text or "", (me.username or "").lower()
        last = chat.last_bot_id
        for entity in message.entities:
            piece = text.encode("utf-16-le")[entity["offset"] * 2 : (entity["offset"] + entity["length"]) * 2]
            word = piece.decode("utf-16-le").lower()
            if entity["type"] == "bot_command":
                if "@" in word:
                    if word.endswith(f"@{username}"):
                        return True
                elif last in (None, me.id) or last not in chat.bot_ids():
                    return True
            if entity["type"] == "mention" and word == f"@{username}":
                return True
        return False

    # --- messages the bot writes, edits and deletes ------------------------------------------------

    def store_bot_message(
        self,
        chat: Chat,
        text: str,
        entities: list[dict[str, Any]],
        inline: dict[str, Any] | None,
        other: dict[str, Any] | None,
        reply_to: int | None,
        silent: bool = False,
        thread_id: int | None = None,
    ) -> StoredMessage:
        message = StoredMessage(
            chat_id=chat.id,
            message_id=chat.allocate_message_id(),
            sender_id=self.world.bot.id,
            from_bot=True,
            date=self.network.now(),
            text=text,
            entities=entities,
            reply_markup=inline,
            other_markup=other,
            reply_to_message_id=reply_to,
            silent=silent,
            thread_id=thread_id,
        )
        message.record(message.date)
        chat.messages[message.message_id] = message
        if chat.is_group:
            chat.last_bot_id = self.world.bot.id
        self.journal.add(
            "bot_message",
            chat_id=chat.id,
            message_id=message.message_id,
            text=text,
            bot_id=self.world.bot.id,
            message_thread_id=thread_id,
        )
        return message

    def apply_bot_edit(
        self,
        message: StoredMessage,
        text: str | None,
        entities: list[dict[str, Any]],
        inline: dict[str, Any] | None,
    ) -> None:
        message.text, message.entities, message.reply_markup = text, entities, inline
        message.edit_date = self.network.now()
        message.record(message.edit_date)
        self.journal.add(
            "bot_edit",
            chat_id=message.chat_id,
            message_id=message.message_id,
            text=text,
            bot_id=self.world.bot.id,
        )

    def apply_delete(self, message: StoredMessage) -> None:
        message.deleted, message.deleted_date = True, self.network.now()
        self.journal.add(
            "deleted", chat_id=message.chat_id, message_id=message.message_id, bot_id=self.world.bot.id
        )

    def set_pinned(self, chat: Chat, message_id: int | None) -> None:
        chat.pinned_message_id = message_id
        self.journal.add("pinned", chat_id=chat.id, message_id=message_id)

    # --- membership --------------------------------------------------------------------------------

    def set_bot_status(self, chat: Chat, status: str, *, by: User) -> None:
        """This bot's status in a group changes: it gets my_chat_member, the group's admin bots chat_member."""
        me = self.world.bot
        old = chat.bots.get(me.id, "left")
        chat.bots[me.id] = status
        self.journal.add("bot_status", chat_id=chat.id, old=old, new=status, bot_id=me.id)
        self._push_bot_status_change(chat, old, status, by)
        self.push_member_change(chat, me, old, status, by)

    def _push_bot_status_change(self, chat: Chat, old: str, new: str, by: User) -> None:
        bot = self.world.bot
        self.updates.push(
            "my_chat_member",
            {
                "chat": self.world.chat_to_api(chat),
                "from": by.to_api(),
                "date": self.network.now(),
                "old_chat_member": self.world.member_status_to_api(old, bot),
                "new_chat_member": self.world.member_status_to_api(new, bot),
            },
        )

    def _push_private_status(self, person: User, old: str, new: str) -> None:
        self._push_bot_status_change(self.world.private_chat(person), old, new, person)

    def push_member_change(self, chat: Chat, user: User, old: str, new: str, by: User) -> None:
        """chat_member for every administrator bot of the group, as Telegram sends it (to no other bot)."""
        anonymous = user.id in chat.anonymous_admins
        for bot in list(self.network.bots.values()):
            if bot.world.bot.id == user.id or chat.bots.get(bot.world.bot.id) != "administrator":
                continue
            world = bot.world
            bot.updates.push(
                "chat_member",
                {
                    "chat": world.chat_to_api(chat),
                    "from": by.to_api(),
                    "date": self.network.now(),
                    "old_chat_member": world.member_status_to_api(old, user, anonymous=anonymous),
                    "new_chat_member": world.member_status_to_api(new, user, anonymous=anonymous),
                },
            )

    def store_service(
        self,
        chat: Chat,
        actor: User,
        service: dict[str, Any],
        *,
        thread_id: int | None = None,
        opens_topic: bool = False,
    ) -> StoredMessage:
        """A service message; one that ``opens_topic`` is the first of its own topic (forum_topic_created)."""
        message_id = chat.allocate_message_id()
        message = StoredMessage(
            chat_id=chat.id,
            message_id=message_id,
            sender_id=actor.id,
            from_bot=False,
            date=self.network.now(),
            service=service,
            thread_id=message_id if opens_topic else thread_id,
        )
        chat.messages[message.message_id] = message
        self.journal.add(
            "service_message", chat_id=chat.id, message_id=message.message_id, service=list(service)
        )
        self.deliver(chat, message)
        return message
