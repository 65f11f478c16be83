"""The use cases of a table, one method each: typed input, one unit of work for what it writes, an
:class:`Outcome` out.

Every change names the version it was decided on; the save of the new version is conditional on that
version, so of two writers exactly one wins (the other gets StaleVersion) and a refused use case has written
nothing. A move and every move after it that nobody has to tap for (computer seats, 托管, R4.3's automatic
passes) commit together, with the deadline of the decision the table then waits on. The computers decide
between the read and the write, outside any transaction: a strong computer thinks for a fifth of a second,
and a transaction held open that long would hold SQLite's one connection from every other table.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from engine import Action, Event, IllegalAction, Match, Rules
from engine.actions import PASS
from engine.ai import make_player
from engine.match import SeatView
from engine.rules import PRESETS
from storage.errors import TableAlreadyOpen as StoredTableAlreadyOpen
from storage.errors import VersionConflict
from storage.models import utcnow
from storage.records import ChatLimits, DeadlineRecord, Standing, Stats

from . import policy
from .errors import (
    AlreadyBegun,
    AlreadyProcessed,
    AlreadySeated,
    IllegalMove,
    NoRoundInPlay,
    NotAllowed,
    NothingToDo,
    NotInLobby,
    NotSeated,
    NotYourTurn,
    RoundInProgress,
    SeatTaken,
    StaleVersion,
    TableAlreadyOpen,
    TableNotFound,
)
from .load import MatchCache, group_of, read_table
from .model import (
    CLOSED,
    LOBBY,
    PLAYING,
    RECENT_MAX,
    TIME_ZONES,
    TURN_TIMES,
    Actor,
    Entry,
    Group,
    Marks,
    Seat,
    Table,
)
from .outcome import CameBack, Closed, Move, Notice, Nudged, Outcome, Reminder, TimedOut, WentAutoplay
from .policy import Deadline
from .ports import UnitOfWork, UnitOfWorkFactory

log = logging.getLogger(__name__)

NEXT_ROUND = "next"  # the log entry of the next deal (Match.replay reads the same word)
MAX_AUTOMATIC = 2000  # a whole round of computer moves stays far below this
KNOWN_USERS_MAX = 100_000
# A claimed deadline is another worker's for this long: the time one firing takes (a read, the computer's
# decision, one write) is well under a second (a strong computer thinks 200 ms; benches.load's slowest move,
# p99 on PostgreSQL, 338 ms). A claim older than this is a worker that died with it, and the table waits on
# nobody else; a worker of this host that is gone is found out at once (bot/desk.py).
CLAIM_LEASE = timedelta(seconds=30)

# How a computer decides: (level, the seat's view, the legal actions, a seed) -> its action. The default
# decides in this thread; the bot hands the strong level to a process pool (bot/app.py).
Decider = Callable[[int, SeatView, list[Action], int], Awaitable[Action]]


async def decide_here(level: int, view: SeatView, legal: list[Action], seed: int) -> Action:
    return make_player(policy.level_name(level)).choose(view, legal, random.Random(seed))


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One change from /settings: ``preset`` (a name of R12), ``rule`` (a house rule to toggle),
    ``turn_seconds``, ``language``, ``time_zone``, ``card_memory`` (on/off) or ``level`` (computers)."""

    what: str
    value: str | int


