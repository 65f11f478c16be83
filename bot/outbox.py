"""The outbound queue: every message the bot sends or edits goes through here, at Telegram's pace.

Telegram allows a bot about 30 messages a second in all, 20 a minute into one group (edits count) and about
one a second into one private chat; a bot that goes faster is told off with a 429 and a ``retry_after`` for
that chat. The outbox keeps each chat's pace itself, from a log of what it sent (``Pace``), so a 429 is rare,
and when one comes only that chat waits. PTB's AIORateLimiter is not used: it paces groups as a bucket that
lets a full minute's worth through at once (a sliding minute then holds up to twice the limit), does not pace
private chats at all, and on any 429 pauses every chat until the window is over (issue 15, measured with the
emulator's limits: 93-108 answers 429 per round, one tap answered after 57 s, private replies ~1.1 s at p90).
The pace is kept by the event loop's clock, or by a :class:`Clock` a test gives.

One worker per chat keeps that chat's messages in order while chats proceed independently. Edits of the same
message are coalesced (the latest content wins) until the moment they are sent, and an edit that would show
what the message already shows is not sent at all: the outbox remembers the text and keyboard it last sent
for each message. A group's calls are spread evenly over its minute, so a burst of moves costs one edit of the
table and the table is never more than a few seconds behind.

What Telegram's answers tell about a chat is reported as a value on ``reports`` for the table layer: a 403
(the user blocked the bot, or never started it), a group that became a supergroup, a 429's window (kept in
the database, so that the next process honours it too). A chat that answered 403 is not written to again
until :meth:`unblock` (the user talked to the bot). Nothing here logs message text: a private message may
hold a hand.

The calls go through ``Bot.do_api_request`` and keep Telegram's answer as it came: the typed methods build a
``Message`` from every answer, keyboard included, and that was an eighth of a busy bot's CPU (bench_load,
cProfile) for a message id.
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError
from telegram.warnings import PTBUserWarning

from storage.models import utcnow

from .pace import Clock, Gate, LoopClock, Pace, Window

log = logging.getLogger(__name__)

Markup = InlineKeyboardMarkup | None
# Asked before an edit that had to wait is sent: whether what it shows is still to be shown (Outbox.edit).
Still = Callable[[], Awaitable[bool]]
# An edit sent within this long of being drawn goes unasked: another process could draw a newer state first
# only by committing a move (a tap, a deadline) in that moment. The waits that let it happen are a chat's
# window, up to 3 s, and the overall gate at the token's limit (tests/scale/test_two_webhook_workers.py).
STILL_AFTER = 0.1
SHOWN_MAX = 200_000  # messages whose last content is remembered (about 100 bytes each)
ATTEMPTS = 4  # a call that fails on the network is tried this often, 0.5 s, 1 s, 2 s apart
LINGER_STEP = 0.02  # how often a lingering edit looks for what came after it (Outbox.edit)


@dataclass(frozen=True, slots=True)
class ChatBlocked:
    """Telegram refused to deliver into this chat (403): the user blocked the bot or never started it."""

    chat_id: int


@dataclass(frozen=True, slots=True)
class GroupMigrated:
    """The group became a supergroup with a new id (Telegram's ChatMigrated)."""

    old_id: int
    new_id: int


@dataclass(frozen=True, slots=True)
class RetryWindow:
    """Telegram asked for a pause in this chat until ``until`` (a 429's retry_after)."""

    chat_id: int
    until: datetime


Report = ChatBlocked | GroupMigrated | RetryWindow


@dataclass
class _Job:
    kind: str  # send, edit, delete
    chat_id: int
    message_id: int | None = None
    text: str = ""
    markup: Markup = None
    future: asyncio.Future[int | None] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    linger: float = 0.0  # an edit that may wait this long for the next edit of its message (Outbox.edit)
    still: Still | None = None  # asked before it goes if it waited since it was drawn (Outbox.edit)
    drawn: float = 0.0  # when its content was drawn (the outbox's clock)

    def redraw(self, text: str, markup: Markup, still: Still | None, drawn: float) -> None:
        """Show this instead (a later edit of the same message, coalesced into this one)."""
        self.text, self.markup, self.still, self.drawn = text, markup, still, drawn


def _content(text: str, markup: Markup) -> tuple[str, str]:
    return text, "" if markup is None else json.dumps(markup.to_dict(), sort_keys=True)


class Outbox:
    def __init__(self, bot: Bot, pace: Pace | None = None, *, clock: Clock | None = None) -> None:
        self.bot = bot
        self.pace = pace or Pace()
        self.clock: Clock = clock or LoopClock()
        self.reports: asyncio.Queue[Report] = asyncio.Queue()
        self.blocked: set[int] = set()
        self._queues: dict[int, deque[_Job]] = {}
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._edits: dict[tuple[int, int], _Job] = {}  # pending, not yet started: the latest content wins
        self._shown: OrderedDict[tuple[int, int], tuple[str, str]] = OrderedDict()
        self._windows: dict[int, Window] = {}
        self._retry_until: dict[int, float] = {}  # chat -> the clock's time
        self._lingering: dict[int, asyncio.Event] = {}  # chat -> set to end its lingering edit's wait
        p = self.pace
        self._total = Gate(Window(p.total_messages, p.total_period + p.margin), self.clock)
        self.calls: dict[str, int] = {}
        self.refused = 0  # 429s received
        self.failed = 0  # calls given up after ATTEMPTS
        # do_api_request warns when a typed method exists for the endpoint; here it is used on purpose.
        warnings.filterwarnings("ignore", message=_TYPED_METHOD_EXISTS, category=PTBUserWarning)

    # ------------------------------------------------------------------ what Telegram told earlier

    def prime(self, windows: dict[int, datetime], blocked: set[int]) -> None:
        """What an earlier process learned (kept in the database): running retry windows, blocked chats."""
        clock_now, now = self.clock.time(), utcnow()
        for chat_id, until in windows.items():
            left = (until - now).total_seconds()
            if left > 0:
                self._retry_until[chat_id] = clock_now + left
        self.blocked |= blocked

    def unblock(self, chat_id: int) -> bool:
        """The user talked to the bot: his chat may be written to again. Whether it was blocked."""
        if chat_id in self.blocked:
            self.blocked.discard(chat_id)
            return True
        return False

    def shows(self, chat_id: int, message_id: int) -> tuple[str, str] | None:
        """What the outbox last put into this message (text, keyboard as JSON), if it remembers."""
        return self._shown.get((chat_id, message_id))

    def will_show(self, chat_id: int, message_id: int) -> tuple[str, str] | None:
        """What the message will show once what is queued for it is sent (an edit on its way), if known."""
        pending = self._edits.get((chat_id, message_id))
        return (
            _content(pending.text, pending.markup) if pending is not None else self.shows(chat_id, message_id)
        )

    # ------------------------------------------------------------------ API

    def send(
        self, chat_id: int, text: str, markup: Markup = None, *, silent: bool = False, **extra: Any
    ) -> asyncio.Future[int | None]:
        """Queue a new message; the future gives its message id, or None when it was not delivered. A
        ``silent`` one arrives without a sound (``disable_notification``): only what asks something of the
        reader rings."""
        fut: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        if chat_id in self.blocked:
            fut.set_result(None)
            return fut
        if silent:
            extra["disable_notification"] = True
        self._put(_Job("send", chat_id, text=text, markup=markup, future=fut, extra=extra))
        return fut

    def edit(
        self,
        chat_id: int,
        message_id: int,
        text: str,
        markup: Markup = None,
        *,
        linger: float = 0.0,
        still: Still | None = None,
    ) -> None:
        """Make the message show this (coalesced with edits of it not yet sent; nothing sent if it shows it).
        With ``linger``, it waits up to that long, until anything else is queued for its chat or it is
        released (:meth:`release`), and an edit of the same message queued meanwhile goes out in its place: a
        mover's line of what he did, while the computers move after him, becomes his next turn in one call
        rather than two (two cost 0.2 calls more per human action at tables of normal computers, and with the
        window full his turn waited for a slot: up to 2.5 s at 20 tables of strong computers, issue 23).

        With ``still``, an edit that waited (for its chat's pace, the overall limit, or behind what went before
        it) more than :data:`STILL_AFTER` after it was drawn is sent only if ``still()`` says so then: another
        process sharing the database may have moved the table on and drawn the newer state meanwhile, and a
        turn drawn for an older version, landing after it, put dead buttons over what happened (a time-out's
        word: two webhook workers, the private chat's window holding one worker's edit for 3 s while the
        other's went out)."""
        if chat_id in self.blocked:
            return
        key = (chat_id, message_id)
        pending = self._edits.get(key)
        if pending is not None:
            pending.redraw(text, markup, still, self.clock.time())
            return
        if self._shown.get(key) == _content(text, markup):
            return
        job = _Job(
            "edit",
            chat_id,
            message_id,
            text=text,
            markup=markup,
            linger=linger,
            still=still,
            drawn=self.clock.time(),
        )
        self._edits[key] = job
        self._put(job)

    def delete(self, chat_id: int, message_id: int, instead: str | None = None) -> None:
        """Remove the message; where Telegram no longer allows it (48 hours on), show ``instead`` in it."""
        key = (chat_id, message_id)
        pending = self._edits.pop(key, None)
        if pending is not None:
            pending.kind = "dropped"
        if chat_id not in self.blocked:
            self._put(_Job("delete", chat_id, message_id, text=instead or ""))

    def drop_keyboard(self, chat_id: int, message_id: int, tapped: str | None = None) -> None:
        """The message keeps its text and loses its buttons; with ``tapped`` (a button's data, as JSON), only
        while the keyboard it will show still holds that button: a double tap's out-of-date second tap had
        stripped the next turn's keyboard, queued into the same message meanwhile (test_concurrency)."""
        shown = self._shown.get((chat_id, message_id))
        pending = self._edits.get((chat_id, message_id))
        if pending is not None:
            if tapped is None or tapped in _content(pending.text, pending.markup)[1]:
                pending.markup, pending.still = None, None  # asks nothing now: nothing to check
        elif shown is not None:
            if shown[1]:
                self.edit(chat_id, message_id, shown[0], None)
        elif chat_id not in self.blocked:
            self._put(_Job("markup", chat_id, message_id))

    def pin(self, chat_id: int, message_id: int) -> asyncio.Future[int | None]:
        """Pin the message silently; the future gives its id once pinned, None where Telegram refused (the bot
        may not pin in this chat)."""
        fut: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        if chat_id in self.blocked:
            fut.set_result(None)
        else:
            self._put(_Job("pin", chat_id, message_id, future=fut))
        return fut

    def unpin(self, chat_id: int, message_id: int) -> None:
        if chat_id not in self.blocked:
            self._put(_Job("unpin", chat_id, message_id))

    def busy(self) -> bool:
        return any(self._queues.values()) or any(not w.done() for w in self._workers.values())

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until everything queued so far has been sent (tests, shutdown), at most ``timeout`` seconds of
        the event loop's time (a test on a clock of its own moves that clock instead)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline and self.busy():
            await asyncio.sleep(0.005)

    async def close(self) -> None:
        for w in self._workers.values():
            w.cancel()
        self._workers.clear()
        if self._total.runner is not None:
            self._total.runner.cancel()

    # ------------------------------------------------------------------ workers

    def _put(self, job: _Job) -> None:
        q = self._queues.setdefault(job.chat_id, deque())
        q.append(job)
        worker = self._workers.get(job.chat_id)
        if worker is None or worker.done():
            self._workers[job.chat_id] = asyncio.create_task(self._work(job.chat_id, q))

    def _window(self, chat_id: int) -> Window:
        window = self._windows.get(chat_id)
        if window is None:
            p = self.pace
            if chat_id > 0:  # a user's private chat
                window = Window(p.private_messages, p.private_period + p.margin)
            else:
                window = Window(
                    p.group_messages, p.group_period + p.margin, burst=min(4, p.group_messages // 5)
                )
            self._windows[chat_id] = window
        return window

    async def _work(self, chat_id: int, q: deque[_Job]) -> None:
        while q:
            job = q.popleft()
            if job.kind == "edit":
                self._edits.pop((job.chat_id, job.message_id or 0), None)
                if self._shown.get((job.chat_id, job.message_id or 0)) == _content(job.text, job.markup):
                    continue  # a later edit brought it back to what it shows
            elif job.kind == "dropped":
                continue
            result = None
            if job.chat_id not in self.blocked:
                if job.kind in ("edit", "markup"):
                    # What the message will show from now on, while it waits for its chat's pace: an edit or a
                    # keyboard dropped meanwhile builds on it (a turn redrawn into a line of what he did was
                    # taken for the turn while the line waited, and its keyboard stripped from the turn's
                    # text: tests/bot/test_e2e_told.py, the follow-on of issue 23).
                    self._remember(job)
                if job.linger:
                    await self._linger(job, q)
                if job.kind not in ("delete", "unpin"):  # not among the messages Telegram counts
                    await self._pace(
                        job.chat_id, first=job.kind == "send" and not job.extra.get("disable_notification")
                    )
                    if job.kind == "edit" and q and q[0] is self._edits.get((chat_id, job.message_id or 0)):
                        # The next edit of this message came while this one waited (for a slot, Gate, or
                        # lingering for it): one call shows the latest.
                        later = q.popleft()
                        del self._edits[(chat_id, job.message_id or 0)]
                        job.redraw(later.text, later.markup, later.still, later.drawn)
                if (
                    job.still is not None
                    and self.clock.time() - job.drawn > STILL_AFTER
                    and not await self._still(job)
                ):
                    self._forget(job)  # what the message shows is what another process drew: not known here
                    continue
                result = await self._deliver(job, q)
            if job.future is not None and not job.future.done():
                job.future.set_result(result)
        if self._windows.get(chat_id) is not None and not self._windows[chat_id].times:
            self._windows.pop(chat_id, None)

    async def _linger(self, job: _Job, q: deque[_Job]) -> None:
        """Wait up to the job's linger, until anything else is queued for its chat (the next edit of its
        message is then taken in by the edit after the pace) or the chat is released."""
        released = self._lingering[job.chat_id] = asyncio.Event()
        until = self.clock.time() + job.linger
        while not q and not released.is_set() and (left := until - self.clock.time()) > 0:
            await self.clock.sleep(min(LINGER_STEP, left))
        del self._lingering[job.chat_id]

    async def _still(self, job: _Job) -> bool:
        assert job.still is not None
        try:
            return await job.still()
        except Exception as e:  # the database away a moment: the edit goes, as it would have without asking
            log.warning("checking an edit in chat %s failed: %s", job.chat_id, type(e).__name__)
            return True

    def release(self, chat_id: int) -> None:
        """What an edit lingers for in this chat has come (the computers after the mover have moved, and the
        turn did not come back to him): it goes now."""
        released = self._lingering.get(chat_id)
        if released is not None:
            released.set()

    async def _pace(self, chat_id: int, *, first: bool = False) -> None:
        clock = self.clock
        window = self._window(chat_id)
        while True:
            now = clock.time()
            wait = max(window.wait(now), self._retry_until.get(chat_id, 0.0) - now)
            if wait <= 0:
                break
            await clock.sleep(wait)
        self._retry_until.pop(chat_id, None)
        await self._total.enter(first)
        window.use(clock.time())

    async def _deliver(self, job: _Job, q: deque[_Job]) -> int | None:
        # What the message will show, from the moment the call leaves: an edit or a keyboard dropped while
        # this one is on its way builds on it (a failure below forgets it again).
        self._remember(job)
        for attempt in range(ATTEMPTS):
            method = _METHODS[job.kind]
            self.calls[method] = self.calls.get(method, 0) + 1
            try:
                result = await self._call(job)
            except RetryAfter as e:
                # Told off despite the pacing (another process wrote to this chat, say): only this chat waits.
                self.refused += 1
                wait = e.retry_after
                seconds = wait.total_seconds() if isinstance(wait, timedelta) else float(wait)
                self._retry_until[job.chat_id] = self.clock.time() + seconds
                self.reports.put_nowait(RetryWindow(job.chat_id, utcnow() + timedelta(seconds=seconds)))
                log.info("Telegram asked for %.0f s of pause in chat %s", seconds, job.chat_id)
                await self._pace(job.chat_id)
                continue
            except BadRequest as e:
                text = str(e).lower()
                if "not modified" in text:
                    pass
                elif job.kind == "delete" and job.text:
                    job.kind = "edit"  # too old to delete: it says so instead
                    await self._pace(job.chat_id)
                    continue
                else:
                    log.info("Telegram refused %s in chat %s: %s", job.kind, job.chat_id, e.message)
                    self._forget(job)
                return None
            except ChatMigrated as e:
                self.reports.put_nowait(GroupMigrated(job.chat_id, e.new_chat_id))
                job.chat_id = e.new_chat_id
                continue
            except Forbidden:
                # Reported, not handled here: the reaction (托管, a word to the group) must not wait on this
                # worker. Nothing more goes to this chat until the user talks to the bot.
                self.blocked.add(job.chat_id)
                self.reports.put_nowait(ChatBlocked(job.chat_id))
                self._drop_queued(q)
                return None
            except (NetworkError, TelegramError) as e:
                log.warning("Telegram call %s in chat %s failed: %s", method, job.chat_id, type(e).__name__)
                if attempt < ATTEMPTS - 1:
                    await self.clock.sleep(0.5 * 2**attempt)
                continue
            return result
        self.failed += 1
        self._forget(job)
        return None

    def _forget(self, job: _Job) -> None:
        if job.message_id is not None and job.kind not in ("pin", "unpin"):
            self._shown.pop((job.chat_id, job.message_id), None)

    def _drop_queued(self, q: deque[_Job]) -> None:
        while q:
            job = q.popleft()
            if job.kind == "edit":
                self._edits.pop((job.chat_id, job.message_id or 0), None)
            if job.future is not None and not job.future.done():
                job.future.set_result(None)

    def _remember(self, job: _Job, message_id: int | None = None) -> None:
        mid = message_id if message_id is not None else job.message_id
        if mid is None or job.kind in ("pin", "unpin"):  # a pin changes nothing the message shows
            return
        if job.kind == "delete":
            self._shown.pop((job.chat_id, mid), None)
            return
        if job.kind == "markup":
            shown = self._shown.get((job.chat_id, mid))
            if shown is not None:
                self._shown[(job.chat_id, mid)] = (shown[0], "")
            return
        key = (job.chat_id, mid)
        self._shown[key] = _content(job.text, job.markup)
        self._shown.move_to_end(key)
        if len(self._shown) > SHOWN_MAX:
            self._shown.popitem(last=False)

    async def _call(self, job: _Job) -> int | None:
        target: dict[str, Any] = {"chat_id": job.chat_id}
        if job.kind == "send":
            sent = await self.bot.do_api_request(
                "sendMessage", {**target, "text": job.text, "reply_markup": job.markup, **job.extra}
            )
            message_id = int(sent["message_id"])
            self._remember(job, message_id)
            return message_id
        assert job.message_id is not None
        target["message_id"] = job.message_id
        if job.kind == "edit":
            await self.bot.do_api_request(
                "editMessageText", {**target, "text": job.text, "reply_markup": job.markup}
            )
            return None
        if job.kind == "delete":
            await self.bot.do_api_request("deleteMessage", target)
            return None
        if job.kind == "markup":
            await self.bot.do_api_request("editMessageReplyMarkup", target)
            return None
        if job.kind == "pin":
            await self.bot.do_api_request("pinChatMessage", {**target, "disable_notification": True})
            return job.message_id
        if job.kind == "unpin":
            await self.bot.do_api_request("unpinChatMessage", target)
            return None
        raise ValueError(job.kind)


_METHODS = {
    "send": "sendMessage",
    "edit": "editMessageText",
    "delete": "deleteMessage",
    "markup": "editMessageReplyMarkup",
    "pin": "pinChatMessage",
    "unpin": "unpinChatMessage",
}
_TYPED_METHOD_EXISTS = (
    r"Please use 'Bot\.(sendMessage|editMessageText|deleteMessage|editMessageReplyMarkup|pinChatMessage"
    r"|unpinChatMessage)'"
)
