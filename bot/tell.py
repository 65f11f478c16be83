"""What particular people are told of an outcome, beside the table: a time-out in the late player's turn
message, a reminder, a 催一下, a seat gone to 托管 or freed or back, the table held while the bot cannot write in
its group and resumed; and the one way every group message of a table goes out (in its topic, never into a
group the bot cannot write in)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from telegram import InlineKeyboardMarkup

from table import (
    CLOSED,
    CameBack,
    Closed,
    Held,
    Notice,
    Nudged,
    Reminder,
    Resumed,
    Seat,
    SeatFreed,
    Table,
    TimedOut,
    WentAutoplay,
)

from . import codec
from .i18n import normalise, t
from .keyboards import cards_keyboard
from .outbox import Outbox
from .texts.player import hand_lines, reminder_text, timed_out_text
from .texts.words import reader_language, reader_zone, seat_infos, when_text


class Teller:
    def __init__(self, outbox: Outbox, clock: Callable[[], datetime], bot_username: str | None) -> None:
        self.outbox = outbox
        self.clock = clock
        self.bot_username = bot_username

    def to_group(
        self, table: Table, text: str, markup: InlineKeyboardMarkup | None = None, *, silent: bool = True
    ) -> asyncio.Future[int | None]:
        """A new message for the table in its group: in the table's topic; nothing while the bot cannot write
        there (the table holds)."""
        if not table.group.reachable:
            done: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done
        extra: dict[str, Any] = {"message_thread_id": table.thread_id} if table.thread_id else {}
        return self.outbox.send(table.group_id, text, markup, silent=silent, **extra)

    def tell(self, table: Table, notice: Notice) -> None:
        """Tell the people a notice concerns (the group, a player in private)."""
        lang = table.group.language
        names = seat_infos(table, lang)
        seat = table.seat(notice.seat) if not isinstance(notice, Closed | Held | Resumed) else None
        plang = reader_language(table, seat.n) if seat is not None else lang
        if isinstance(notice, TimedOut):
            if seat is None or seat.user_id is None:
                return
            told = f"[{table.title}] " + timed_out_text(plang, notice.action, autoplay=notice.autoplay)
            if not notice.autoplay:
                # The first time-out: his turn message says what the computer did, and that one more hands
                # his seat over (no new message: he is not looking, and the next turn rings anyway).
                if seat.hand_message_id is not None:
                    self.outbox.edit(seat.user_id, seat.hand_message_id, told)
                return
            # His missed turn message says what happened instead of a deadline that has passed.
            if seat.hand_message_id is not None:
                self.outbox.edit(seat.user_id, seat.hand_message_id, told, cards_keyboard(plang, table))
            else:
                self.outbox.send(seat.user_id, told, cards_keyboard(plang, table), silent=True)
        elif isinstance(notice, Reminder):
            if seat is not None and seat.user_id is not None:
                when = (
                    when_text(plang, table.due, self.clock(), reader_zone(table, seat.n))
                    if table.due
                    else None
                )
                self.outbox.send(seat.user_id, f"[{table.title}] " + reminder_text(plang, when))
        elif isinstance(notice, Nudged):
            if seat is not None and seat.user_id is not None:
                by = names[notice.by].name if notice.by in names else "?"
                self.outbox.send(
                    seat.user_id,
                    f"[{table.title}] "
                    + t(plang, "👋 {name} asks you to play (催一下): your turn message is above.", name=by),
                )
        elif isinstance(notice, WentAutoplay):
            name = names[notice.seat].name if notice.seat in names else "?"
            if notice.left and seat is not None and seat.user_id is not None:
                self.to_group(
                    table,
                    t(
                        lang,
                        "{name} left the match: the computer plays the seat (托管) for the rest of this round; from the next round the seat is a computer's, unless {name} sends me /back before the next deal.",
                        name=name,
                    ),
                    silent=True,
                )
                text = f"[{table.title}] " + t(
                    plang,
                    "You left the match: the computer plays your seat for the rest of this round, and from the next round the seat is a computer's. Send /back before the next deal to keep it.",
                )
                self.instead_of_turn(table, seat, text)
            elif notice.blocked:
                self.to_group(
                    table,
                    t(
                        lang,
                        "{name} cannot get private messages from me (blocked, or never started me): the computer plays the seat (托管). {name}: open @{bot} and send /start to play again.",
                        name=name,
                        bot=self.bot_username or "",
                    ),
                )
        elif isinstance(notice, SeatFreed):
            self.to_group(
                table,
                t(
                    lang,
                    "{name} did not come back: a computer plays seat {n} from this round.",
                    name=notice.name,
                    n=notice.seat + 1,
                ),
                silent=True,
            )
            self.outbox.send(
                notice.user_id,
                f"[{table.title}] "
                + t(
                    normalise(notice.language),
                    "Round {n} is dealt without you: a computer plays your seat now. Join the next table with /join.",
                    n=table.round_no,
                ),
                silent=True,
            )
        elif isinstance(notice, CameBack):
            # Back from 托管: one message, his hand now (his turn, when it is his, is his turn message).
            if seat is not None and seat.user_id is not None and table.match is not None:
                if table.to_act is None or table.to_act.n != seat.n:
                    lines = [
                        f"[{table.title}] " + t(plang, "Welcome back: you play your own cards again."),
                        *hand_lines(plang, table, seat.n),
                    ]
                    self.outbox.send(
                        seat.user_id, "\n".join(lines), cards_keyboard(plang, table), silent=True
                    )
        elif isinstance(notice, Held):
            for player in table.humans:
                assert player.user_id is not None
                self.outbox.send(
                    player.user_id,
                    f"[{table.title}] "
                    + t(
                        reader_language(table, player.n),
                        "I was removed from the group, or may no longer write there: the table waits where it is, and no time runs. A group admin adds me back (or lets me write) and it goes on.",
                    ),
                    silent=True,
                )
        elif isinstance(notice, Resumed):
            self.to_group(table, t(lang, "I am back: the table goes on where it was."))
            for player in table.humans:
                assert player.user_id is not None
                self.outbox.send(
                    player.user_id,
                    f"[{table.title}] "
                    + t(reader_language(table, player.n), "I am back in the group: the table goes on."),
                    silent=True,
                )
        elif isinstance(notice, Closed):
            pass  # the final standings are the closed table's own message

    def instead_of_turn(self, table: Table, seat: Seat, text: str) -> None:
        """Tell him ``text`` in his turn message if it still asks something of him (its moment has passed),
        else in a new silent message."""
        assert seat.user_id is not None
        plang = reader_language(table, seat.n)
        markup = cards_keyboard(plang, table) if table.status != CLOSED else None
        shown = self.outbox.shows(seat.user_id, seat.hand_message_id) if seat.hand_message_id else None
        if seat.hand_message_id is not None and (shown is None or acts(shown[1])):
            self.outbox.edit(seat.user_id, seat.hand_message_id, text, markup)
        else:
            self.outbox.send(seat.user_id, text, markup, silent=True)


def acts(keyboard: str) -> bool:
    """Whether a keyboard the outbox put in a message (as JSON) holds buttons that move (a turn's), not only
    the one that shows his cards."""
    if not keyboard:
        return False
    rows = json.loads(keyboard).get("inline_keyboard", [])
    return any(codec.moves(b.get("callback_data", "")) for row in rows for b in row)
