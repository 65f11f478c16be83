"""The control API: what users do in the emulated Telegram, and what tests read back.

Each action changes the world the way a Telegram client would and queues the updates the bot
would receive for it. Mistakes a real client could not make raise :class:`EmulatorError`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from .entities import detect_entities
from .state import MEMBER_STATUSES, CallbackQuery, Chat, EmulatorError, StoredMessage, User

if TYPE_CHECKING:
    from .journal import Journal
    from .state import World
    from .updates import UpdateQueue

T = TypeVar("T")
UserRef = User | int
ChatRef = Chat | User | int
MessageRef = StoredMessage | tuple[int, int]

DEEP_LINK_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")
DEFAULT_TIMEOUT = 5.0


class Controls:
    world: World
    updates: UpdateQueue
    journal: Journal
    privacy_mode: bool

    # --- references -------------------------------------------------------------------------------

    def _user(self, user: UserRef) -> User:
        return user if isinstance(user, User) else self.world.user(user)

    def _chat(self, chat: ChatRef) -> Chat:
        if isinstance(chat, Chat):
            return chat
        if isinstance(chat, User):
            return self.world.private_chat(chat)
        if chat in self.world.users and chat > 0:
            return self.world.private_chat(self.world.users[chat])
        return self.world.chat(chat)

    def _message(self, message: MessageRef) -> StoredMessage:
        if isinstance(message, StoredMessage):
            return message
        chat_id, message_id = message
        found = self.world.chat(chat_id).messages.get(message_id)
        if found is None:
            raise EmulatorError(f"no message {message_id} in chat {chat_id}")
        return found

    # --- users and groups -------------------------------------------------------------------------

    def create_user(
        self,
        first_name: str = "User",
        *,
        language_code: str | None = "en",
        username: str | None = None,
        last_name: str | None = None,
        user_id: int | None = None,
    ) -> User:
        user = self.world.add_user(
            first_name, last_name=last_name, username=username, language_code=language_code, user_id=user_id
        )
        self.journal.add("user_created", user=user.summary())
        return user

    def create_group(
        self,
        title: str,
        members: Iterable[UserRef],
        *,
        admins: Iterable[UserRef] = (),
        creator: UserRef | None = None,
        bot_is_admin: bool = False,
        supergroup: bool = False,
        announce: bool = True,
    ) -> Chat:
        """A group with these users in it and the bot added by its creator (the first member by default).

        With ``announce`` the bot receives what Telegram sends when it is added: a my_chat_member
        update and the service message.
        """
        people = [self._user(m) for m in members]
        owner = self._user(creator) if creator is not None else (people[0] if people else None)
        if owner is None:
            raise EmulatorError("a group needs at least one member")
        chat = self.world.add_group(title, supergroup=supergroup)
        chat.members[owner.id] = "creator"
        for user in people:
            chat.members.setdefault(user.id, "member")
        for admin in admins:
            user = self._user(admin)
            if chat.members.get(user.id) != "creator":
                chat.members[user.id] = "administrator"
        chat.bot_status = "administrator" if bot_is_admin else "member"
        self.journal.add("group_created", chat_id=chat.id, title=title)
        if announce:
            self._push_bot_status_change(chat, "left", chat.bot_status, owner)
            service = (
                {"group_chat_created": True}
                if chat.type == "group"
                else {
                    "new_chat_members": [self.world.bot.to_api()],
                    "new_chat_member": self.world.bot.to_api(),
                    "new_chat_participant": self.world.bot.to_api(),
                }
            )
            self._store_service(chat, owner, service)
        return chat

    def add_member(self, chat: ChatRef, user: UserRef) -> StoredMessage:
        """A user joins the group; the bot gets the ``new_chat_members`` service message."""
        group, person = self._group(chat), self._user(user)
        group.members[person.id] = "member"
        return self._store_service(group, person, {"new_chat_members": [person.to_api()]})

    def remove_member(self, chat: ChatRef, user: UserRef) -> StoredMessage:
        group, person = self._group(chat), self._user(user)
        group.members[person.id] = "left"
        return self._store_service(group, person, {"left_chat_member": person.to_api()})

    def _group(self, chat: ChatRef) -> Chat:
        group = self._chat(chat)
        if not group.is_group:
            raise EmulatorError(f"chat {group.id} is not a group")
        if group.migrated_to is not None:
            raise EmulatorError(f"group {group.id} became supergroup {group.migrated_to}")
        return group

    def migrate_to_supergroup(self, chat: ChatRef) -> Chat:
        """Upgrade a group: the old id is refused from now on with ``migrate_to_chat_id``."""
        old = self._group(chat)
        if old.type != "group":
            raise EmulatorError(f"chat {old.id} is already a supergroup")
        new = Chat(id=self.world.new_supergroup_id(), type="supergroup", title=old.title)
        new.members, new.bot_status, new.migrated_from = dict(old.members), old.bot_status, old.id
        self.world.chats[new.id] = new
        owner = self.world.users[next(uid for uid, s in old.members.items() if s == "creator")]
        self._store_service(old, owner, {"migrate_to_chat_id": new.id})
        old.migrated_to = new.id
        self._store_service(new, owner, {"migrate_from_chat_id": old.id})
        self.journal.add("migrated", chat_id=old.id, new_chat_id=new.id)
        return new

    def kick_bot(self, chat: ChatRef, by: UserRef | None = None) -> None:
        """An administrator removes the bot from the group."""
        group = self._group(chat)
        remover = self._user(by) if by is not None else self.world.users[group.admin_ids()[0]]
        self.set_bot_status(group, "kicked", by=remover)

    # --- the private chat with the bot ---------------------------------------------------------------

    def start_bot(self, user: UserRef, payload: str | None = None) -> StoredMessage:
        """The user presses START (or RESTART after a block), optionally through a deep link."""
        person = self._user(user)
        if payload is not None and not DEEP_LINK_PAYLOAD.fullmatch(payload):
            raise EmulatorError("a deep-link payload is 1-64 characters of A-Z, a-z, 0-9, _ and -")
        chat = self.world.private_chat(person)
        if person.blocked_bot:
            person.blocked_bot = False
            self._push_private_status(person, "kicked", "member")
        person.started_bot = True
        self.journal.add("bot_started", user_id=person.id, payload=payload)
        return self.user_sends(person, chat, "/start" if payload is None else f"/start {payload}")

    def block_bot(self, user: UserRef) -> None:
        person = self._user(user)
        if person.blocked_bot:
            return
        person.blocked_bot = True
        self.world.private_chat(person)
        self._push_private_status(person, "member", "kicked")
        self.journal.add("bot_blocked", user_id=person.id)

    # --- what users say and tap ---------------------------------------------------------------------

    def user_sends(
        self, user: UserRef, chat: ChatRef, text: str, *, reply_to: MessageRef | int | None = None
    ) -> StoredMessage:
        """A user types ``text`` into a chat; commands and @mentions get their entities."""
        person, where = self._user(user), self._chat(chat)
        self._check_user_can_write(person, where)
        if not text.strip():
            raise EmulatorError("a Telegram client does not send empty messages")
        reply_id = None
        if reply_to is not None:
            reply_id = reply_to if isinstance(reply_to, int) else self._message(reply_to).message_id
            if reply_id not in where.messages:
                raise EmulatorError(f"no message {reply_id} to reply to in chat {where.id}")
        message = StoredMessage(
            chat_id=where.id,
            message_id=where.allocate_message_id(),
            sender_id=person.id,
            from_bot=False,
            date=self.world.now(),
            text=text,
            entities=detect_entities(text),
            reply_to_message_id=reply_id,
        )
        message.record(message.date)
        where.messages[message.message_id] = message
        self.journal.add(
            "user_message", chat_id=where.id, message_id=message.message_id, user_id=person.id, text=text
        )
        if self._bot_sees(where, message):
            self.updates.push("message", self.world.message_to_api(message))
        return message

    def tap(
        self, user: UserRef, message: MessageRef, data: str | None = None, *, text: str | None = None
    ) -> CallbackQuery:
        """A user taps the inline button with this callback data (or this label) under a message."""
        person, target = self._user(user), self._message(message)
        chat = self.world.chats[target.chat_id]
        self._check_user_can_write(person, chat)
        if target.deleted:
            raise EmulatorError(f"message {target.message_id} was deleted")
        button = target.button(data=data, text=text)
        if button is None or "callback_data" not in button:
            raise EmulatorError(f"message {target.message_id} shows no callback button {data or text!r}")
        return self._push_callback(person, chat, target, button["callback_data"])

    def forge_tap(self, user: UserRef, message: MessageRef, data: str) -> CallbackQuery:
        """A modified client sends callback data that no button under the message carries (a forged or
        replayed tap): Telegram delivers it all the same, so the bot must judge it."""
        person, target = self._user(user), self._message(message)
        chat = self.world.chats[target.chat_id]
        self._check_user_can_write(person, chat)
        return self._push_callback(person, chat, target, data)

    def _push_callback(self, person: User, chat: Chat, target: StoredMessage, data: str) -> CallbackQuery:
        query = CallbackQuery(
            id=self.world.next_query_id(),
            user_id=person.id,
            chat_id=chat.id,
            message_id=target.message_id,
            data=data,
            date=self.world.now(),
        )
        self.world.callback_queries[query.id] = query
        self.journal.add("callback_query", **query.to_json())
        self.updates.push(
            "callback_query",
            {
                "id": query.id,
                "from": person.to_api(),
                "message": self.world.message_to_api(target),
                "chat_instance": str(abs(chat.id) * 7919 % 10**18),
                "data": query.data,
            },
        )
        return query

    def _check_user_can_write(self, person: User, chat: Chat) -> None:
        if chat.type == "private":
            if chat.private_user_id != person.id:
                raise EmulatorError(f"chat {chat.id} is the private chat of another user")
            if not person.started_bot:
                raise EmulatorError(f"{person.first_name} has not started the bot (use start_bot)")
            if person.blocked_bot:
                raise EmulatorError(f"{person.first_name} has blocked the bot (start_bot unblocks)")
            return
        if chat.migrated_to is not None:
            raise EmulatorError(f"group {chat.id} became supergroup {chat.migrated_to}")
        if chat.members.get(person.id) not in MEMBER_STATUSES:
            raise EmulatorError(f"{person.first_name} is not a member of chat {chat.id}")

    def _bot_sees(self, chat: Chat, message: StoredMessage) -> bool:
        if chat.type == "private":
            return True
        if chat.bot_status not in ("member", "administrator"):
            return False
        if not self.privacy_mode or chat.bot_status == "administrator" or message.service:
            return True
        replied = chat.messages.get(message.reply_to_message_id or 0)
        if replied is not None and replied.from_bot:
            return True
        text, username = message.text or "", (self.world.bot.username or "").lower()
        for entity in message.entities:
            piece = text.encode("utf-16-le")[entity["offset"] * 2 : (entity["offset"] + entity["length"]) * 2]
            word = piece.decode("utf-16-le").lower()
            if entity["type"] == "bot_command" and ("@" not in word or word.endswith(f"@{username}")):
                return True
            if entity["type"] == "mention" and word == f"@{username}":
                return True
        return False

    # --- mutations shared with the Bot API methods ----------------------------------------------------

    def store_bot_message(
        self,
        chat: Chat,
        text: str,
        entities: list[dict[str, Any]],
        inline: dict[str, Any] | None,
        other: dict[str, Any] | None,
        reply_to: int | None,
        silent: bool = False,
    ) -> StoredMessage:
        message = StoredMessage(
            chat_id=chat.id,
            message_id=chat.allocate_message_id(),
            sender_id=self.world.bot.id,
            from_bot=True,
            date=self.world.now(),
            text=text,
            entities=entities,
            reply_markup=inline,
            other_markup=other,
            reply_to_message_id=reply_to,
            silent=silent,
        )
        message.record(message.date)
        chat.messages[message.message_id] = message
        self.journal.add("bot_message", chat_id=chat.id, message_id=message.message_id, text=text)
        return message

    def apply_bot_edit(
        self,
        message: StoredMessage,
        text: str | None,
        entities: list[dict[str, Any]],
        inline: dict[str, Any] | None,
    ) -> None:
        message.text, message.entities, message.reply_markup = text, entities, inline
        message.edit_date = self.world.now()
        message.record(message.edit_date)
        self.journal.add("bot_edit", chat_id=message.chat_id, message_id=message.message_id, text=text)

    def apply_delete(self, message: StoredMessage) -> None:
        message.deleted, message.deleted_date = True, self.world.now()
        self.journal.add("deleted", chat_id=message.chat_id, message_id=message.message_id)

    def set_pinned(self, chat: Chat, message_id: int | None) -> None:
        chat.pinned_message_id = message_id
        self.journal.add("pinned", chat_id=chat.id, message_id=message_id)

    def set_bot_status(self, chat: Chat, status: str, *, by: User) -> None:
        old, chat.bot_status = chat.bot_status, status
        self.journal.add("bot_status", chat_id=chat.id, old=old, new=status)
        self._push_bot_status_change(chat, old, status, by)

    def _push_bot_status_change(self, chat: Chat, old: str, new: str, by: User) -> None:
        bot = self.world.bot
        self.updates.push(
            "my_chat_member",
            {
                "chat": self.world.chat_to_api(chat),
                "from": by.to_api(),
                "date": self.world.now(),
                "old_chat_member": self.world.member_status_to_api(old, bot),
                "new_chat_member": self.world.member_status_to_api(new, bot),
            },
        )

    def _push_private_status(self, person: User, old: str, new: str) -> None:
        self._push_bot_status_change(self.world.private_chat(person), old, new, person)

    def _store_service(self, chat: Chat, actor: User, service: dict[str, Any]) -> StoredMessage:
        message = StoredMessage(
            chat_id=chat.id,
            message_id=chat.allocate_message_id(),
            sender_id=actor.id,
            from_bot=False,
            date=self.world.now(),
            service=service,
        )
        chat.messages[message.message_id] = message
        self.journal.add(
            "service_message", chat_id=chat.id, message_id=message.message_id, service=list(service)
        )
        if self._bot_sees(chat, message):
            self.updates.push("message", self.world.message_to_api(message))
        return message

    # --- reading back -----------------------------------------------------------------------------

    def messages(self, chat: ChatRef, *, include_deleted: bool = True) -> list[StoredMessage]:
        """Every message of the chat in order, each with its current content and edit history."""
        found = sorted(self._chat(chat).messages.values(), key=lambda m: m.message_id)
        return [m for m in found if include_deleted or not m.deleted]

    def bot_messages(self, chat: ChatRef, *, include_deleted: bool = False) -> list[StoredMessage]:
        return [m for m in self.messages(chat, include_deleted=include_deleted) if m.from_bot]

    def last_bot_message(self, chat: ChatRef) -> StoredMessage | None:
        found = self.bot_messages(chat)
        return found[-1] if found else None

    @property
    def callback_answers(self) -> list[CallbackQuery]:
        return [q for q in self.world.callback_queries.values() if q.answered]

    # --- waiting --------------------------------------------------------------------------------------

    async def wait_for(
        self, condition: Callable[[], T], timeout: float = DEFAULT_TIMEOUT, description: str = ""
    ) -> T:
        """Return the first truthy value of ``condition``, rechecked after every change in the emulator."""
        return await self.journal.wait_for(condition, timeout, description)

    async def wait_for_bot_message(
        self,
        chat: ChatRef,
        *,
        after: int | StoredMessage = 0,
        contains: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> StoredMessage:
        """The first message the bot sends into ``chat`` after message id ``after`` (containing ``contains``)."""
        where = self._chat(chat)
        after_id = after.message_id if isinstance(after, StoredMessage) else after

        def arrived() -> StoredMessage | None:
            for message in self.bot_messages(where):
                if message.message_id > after_id and (contains is None or contains in (message.text or "")):
                    return message
            return None

        return await self.wait_for(arrived, timeout, f"a bot message in chat {where.id} after #{after_id}")

    async def wait_for_answer(self, query: CallbackQuery, timeout: float = DEFAULT_TIMEOUT) -> CallbackQuery:
        return await self.wait_for(
            lambda: query if query.answered else None, timeout, f"an answer to query {query.id}"
        )
