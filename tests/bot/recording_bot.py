"""A stand-in for ``telegram.Bot`` in the bot side's fast tests: it records every Bot API call it is asked to
make, answers as Telegram would (a new message id per chat, the message as it now shows), keeps what each
message shows, and can be told to answer a call with one of Telegram's refusals instead: a 429 with its
``retry_after``, a 403 (the user blocked the bot), a group that became a supergroup, a 400.

It speaks both the raw ``do_api_request`` the outbox uses and the typed methods the handlers' answers use
(``send_message``, ``edit_message_text``, ``edit_message_reply_markup``, ``delete_message``,
``answer_callback_query``), recorded alike under Telegram's method names. No network, no sleeping.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from telegram import Bot, Chat, InlineKeyboardMarkup, Message
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot import codec

BOT_USERNAME = "gouji_test_bot"


# ----------------------------------------------------------------------------- Telegram's refusals, as it words them


def retry_after(seconds: int) -> RetryAfter:
    """429 Too Many Requests: this chat waits ``seconds``."""
    return RetryAfter(seconds)


def blocked() -> Forbidden:
    """403: the user blocked the bot (or never started it)."""
    return Forbidden("Forbidden: bot was blocked by the user")


def migrated(new_chat_id: int) -> ChatMigrated:
    """400: the group became a supergroup with a new id."""
    return ChatMigrated(new_chat_id)


def not_modified() -> BadRequest:
    """400: the edit would show what the message already shows."""
    return BadRequest(
        "Bad Request: message is not modified: specified new message content and reply markup are exactly "
        "the same as a current content and reply markup of the message"
    )


def too_old_to_delete() -> BadRequest:
    """400: a message older than 48 hours cannot be deleted by a bot."""
    return BadRequest("Bad Request: message can't be deleted for everyone")


# ----------------------------------------------------------------------------- what was asked


@dataclass(frozen=True)
class Call:
    """One Bot API call as Telegram received it, and how it answered."""

    method: str  # Telegram's name: sendMessage, editMessageText, editMessageReplyMarkup, deleteMessage, …
    chat_id: int | None
    message_id: int | None  # the message it concerns; for a sendMessage delivered, the id it got
    text: str | None
    reply_markup: InlineKeyboardMarkup | None
    params: Mapping[str, Any]
    at: float | None = None  # the test clock's time, when the bot was given one
    error: TelegramError | None = None  # what Telegram answered instead of doing it

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def rings(self) -> bool:
        """A new message that makes the reader's phone sound (not sent with ``disable_notification``)."""
        return self.method == "sendMessage" and not self.params.get("disable_notification")

    @property
    def buttons(self) -> list[str]:
        """The callback data of the keyboard sent with this call, row by row."""
        return buttons_of(self.reply_markup)

    @property
    def moves(self) -> list[str]:
        """The buttons of a turn (a move, the hint, the composer), not the one that shows his cards."""
        return [b for b in self.buttons if codec.moves(b)]


def buttons_of(markup: InlineKeyboardMarkup | None) -> list[str]:
    if markup is None:
        return []
    return [str(b.callback_data) for row in markup.inline_keyboard for b in row if b.callback_data]


@dataclass
class Shown:
    """What one message shows now."""

    text: str
    reply_markup: InlineKeyboardMarkup | None = None

    @property
    def buttons(self) -> list[str]:
        return buttons_of(self.reply_markup)

    @property
    def moves(self) -> list[str]:
        return [b for b in self.buttons if codec.moves(b)]


@dataclass
class _Failure:
    method: str
    chat_id: int | None
    error: TelegramError
    times: int


