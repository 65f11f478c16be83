"""Showing an outcome: the group's table or lobby, the big moments, each player's private hand, the turn
message of the seat to act, and the notices for particular people, all through the outbox.

Everything shown is built from the outcome's table, which is the table as committed: nothing here reads
what the process remembers about a table.
"""

from __future__ import annotations

import logging

from telegram import InlineKeyboardMarkup

from table import (
    CLOSED,
    CameBack,
    Closed,
    Notice,
    Outcome,
    Reminder,
    Seat,
    Table,
    TableService,
    TimedOut,
    WentAutoplay,
)
from table.outcome import LOBBY_VIEW

from . import render
from .i18n import t
from .keyboards import hand_keyboard, lobby_keyboard, summary_keyboard
from .outbox import Outbox

log = logging.getLogger(__name__)


class Presenter:
    def __init__(self, outbox: Outbox, service: TableService, bot_username: str | None = None) -> None:
        self.outbox = outbox
        self.service = service
        self.bot_username = bot_username

    async def show(self, outcome: Outcome) -> None:
        table = outcome.table
        if table.status == CLOSED:
            if table.message_id is not None:
                self.outbox.drop_keyboard(table.group_id, table.message_id)
        elif outcome.view == LOBBY_VIEW:
            await self.show_lobby(table, repost=outcome.repost)
        else:
            await self._show_play(outcome)
        for notice in outcome.notices:
            self._tell(table, notice)

    async def show_lobby(self, table: Table, *, repost: bool = False) -> None:
        lang = table.group.language
        await self.group_message(
            table, render.lobby_text(lang, table), lobby_keyboard(lang, table), repost=repost
        )

    async def group_message(
        self, table: Table, text: str, markup: InlineKeyboardMarkup | None, *, repost: bool = False
    ) -> None:
        """The table's one group message, edited in place; posted anew (the old one frozen) on ``repost``."""
        group_id, mid = table.group_id, table.message_id
        if mid is not None and not repost:
            self.outbox.edit(group_id, mid, text, markup)
            return
        if mid is not None:
            self.outbox.drop_keyboard(group_id, mid)
        message_id = await self.outbox.send(group_id, text, markup)
        if message_id is not None:
            await self.service.table_message_posted(table.id, message_id)

    async def _show_play(self, outcome: Outcome) -> None:
        table = outcome.table
        match = table.match
        assert match is not None
        lang = table.group.language
        await self.group_message(table, render.table_text(lang, table), None, repost=outcome.repost)
        # The big moments of this stretch of play go out as one message: a group may get only 20 a minute.
        events = outcome.events
        news = render.announcements(lang, events, render.seat_infos(table, lang))
        markup = None
        if any(e.kind == "round_over" for e in events):
            news.append(render.summary_text(lang, table))
            markup = summary_keyboard(lang, table)
        if news:
            self.outbox.send(table.group_id, render.join_messages(news), markup)
        # Private views: those whose cards changed see their new hand; the seat to act gets a new message.
        cur = match.current_player
        for seat in table.humans:
            if seat.n == cur and seat.plays_himself:
                if outcome.prompt:
                    await self.send_turn(table, seat)
            elif seat.n in outcome.hands:
                text = render.hand_text(render.reader_language(table, seat.n), table, seat.n)
                if seat.hand_message_id is not None:
                    assert seat.user_id is not None
                    self.outbox.edit(seat.user_id, seat.hand_message_id, text, None)
                else:
                    await self._new_hand_message(table, seat, text, None)

    async def send_turn(self, table: Table, seat: Seat) -> None:
        """A new message with his hand and the keyboard (his phone rings); the old one keeps no buttons."""
        assert seat.user_id is not None
        lang = render.reader_language(table, seat.n)
        text = render.hand_text(lang, table, seat.n, your_turn=True)
        markup = hand_keyboard(lang, table, seat.n)
        # What a turn message says once the turn is past: the hand as it was, without buttons.
        past = render.hand_text(lang, table, seat.n)
        if seat.hand_message_id is not None:
            self.outbox.edit(seat.user_id, seat.hand_message_id, past, None)
        await self._new_hand_message(table, seat, text, markup, past=past)

    async def _new_hand_message(
        self,
        table: Table,
        seat: Seat,
        text: str,
        markup: InlineKeyboardMarkup | None,
        *,
        past: str | None = None,
    ) -> None:
        assert seat.user_id is not None
        message_id = await self.outbox.send(seat.user_id, text, markup)
        if message_id is None:
            return
        mine = await self.service.hand_message_sent(table.id, seat.n, message_id, table.version)
        if not mine and past is not None:
            # The table moved on while this message was on its way (a move typed at once, or made in another
            # process), and the views of that move went to the older message: no buttons of a turn that is
            # over may stay behind.
            self.outbox.edit(seat.user_id, message_id, past, None)

    def _tell(self, table: Table, notice: Notice) -> None:
        lang = table.group.language
        names = render.seat_infos(table, lang)
        if isinstance(notice, TimedOut):
            seat = table.seat(notice.seat)
            if seat is None or seat.user_id is None:
                return
            plang = render.reader_language(table, notice.seat)
            self.outbox.send(
                seat.user_id,
                t(
                    plang,
                    "[{group}] Time is up: the computer played for you ({action}). Tap anything or send /back to play again.",
                    group=table.title,
                    action=render.action_label(plang, notice.action),
                ),
            )
        elif isinstance(notice, Reminder):
            seat = table.seat(notice.seat)
            if seat is not None and seat.user_id is not None:
                plang = render.reader_language(table, notice.seat)
                self.outbox.send(
                    seat.user_id,
                    t(
                        plang,
                        "[{group}] Reminder: it is your turn; half of your time is gone.",
                        group=table.title,
                    ),
                )
        elif isinstance(notice, WentAutoplay):
            name = names[notice.seat].name if notice.seat in names else "?"
            if notice.blocked:
                text = t(
                    lang,
                    "{name} cannot get private messages from me (blocked, or never started me): the seat is on 托管. {name}: open @{bot}, send /start, then /back.",
                    name=name,
                    bot=self.bot_username or "",
                )
            else:
                text = t(
                    lang,
                    "{name} leaves the round: the computer plays the seat (托管). /back in private to return.",
                    name=name,
                )
            self.outbox.send(table.group_id, text)
        elif isinstance(notice, Closed):
            self.outbox.send(table.group_id, t(lang, "The table is closed. /new opens another."))
        elif isinstance(notice, CameBack):
            pass  # he is answered where he asked (/back or his tap); the table shows him back
