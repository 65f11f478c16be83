"""The emulated Telegram: what all its bots share (``Network``: users, groups, the clock) and what one bot sees
of it (``World``: its own private chats, its callback queries and commands, everything rendered as the Bot
API shows it to that bot).

As in Telegram, a private chat's id is the user's id for every bot, but each bot's private chat with a user is
its own, with its own messages; a group is one chat for all the bots in it, and a bot knows only the groups it
was added to.
"""

from __future__ import annotations

import itertools
import time
from collections import ChainMap
from typing import TYPE_CHECKING, Any

from . import schema
from .journal import Journal
from .state import ADMIN_RIGHTS, CallbackQuery, Chat, EmulatorError, StoredMessage, User

if TYPE_CHECKING:
    from .bots import EmulatedBot

JSON = dict[str, Any]

# The user Telegram shows as the sender of what an anonymous group admin writes (with sender_chat the group).
ANONYMOUS_ADMIN_ID = 1087968824
CALLBACK_ANSWER_WINDOW = 15.0  # seconds Telegram waits for the answer to a tap
DELETE_WINDOW = 48 * 3600  # a message older than this can't be deleted by a bot


class Network:
    """Everything all the bots of one emulated Telegram share: users, groups, the clock and the journal."""

    def __init__(self) -> None:
        self.users: dict[int, User] = {}
        self.groups: dict[int, Chat] = {}
        self.bots: dict[int, EmulatedBot] = {}  # by the bot's user id
        self.journal = Journal()
        self.internal_errors: list[str] = []
        self.base_url = ""
        self.clock_offset = 0.0  # what advance_clock added: Telegram's time as the emulator tells it
        self.callback_answer_window = CALLBACK_ANSWER_WINDOW
        self.delete_window = DELETE_WINDOW
        self._user_ids = itertools.count(100_000_001)
        self._group_ids = itertools.count(400_000_001)
        self._supergroup_ids = itertools.count(1_002_000_000_001)
        self._query_ids = itertools.count(4_000_000_000_000_000_001)
        self.anonymous_admin = User(
            ANONYMOUS_ADMIN_ID, "Group", username="GroupAnonymousBot", is_bot=True, language_code=None
        )
        self.users[ANONYMOUS_ADMIN_ID] = self.anonymous_admin

    def clock(self) -> float:
        return time.time() + self.clock_offset

    def now(self) -> int:
        return int(self.clock())

    def bot_by_token(self, token: str) -> EmulatedBot | None:
        return next((bot for bot in self.bots.values() if bot.token == token), None)

    def add_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
        user_id: int | None = None,
        is_bot: bool = False,
    ) -> User:
        uid = user_id if user_id is not None else next(self._user_ids)
        if uid in self.users:
            raise EmulatorError(f"user {uid} already exists")
        user = User(uid, first_name, last_name, username, language_code, is_bot=is_bot)
        self.users[uid] = user
        return user

    def add_group(self, title: str, *, supergroup: bool = False, forum: bool = False) -> Chat:
        chat_id = self.new_supergroup_id() if supergroup or forum else -next(self._group_ids)
        chat = Chat(id=chat_id, type="supergroup" if supergroup or forum else "group", title=title)
        chat.is_forum = forum
        self.groups[chat_id] = chat
        return chat

    def new_supergroup_id(self) -> int:
        return -next(self._supergroup_ids)

    def next_query_id(self) -> str:
        return str(next(self._query_ids))


def _restricted_rights() -> JSON:
    """A member who may send nothing: every right ChatMemberRestricted requires, off (from the schema)."""
    fields = schema.load().types["ChatMemberRestricted"].fields.values()
    return {f.name: False for f in fields if f.required and f.types == ("Boolean",)}


