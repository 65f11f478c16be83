"""What the emulated Telegram remembers: users, chats, forum topics, messages with their edit history,
callback queries.

Everything here is plain data with no I/O; ``world`` keeps it and renders it as Bot API JSON, the server
and the control API change it.
"""

from __future__ import annotations

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

    def to_api(self) -> JSON:
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for name in ("last_name", "username", "language_code"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        return data


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
    thread_id: int | None = (
        None  # the forum topic it is in (its creation message's id); None: General, no forum
    )
    sender_chat_id: int | None = None  # set when an anonymous admin wrote it: the group itself
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
            "message_thread_id": self.thread_id,
            "sender_chat_id": self.sender_chat_id,
            "edit_date": self.edit_date,
            "history": [revision.to_json() for revision in self.history],
            "deleted": self.deleted,
            "deleted_date": self.deleted_date,
        }


MEMBER_STATUSES = ("creator", "administrator", "member", "restricted")
BOT_IN_CHAT = (
    "administrator",
    "member",
    "restricted",
)  # a bot with these statuses receives the group's updates
GENERAL_TOPIC = 1  # a forum's General topic; its messages carry no message_thread_id


@dataclass
class Topic:
    """A forum topic; its id is the id of the service message that created it, as in Telegram."""

    thread_id: int
    name: str
    icon_color: int
    creator_id: int

    def to_json(self) -> JSON:
        return {"message_thread_id": self.thread_id, "name": self.name, "icon_color": self.icon_color}


@dataclass
class Chat:
    id: int
    type: str  # "private", "group" or "supergroup"
    title: str | None = None
    # Private chats: the user, the bot on the other side, whether he pressed Start and whether he blocked it.
    private_user_id: int | None = None
    private_bot_id: int | None = None
    started: bool = False
    blocked: bool = False
    # Groups: user id -> creator/administrator/member/restricted/left/kicked; bot id -> its status the same way.
    members: dict[int, str] = field(default_factory=dict)
    bots: dict[int, str] = field(default_factory=dict)
    anonymous_admins: set[int] = field(default_factory=set)  # admins who post as the group
    last_bot_id: int | None = None  # the last bot that posted: privacy mode gives it commands without @name
    is_forum: bool = False
    topics: dict[int, Topic] = field(default_factory=dict)
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

    def bot_ids(self) -> list[int]:
        """The bots in the group now (those that receive its updates)."""
        return [bid for bid, status in self.bots.items() if status in BOT_IN_CHAT]

    def allocate_message_id(self) -> int:
        message_id = self.next_message_id
        self.next_message_id += 1
        return message_id


@dataclass
class CallbackQuery:
    id: str
    bot_id: int  # the bot whose message carried the button: the only one that may answer it
    user_id: int
    chat_id: int
    message_id: int
    data: str
    date: int
    tapped_at: float = 0.0  # the emulator's clock, to the fraction of a second: answers come in a window
    answered: bool = False
    answer_text: str | None = None
    show_alert: bool = False
    url: str | None = None
    cache_time: int | None = None

    def to_json(self) -> JSON:
        return {
            "id": self.id,
            "bot_id": self.bot_id,
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