class TableService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        *,
        clock: Callable[[], datetime] = utcnow,
        languages: Sequence[str] = ("zh", "en"),
        decide: Decider = decide_here,
    ) -> None:
        self.uow = uow
        self.clock = clock
        self.languages = tuple(languages)
        self.decide = decide
        self._matches = MatchCache()
        self._locks: dict[int, asyncio.Lock] = {}
        # The name and language last written for each user: nearly every update repeats them, and a unit
        # of work to find that out was one of the few per tap. Losing it costs one write per user.
        self._known_users: dict[int, tuple[str, str | None]] = {}

    # ------------------------------------------------------------------ reading

    @asynccontextmanager
    async def _table_turn(self, table_id: int) -> AsyncIterator[None]:
        """One use case at a time per table in this process: a tap and a time-out of the same table would
        otherwise both read one version and one of them lose."""
        lock = self._locks.setdefault(table_id, asyncio.Lock())
        async with lock:
            yield

    async def load(self, table_id: int, *, with_due: bool = False) -> Table:
        """The table as stored (its match the caller's own), with the turn's deadline when asked."""
        async with self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            if with_due:
                table = replace(table, due=await _turn_due(uow, table))
        return table

    async def table_in_group(self, group_id: int) -> Table | None:
        async with self.uow() as uow:
            record = await uow.tables.open_in_group(group_id)
            if record is None:
                return None
            return await read_table(uow, record.id, self._matches)

    async def tables_of(self, user_id: int) -> list[Table]:
        """The open tables where the user sits."""
        async with self.uow() as uow:
            ids = await uow.seats.tables_of_user(user_id)
            return [await read_table(uow, table_id, self._matches) for table_id in ids]

    async def stats(self, group_id: int, user_id: int) -> tuple[Group, Stats | None, list[Standing]]:
        """The user's record in the group, and the group's leaderboard."""
        async with self.uow() as uow:
            group = group_of(await uow.groups.get(group_id), group_id)
            return (
                group,
                await uow.users.stats_in_group(group_id, user_id),
                await uow.users.leaderboard(group_id),
            )

    async def player_record(self, user_id: int) -> Stats | None:
        """The user's record over every group."""
        async with self.uow() as uow:
            user = await uow.users.get(user_id)
        return None if user is None else user.stats

    # ------------------------------------------------------------------ who is who

    async def see_user(self, user_id: int, name: str, language: str | None) -> None:
        """Keep the user's name and language current (what the table shows, what language he reads)."""
        said = (name[:255], language)
        if self._known_users.get(user_id) == said:
            return
        async with self.uow() as uow:
            await uow.users.ensure(user_id, *said)
            await uow.commit()
        if len(self._known_users) >= KNOWN_USERS_MAX:
            self._known_users.clear()
        self._known_users[user_id] = said

    async def see_group(self, group_id: int, title: str | None) -> Group:
        async with self.uow() as uow:
            await uow.groups.ensure(group_id, (title or "")[:255] or None)
            await uow.commit()
            return group_of(await uow.groups.get(group_id), group_id)

    # ------------------------------------------------------------------ the lobby

    async def open(self, group_id: int, user_id: int | None) -> Outcome:
        """Open the group's table (a lobby) with the group's house rules."""
        try:
            async with self.uow() as uow:
                await uow.groups.ensure(group_id)
                group = group_of(await uow.groups.get(group_id), group_id)
                record = await uow.tables.add(group_id, group.rules.to_dict(), created_by=user_id)
                await uow.commit()
        except StoredTableAlreadyOpen:
            raise TableAlreadyOpen(group_id) from None
        return Outcome(table=await self.load(record.id), repost=True)

    async def free_seat(self, table_id: int, user_id: int, seat: int | None = None) -> tuple[Table, int]:
        """The seat the user would take (the one asked for, else the first free one); raises when he cannot."""
        table = await self.load(table_id)
        return table, _seat_to_take(table, user_id, seat)

    async def join(self, table_id: int, user_id: int, seat: int | None = None) -> Outcome:
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            n = _seat_to_take(table, user_id, seat)
            await self._save(uow, table)
            await uow.seats.put(table_id, n, user_id=user_id)
            await uow.commit()
        return Outcome(table=await self.load(table_id))

    async def add_computers(self, table_id: int, user_id: int | None) -> Outcome:
        """Computer players in the empty seats of the lobby, at the group's level; only for a seated player."""
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            if table.status != LOBBY:
                raise NotInLobby(table_id)
            if user_id is not None and table.seat_of(user_id) is None:
                raise NotSeated(table_id)
            if table.free_seats:
                await self._save(uow, table)
                for n in table.free_seats:
                    await uow.seats.put(table_id, n, computer_level=table.group.computer_level)
                await uow.commit()
        return Outcome(table=await self.load(table_id))

    async def leave(self, table_id: int, user_id: int) -> Outcome:
        """In the lobby the seat is freed; in a match the computer plays it (托管) until he comes back."""
        async with self._table_turn(table_id):
            table = await self.load(table_id)
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated(table_id)
            if table.status == LOBBY:
                async with self.uow() as uow:
                    await self._save(uow, table)
                    await uow.seats.remove(table_id, seat.n)
                    await uow.commit()
                return Outcome(table=await self.load(table_id))
            if seat.autoplay or not table.playing:
                raise NothingToDo("already on 托管")
            away = replace(seat, autoplay=True)
            return await self._advance(
                table.with_seat(away), None, seats=[away], notices=[WentAutoplay(seat.n, False)]
            )

    async def begin(self, table_id: int, user_id: int | None, version: int | None = None) -> Outcome:
        """Fill the empty seats with computer players and deal the match's first round (R1.3)."""
        async with self._table_turn(table_id):
            table = await self.load(table_id)
            if version is not None and version != table.version:
                raise StaleVersion(table_id, version, table.version)
            if table.status != LOBBY:
                raise AlreadyBegun(round_over=table.match is not None and table.match.round_over)
            if user_id is not None and table.seat_of(user_id) is None:
                raise NotSeated(table_id)
            level = table.group.computer_level
            added = [Seat(n=n, computer_level=level) for n in table.free_seats]
            seed = secrets.randbits(63)  # fits a signed BIGINT
            match, dealt = Match.start(Rules.from_dict(table.rules), seed)
            table = replace(
                table,
                status=PLAYING,
                match=match,
                round_no=1,
                seats=tuple(sorted([*table.seats, *added], key=lambda s: s.n)),
            )
            return await self._advance(
                table,
                None,
                dealt=dealt,
                new_seats=added,
                new_round=(1, seed),
                changes={"status": PLAYING, "round_no": 1},
                all_hands=True,
            )

    # ------------------------------------------------------------------ playing

    async def act(
        self,
        table_id: int,
        user_id: int,
        action: Action,
        *,
        version: int | None = None,
        update_id: int | None = None,
        from_message: int | None = None,
    ) -> Outcome:
        """A player's own move, and the moves that follow it without anyone tapping.

        ``version``: the one his button was drawn for (None for a typed play: the turn check suffices).
        ``from_message``: the private message he tapped in, his hand message from now on (its id may not
        have reached the database yet when he tapped).
        """
        async with self._table_turn(table_id):
            async with self.uow() as uow:
                table = await read_table(uow, table_id, self._matches)
                if version is not None and version != table.version and table.seat_of(user_id) is not None:
                    if update_id is not None and await uow.updates.seen(update_id):
                        raise AlreadyProcessed(update_id)
                    raise StaleVersion(table_id, version, table.version)
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated(table_id)
            match = table.match
            if not table.playing or match is None or match.current_player is None:
                raise NoRoundInPlay(table_id)
            if match.current_player != seat.n:
                raise NotYourTurn(seat.n, match.current_player)
            reason = match.illegal_reason(action)
            if reason is not None:
                raise IllegalMove(reason)
            armed = frozenset(d.kind for d in policy.deadlines(table, match, self.clock()))
            # He acts himself: off 托管, his time-outs forgotten; the message he acted from is his now.
            me = replace(
                seat, autoplay=False, timeouts=0, hand_message_id=from_message or seat.hand_message_id
            )
            changed = [me] if me != seat else []
            left = seat.hand_message_id
            stale = ((user_id, left),) if left is not None and left != me.hand_message_id else ()
            outcome = await self._advance(
                table.with_seat(me),
                (action, "player"),
                seats=changed,
                update_id=update_id,
                armed=armed,
                notices=[CameBack(me.n)] if seat.autoplay else [],
            )
            return replace(outcome, stale=stale) if stale else outcome

    async def time_out(self, table_id: int, version: int) -> Outcome | None:
        """The player to act let his time run out: the computer plays his turn; after two in a row it keeps
        his seat (托管). None when the table has moved on since the deadline was armed."""
        async with self._table_turn(table_id):
            table = await self.load(table_id)
            seat = table.to_act
            if table.version != version or seat is None or table.match is None or not seat.plays_himself:
                return None
            action = await self._computer_move(table, table.match, seat, 0)
            changed = policy.after_timeout(seat)
            return await self._advance(
                table.with_seat(changed),
                (action, "timeout"),
                seats=[changed],
                notices=[TimedOut(seat.n, action, changed.autoplay)],
            )

    async def remind(self, table_id: int, version: int) -> Outcome | None:
        table = await self.load(table_id)
        seat = table.to_act
        if table.version != version or seat is None or not seat.plays_himself:
            return None
        return Outcome(table=table, notices=(Reminder(seat.n),))

    async def nudge(self, table_id: int, user_id: int) -> Outcome:
        """催一下: a seated player reminds the player to act, at most once per turn."""
        async with self._table_turn(table_id):
            table = await self.load(table_id)
            if table.seat_of(user_id) is None:
                raise NotSeated(table_id)
            seat = table.to_act
            if seat is None or not seat.plays_himself:
                raise NoRoundInPlay(table_id)
            if seat.user_id == user_id:
                raise NotAllowed(table_id)  # it is his own turn
            if table.marks.nudged == table.version:
                raise NothingToDo("nudged already this turn")
            marks = replace(table.marks, nudged=table.version)
            # Not a new version: his buttons stay good. Written only while the table is at this version.
            async with self.uow() as uow:
                if not await uow.tables.set_marks(table_id, table.version, marks.to_json()):
                    raise StaleVersion(table_id, table.version)
                await uow.commit()
            nudger = table.seat_of(user_id)
            assert nudger is not None
            after = replace(table, marks=marks, due=await self._due(table_id, table.version))
            return Outcome(table=after, notices=(Nudged(seat.n, nudger.n),))

    async def next_round(self, table_id: int, user_id: int | None, version: int | None = None) -> Outcome:
        """Deal the next round: the previous round's debts are paid first (R10), its 大落 leads (R1.4)."""
        async with self._table_turn(table_id):
            table = await self.load(table_id)
            if user_id is not None and table.seat_of(user_id) is None:
                raise NotSeated(table_id)
            if version is not None and version != table.version:
                raise StaleVersion(table_id, version, table.version)
            match = table.match
            if not table.playing or match is None:
                raise NoRoundInPlay(table_id)
            if not match.round_over:
                raise RoundInProgress(table_id)
            dealt = match.next_round()
            round_no = table.round_no + 1
            table = replace(table, round_no=round_no, marks=Marks(glossed=table.marks.glossed))
            return await self._advance(
                table,
                None,
                dealt=dealt,
                logged=[NEXT_ROUND],
                new_round=(round_no, match.seed),
                changes={"round_no": round_no},
                all_hands=True,
            )

    async def stop(
        self, table_id: int, user_id: int | None, *, is_admin: bool = False, version: int | None = None
    ) -> Outcome:
        """Close the table (its record and log stay); a seated player, its creator or an admin may."""
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            if table.status == CLOSED:
                raise TableNotFound(table_id)
            allowed = is_admin or user_id is None or user_id == table.created_by or table.seat_of(user_id)
            if not allowed:
                raise NotAllowed(table_id)
            if version is not None and version != table.version:
                raise StaleVersion(table_id, version, table.version)
            version = await self._save(uow, table, status=CLOSED, closed_at=self.clock())
            await uow.deadlines.drop_outdated(table_id, version + 1)
            await uow.commit()
        self._matches.forget(table_id)
        closed = replace(table, status=CLOSED, version=version)
        return Outcome(table=closed, notices=(Closed(user_id),))

    async def hint(self, table_id: int, user_id: int, version: int) -> Action:
        """What the computer would play in his place (the Hint button), at the table's level."""
        table = await self.load(table_id)
        seat = table.seat_of(user_id)
        if seat is None:
            raise NotSeated(table_id)
        if table.version != version or table.match is None or table.match.current_player != seat.n:
            raise StaleVersion(table_id, version, table.version)
        return await self._computer_move(table, table.match, None, 0)

    # ------------------------------------------------------------------ coming and going

    async def back(self, user_id: int, table_id: int | None = None) -> list[Outcome]:
        """He plays his own cards again, at every table (or at ``table_id``) where the computer kept his seat
        (托管)."""
        outcomes = []
        for found in await self.tables_of(user_id):
            if table_id not in (None, found.id):
                continue
            async with self._table_turn(found.id):
                table = await self.load(found.id)
                seat = table.seat_of(user_id)
                if seat is None or not seat.autoplay or not table.playing:
                    continue
                me = replace(seat, autoplay=False, timeouts=0)
                outcomes.append(
                    await self._advance(table.with_seat(me), None, seats=[me], notices=[CameBack(me.n)])
                )
        return outcomes

    async def blocked(self, user_id: int) -> list[Outcome]:
        """Telegram refuses to deliver to him (he blocked the bot, or never started it): nothing more is written
        to him until he talks to the bot, the computer plays his seats (托管), and each group is told how he
        gets them back."""
        async with self.uow() as uow:
            await uow.chats.blocked(user_id, True)
            await uow.commit()
        outcomes = []
        for found in await self.tables_of(user_id):
            async with self._table_turn(found.id):
                table = await self.load(found.id)
                seat = table.seat_of(user_id)
                if seat is None or seat.autoplay or not table.playing:
                    continue
                away = replace(seat, autoplay=True)
                outcomes.append(
                    await self._advance(
                        table.with_seat(away), None, seats=[away], notices=[WentAutoplay(seat.n, True)]
                    )
                )
        return outcomes

    async def unblocked(self, user_id: int) -> list[Outcome]:
        """He talked to the bot after it could not reach him: he may be written to again, and his seats come
        back to him (with his hand, and his turn if it is his)."""
        async with self.uow() as uow:
            await uow.chats.blocked(user_id, False)
            await uow.commit()
        return await self.back(user_id)

    async def chat_paused(self, chat_id: int, until: datetime) -> None:
        """Telegram asked for a pause in this chat (a 429): kept, so that the next process honours it too."""
        async with self.uow() as uow:
            await uow.chats.retry_until(chat_id, until)
            await uow.commit()

    async def chat_limits(self) -> ChatLimits:
        async with self.uow() as uow:
            return await uow.chats.read()

    async def migrate_group(self, old_id: int, new_id: int) -> Outcome | None:
        """A group became a supergroup: its settings, tables and statistics follow it; its open table is to be
        posted again there (the old message stayed behind). None when it had moved already."""
        async with self.uow() as uow:
            moved = await uow.groups.move(old_id, new_id)
            await uow.commit()
        if not moved:
            return None
        table = await self.table_in_group(new_id)
        if table is None:
            return None
        return Outcome(table=replace(table, message_id=None), repost=True)

    async def resume(self, table_id: int) -> Outcome:
        """After a start, or when a sweep finds a table waiting without its deadline: the moves nobody has to
        tap for that a crash left unmade, and the deadline of the decision the table waits on, armed again.
        ``rearmed`` in the outcome says whether it had to be."""
        async with self._table_turn(table_id):
            table = await self.load(table_id)
            if table.playing and table.match is not None and policy.automatic(table, table.match):
                return await self._advance(table, None)
            async with self.uow() as uow:
                wanted = policy.deadlines(table, table.match, self.clock())
                armed = await _armed(uow, table)
                planned: tuple[Deadline, ...] = ()
                if {d.kind for d in armed} != {d.kind for d in wanted}:
                    planned = wanted
                    await uow.deadlines.rearm(table_id, table.version, [(d.kind, d.due_at) for d in planned])
                    await uow.commit()
                    log.warning(
                        "table %s waited %s without its deadline: armed again",
                        table_id,
                        "on a player" if planned else "on nobody",
                    )
                due = next((d.due_at for d in (planned or armed) if d.kind == policy.TIMEOUT), None)
        # His turn message for this version was delivered before (a restart, a second worker): not twice.
        acting = table.to_act
        prompt = acting is not None and acting.prompted != table.version
        unsummarized = bool(table.match is not None and table.match.round_over and not table.marks.summarized)
        return Outcome(
            table=replace(table, due=due),
            deadlines=planned,
            prompt=prompt,
            rearmed=bool(planned),
            unsummarized=unsummarized,
        )

    async def waiting_without_deadline(self) -> list[int]:
        """The tables in play with no deadline for their version: each must wait on nobody, or be resumed
        (the invariant every start and every sweep keeps)."""
        async with self.uow() as uow:
            found = await uow.tables.waiting_without_deadline()
        wrong = []
        for table_id in found:
            table = await self.load(table_id)
            if table.match is not None and (
                policy.automatic(table, table.match) is not None
                or policy.deadlines(table, table.match, self.clock())
            ):
                wrong.append(table_id)
        return wrong

    # ------------------------------------------------------------------ messages the bot sent

    async def hand_message_sent(
        self, table_id: int, seat: int, message_id: int, version: int, *, turn: bool = False
    ) -> bool:
        """The seat's new hand message, if the table is still at the version it shows; whether it is.
        ``turn``: it is his turn message for that version (a restart then does not send it again)."""
        async with self.uow() as uow:
            mine = await uow.seats.claim_hand_message(table_id, seat, message_id, version, turn=turn)
            await uow.commit()
        return mine

    async def table_message_posted(self, table_id: int, message_id: int | None) -> None:
        """Which group message shows the table: not a change of the game, so no new version."""
        async with self.uow() as uow:
            await uow.tables.set_table_message(table_id, message_id)
            await uow.commit()

    async def note_glossed(self, table: Table, terms: frozenset[str]) -> None:
        """The group was told what these terms mean (English): not again at this table. Kept while the table
        is at this version (no new version: buttons stay good); lost otherwise, at the cost of a repeat."""
        await self._amend_marks(table.id, table.version, lambda m: replace(m, glossed=m.glossed | terms))

    async def summary_posted(self, table_id: int, message_id: int | None, version: int | None = None) -> None:
        """Which group message is the last round's summary (its buttons go when the next round is dealt);
        with ``version``, the round that ended there has had its end told (a restart does not tell it again)."""
        async with self.uow() as uow:
            await uow.tables.set_summary_message(table_id, message_id)
            await uow.commit()
        if version is not None and message_id is not None:
            await self._amend_marks(table_id, version, lambda m: replace(m, summarized=True))

    async def _amend_marks(self, table_id: int, version: int, change: Callable[[Marks], Marks]) -> None:
        """Change the stored marks while the table is at ``version``, from the marks as stored now: two notes
        at one version (a term explained, the summary posted) must not undo each other."""
        async with self.uow() as uow:
            record = await uow.tables.get(table_id, with_state=False)
            if record is None or record.version != version:
                return
            marks = change(Marks.from_json(record.marks))
            if await uow.tables.set_marks(table_id, version, marks.to_json()):
                await uow.commit()

    # ------------------------------------------------------------------ settings

    async def may_change_settings(
        self, group_id: int, user_id: int | None, *, is_admin: bool = False
    ) -> bool:
        """A group admin, or the creator of the group's open table."""
        if is_admin:
            return True
        table = await self.table_in_group(group_id)
        return table is not None and user_id is not None and table.created_by == user_id

    async def change_settings(
        self, group_id: int, user_id: int | None, change: SettingChange, *, is_admin: bool = False
    ) -> tuple[Group, Outcome | None]:
        """A group's settings for its tables: an open lobby takes new house rules; the turn time, the time
        zone, card memory and the computers' level hold for the open table at once."""
        if not await self.may_change_settings(group_id, user_id, is_admin=is_admin):
            raise NotAllowed(group_id)
        async with self.uow() as uow:
            await uow.groups.ensure(group_id)
            group = group_of(await uow.groups.get(group_id), group_id)
            changes = _setting(group, change, self.languages)
            await uow.groups.update_settings(group_id, **changes)
            lobby = await uow.tables.open_in_group(group_id)
            if lobby is not None and lobby.status == LOBBY and "house_rules" in changes:
                await uow.tables.save(lobby.id, lobby.version, rules=changes["house_rules"])
            if lobby is not None and lobby.status == LOBBY and "computer_level" in changes:
                for seat in await uow.seats.list(lobby.id):
                    if seat.computer_level is not None:
                        await uow.seats.update(lobby.id, seat.seat, computer_level=changes["computer_level"])
            await uow.commit()
            group = group_of(await uow.groups.get(group_id), group_id)
        if lobby is None:
            return group, None
        return group, Outcome(table=await self.load(lobby.id, with_due=True))

    # ------------------------------------------------------------------ deadlines

    async def due_deadlines(self, worker: str, now: datetime) -> list[DeadlineRecord]:
        async with self.uow() as uow:
            claimed = await uow.deadlines.claim_due(worker, now=now, lease=CLAIM_LEASE)
            await uow.commit()
        return claimed

    async def release_claim(self, deadline: DeadlineRecord) -> bool:
        """The worker that claimed this deadline is gone (it died between the claim and the move): anybody's
        again, at once rather than after the lease. Whether it was still that worker's claim."""
        async with self.uow() as uow:
            released = await uow.deadlines.release(deadline)
            await uow.commit()
        return released

    async def deadline_done(self, deadline: DeadlineRecord) -> None:
        async with self.uow() as uow:
            await uow.deadlines.done(deadline)
            await uow.commit()

    async def fire(self, deadline: DeadlineRecord) -> Outcome | None:
        if deadline.kind == policy.TIMEOUT:
            return await self.time_out(deadline.table_id, deadline.version)
        if deadline.kind == policy.REMINDER:
            return await self.remind(deadline.table_id, deadline.version)
        return None

    async def pending_deadlines(self) -> list[DeadlineRecord]:
        async with self.uow() as uow:
            return await uow.deadlines.pending()

    async def open_tables(self) -> list[int]:
        async with self.uow() as uow:
            return [t.id for t in await uow.tables.all_open()]

    # ------------------------------------------------------------------ the stretch of moves

    async def _due(self, table_id: int, version: int) -> datetime | None:
        async with self.uow() as uow:
            return next(
                (
                    d.due_at
                    for d in await uow.deadlines.of_table(table_id)
                    if d.version == version and d.kind == policy.TIMEOUT
                ),
                None,
            )

    async def _save(self, uow: UnitOfWork, table: Table, **changes: Any) -> int:
        """The table's next version, if nobody saved one since it was read."""
        try:
            return await uow.tables.save(table.id, table.version, **changes)
        except VersionConflict:
            self._matches.forget(table.id)
            raise StaleVersion(table.id, table.version) from None

    async def _computer_move(self, table: Table, match: Match, seat: Seat | None, salt: int) -> Action:
        """The computer's move for the seat to act, decided from that seat's view alone."""
        cur = match.current_player
        assert cur is not None
        legal = match.legal_actions()
        if len(legal) == 1:
            return legal[0]
        action = await self.decide(
            policy.level_of(table, seat), match.view(cur), legal, policy.seed_of(table, salt)
        )
        return action if action in legal or match.is_legal(action) else legal[0]

    async def _advance(
        self,
        table: Table,
        first: tuple[Action, Actor] | None,
        *,
        seats: Sequence[Seat] = (),
        new_seats: Sequence[Seat] = (),
        notices: Sequence[Notice] = (),
        dealt: Sequence[Event] = (),
        logged: Sequence[str] = (),
        new_round: tuple[int, int] | None = None,
        changes: dict[str, Any] | None = None,
        update_id: int | None = None,
        all_hands: bool = False,
        armed: frozenset[str] | None = None,
    ) -> Outcome:
        """Play ``first`` (if any) and every automatic move after it on the table's match, then write it all in
        one unit of work: the new version, the log, the seats changed, the round's result, the next deadlines.

        ``table`` already holds the seats as they are to be (``seats``: those to write, ``new_seats``: those to
        add); its match is changed in place. ``armed``: the kinds of deadline the table had, when the caller
        knows them."""
        match = table.match
        assert match is not None
        moves: list[Move] = []
        nxt: tuple[Action, Actor] | None = first
        if nxt is None:
            nxt = await self._automatic(table, match, 0)
        while nxt is not None and len(moves) <= MAX_AUTOMATIC:
            action, actor = nxt
            mover = match.current_player
            try:
                events = tuple(match.apply(action))
            except IllegalAction as e:  # the player's move was judged legal before; a computer's always is
                raise IllegalMove(e.reason) from None
            moves.append(Move(mover, action, actor, events))
            nxt = await self._automatic(table, match, len(moves))

        entries = [*((None, word) for word in logged), *((m.seat, str(m.action)) for m in moves)]
        seq = table.last_seq + len(entries)
        marks, told = _marks_after(table, moves, notices, dealt, table.last_seq + len(logged))
        write: dict[str, Any] = dict(changes or {})
        write.update(match=match, last_seq=seq)
        if marks != table.marks:
            write["marks"] = marks.to_json()
        after = replace(table, last_seq=seq, marks=marks, match=match)
        planned = policy.deadlines(after, match, self.clock())
        kinds = {d.kind for d in planned}

        # The writes come last, with nothing slow between them: on SQLite they hold the database's one write
        # lock from the first to the commit.
        async with self.uow() as uow:
            if update_id is not None and not await uow.updates.record(update_id):
                raise AlreadyProcessed(update_id)
            version = await self._save(uow, table, **write)
            if new_round is not None:
                await uow.rounds.add(table.id, new_round[0], new_round[1], table.rules)
            for seat in new_seats:
                await uow.seats.put(table.id, seat.n, computer_level=seat.computer_level)
            if entries:
                await uow.actions.append_many(
                    table.id,
                    table.round_no,
                    [(table.last_seq + 1 + i, s, a) for i, (s, a) in enumerate(entries)],
                )
            for seat in seats:
                await uow.seats.update(
                    table.id,
                    seat.n,
                    autoplay=seat.autoplay,
                    consecutive_timeouts=seat.timeouts,
                    hand_message_id=seat.hand_message_id,
                )
            if match.round_over and any(e.kind == "scored" for m in moves for e in m.events):
                await _count_finished_round(uow, table, match)
            # The kinds the version before had armed are moved in place; any other is dropped (unless the
            # caller knows there is none: a player's own move, the hot path, then costs one statement here).
            await uow.deadlines.rearm(
                table.id,
                version,
                [(d.kind, d.due_at) for d in planned],
                others=armed is None or not armed <= kinds,
            )
            await uow.commit()
        self._matches.put(table.id, version, match)
        moved = {m.seat for m in moves if m.seat is not None}
        hands = frozenset(s.n for s in after.humans if all_hands or s.n in moved)
        return Outcome(
            table=replace(
                after,
                version=version,
                due=next((d.due_at for d in planned if d.kind == policy.TIMEOUT), None),
            ),
            moves=tuple(moves),
            dealt=tuple(dealt),
            deadlines=planned,
            notices=tuple(notices),
            prompt=True,
            hands=hands,
            told=told,
        )

    async def _automatic(self, table: Table, match: Match, salt: int) -> tuple[Action, Actor] | None:
        how = policy.automatic(table, match)
        if how is None:
            return None
        if how == "pass":
            return policy.PASS_ACTION, "computer"
        cur = match.current_player
        return await self._computer_move(
            table, match, table.seat(cur) if cur is not None else None, salt
        ), "computer"