class World:
    """One bot's view of the emulated Telegram: the chats it may reach and everything rendered for it."""

    def __init__(self, network: Network, bot: User) -> None:
        self.network = network
        self.bot = bot
        self.private: dict[int, Chat] = {}  # this bot's private chats, by the user's id
        # Private chats by user id, then every group by id (the control API may look at any of them).
        self.chats: ChainMap[int, Chat] = ChainMap(self.private, network.groups)
        self.callback_queries: dict[str, CallbackQuery] = {}  # the taps on this bot's buttons
        self.commands: dict[tuple[str, str], list[JSON]] = {}  # (scope JSON, language) -> commands
        self.descriptions: dict[tuple[str, str], str] = {}

    @property
    def users(self) -> dict[int, User]:
        return self.network.users

    def now(self) -> int:
        return self.network.now()

    # --- users and chats -------------------------------------------------------------------

    def add_user(self, first_name: str, **details: Any) -> User:
        return self.network.add_user(first_name, **details)

    def user(self, user_id: int) -> User:
        try:
            return self.network.users[user_id]
        except KeyError:
            raise EmulatorError(f"no user {user_id}") from None

    def private_chat(self, user: User) -> Chat:
        chat = self.private.get(user.id)
        if chat is None:
            chat = Chat(id=user.id, type="private", private_user_id=user.id, private_bot_id=self.bot.id)
            self.private[user.id] = chat
        return chat

    def add_group(self, title: str, *, supergroup: bool = False) -> Chat:
        return self.network.add_group(title, supergroup=supergroup)

    def new_supergroup_id(self) -> int:
        return self.network.new_supergroup_id()

    def chat(self, chat_id: int) -> Chat:
        try:
            return self.chats[chat_id]
        except KeyError:
            raise EmulatorError(f"no chat {chat_id}") from None

    def status_in(self, chat: Chat) -> str:
        """This bot's status in a chat: in a private chat a member unless the user blocked it."""
        if chat.type == "private":
            return "kicked" if chat.blocked else "member"
        return chat.bots.get(self.bot.id, "left")

    def find_chat(self, chat_id: int | str) -> Chat | None:
        """The chat a Bot API call names, as this bot may reach it (None: "chat not found")."""
        if isinstance(chat_id, str):
            name = chat_id.removeprefix("@").lower()
            for named in self.users.values():
                if named.username and named.username.lower() == name and not named.is_bot:
                    return self.private.get(named.id)
            return None
        user = self.users.get(chat_id)
        if user is not None:
            # Every user has a private chat with the bot, even before writing to it.
            return None if user.is_bot else self.private_chat(user)
        group = self.network.groups.get(chat_id)
        # A bot knows only the groups it was ever added to.
        return group if group is not None and self.bot.id in group.bots else None

    def next_query_id(self) -> str:
        return self.network.next_query_id()

    # --- rendering as the Bot API does ---------------------------------------------------------

    def chat_to_api(self, chat: Chat) -> JSON:
        if chat.type == "private":
            assert chat.private_user_id is not None
            user = self.users[chat.private_user_id]
            data: JSON = {"id": chat.id, "type": "private", "first_name": user.first_name}
            if user.last_name:
                data["last_name"] = user.last_name
            if user.username:
                data["username"] = user.username
            return data
        data = {"id": chat.id, "type": chat.type, "title": chat.title}
        if chat.type == "group":
            data["all_members_are_administrators"] = False
        if chat.is_forum:
            data["is_forum"] = True
        return data

    def chat_full_info(self, chat: Chat) -> JSON:
        return {
            **self.chat_to_api(chat),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }

    def message_to_api(self, message: StoredMessage, *, with_reply: bool = True) -> JSON:
        chat = self.chats[message.chat_id]
        data: JSON = {
            "message_id": message.message_id,
            "from": self.users[message.sender_id].to_api(),
            "chat": self.chat_to_api(chat),
            "date": message.date,
        }
        if message.sender_chat_id is not None:
            data["sender_chat"] = self.chat_to_api(self.chats[message.sender_chat_id])
        if message.thread_id is not None:
            data["message_thread_id"] = message.thread_id
            data["is_topic_message"] = True
        if message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = message.entities
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if message.reply_markup:
            data["reply_markup"] = message.reply_markup
        # In a topic, a message that replies to nothing replies to the topic's first message, as in Telegram.
        reply_id = message.reply_to_message_id
        if reply_id is None and message.thread_id not in (None, message.message_id):
            reply_id = message.thread_id
        if with_reply and reply_id is not None:
            original = chat.messages.get(reply_id)
            if original is not None and not original.deleted:
                data["reply_to_message"] = self.message_to_api(original, with_reply=False)
        data.update(message.service)
        return data

    def member_to_api(self, chat: Chat, user: User) -> JSON:
        if chat.type == "private":
            status = "member"
        elif user.is_bot:
            status = chat.bots.get(user.id, "left")
        else:
            status = chat.members.get(user.id, "left")
        return self.member_status_to_api(status, user, anonymous=user.id in chat.anonymous_admins)

    @staticmethod
    def member_status_to_api(status: str, user: User, *, anonymous: bool = False) -> JSON:
        data: JSON = {"status": status, "user": user.to_api()}
        if status == "creator":
            data["is_anonymous"] = anonymous
        elif status == "administrator":
            data.update(ADMIN_RIGHTS)
            data["is_anonymous"] = anonymous
        elif status == "restricted":
            data.update(_restricted_rights())
            data.update(is_member=True, until_date=0)
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def user_summary(self, user: User) -> JSON:
        """A user as the control API shows him: whether he started this bot and whether he blocked it."""
        chat = self.private.get(user.id)
        return {
            **user.to_api(),
            "started_bot": chat is not None and chat.started,
            "blocked_bot": chat is not None and chat.blocked,
        }

    def summary(self) -> JSON:
        return {
            "bot": self.bot.to_api(),
            "users": [self.user_summary(u) for u in self.users.values() if not u.is_bot],
            "chats": [
                {
                    **self.chat_to_api(chat),
                    "members": {str(uid): status for uid, status in chat.members.items()},
                    "bots": {str(bid): status for bid, status in chat.bots.items()},
                    "bot_status": self.status_in(chat),
                    "topics": [topic.to_json() for topic in chat.topics.values()],
                    "migrated_to": chat.migrated_to,
                    "migrated_from": chat.migrated_from,
                    "message_count": len(chat.messages),
                }
                for chat in self.chats.values()
            ],
        }
