"""What the emulated Telegram remembers: users, chats, messages with their edit history, queries.

Everything here is plain data with no I/O; the server and the control API mutate it and render
it as Bot API JSON with the ``to_api`` methods.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]


class EmulatorError(Exception):
    """A control-API call that could not happen in a real Telegram client (a test mistake)."""


@dataclass
class User:
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    is_bot: bool = False
    started_bot: bool = False
    blocked_bot: bool = False

    def to_api(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for name in ("last_name", "username", "language_code"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data

    def summary(self) -> JSON:
        return {**self.to_api(), "started_bot": self.started_bot, "blocked_bot": self.blocked_bot}


@dataclass
class Revision:
    """One version of a message's content; the first is what was sent, the rest are edits."""

    date: int
    text: str | None
    entities: list[JSON]
    reply_markup: JSON | None

    def to_json(self) -> JSON:
        return {
            "date": self.date,
            "text": self.text,
            "entities": self.entities,
            "reply_markup": self.reply_markup,
        }


@dataclass
class StoredMessage:
    chat_id: int
    message_id: int
    sender_id: int
    from_bot: bool
    date: int
    text: str | None = None
    entities: list[JSON] = field(default_factory=list)
    reply_markup: JSON | None = None  # inline keyboards only: the part a message keeps and edits change
    other_markup: JSON | None = None  # reply keyboard / remove / force_reply sent with the message
    reply_to_message_id: int | None = None
    silent: bool = False  # sent with disable_notification: the phone shows it without a sound
    service: JSON = field(default_factory=dict)
    edit_date: int | None = None
    history: list[Revision] = field(default_factory=list)
    deleted: bool = False
    deleted_date: int | None = None

    @property
    def edits(self) -> list[Revision]:
        return self.history[1:]

    @property
    def buttons(self) -> list[list[JSON]]:
        """Rows of the inline keyboard currently shown under the message."""
        if not self.reply_markup:
            return []
        return [list(row) for row in self.reply_markup.get("inline_keyboard", [])]

    def button(self, *, data: str | None = None, text: str | None = None) -> JSON | None:
        for row in self.buttons:
            for button in row:
                if data is not None and button.get("callback_data") == data:
                    return button
                if data is None and text is not None and button.get("text") == text:
                    return button
        return None

    def record(self, date: int) -> None:
        self.history.append(Revision(date, self.text, list(self.entities), self.reply_markup))

    def to_json(self) -> JSON:
        """The emulator's own view of the message (history included), for tests and the playground."""
        return {
            "chat_id": self.chat_id,
            "message_id": self.message_id,
            "sender_id": self.sender_id,
            "from_bot": self.from_bot,
            "date": self.date,
            "text": self.text,
            "entities": self.entities,
            "reply_markup": self.reply_markup,
            "other_markup": self.other_markup,
            "reply_to_message_id": self.reply_to_message_id,
            "silent": self.silent,
            "service": self.service,
            "edit_date": self.edit_date,
            "history": [revision.to_json() for revision in self.history],
            "deleted": self.deleted,
            "deleted_date": self.deleted_date,
        }


MEMBER_STATUSES = ("creator", "administrator", "member")


@dataclass
class Chat:
    id: int
    type: str  # "private", "group" or "supergroup"
    title: str | None = None
    private_user_id: int | None = None
    members: dict[int, str] = field(
        default_factory=dict
    )  # user id -> creator/administrator/member/left/kicked
    bot_status: str = "member"
    migrated_to: int | None = None
    migrated_from: int | None = None
    pinned_message_id: int | None = None
    messages: dict[int, StoredMessage] = field(default_factory=dict)
    next_message_id: int = 1

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def member_ids(self) -> list[int]:
        return [uid for uid, status in self.members.items() if status in MEMBER_STATUSES]

    def admin_ids(self) -> list[int]:
        return [uid for uid, status in self.members.items() if status in ("creator", "administrator")]

    def allocate_message_id(self) -> int:
        message_id = self.next_message_id
        self.next_message_id += 1
        return message_id


@dataclass
class CallbackQuery:
    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    date: int
    answered: bool = False
    answer_text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int | None = None

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "user_id": self.user_id,
            "chat_id": self.chat_id,
            "message_id": self.message_id,
            "data": self.data,
            "answered": self.answered,
            "text": self.answer_text,
            "show_alert": self.show_alert,
            "url": self.url,
        }


ADMIN_RIGHTS: JSON = {
    "can_be_edited": False,
    "is_anonymous": False,
    "can_manage_chat": True,
    "can_delete_messages": True,
    "can_manage_video_chats": True,
    "can_restrict_members": True,
    "can_promote_members": False,
    "can_change_info": True,
    "can_invite_users": True,
    "can_post_stories": False,
    "can_edit_stories": False,
    "can_delete_stories": False,
    "can_pin_messages": True,
    "can_manage_topics": False,
}