def _setting(group: Group, change: SettingChange, languages: Sequence[str]) -> dict[str, Any]:
    """The group's columns one change of /settings writes; NothingToDo for a change the bot never offers."""
    what, value = change.what, change.value
    rules = group.rules
    if what == "preset" and value in PRESETS:
        return {"house_rules": Rules.preset(str(value)).to_dict()}
    if what == "rule" and value in Rules.key_names() and value != "tribute_order":
        return {"house_rules": rules.set_key(str(value), not getattr(rules, str(value))).to_dict()}
    if what == "turn_seconds" and value in TURN_TIMES:
        return {"turn_timeout_seconds": int(value)}
    if what == "language" and value in languages:
        return {"language": str(value)}
    if what == "time_zone" and value in TIME_ZONES:
        return {"time_zone": str(value)}
    if what == "card_memory" and value in ("on", "off"):
        return {"card_memory": value == "on"}
    if what == "level" and str(value).isdigit() and int(value) in policy.COMPUTER_LEVELS:
        return {"computer_level": int(value)}
    raise NothingToDo(f"no such setting {what}={value}")


def _seat_to_take(table: Table, user_id: int, seat: int | None) -> int:
    if table.seat_of(user_id) is not None:
        raise AlreadySeated(table.id)
    if table.status != LOBBY:
        raise NotInLobby(table.id)
    free = table.free_seats
    if seat is None:
        seat = free[0] if free else None
    if seat is None or seat not in free:
        raise SeatTaken(table.id)
    return seat


