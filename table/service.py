"""The use cases of a table, one method each: typed input, one unit of work, an :class:`Outcome` out.

Every change names the version the caller saw when it has one (a button's); the save of the new version is
conditional on the version read, so of two writers exactly one wins (the other gets StaleVersion) and a
refused use case has written nothing. A move and every move after it that nobody has to tap for (computer
seats, 托管, R4.3's automatic passes) commit together, with the deadline of the decision the table then
waits on.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from engine import Action, Event, IllegalAction, Match, Rules
from engine.actions import PASS
from engine.rules import PRESETS
from storage.errors import TableAlreadyOpen as StoredTableAlreadyOpen
from storage.errors import VersionConflict
from storage.models import utcnow
from storage.records import DeadlineRecord, Stats

from . import policy
from .errors import (
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
from .model import CLOSED, LOBBY, PLAYING, TURN_TIMES, Actor, Group, Marks, Seat, Table
from .outcome import CameBack, Closed, Move, Notice, Outcome, Reminder, TimedOut, WentAutoplay
from .policy import Deadline
from .ports import UnitOfWork, UnitOfWorkFactory

log = logging.getLogger(__name__)

NEXT_ROUND = "next"  # the log entry of the next deal (Match.replay reads the same word)
MAX_AUTOMATIC = 2000  # a whole round of computer moves stays far below this
KNOWN_USERS_MAX = 100_000


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One change from /settings: ``preset`` (a name of R12), ``rule`` (a house rule to toggle),
    ``turn_seconds`` or ``language``."""

    what: str
    value: str | int