class World:
    """All users, chats and messages of one emulated Telegram with one bot in it."""

    def __init__(self, bot_id: int, bot_name: str, bot_username: str) -> None:
        self.bot = User(id=bot_id, first_name=bot_name, username=bot_username, is_bot=True)
        self.users: dict[int, User] = {bot_id: self.bot}
        self.chats: dict[int, Chat] = {}
        self.callback_queries: dict[str, CallbackQuery] = {}
        self.commands: dict[tuple[str, str], list[JSON]] = {}  # (scope JSON, language) -> commands
        self.descriptions: dict[tuple[str, str], str] = {}
        self._user_ids = itertools.count(100_000_001)
        self._group_ids = itertools.count(400_000_001)
        self._supergroup_ids = itertools.count(1_002_000_000_001)
        self._query_ids = itertools.count(4_000_000_000_000_000_001)

    @staticmethod
    def now() -> int:
        return int(time.time())

    # --- users and chats -------------------------------------------------------------------

    def add_user(
        self,
        first_name: str,
        *,
        last_name: str | None = None,
        username: str | None = None,
        language_code: str | None = "en",
        user_id: int | None = None,
    ) -> User:
        uid = user_id if user_id is not None else next(self._user_ids)
        if uid in self.users:
            raise EmulatorError(f"user {uid} already exists")
        user = User(uid, first_name, last_name, username, language_code)
        self.users[uid] = user
        return user

    def user(self, user_id: int) -> User:
        try:
            return self.users[user_id]
        except KeyError:
            raise EmulatorError(f"no user {user_id}") from None

    def private_chat(self, user: User) -> Chat:
        chat = self.chats.get(user.id)
        if chat is None:
            chat = Chat(id=user.id, type="private", private_user_id=user.id)
            self.chats[user.id] = chat
        return chat

    def add_group(self, title: str, *, supergroup: bool = False) -> Chat:
        chat_id = -next(self._supergroup_ids) if supergroup else -next(self._group_ids)
        chat = Chat(id=chat_id, type="supergroup" if supergroup else "group", title=title)
        self.chats[chat_id] = chat
        return chat

    def new_supergroup_id(self) -> int:
        return -next(self._supergroup_ids)

    def chat(self, chat_id: int) -> Chat:
        try:
            return self.chats[chat_id]
        except KeyError:
            raise EmulatorError(f"no chat {chat_id}") from None

    def find_chat(self, chat_id: int | str) -> Chat | None:
        if isinstance(chat_id, str):
            name = chat_id.removeprefix("@").lower()
            for user in self.users.values():
                if user.username and user.username.lower() == name and user.id in self.chats:
                    return self.chats[user.id]
            return None
        user = self.users.get(chat_id)
        if user is not None and not user.is_bot:
            # Every user has a private chat with the bot, even before writing to it.
            return self.private_chat(user)
        return self.chats.get(chat_id)

    def next_query_id(self) -> str:
        return str(next(self._query_ids))

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
        if message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = message.entities
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if message.reply_markup:
            data["reply_markup"] = message.reply_markup
        if with_reply and message.reply_to_message_id is not None:
            original = chat.messages.get(message.reply_to_message_id)
            if original is not None and not original.deleted:
                data["reply_to_message"] = self.message_to_api(original, with_reply=False)
        data.update(message.service)
        return data

    def member_to_api(self, chat: Chat, user: User) -> JSON:
        if user.id == self.bot.id and chat.is_group:
            status = chat.bot_status
        elif chat.type == "private":
            status = "member"
        else:
            status = chat.members.get(user.id, "left")
        return self.member_status_to_api(status, user)

    @staticmethod
    def member_status_to_api(status: str, user: User) -> JSON:
        data: JSON = {"status": status, "user": user.to_api()}
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(ADMIN_RIGHTS)
        elif status == "kicked":
            data["until_date"] = 0
        return data

    def summary(self) -> JSON:
        return {
            "bot": self.bot.to_api(),
            "users": [u.summary() for u in self.users.values() if not u.is_bot],
            "chats": [
                {
                    **self.chat_to_api(chat),
                    "members": {str(uid): status for uid, status in chat.members.items()},
                    "bot_status": chat.bot_status,
                    "migrated_to": chat.migrated_to,
                    "migrated_from": chat.migrated_from,
                    "message_count": len(chat.messages),
                }
                for chat in self.chats.values()
            ],
        }