# Engine events that are a moment of their own in the table's story (the moves are told by their kind).
_MOMENTS = {
    "trick_won",
    "opened",
    "out",
    "men",
    "burn_won",
    "burn_failed",
    "free_for_all",
    "discarded_fours",
    "round_over",
}


def _marks_after(
    table: Table, moves: Sequence[Move], notices: Sequence[Notice], dealt: Sequence[Event], seq: int
) -> tuple[Marks, tuple[Entry, ...]]:
    """The table's marks after these moves: 要不起 for a pass the table made for a player who plays himself
    (R4.3), until the trick ends; the public story of the table, for "since you last looked" and the trick on
    the table. ``seq``: the log position before the first move."""
    marks = table.marks
    passed = set(marks.auto_passed)
    recent = list(marks.recent)
    start = len(recent)
    if dealt:
        passed.clear()
        recent = [Entry(seq, "dealt", n=table.round_no)]
        start = 0
    for notice in notices:
        if isinstance(notice, WentAutoplay):
            recent.append(Entry(seq, "tuoguan", notice.seat))
        elif isinstance(notice, CameBack):
            recent.append(Entry(seq, "back", notice.seat))
    for i, m in enumerate(moves, start=1):
        seat = table.seat(m.seat) if m.seat is not None else None
        action = m.action
        automatic_pass = (
            action.kind == PASS and m.actor == "computer" and seat is not None and seat.plays_himself
        )
        kind = "auto_pass" if automatic_pass else action.kind
        if kind in ("play", "burn", "pass", "auto_pass", "yield"):
            other = next((e.other for e in m.events if e.kind == "burned"), None)
            actor = "timeout" if m.actor == "timeout" else None
            recent.append(Entry(seq + i, kind, m.seat, action.cards, other, None, actor))
        elif action.kind in ("revolt", "declare", "yaotou", "wutou"):
            recent.append(Entry(seq + i, action.kind, m.seat))
        for e in m.events:
            if e.kind == "burn_broken":
                # R6.5 反烧 when the breaker burns the burn play, else R6.4 解烧.
                again = any(x.kind == "burned" and x.seat == e.other for x in m.events)
                recent.append(Entry(seq + i, "fan_shao" if again else "jie_shao", e.other, other=e.seat))
            elif e.kind in _MOMENTS:
                recent.append(Entry(seq + i, e.kind, e.seat, e.cards, e.other, e.n))
            if e.kind in ("trick_won", "dealt"):
                passed.clear()
            elif e.kind == "passed" and automatic_pass and m.seat is not None:
                passed.add(m.seat)
    for notice in notices:
        if isinstance(notice, TimedOut) and notice.autoplay:  # after the move the computer made for him
            recent.insert(
                start + 1 if start < len(recent) else len(recent), Entry(seq + 1, "tuoguan", notice.seat)
            )
    told = tuple(recent[start:])
    recent = recent[-RECENT_MAX:]
    new = Marks(
        auto_passed=frozenset(passed), recent=tuple(recent), nudged=marks.nudged, glossed=marks.glossed
    )
    return (marks if new == marks else new), told