class TableService:
    def __init__(
        self,
        uow: UnitOfWorkFactory,
        *,
        clock: Callable[[], datetime] = utcnow,
        languages: Sequence[str] = ("zh", "en"),
    ) -> None:
        self.uow = uow
        self.clock = clock
        self.languages = tuple(languages)
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

    async def stats(self, group_id: int, user_id: int) -> tuple[Group, Stats | None]:
        async with self.uow() as uow:
            group = group_of(await uow.groups.get(group_id), group_id)
            return group, await uow.users.stats_in_group(group_id, user_id)

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

    async def add_computers(self, table_id: int, user_id: int | None = None) -> Outcome:
        """Computer players in the empty seats of the lobby."""
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            if table.status != LOBBY:
                raise NotInLobby(table_id)
            if table.free_seats:
                await self._save(uow, table)
                for n in table.free_seats:
                    await uow.seats.put(table_id, n, computer_level=policy.DEFAULT_LEVEL)
                await uow.commit()
        return Outcome(table=await self.load(table_id))

    async def leave(self, table_id: int, user_id: int) -> Outcome:
        """In the lobby the seat is freed; in a match the computer plays it (托管) until he comes back."""
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated(table_id)
            if table.status == LOBBY:
                await self._save(uow, table)
                await uow.seats.remove(table_id, seat.n)
                await uow.commit()
                return Outcome(table=await self.load(table_id))
            if seat.autoplay:
                raise NothingToDo("already on 托管")
            changed = replace(seat, autoplay=True)
            return await self._advance(
                uow, table.with_seat(changed), None, seats=[changed], notices=[WentAutoplay(seat.n, False)]
            )

    async def begin(self, table_id: int, user_id: int | None, version: int | None = None) -> Outcome:
        """Fill the empty seats with computer players and deal the match's first round (R1.3)."""
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            if version is not None and version != table.version:
                raise StaleVersion(table_id, version, table.version)
            if table.status != LOBBY:
                raise RoundInProgress(table_id)
            if user_id is not None and table.seat_of(user_id) is None:
                raise NotSeated(table_id)
            seats = list(table.seats)
            for n in table.free_seats:
                await uow.seats.put(table_id, n, computer_level=policy.DEFAULT_LEVEL)
                seats.append(Seat(n=n, computer_level=policy.DEFAULT_LEVEL))
            seed = secrets.randbits(63)  # fits a signed BIGINT
            match, dealt = Match.start(Rules.from_dict(table.rules), seed)
            await uow.rounds.add(table_id, 1, seed, table.rules)
            table = replace(
                table, status=PLAYING, match=match, round_no=1, seats=tuple(sorted(seats, key=lambda s: s.n))
            )
            return await self._advance(
                uow, table, None, dealt=dealt, changes={"status": PLAYING, "round_no": 1}, all_hands=True
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
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated(table_id)
            if version is not None and version != table.version:
                if update_id is not None and await uow.updates.seen(update_id):
                    raise AlreadyProcessed(update_id)
                raise StaleVersion(table_id, version, table.version)
            match = table.match
            if not table.playing or match is None or match.current_player is None:
                raise NoRoundInPlay(table_id)
            if match.current_player != seat.n:
                raise NotYourTurn(seat.n, match.current_player)
            reason = match.illegal_reason(action)
            if reason is not None:
                raise IllegalMove(reason)
            armed = frozenset(d.kind for d in policy.deadlines(table, match, self.clock()))
            # He acts himself: off 托管, his time-outs forgotten.
            me = replace(
                seat, autoplay=False, timeouts=0, hand_message_id=from_message or seat.hand_message_id
            )
            changed = [me] if me != seat else []
            return await self._advance(
                uow, table.with_seat(me), (action, "player"), seats=changed, update_id=update_id, armed=armed
            )

    async def time_out(self, table_id: int, version: int) -> Outcome | None:
        """The player to act let his time run out: the computer plays his turn; after two in a row it keeps
        his seat (托管). None when the table has moved on since the deadline was armed."""
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            seat = table.to_act
            if table.version != version or seat is None or table.match is None:
                return None
            action = policy.computer_move(table, table.match, seat, 0)
            changed = policy.after_timeout(seat)
            return await self._advance(
                uow,
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

    async def next_round(self, table_id: int, user_id: int | None, version: int | None = None) -> Outcome:
        """Deal the next round: the previous round's debts are paid first (R10), its 大落 leads (R1.4)."""
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
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
            await uow.rounds.add(table_id, round_no, match.seed, table.rules)
            table = replace(table, round_no=round_no, marks=Marks())
            return await self._advance(
                uow,
                table,
                None,
                dealt=dealt,
                logged=[NEXT_ROUND],
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
        """What the computer would play in his place (the Hint button)."""
        table = await self.load(table_id)
        seat = table.seat_of(user_id)
        if seat is None:
            raise NotSeated(table_id)
        if table.version != version or table.match is None or table.match.current_player != seat.n:
            raise StaleVersion(table_id, version, table.version)
        return policy.computer_move(table, table.match, None, 0)

    # ------------------------------------------------------------------ coming and going

    async def back(self, user_id: int, table_id: int | None = None) -> list[Outcome]:
        """He plays his own cards again, at every table (or at ``table_id``) where the computer kept his seat
        (托管)."""
        outcomes = []
        for table in await self.tables_of(user_id):
            seat = table.seat_of(user_id)
            if seat is None or not seat.autoplay or not table.playing or table_id not in (None, table.id):
                continue
            async with self._table_turn(table.id), self.uow() as uow:
                table = await read_table(uow, table.id, self._matches)
                seat = table.seat_of(user_id)
                if seat is None or not seat.autoplay:
                    continue
                me = replace(seat, autoplay=False, timeouts=0)
                outcomes.append(
                    await self._advance(uow, table.with_seat(me), None, seats=[me], notices=[CameBack(me.n)])
                )
        return outcomes

    async def blocked(self, user_id: int) -> list[Outcome]:
        """Telegram refuses to deliver to him (he blocked the bot, or never started it): the computer plays his
        seats (托管), and each group is told how he gets them back."""
        outcomes = []
        for table in await self.tables_of(user_id):
            seat = table.seat_of(user_id)
            if seat is None or seat.autoplay or not table.playing:
                continue
            async with self._table_turn(table.id), self.uow() as uow:
                table = await read_table(uow, table.id, self._matches)
                seat = table.seat_of(user_id)
                if seat is None or seat.autoplay:
                    continue
                away = replace(seat, autoplay=True)
                outcomes.append(
                    await self._advance(
                        uow, table.with_seat(away), None, seats=[away], notices=[WentAutoplay(seat.n, True)]
                    )
                )
        return outcomes

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
        """After a start: the moves nobody has to tap for that a crash left unmade, and the deadline of the
        decision the table waits on, armed again from the database."""
        async with self._table_turn(table_id), self.uow() as uow:
            table = await read_table(uow, table_id, self._matches)
            if table.playing and table.match is not None and policy.automatic_move(table, table.match, 0):
                return await self._advance(uow, table, None)
            due = await _turn_due(uow, table)
            planned: tuple[Deadline, ...] = ()
            if due is None:
                planned = policy.deadlines(table, table.match, self.clock())
                await uow.deadlines.rearm(table_id, table.version, [(d.kind, d.due_at) for d in planned])
                await uow.commit()
                if planned:
                    log.info("table %s waited on a player without a deadline: armed again", table_id)
                    due = next(d.due_at for d in planned if d.kind == policy.TIMEOUT)
        return Outcome(table=replace(table, due=due), deadlines=planned, prompt=True)

    # ------------------------------------------------------------------ messages the bot sent

    async def hand_message_sent(self, table_id: int, seat: int, message_id: int, version: int) -> bool:
        """The seat's new hand message, if the table is still at the version it shows; whether it is."""
        async with self.uow() as uow:
            mine = await uow.seats.claim_hand_message(table_id, seat, message_id, version)
            await uow.commit()
        return mine

    async def table_message_posted(self, table_id: int, message_id: int | None) -> None:
        """Which group message shows the table: not a change of the game, so no new version."""
        async with self.uow() as uow:
            await uow.tables.set_table_message(table_id, message_id)
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
        """A group's settings for new tables; an open lobby takes the new house rules and turn time too."""
        if not await self.may_change_settings(group_id, user_id, is_admin=is_admin):
            raise NotAllowed(group_id)
        async with self.uow() as uow:
            await uow.groups.ensure(group_id)
            group = group_of(await uow.groups.get(group_id), group_id)
            rules = group.rules
            what, value = change.what, change.value
            if what == "preset" and value in PRESETS:
                changes: dict[str, Any] = {"house_rules": Rules.preset(str(value)).to_dict()}
            elif what == "rule" and value in Rules.key_names() and value != "tribute_order":
                changes = {"house_rules": rules.set_key(str(value), not getattr(rules, str(value))).to_dict()}
            elif what == "turn_seconds" and value in TURN_TIMES:
                changes = {"turn_timeout_seconds": int(value)}
            elif what == "language" and value in self.languages:
                changes = {"language": str(value)}
            else:
                raise NothingToDo(f"no such setting {what}={value}")
            await uow.groups.update_settings(group_id, **changes)
            lobby = await uow.tables.open_in_group(group_id)
            if lobby is not None and lobby.status == LOBBY and "house_rules" in changes:
                await uow.tables.save(lobby.id, lobby.version, rules=changes["house_rules"])
            await uow.commit()
            group = group_of(await uow.groups.get(group_id), group_id)
        if lobby is None or lobby.status != LOBBY:
            return group, None
        return group, Outcome(table=await self.load(lobby.id))

    # ------------------------------------------------------------------ deadlines

    async def due_deadlines(self, worker: str, now: datetime) -> list[DeadlineRecord]:
        async with self.uow() as uow:
            claimed = await uow.deadlines.claim_due(worker, now=now)
            await uow.commit()
        return claimed

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

    async def _save(self, uow: UnitOfWork, table: Table, **changes: Any) -> int:
        """The table's next version, if nobody saved one since it was read."""
        try:
            return await uow.tables.save(table.id, table.version, **changes)
        except VersionConflict:
            self._matches.forget(table.id)
            raise StaleVersion(table.id, table.version) from None

    async def _advance(
        self,
        uow: UnitOfWork,
        table: Table,
        first: tuple[Action, Actor] | None,
        *,
        seats: Sequence[Seat] = (),
        notices: Sequence[Notice] = (),
        dealt: Sequence[Event] = (),
        logged: Sequence[str] = (),
        changes: dict[str, Any] | None = None,
        update_id: int | None = None,
        all_hands: bool = False,
        armed: frozenset[str] | None = None,
    ) -> Outcome:
        """Play ``first`` (if any) and every automatic move after it on the table's match, then write it all:
        the new version, the log, the seats changed, the round's result, the next deadlines; commit.

        ``table`` already holds the seats as they are to be (``seats``: those to write); its match is changed
        in place. ``armed``: the kinds of deadline the table had, when the caller knows them."""
        match = table.match
        assert match is not None
        moves: list[Move] = []
        marks = table.marks
        # Without a first move (a deal, a player back or away) the computers move on from where it stands.
        nxt = first if first is not None else policy.automatic_move(table, match, 0)
        while nxt is not None and len(moves) <= MAX_AUTOMATIC:
            action, actor = nxt
            mover = match.current_player
            try:
                events = tuple(match.apply(action))
            except IllegalAction as e:  # the player's move was judged legal before; a computer's always is
                raise IllegalMove(e.reason) from None
            moves.append(Move(mover, action, actor, events))
            marks = _marks_after(marks, table, mover, action, actor, events)
            nxt = policy.automatic_move(table, match, len(moves))

        # The writes come last, with nothing slow between them: on SQLite they hold the database's one write
        # lock from the first to the commit.
        if update_id is not None and not await uow.updates.record(update_id):
            raise AlreadyProcessed(update_id)
        entries = [*((None, word) for word in logged), *((m.seat, str(m.action)) for m in moves)]
        seq = table.last_seq + len(entries)
        write: dict[str, Any] = dict(changes or {})
        write.update(match=match, last_seq=seq)
        if marks != table.marks:
            write["marks"] = marks.to_json()
        version = await self._save(uow, table, **write)
        if entries:
            await uow.actions.append_many(
                table.id, table.round_no, [(table.last_seq + 1 + i, s, a) for i, (s, a) in enumerate(entries)]
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
        after = replace(table, version=version, last_seq=seq, marks=marks, match=match)
        planned = policy.deadlines(after, match, self.clock())
        # The kinds the version before had armed are moved in place; any other is dropped (unless the caller
        # knows there is none: a player's own move, the hot path, then costs one statement here).
        kinds = {d.kind for d in planned}
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
            table=replace(after, due=next((d.due_at for d in planned if d.kind == policy.TIMEOUT), None)),
            moves=tuple(moves),
            dealt=tuple(dealt),
            deadlines=planned,
            notices=tuple(notices),
            prompt=True,
            hands=hands,
        )


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


def _marks_after(
    marks: Marks, table: Table, mover: int | None, action: Action, actor: Actor, events: Sequence[Event]
) -> Marks:
    """要不起 is shown for a pass the table made for a player who plays himself (R4.3), until the trick ends."""
    passed = set(marks.auto_passed)
    seat = table.seat(mover) if mover is not None else None
    for e in events:
        if e.kind == "trick_won" or e.kind == "dealt":
            passed.clear()
        elif (
            e.kind == "passed"
            and action.kind == PASS
            and actor == "computer"
            and seat is not None
            and seat.plays_himself
        ):
            passed.add(seat.n)
    return marks if passed == marks.auto_passed else Marks(auto_passed=frozenset(passed))


async def _count_finished_round(uow: UnitOfWork, table: Table, match: Match) -> None:
    """The round's result and each player's statistics, in the unit of work of its last move (R11.1)."""
    places, scores = list(match.places), match.scores()
    if not await uow.rounds.finish(table.id, table.round_no, places, scores):
        return
    await uow.groups.count_finished_round(table.group_id)
    place_of = {seat: place for place, seat in enumerate(places, start=1) if seat is not None}
    # Users in id order: two tables ending at once then lock shared players' rows in the same order
    # (PostgreSQL would otherwise abort one of them as a deadlock).
    for seat in sorted(table.humans, key=lambda s: s.user_id or 0):
        assert seat.user_id is not None
        points = scores[seat.n] if scores is not None else 0
        await uow.users.record_result(seat.user_id, table.group_id, place_of.get(seat.n), points)


async def _turn_due(uow: UnitOfWork, table: Table) -> datetime | None:
    return next(
        (
            d.due_at
            for d in await uow.deadlines.of_table(table.id)
            if d.version == table.version and d.kind == policy.TIMEOUT
        ),
        None,
    )


__all__ = ["NEXT_ROUND", "SettingChange", "TableService"]