@dataclass
class RecordingBot:
    """Records each call; ``fail`` makes the next matching calls answer with a refusal."""

    clock: Callable[[], float] | None = None
    username: str = BOT_USERNAME
    calls: list[Call] = field(default_factory=list)
    messages: dict[tuple[int, int], Shown] = field(default_factory=dict)
    _next_id: dict[int, int] = field(default_factory=dict)
    _failures: list[_Failure] = field(default_factory=list)

    def as_bot(self) -> Bot:
        """This fake where a ``telegram.Bot`` is expected (it has the methods the bot side calls)."""
        return cast(Bot, self)

    def fail(self, method: str, error: TelegramError, *, chat_id: int | None = None, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` (into ``chat_id``, or any chat) are answered with ``error``."""
        self._failures.append(_Failure(method, chat_id, error, times))

    # ------------------------------------------------------------------ reading the record

    def to(self, chat_id: int) -> list[Call]:
        """The calls into one chat, in order."""
        return [c for c in self.calls if c.chat_id == chat_id]

    def methods(self, chat_id: int | None = None) -> list[str]:
        """The methods called (into one chat), in order."""
        return [c.method for c in self.calls if chat_id is None or c.chat_id == chat_id]

    def delivered(self, chat_id: int | None = None) -> list[Call]:
        return [c for c in self.calls if c.ok and (chat_id is None or c.chat_id == chat_id)]

    def shows(self, chat_id: int, message_id: int) -> Shown | None:
        return self.messages.get((chat_id, message_id))

    def chat_messages(self, chat_id: int) -> dict[int, Shown]:
        """Every message of the chat the bot still has, by id."""
        return {mid: shown for (chat, mid), shown in sorted(self.messages.items()) if chat == chat_id}

    def texts(self, chat_ids: Iterable[int], since: int = 0) -> list[str]:
        """Every text sent or edited into these chats (by the calls from the ``since``-th on)."""
        chats = set(chat_ids)
        return [c.text for c in self.calls[since:] if c.chat_id in chats and c.text is not None]

    def forget(self) -> None:
        """Start a new record (what the chats show is kept)."""
        self.calls.clear()

    # ------------------------------------------------------------------ the raw call the outbox makes

    async def do_api_request(
        self, endpoint: str, api_kwargs: dict[str, Any] | None = None, return_type: Any = None, **_: Any
    ) -> Any:
        params = dict(api_kwargs or {})
        chat_id = int(params["chat_id"]) if "chat_id" in params else None
        message_id = int(params["message_id"]) if "message_id" in params else None
        markup = params.get("reply_markup")
        text = params.get("text")
        at = self.clock() if self.clock is not None else None

        def record(mid: int | None, error: TelegramError | None = None) -> None:
            self.calls.append(Call(endpoint, chat_id, mid, text, markup, params, at, error))

        error = self._failure(endpoint, chat_id) or self._refusal(endpoint, chat_id, message_id, text, markup)
        if error is not None:
            record(message_id, error)
            raise error
        assert chat_id is not None
        if endpoint == "sendMessage":
            message_id = self._next_id[chat_id] = self._next_id.get(chat_id, 0) + 1
            self.messages[(chat_id, message_id)] = Shown(str(text), markup)
            record(message_id)
            return self._message_json(chat_id, message_id)
        assert message_id is not None
        if endpoint == "editMessageText":
            self.messages[(chat_id, message_id)] = Shown(str(text), markup)
            record(message_id)
            return self._message_json(chat_id, message_id)
        if endpoint == "editMessageReplyMarkup":
            self.messages[(chat_id, message_id)].reply_markup = markup
            record(message_id)
            return self._message_json(chat_id, message_id)
        if endpoint == "deleteMessage":
            del self.messages[(chat_id, message_id)]
            record(message_id)
            return True
        record(message_id)
        return True

    def _failure(self, endpoint: str, chat_id: int | None) -> TelegramError | None:
        for f in self._failures:
            if f.method == endpoint and f.chat_id in (None, chat_id):
                f.times -= 1
                if f.times <= 0:
                    self._failures.remove(f)
                return f.error
        return None

    def _refusal(
        self,
        endpoint: str,
        chat_id: int | None,
        message_id: int | None,
        text: str | None,
        markup: InlineKeyboardMarkup | None,
    ) -> TelegramError | None:
        """What Telegram itself refuses: an edit that changes nothing, a message that is not there."""
        if chat_id is None or message_id is None:
            return None
        shown = self.messages.get((chat_id, message_id))
        if endpoint == "deleteMessage" and shown is None:
            return BadRequest("Bad Request: message to delete not found")
        if endpoint in ("editMessageText", "editMessageReplyMarkup") and shown is None:
            return BadRequest("Bad Request: message to edit not found")
        if shown is None:
            return None
        if endpoint == "editMessageText" and (shown.text, _json(shown.reply_markup)) == (text, _json(markup)):
            return not_modified()
        if endpoint == "editMessageReplyMarkup" and _json(shown.reply_markup) == _json(markup):
            return not_modified()
        return None

    def _message_json(self, chat_id: int, message_id: int) -> dict[str, Any]:
        shown = self.messages[(chat_id, message_id)]
        return {
            "message_id": message_id,
            "date": int(datetime.now(UTC).timestamp()),
            "chat": {"id": chat_id, "type": "private" if chat_id > 0 else "supergroup"},
            "text": shown.text,
            **({"reply_markup": shown.reply_markup.to_dict()} if shown.reply_markup is not None else {}),
        }

    # ------------------------------------------------------------------ the typed methods (handlers' answers)

    async def send_message(
        self, chat_id: int, text: str, reply_markup: InlineKeyboardMarkup | None = None, **kwargs: Any
    ) -> Message:
        params = {"chat_id": chat_id, "text": text, "reply_markup": reply_markup, **kwargs}
        return self._message(await self.do_api_request("sendMessage", params))

    async def edit_message_text(
        self,
        text: str,
        chat_id: int | None = None,
        message_id: int | None = None,
        reply_markup: InlineKeyboardMarkup | None = None,
        **kwargs: Any,
    ) -> Message:
        params = {"chat_id": chat_id, "message_id": message_id, "text": text, "reply_markup": reply_markup}
        return self._message(await self.do_api_request("editMessageText", {**params, **kwargs}))

    async def edit_message_reply_markup(
        self,
        chat_id: int | None = None,
        message_id: int | None = None,
        reply_markup: InlineKeyboardMarkup | None = None,
        **kwargs: Any,
    ) -> Message:
        params = {"chat_id": chat_id, "message_id": message_id, "reply_markup": reply_markup, **kwargs}
        return self._message(await self.do_api_request("editMessageReplyMarkup", params))

    async def delete_message(self, chat_id: int, message_id: int, **kwargs: Any) -> bool:
        return bool(
            await self.do_api_request("deleteMessage", {"chat_id": chat_id, "message_id": message_id})
        )

    async def answer_callback_query(
        self, callback_query_id: str, text: str | None = None, show_alert: bool | None = None, **kwargs: Any
    ) -> bool:
        params = {"callback_query_id": callback_query_id, "text": text, "show_alert": show_alert}
        return bool(await self.do_api_request("answerCallbackQuery", params))

    def _message(self, answer: dict[str, Any]) -> Message:
        chat = answer["chat"]
        return Message(
            answer["message_id"],
            datetime.fromtimestamp(answer["date"], UTC),
            Chat(chat["id"], chat["type"]),
            text=answer.get("text"),
            reply_markup=self.messages[(chat["id"], answer["message_id"])].reply_markup,
        )


def _json(markup: InlineKeyboardMarkup | None) -> str:
    return "" if markup is None else json.dumps(markup.to_dict(), sort_keys=True)
