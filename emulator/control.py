"""The control API: what users do in the emulated Telegram, and what tests read back.

Each action changes the world the way a Telegram client would and queues the updates the bots would receive
for it. Mistakes a real client could not make raise :class:`EmulatorError`. Every bot handle (the emulator
itself for its first bot, or what ``create_bot`` returns) has these methods, seen from its own bot: a user
given where a chat is expected means the user's private chat with that bot, and "the bot's messages" are
that bot's. Groups, users and the clock are shared by all the bots; ``groups`` holds what concerns groups.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from .delivery import Delivery
from .entities import detect_entities
from .state import GENERAL_TOPIC, MEMBER_STATUSES, CallbackQuery, Chat, EmulatorError, StoredMessage, User

T = TypeVar("T")
UserRef = User | int
ChatRef = Chat | User | int
MessageRef = StoredMessage | tuple[int, int]

DEEP_LINK_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")
DEFAULT_TIMEOUT = 5.0


class Controls(Delivery):
    # --- references -------------------------------------------------------------------------------

    def _user(self, user: UserRef) -> User:
        return user if isinstance(user, User) else self.world.user(user)

    def _chat(self, chat: ChatRef) -> Chat:
        if isinstance(chat, Chat):
            return chat
        if isinstance(chat, User):
            return self.world.private_chat(chat)
        if chat > 0 and chat in self.network.users:
            user = self.network.users[chat]
            if user.is_bot:
                raise EmulatorError(f"{user.first_name} is a bot: a bot has no private chat with another bot")
            return self.world.private_chat(user)
        return self.world.chat(chat)

    def _message(self, message: MessageRef) -> StoredMessage:
        if isinstance(message, StoredMessage):
            return message
        chat_id, message_id = message
        found = self._chat(chat_id).messages.get(message_id)
        if found is None:
            raise EmulatorError(f"no message {message_id} in chat {chat_id}")
        return found

    # --- users ----------------------------------------------------------------------------------------

    def create_user(
        self,
        first_name: str = "User",
        *,
        language_code: str | None = "en",
        username: str | None = None,
        last_name: str | None = None,
        user_id: int | None = None,
    ) -> User:
        user = self.network.add_user(
            first_name, last_name=last_name, username=username, language_code=language_code, user_id=user_id
        )
        self.journal.add("user_created", user=self.world.user_summary(user))
        return user

    # --- the private chat with the bot ---------------------------------------------------------------

    def start_bot(self, user: UserRef, payload: str | None = None) -> StoredMessage:
        """The user presses START (or RESTART after a block) in his chat with this bot, maybe by a deep link."""
        person = self._user(user)
        if payload is not None and not DEEP_LINK_PAYLOAD.fullmatch(payload):
            raise EmulatorError("a deep-link payload is 1-64 characters of A-Z, a-z, 0-9, _ and -")
        chat = self.world.private_chat(person)
        if chat.blocked:
            chat.blocked = False
            self._push_private_status(person, "kicked", "member")
        chat.started = True
        self.journal.add("bot_started", user_id=person.id, payload=payload, bot_id=self.world.bot.id)
        return self.user_sends(person, chat, "/start" if payload is None else f"/start {payload}")

    def block_bot(self, user: UserRef) -> None:
        person = self._user(user)
        chat = self.world.private_chat(person)
        if chat.blocked:
            return
        chat.blocked = True
        self._push_private_status(person, "member", "kicked")
        self.journal.add("bot_blocked", user_id=person.id, bot_id=self.world.bot.id)

    # --- what users say and tap ---------------------------------------------------------------------

    def user_sends(
        self,
        user: UserRef,
        chat: ChatRef,
        text: str,
        *,
        reply_to: MessageRef | int | None = None,
        topic: int | None = None,
    ) -> StoredMessage:
        """A user types ``text`` into a chat (into a forum's ``topic``, else its General topic); commands and
        @mentions get their entities."""
        person, where = self._user(user), self._chat(chat)
        self._check_user_can_write(person, where)
        return self._post(person, where, text, reply_to=reply_to, topic=topic)

    def _post(
        self,
        sender: User,
        where: Chat,
        text: str,
        *,
        reply_to: MessageRef | int | None,
        topic: int | None,
        sender_chat: Chat | None = None,
    ) -> StoredMessage:
        if not text.strip():
            raise EmulatorError("a Telegram client does not send empty messages")
        thread_id = self._thread(where, topic)
        reply_id = None
        if reply_to is not None:
            reply_id = reply_to if isinstance(reply_to, int) else self._message(reply_to).message_id
            original = where.messages.get(reply_id)
            if original is None:
                raise EmulatorError(f"no message {reply_id} to reply to in chat {where.id}")
            if topic is None:
                thread_id = original.thread_id  # a reply goes to the topic of what it answers
            elif original.thread_id != thread_id:
                raise EmulatorError(f"message {reply_id} is not in topic {topic}")
        message = StoredMessage(
            chat_id=where.id,
            message_id=where.allocate_message_id(),
            sender_id=sender.id,
            from_bot=False,
            date=self.network.now(),
            text=text,
            entities=detect_entities(text),
            reply_to_message_id=reply_id,
            thread_id=thread_id,
            sender_chat_id=sender_chat.id if sender_chat is not None else None,
        )
        message.record(message.date)
        where.messages[message.message_id] = message
        self.journal.add(
            "user_message",
            chat_id=where.id,
            message_id=message.message_id,
            user_id=sender.id,
            text=text,
            message_thread_id=thread_id,
            bot_id=where.private_bot_id,
        )
        self.deliver(where, message)
        return message

    @staticmethod
    def _thread(chat: Chat, topic: int | None) -> int | None:
        """The message_thread_id of a message written into ``topic`` (None for a forum's General topic)."""
        if topic is None or (topic == GENERAL_TOPIC and chat.is_forum):
            return None
        if not chat.is_forum:
            raise EmulatorError(f"chat {chat.id} is not a forum: it has no topics")
        if topic not in chat.topics:
            raise EmulatorError(f"chat {chat.id} has no topic {topic}")
        return topic

    def tap(
        self, user: UserRef, message: MessageRef, data: str | None = None, *, text: str | None = None
    ) -> CallbackQuery:
        """A user taps the inline button with this callback data (or this label) under a message."""
        person, target = self._user(user), self._message(message)
        chat = self._chat_of(target)
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
        chat = self._chat_of(target)
        self._check_user_can_write(person, chat)
        return self._push_callback(person, chat, target, data)

    def _chat_of(self, message: StoredMessage) -> Chat:
        owner = self.network.bots.get(message.sender_id)
        if owner is None:
            raise EmulatorError(f"message {message.message_id} was not sent by a bot: it has no buttons")
        return owner.world.chat(message.chat_id)

    def _push_callback(self, person: User, chat: Chat, target: StoredMessage, data: str) -> CallbackQuery:
        # The query goes to the bot whose message carries the button.
        owner = self.network.bots[target.sender_id]
        query = CallbackQuery(
            id=self.network.next_query_id(),
            bot_id=target.sender_id,
            user_id=person.id,
            chat_id=chat.id,
            message_id=target.message_id,
            data=data,
            date=self.network.now(),
            tapped_at=self.network.clock(),
        )
        owner.world.callback_queries[query.id] = query
        self.journal.add("callback_query", **query.to_json())
        owner.updates.push(
            "callback_query",
            {
                "id": query.id,
                "from": person.to_api(),
                "message": owner.world.message_to_api(target),
                "chat_instance": str(abs(chat.id) * 7919 % 10**18),
                "data": query.data,
            },
        )
        return query

    def _check_user_can_write(self, person: User, chat: Chat) -> None:
        if chat.type == "private":
            if chat.private_user_id != person.id:
                raise EmulatorError(f"chat {chat.id} is the private chat of another user")
            if not chat.started:
                raise EmulatorError(f"{person.first_name} has not started the bot (use start_bot)")
            if chat.blocked:
                raise EmulatorError(f"{person.first_name} has blocked the bot (start_bot unblocks)")
            return
        if chat.migrated_to is not None:
            raise EmulatorError(f"group {chat.id} became supergroup {chat.migrated_to}")
        if chat.members.get(person.id) not in MEMBER_STATUSES:
            raise EmulatorError(f"{person.first_name} is not a member of chat {chat.id}")

    # --- the clock ------------------------------------------------------------------------------------

    def advance_clock(self, seconds: float) -> None:
        """Telegram's time moves on by ``seconds`` for every bot: message dates, the 48 hours a message may be
        deleted in, the seconds a tap may be answered in."""
        self.network.clock_offset += seconds
        self.journal.add("clock", advanced=seconds)

    def age_message(self, message: MessageRef, seconds: float) -> StoredMessage:
        """Make a message ``seconds`` older, as if it had been sent that much earlier."""
        target = self._message(message)
        target.date -= int(seconds)
        if target.history:
            target.history[0].date = target.date
        return target

    @property
    def callback_answer_window(self) -> float:
        """Seconds after a tap in which it may be answered (Telegram's is about 15); tests may shorten it."""
        return self.network.callback_answer_window

    @callback_answer_window.setter
    def callback_answer_window(self, seconds: float) -> None:
        self.network.callback_answer_window = seconds

    # --- reading back -----------------------------------------------------------------------------

    def messages(
        self, chat: ChatRef, *, include_deleted: bool = True, topic: int | None = None
    ) -> list[StoredMessage]:
        """Every message of the chat (of one forum topic; GENERAL_TOPIC for General) in order, each with its
        current content and edit history."""
        where = self._chat(chat)
        thread_id = self._thread(where, topic)
        found = sorted(where.messages.values(), key=lambda m: m.message_id)
        return [
            m
            for m in found
            if (include_deleted or not m.deleted) and (topic is None or m.thread_id == thread_id)
        ]

    def bot_messages(
        self, chat: ChatRef, *, include_deleted: bool = False, topic: int | None = None
    ) -> list[StoredMessage]:
        """What this bot wrote into the chat (not other bots)."""
        me = self.world.bot.id
        return [
            m
            for m in self.messages(chat, include_deleted=include_deleted, topic=topic)
            if m.from_bot and m.sender_id == me
        ]

    def last_bot_message(self, chat: ChatRef, *, topic: int | None = None) -> StoredMessage | None:
        found = self.bot_messages(chat, topic=topic)
        return found[-1] if found else None

    @property
    def callback_answers(self) -> list[CallbackQuery]:
        return [q for q in self.world.callback_queries.values() if q.answered]

    def bot_status(self, chat: ChatRef) -> str:
        """This bot's status in a chat: member, administrator, restricted, left or kicked."""
        return self.world.status_in(self._chat(chat))

    def topics(self, chat: ChatRef) -> list[int]:
        """The message_thread_id of every topic of a forum, in the order they were created."""
        return list(self._chat(chat).topics)

    # --- waiting --------------------------------------------------------------------------------------

    async def wait_for(
        self, condition: Callable[[], T | None], timeout: float = DEFAULT_TIMEOUT, description: str = ""
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
        topic: int | None = None,
    ) -> StoredMessage:
        """The first message this bot sends into ``chat`` (into ``topic``) after message id ``after``
        (containing ``contains``)."""
        where = self._chat(chat)
        after_id = after.message_id if isinstance(after, StoredMessage) else after

        def arrived() -> StoredMessage | None:
            for message in self.bot_messages(where, topic=topic):
                if message.message_id > after_id and (contains is None or contains in (message.text or "")):
                    return message
            return None

        return await self.wait_for(arrived, timeout, f"a bot message in chat {where.id} after #{after_id}")

    async def wait_for_answer(self, query: CallbackQuery, timeout: float = DEFAULT_TIMEOUT) -> CallbackQuery:
        return await self.wait_for(
            lambda: query if query.answered else None, timeout, f"an answer to query {query.id}"
        )
