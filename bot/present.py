"""Showing an outcome: the group's table or lobby, the big moments, each player's private messages, through
the outbox, at the fewest Bot API calls that keep every player informed.

What a player gets, and why it costs what it does (issue 15: Telegram's limits are what caps the bot):
- the seat to act gets a new turn message (his phone rings): what happened since his last move, why it is
  his turn, his hand, until when; nobody else's hand message is edited for a move they did not make;
- the message a player acted from is edited once into a short line saying what he did, without buttons (so
  the chat does not fill with old hands), or, when the turn comes straight back to him, into his new turn;
- the group's table is one message, edited (the outbox coalesces a burst of moves into one edit and keeps
  the group under 20 calls a minute), posted anew at the bottom at each new round and by /table (the old copy
  is deleted); big moments of a stretch of play go out as one message;
- the end of a round and of the match reach every player in private too: his place, points, tribute, totals.

Everything shown is built from the outcome's table, which is the table as committed: nothing here reads
what the process remembers about a table. A message built for one version and sent after the table moved
on loses its buttons (``hand_message_sent``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any

from telegram import InlineKeyboardMarkup

from engine.match import P_OVER, P_PLAY
from storage.models import utcnow
from table import (
    CLOSED,
    CameBack,
    Entry,
    Group,
    Outcome,
    Seat,
    Table,
    TableService,
    policy,
)
from table.model import MOVES
from table.outcome import LOBBY_VIEW

from .i18n import t
from .keyboards import back_to_table_keyboard, cards_keyboard, hand_keyboard, lobby_keyboard, summary_keyboard
from .outbox import Outbox
from .tell import Teller, acts
from .texts.group import announcements, final_text, join_messages, lobby_text, summary_text, table_text
from .texts.player import (
    action_label,
    closed_text,
    deal_text,
    past_text,
    round_end_text,
    turn_text,
)
from .texts.words import glossary_lines, reader_language, seat_infos, terms_in

log = logging.getLogger(__name__)
# A mover's line of what he did waits at most this long for the computers after him (Outbox.edit's linger;
# his tap's ✓ answered it at once): the turn they hand back to him is then that line redrawn, one call and not
# two, and it comes at once rather than when his chat's window frees. The computers' stretch takes p50 0.3 s,
# at most about 1 s, at 20 tables of strong computers; tens of milliseconds with normal ones (benches.load).
MOVER_LINGER_S = 1.0


class Presenter:
    def __init__(
        self,
        outbox: Outbox,
        service: TableService,
        bot_username: str | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.outbox = outbox
        self.service = service
        self.bot_username = bot_username
        self.clock = clock  # the time deadlines are told from ("in 2 min")
        self.teller = Teller(outbox, clock, bot_username)
        # Work that waits for Telegram's answer (a new message's id, to record it) runs beside the update
        # that caused it: a handler that waited would hold its chat's next tap behind another chat's pace.
        self._waiting: set[asyncio.Task[None]] = set()
        self._reposts: dict[int, asyncio.Task[int | None]] = {}  # table -> its new group message, on its way
        # The newest version of each table its group message was drawn from: two updates handled at once may be
        # shown in the other order (a /settings tap's lobby, read before a 加电脑 committed, drawn after it), and
        # the older drawing must not replace the newer (its buttons then out of date for good: benches.load).
        self._drawn: dict[int, int] = {}

    def _beside(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._waiting.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._waiting.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("showing an outcome failed: %s", type(task.exception()).__name__)

    async def idle(self) -> None:
        """Wait for the work still waiting on Telegram's answers (tests, shutdown)."""
        while self._waiting or self._reposts:
            await asyncio.gather(*self._waiting, *self._reposts.values(), return_exceptions=True)

    # ------------------------------------------------------------------ outcomes

    async def show(self, outcome: Outcome, *, tapped: int | None = None) -> None:
        """Show what the outcome changed; ``tapped``: the private message the player acted from."""
        table = outcome.table
        if table.status == CLOSED:
            await self._show_closed(outcome)
        elif outcome.view == LOBBY_VIEW:
            await self.show_lobby(table, repost=outcome.repost)
        else:
            await self._show_play(outcome, tapped)
        for notice in outcome.notices:
            self.teller.tell(table, notice)

    def settings_panel(
        self, group: Group, text: str, markup: InlineKeyboardMarkup, thread_id: int = 0
    ) -> None:
        """A new /settings panel at the bottom of the group (of the topic it was asked in): the live one from
        now on; the one before it loses its buttons, so that no two panels contradict each other."""
        extra = {"message_thread_id": thread_id} if thread_id else {}
        sent = self.outbox.send(group.id, text, markup, silent=True, **extra)

        async def posted() -> None:
            message_id = await sent
            if message_id is None:
                return
            older = await self.service.settings.panel_posted(group.id, message_id)
            if older is not None:
                self.outbox.drop_keyboard(group.id, older)

        self._beside(posted())

    async def show_lobby(self, table: Table, *, repost: bool = False) -> None:
        lang = table.group.language
        await self.group_message(table, lobby_text(lang, table), lobby_keyboard(lang, table), repost=repost)

    async def group_message(
        self, table: Table, text: str, markup: InlineKeyboardMarkup | None, *, repost: bool = False
    ) -> None:
        """The table's one group message, edited in place; posted anew at the bottom on ``repost`` (the old
        copy deleted, or, past Telegram's 48 hours, told that the table moved). A repost still on its way is
        waited for, so that the edit goes to the new message."""
        if not table.group.reachable:
            return  # the bot cannot write there: the table holds, and is posted anew when it is back
        if table.version < self._drawn.get(table.id, table.version):
            return
        self._drawn[table.id] = table.version
        group_id = table.group_id
        mid = await self._table_message(table)
        if mid is not None and not repost:
            self.outbox.edit(group_id, mid, text, markup)
            return
        if mid is not None:
            self.outbox.delete(group_id, mid, instead=t(table.group.language, "⬇ The table moved below."))
        # A new table (the lobby) rings the group, an invitation to sit down; the same table posted anew does not.
        sent = self.teller.to_group(table, text, markup, silent=mid is not None)

        async def posted() -> int | None:
            message_id = await sent
            if message_id is not None:
                await self.service.deliveries.table_message_posted(table.id, message_id)
                if table.match is not None:
                    self._beside(self._pin(table, message_id))
            return message_id

        task = asyncio.create_task(posted())
        self._reposts[table.id] = task
        task.add_done_callback(functools.partial(self._forget_repost, table.id))

    async def _pin(self, table: Table, message_id: int) -> None:
        """The live table pinned in the group, silently, where the bot may pin: a member who opens the group
        finds it at the top however much was posted since. Whether it may is learnt from Telegram's answer."""
        group = table.group
        if group.pinning is False:
            return
        pinned = await self.outbox.pin(group.id, message_id) is not None
        if pinned != group.pinning:
            await self.service.deliveries.pinning(group.id, pinned)

    def _forget_repost(self, table_id: int, task: asyncio.Task[int | None]) -> None:
        if self._reposts.get(table_id) is task:
            del self._reposts[table_id]

    async def _table_message(self, table: Table) -> int | None:
        pending = self._reposts.get(table.id)
        if pending is not None:
            with contextlib.suppress(Exception):
                found = await pending
                if found is not None:
                    return found
        return table.message_id

    async def _show_play(self, outcome: Outcome, tapped: int | None) -> None:
        table = outcome.table
        match = table.match
        assert match is not None
        now = self.clock()
        new_round = bool(outcome.dealt)
        if new_round and table.summary_message_id is not None:
            self.outbox.drop_keyboard(table.group_id, table.summary_message_id)
        over = match.round_over and (
            outcome.unsummarized or any(e.kind == "round_over" for e in outcome.events)
        )
        if not outcome.pending:
            # With the computers' moves to follow, the group hears of this move with them: one edit, one news.
            await self._show_group(outcome, over, now)
        for user_id, message_id in outcome.stale:
            self.outbox.drop_keyboard(user_id, message_id)
        # Private: the mover's message says what he did; the seat to act gets his turn; a deal and a round's end
        # reach everyone.
        mover = _player_mover(outcome)
        to_prompt = set() if outcome.pending else self._to_prompt(outcome)
        for seat in table.humans:
            assert seat.user_id is not None
            plang = reader_language(table, seat.n)
            if seat.n == outcome.follows and seat.n in to_prompt and self._shows_past(seat):
                # The computers moved after his move and it is his turn again: the line he is looking at
                # becomes his turn, as when the turn comes straight back to him.
                assert seat.hand_message_id is not None
                self._edit_turn(table, seat, seat.hand_message_id, plang, now)
                to_prompt.discard(seat.n)
            if mover is not None and seat.n == mover.n and seat.hand_message_id is not None:
                message = tapped or seat.hand_message_id
                if seat.n in to_prompt:
                    # Asked again at once (he took the trick, or his next question before the first lead): the
                    # message he is looking at becomes it.
                    self._edit_turn(table, seat, message, plang, now)
                    to_prompt.discard(seat.n)
                    continue
                own = _own_move(outcome, seat.n)
                done = action_label(plang, outcome.moves[0].action) if own is None else None
                self.outbox.edit(
                    seat.user_id,
                    message,
                    past_text(plang, table, seat.n, own, done),
                    cards_keyboard(plang, table),
                    # The computers move next and may hand the turn straight back: his ✓ answered the tap.
                    linger=MOVER_LINGER_S if outcome.pending else 0.0,
                )
            if new_round:
                deal = deal_text(plang, table, seat.n)
                if seat.n in to_prompt:
                    # Asked at the deal: he gets his deal too, and his question in a message of its own, which
                    # shrinks once answered while the deal stays where he can read his cards (not claimed).
                    self.outbox.send(seat.user_id, deal, cards_keyboard(plang, table), silent=True)
                else:
                    await self._new_hand_message(table, seat, deal, cards_keyboard(plang, table))
            if over:
                self.outbox.send(seat.user_id, round_end_text(plang, table, seat.n), silent=True)
        if outcome.follows is not None:
            # The computers after his move have moved: his line, if it still waits for them, goes now.
            follower = table.seat(outcome.follows)
            if follower is not None and follower.user_id is not None:
                self.outbox.release(follower.user_id)
        for asked in (s for s in table.humans if s.n in to_prompt):
            n = asked.n
            # Nothing moved (another seat went to 托管 or came back): his turn is the one he was asked, so the
            # message that asks it is redrawn in place (its buttons carry the new version), without a ring.
            same_turn = not (outcome.moves or outcome.dealt or outcome.rearmed) and not any(
                isinstance(x, CameBack) and x.seat == n for x in outcome.notices
            )
            if same_turn and self._redraw_turn(table, asked, now):
                continue
            await self.send_turn(table, asked, now=now, fresh=outcome.rearmed or not outcome.moves)

    async def _show_group(self, outcome: Outcome, over: bool, now: datetime) -> None:
        """The group's table (posted anew at a new round), and the big moments of the stretch as one message:
        a group may get only 20 a minute."""
        table = outcome.table
        lang = table.group.language
        new_round = bool(outcome.dealt)
        repost = outcome.repost or (new_round and table.round_no > 1)
        shown = table_text(lang, table, now)
        await self.group_message(table, shown, None, repost=repost)
        if new_round and not repost and table.message_id is not None:
            self._beside(self._pin(table, table.message_id))  # the lobby became the table
        news = announcements(lang, outcome.told, outcome.events, seat_infos(table, lang))
        if over:
            news.append(summary_text(lang, table))
        # The terms the table shows are explained with the news (the table itself is edited over and over).
        text = await self._glossed(table, join_messages(news) if news else "", shown)
        if text:
            markup = summary_keyboard(lang, table) if over else None
            if markup is None and table.group.pinning is False:
                markup = back_to_table_keyboard(lang, table)
            sent = self.teller.to_group(table, text, markup)
            if over:
                self._beside(self._summary_posted(table, sent))

    def _shows_past(self, seat: Seat) -> bool:
        """His hand message shows a move of his once made (it asks nothing): known to the outbox."""
        if seat.user_id is None or seat.hand_message_id is None:
            return False
        shown = self.outbox.will_show(seat.user_id, seat.hand_message_id)
        return shown is not None and not acts(shown[1])

    def _to_prompt(self, outcome: Outcome) -> set[int]:
        """The seats that get a message asking them to act: the player to act during the play; before the first
        lead each player asked a question he was not asked before (or, after a restart, whose question never
        reached him), the others' questions standing as they were asked."""
        table = outcome.table
        match = table.match
        waiting = policy.waits_on(table, match)
        if not outcome.prompt or match is None:
            return set()
        if match.step in (P_PLAY, P_OVER):
            return {s.n for s in waiting}
        resumed = not outcome.moves and not outcome.dealt
        return {
            s.n for s in waiting if s.n in outcome.asked_anew or (resumed and not policy.prompted(table, s))
        }

    async def _summary_posted(self, table: Table, sent: asyncio.Future[int | None]) -> None:
        message_id = await sent
        if message_id is not None:
            await self.service.deliveries.summary_posted(table.id, message_id, table.version)

    async def send_turn(
        self, table: Table, seat: Seat, *, now: datetime | None = None, fresh: bool = False
    ) -> None:
        """A new message with his hand and the keyboard (his phone rings); an older one that still has buttons
        loses them (``fresh``: after a restart, when what the old one shows is not known)."""
        assert seat.user_id is not None
        lang = reader_language(table, seat.n)
        if seat.hand_message_id is not None:
            shown = self.outbox.shows(seat.user_id, seat.hand_message_id)
            if (shown is not None and acts(shown[1])) or (shown is None and fresh):
                self.outbox.drop_keyboard(seat.user_id, seat.hand_message_id)
        text, markup = self._turn(table, seat, lang, now or self.clock())
        await self._new_hand_message(
            table, seat, text, markup, past=past_text(lang, table, seat.n, None), turn=True
        )

    def _redraw_turn(self, table: Table, seat: Seat, now: datetime) -> bool:
        """His turn message redrawn for this version, if the outbox knows it still asks; whether it was."""
        assert seat.user_id is not None
        message_id = seat.hand_message_id
        shown = self.outbox.shows(seat.user_id, message_id) if message_id is not None else None
        if message_id is None or shown is None or not acts(shown[1]):
            return False
        self._edit_turn(table, seat, message_id, reader_language(table, seat.n), now)
        self._beside(self._note_redrawn(table, seat.n, message_id))
        return True

    async def _note_redrawn(self, table: Table, seat: int, message_id: int) -> None:
        # Still his turn message, now for this version: a restart does not send it again.
        await self.service.deliveries.hand_message_sent(table.id, seat, message_id, table.version, turn=True)

    def _turn(self, table: Table, seat: Seat, lang: str, now: datetime) -> tuple[str, InlineKeyboardMarkup]:
        return turn_text(lang, table, seat.n, now), hand_keyboard(lang, table, seat.n)

    def _edit_turn(self, table: Table, seat: Seat, message_id: int, lang: str, now: datetime) -> None:
        """His turn drawn into a message he has. Should it wait for his chat's pace, it goes only if the turn
        is still his as committed by then: another process (webhook workers on one database) may have moved
        the table on and drawn what followed into this very message meanwhile (a time-out's word, which a
        turn of dead buttons then covered: tests/scale/test_two_webhook_workers.py)."""
        assert seat.user_id is not None
        still = functools.partial(self.service.reads.still_asks, table, seat.n)
        self.outbox.edit(seat.user_id, message_id, *self._turn(table, seat, lang, now), still=still)

    async def _new_hand_message(
        self,
        table: Table,
        seat: Seat,
        text: str,
        markup: InlineKeyboardMarkup | None,
        *,
        past: str | None = None,
        turn: bool = False,
    ) -> None:
        assert seat.user_id is not None
        # Only a turn (or a question before the first lead) rings; a deal is there when he looks.
        sent = self.outbox.send(seat.user_id, text, markup, silent=not turn)
        self._beside(self._claim(table, seat, sent, past, turn))

    async def _claim(
        self, table: Table, seat: Seat, sent: asyncio.Future[int | None], past: str | None, turn: bool
    ) -> None:
        message_id = await sent
        if message_id is None or seat.user_id is None:
            return
        mine = await self.service.deliveries.hand_message_sent(
            table.id, seat.n, message_id, table.version, turn=turn
        )
        if not mine and turn:
            mine = await self._still_his_question(table, seat.n, message_id)
        if not mine and past is not None:
            # The table moved on while this message was on its way (a move typed at once, or made in another
            # process): no buttons of a turn that is over may stay behind.
            self.outbox.edit(
                seat.user_id, message_id, past, cards_keyboard(reader_language(table, seat.n), table)
            )

    async def _still_his_question(self, table: Table, seat: int, message_id: int) -> bool:
        """Before the first lead the others' answers move the table on while his question is on its way: it is
        still his to answer if he is asked what he was asked then; claimed for the version now."""
        for _ in range(3):
            now = await self.service.reads.load(table.id)
            if not policy.same_question(table, now, seat):
                return False
            if await self.service.deliveries.hand_message_sent(
                table.id, seat, message_id, now.version, turn=True
            ):
                return True
        return False

    async def _glossed(self, table: Table, text: str, shown: str = "") -> str:
        """An English group is told once per table what a Chinese term means, the first time it appears in
        ``text`` or in the table it ``shown``: the glossary lines after the text (alone if there is none)."""
        if table.group.language != "en":
            return text
        new = frozenset(terms_in(text) | terms_in(shown)) - table.marks.glossed
        if not new:
            return text
        await self.service.deliveries.note_glossed(table, new)
        return "\n".join([*([text] if text else []), *glossary_lines(new)])

    async def _show_closed(self, outcome: Outcome) -> None:
        table = outcome.table
        lang = table.group.language
        self._drawn.pop(table.id, None)
        if table.message_id is not None:
            self.outbox.drop_keyboard(table.group_id, table.message_id)
            if table.group.pinning and table.match is not None:
                self.outbox.unpin(table.group_id, table.message_id)
        if table.summary_message_id is not None:
            self.outbox.drop_keyboard(table.group_id, table.summary_message_id)
        self.teller.to_group(table, final_text(lang, table))
        if table.match is None:
            return
        for seat in table.humans:
            # A question still open (his turn, 宣点 …) is answered by the table's end, in the message that asked.
            self.teller.instead_of_turn(
                table, seat, closed_text(reader_language(table, seat.n), table, seat.n)
            )


def _player_mover(outcome: Outcome) -> Seat | None:
    """The player whose own move (a tap or a typed play) began this stretch."""
    first = outcome.moves[0] if outcome.moves else None
    if first is None or first.actor != "player" or first.seat is None:
        return None
    return outcome.table.seat(first.seat)


def _own_move(outcome: Outcome, seat: int) -> Entry | None:
    """The move the player made himself (the first of the stretch), not a 要不起 the table passed for him
    later in it."""
    return next((e for e in outcome.told if e.seat == seat and e.kind in MOVES), None)