async def _count_finished_round(uow: UnitOfWork, table: Table, match: Match) -> None:
    """The round's result and each player's statistics, in the unit of work of its last move (R11.1)."""
    places, scores = list(match.places), match.scores()
    if not await uow.rounds.finish(table.id, table.round_no, places, scores):
        return
    await uow.groups.count_finished_round(table.group_id)
    place_of = {seat: place for place, seat in enumerate(places, start=1) if seat is not None}
    team_score = [sum(scores[t::2]) for t in (0, 1)] if scores is not None else [0, 0]
    # Users in id order: two tables ending at once then lock shared players' rows in the same order
    # (PostgreSQL would otherwise abort one of them as a deadlock).
    for seat in sorted(table.humans, key=lambda s: s.user_id or 0):
        assert seat.user_id is not None
        points = scores[seat.n] if scores is not None else 0
        await uow.users.record_result(
            seat.user_id, table.group_id, place_of.get(seat.n), points, team_score[seat.n % 2] > 0
        )


async def _armed(uow: UnitOfWork, table: Table) -> list[DeadlineRecord]:
    """The deadlines armed for the table's current version."""
    return [d for d in await uow.deadlines.of_table(table.id) if d.version == table.version]


async def _turn_due(uow: UnitOfWork, table: Table) -> datetime | None:
    return next((d.due_at for d in await _armed(uow, table) if d.kind == policy.TIMEOUT), None)


__all__ = ["NEXT_ROUND", "Decider", "SettingChange", "TableService", "decide_here"]
