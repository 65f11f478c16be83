"""The outbound queue: everything the bot sends goes through here.

One worker per chat keeps that chat's messages in order while chats proceed independently; edits of the same
message are coalesced so the latest state always wins. PTB's AIORateLimiter (set on the Application) keeps
the rate within Telegram's limits and waits out a 429's ``retry_after``. "Message is not modified" is not an
error for us. What Telegram's answers tell about a chat (a 403: the user blocked the bot; a group that became
a supergroup) is reported as a value on ``reports``, for the table layer to act on.
Nothing here logs message text: a private message may hold a hand.

The calls go through ``Bot.do_api_request`` and keep Telegram's answer as it came: the typed methods
(``send_message``, ``edit_message_text``) build a ``Message`` from every answer, keyboard included, and
that was an eighth of a busy bot's CPU (bench_load, cProfile) for a message id.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError
from telegram.warnings import PTBUserWarning

log = logging.getLogger(__name__)

Markup = InlineKeyboardMarkup | None


@dataclass(frozen=True, slots=True)
class ChatBlocked:
    """Telegram refused to deliver into this chat (403): the user blocked the bot or never started it."""

    chat_id: int


@dataclass(frozen=True, slots=True)
class GroupMigrated:
    """The group became a supergroup with a new id (Telegram's ChatMigrated)."""

    old_id: int
    new_id: int


Report = ChatBlocked | GroupMigrated


@dataclass
class _Job:
    kind: str  # send, edit, markup, delete
    chat_id: int
    message_id: int | None = None
    text: str = ""
    markup: Markup = None
    future: asyncio.Future[int | None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Outbox:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.reports: asyncio.Queue[Report] = asyncio.Queue()
        self._queues: dict[int, asyncio.Queue[_Job]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._edits: dict[tuple[int, int], _Job] = {}  # pending, not yet started: the latest content wins
        self.calls = 0
        # do_api_request warns when a typed method exists for the endpoint; here it is used on purpose.
        warnings.filterwarnings("ignore", message=_TYPED_METHOD_EXISTS, category=PTBUserWarning)

    # ------------------------------------------------------------------ API

    def send(
        self, chat_id: int, text: str, markup: Markup = None, **extra: Any
    ) -> asyncio.Future[int | None]:
        """Queue a new message; the future gives its message id, or None when Telegram refused it."""
        fut: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._put(_Job("send", chat_id, text=text, markup=markup, future=fut, extra=extra))
        return fut

    def edit(self, chat_id: int, message_id: int, text: str, markup: Markup = None) -> None:
        key = (chat_id, message_id)
        pending = self._edits.get(key)
        if pending is not None:
            pending.text, pending.markup = text, markup
            return
        job = _Job("edit", chat_id, message_id, text=text, markup=markup)
        self._edits[key] = job
        self._put(job)

    def drop_keyboard(self, chat_id: int, message_id: int) -> None:
        self._put(_Job("markup", chat_id, message_id))

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until everything queued so far has been sent (tests, shutdown), at most ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline and (
            any(not q.empty() for q in self._queues.values())
            or any(not w.done() for w in self._workers.values())
        ):
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        for w in self._workers.values():
            w.cancel()
        self._workers.clear()

    # ------------------------------------------------------------------ workers

    def _put(self, job: _Job) -> None:
        q = self._queues.setdefault(job.chat_id, asyncio.Queue())
        q.put_nowait(job)
        worker = self._workers.get(job.chat_id)
        if worker is None or worker.done():
            self._workers[job.chat_id] = asyncio.create_task(self._work(job.chat_id, q))

    async def _work(self, chat_id: int, q: asyncio.Queue[_Job]) -> None:
        while not q.empty():
            job = q.get_nowait()
            if job.kind == "edit":
                self._edits.pop((job.chat_id, job.message_id or 0), None)
            result = await self._deliver(job)
            if job.future is not None and not job.future.done():
                job.future.set_result(result)

    async def _deliver(self, job: _Job) -> int | None:
        for _attempt in range(3):
            try:
                self.calls += 1
                return await self._call(job)
            except RetryAfter as e:  # the rate limiter already retried; wait once more
                wait = e.retry_after
                await asyncio.sleep(wait.total_seconds() if isinstance(wait, timedelta) else float(wait))
            except BadRequest as e:
                if "not modified" not in str(e).lower():
                    log.warning("Telegram refused %s in chat %s: %s", job.kind, job.chat_id, e.message)
                return None
            except ChatMigrated as e:
                self.reports.put_nowait(GroupMigrated(job.chat_id, e.new_chat_id))
                job.chat_id = e.new_chat_id
            except Forbidden:
                # Reported, not handled here: the reaction (托管, a word to the group) must not wait on this
                # worker, nor hold up whoever is waiting for this message.
                self.reports.put_nowait(ChatBlocked(job.chat_id))
                return None
            except TelegramError as e:
                log.warning("Telegram error on %s in chat %s: %s", job.kind, job.chat_id, type(e).__name__)
                await asyncio.sleep(0.5)
        return None

    async def _call(self, job: _Job) -> int | None:
        target: dict[str, Any] = {"chat_id": job.chat_id}
        if job.kind == "send":
            sent = await self.bot.do_api_request(
                "sendMessage", {**target, "text": job.text, "reply_markup": job.markup, **job.extra}
            )
            return int(sent["message_id"])
        assert job.message_id is not None
        target["message_id"] = job.message_id
        if job.kind == "edit":
            await self.bot.do_api_request(
                "editMessageText", {**target, "text": job.text, "reply_markup": job.markup}
            )
            return None
        if job.kind == "markup":
            await self.bot.do_api_request("editMessageReplyMarkup", target)
            return None
        raise ValueError(job.kind)


_TYPED_METHOD_EXISTS = r"Please use 'Bot\.(sendMessage|editMessageText|editMessageReplyMarkup)'"
