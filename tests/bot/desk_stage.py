"""The stage of the desk's and the handlers' fast tests: unit_support's stage (the real table service on the
in-memory unit of work, the real outbox and presenter on a recording bot, clocks the test moves) with the
real :class:`bot.desk.Desk` on it, and the real Application assembled as bot/app.py assembles it, on the same
recording bot, never polling: a test hands it Telegram updates built from Telegram's JSON, and every call the
bot makes (the outbox's and the answers the handlers make themselves) lands in one record.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from recording_bot import Call, RecordingBot
from telegram import ChatMember, ChatMemberMember, ChatMemberOwner, Update, User
from telegram.ext import Application
from unit_support import GROUP, NAMES, SIX, TITLE, Stage

from bot.app import assemble
from bot.desk import Desk
from bot.handlers import GoujiApplication
from bot.handlers.context import DESK
from bot.outbox import Outbox
from bot.present import Presenter
from table import SettingChange, Table

__all__ = ["GROUP", "NAMES", "TITLE", "DeskStage", "StandIn", "staged"]


@dataclass
class StandIn(RecordingBot):
    """The recording bot where PTB's Application wants a ``telegram.Bot``: what initialising, shutting down
    and asking who is an admin take."""

    admins: set[int] = field(default_factory=set)
    others: dict[int, User] = field(default_factory=dict)  # the other bots in the group, by id

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def answer_callback_query(
        self, callback_query_id: str, text: str | None = None, show_alert: bool | None = None, **_: Any
    ) -> bool:
        # Recorded here rather than through do_api_request: RecordingBot's asks every call for a chat_id
        # (an answer to a tap has none). To go into recording_bot.py when its owner takes it.
        params = {"callback_query_id": callback_query_id, "text": text, "show_alert": show_alert}
        at = self.clock() if self.clock is not None else None
        self.calls.append(Call("answerCallbackQuery", None, None, text, None, params, at))
        return True

    async def get_chat_member(self, chat_id: int, user_id: int, **_: Any) -> ChatMember:
        if user_id in self.others:
            return ChatMemberMember(self.others[user_id])
        user = User(user_id, NAMES.get(user_id, str(user_id)), False)
        return ChatMemberOwner(user, False) if user_id in self.admins else ChatMemberMember(user)


@dataclass
class DeskStage(Stage):
    _update_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _message_ids: itertools.count[int] = field(default_factory=lambda: itertools.count(50_000))

    def __post_init__(self) -> None:
        super().__post_init__()
        # One bot for the outbox and the Application both: the record then holds every call, in order.
        self.bot = StandIn(clock=self.time.time, username=self.username)
        self.outbox = Outbox(self.bot.as_bot(), self.pace, clock=self.time)
        self.presenter = Presenter(self.outbox, self.service, self.username, clock=self.when)
        self.desk = Desk(self.service, self.presenter, self.outbox, None, clock=self.when)
        self.app: GoujiApplication = assemble(
            Application.builder().bot(self.bot.as_bot()).updater(None).job_queue(None)
        )
        self.app.bot_data[DESK] = self.desk

    async def settle(self) -> None:
        """Let everything go out, the outbox's reports handled and what they caused gone out too."""
        while True:
            await self.drain()
            await self.time.settle()
            if self.desk.quiet():
                await self.drain()
                return

    # ------------------------------------------------------------------ Telegram's updates

    async def send(self, update: Update) -> None:
        """The update handled as Telegram's delivery of it would be, and what it caused gone out."""
        await self.app.process_update(update)
        await self.settle()

    def user(self, user_id: int, *, name: str | None = None) -> dict[str, Any]:
        return {
            "id": user_id,
            "is_bot": False,
            "first_name": name or NAMES.get(user_id, str(user_id)),
            "language_code": "en",
        }

    def chat(self, chat_id: int) -> dict[str, Any]:
        if chat_id > 0:
            return {"id": chat_id, "type": "private", "first_name": NAMES.get(chat_id, str(chat_id))}
        return {"id": chat_id, "type": "supergroup", "title": TITLE}

    def message(
        self,
        user_id: int,
        text: str,
        *,
        chat_id: int = GROUP,
        name: str | None = None,
        reply_to: int | None = None,
    ) -> Update:
        """A text from the user, in the group or (``chat_id`` = his id) in private; a command where it starts
        with one, as Telegram marks it."""
        word = text.split(maxsplit=1)[0] if text.strip() else ""
        entities = [{"type": "bot_command", "offset": 0, "length": len(word)}] if word.startswith("/") else []
        message: dict[str, Any] = {
            "message_id": next(self._message_ids),
            "date": int(datetime.now(UTC).timestamp()),
            "chat": self.chat(chat_id),
            "from": self.user(user_id, name=name),
            "text": text,
            "entities": entities,
        }
        if reply_to is not None:
            message["reply_to_message"] = {
                "message_id": reply_to,
                "date": message["date"],
                "chat": self.chat(chat_id),
                "text": "…",
            }
        return Update.de_json({"update_id": next(self._update_ids), "message": message}, self.bot.as_bot())

    def tap(self, user_id: int, data: str, *, chat_id: int, message_id: int) -> Update:
        """The user taps a button with this data under that message of the bot's."""
        shown = self.bot.shows(chat_id, message_id)
        query = {
            "id": f"q{next(self._update_ids)}",
            "from": self.user(user_id),
            "chat_instance": str(chat_id),
            "data": data,
            "message": {
                "message_id": message_id,
                "date": int(datetime.now(UTC).timestamp()),
                "chat": self.chat(chat_id),
                "text": shown.text if shown is not None else "…",
            },
        }
        return Update.de_json(
            {"update_id": next(self._update_ids), "callback_query": query}, self.bot.as_bot()
        )

    async def playing(self, turn_seconds: int | None = None) -> Table:
        """Six players and no computer (every turn waits on a person), a round dealt and shown, its first lead
        waiting (``turn_seconds`` a turn when given), and the record of calls cleared."""
        if turn_seconds is not None:
            await self.service.deliveries.see_group(GROUP, TITLE)
            await self.service.settings.change(
                GROUP, SIX[0], SettingChange("turn_seconds", turn_seconds), is_admin=True
            )
        table = await self.in_play(dict(enumerate(SIX)))
        self.bot.forget()
        return table

    # ------------------------------------------------------------------ what the bot did

    def answers(self) -> list[Call]:
        """The answers to taps, in order."""
        return [c for c in self.bot.calls if c.method == "answerCallbackQuery"]

    def said(self, chat_id: int) -> list[str]:
        """The texts of the messages sent into the chat (not the edits), in order."""
        return [str(c.text) for c in self.bot.calls if c.method == "sendMessage" and c.chat_id == chat_id]

    async def english_group(self, by: int = 101) -> None:
        """The group, known to the bot, speaking English (a new group speaks Chinese), with the classic rules
        (no 宣点 before the first lead)."""
        await self.service.deliveries.see_group(GROUP, TITLE)
        await self.service.settings.change(GROUP, by, SettingChange("language", "en"), is_admin=True)
        await self.service.settings.change(GROUP, by, SettingChange("preset", "classic"), is_admin=True)


@asynccontextmanager
async def staged(**fields: Any) -> AsyncIterator[DeskStage]:
    """A stage (with these fields: another bot of a fleet on a shared store, say) with its desk started
    (listening to the outbox's reports) and its Application initialised; both stopped at the end."""
    stage = DeskStage(**fields)
    await stage.app.initialize()
    await stage.desk.start()
    try:
        yield stage
    finally:
        await stage.desk.close()
        await stage.outbox.close()
        await stage.app.shutdown()
