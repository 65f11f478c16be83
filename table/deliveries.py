"""What Telegram told the bot, kept: who a user is, which messages show the table and each hand, what the
group was told (the glossary, the round's summary), a player it cannot reach, the pauses it asked for, a
group that became a supergroup."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from storage.records import ChatLimits

from . import reads
from .clock import Clock
from .context import Context
from .errors import NothingToDo
from .load import group_of
from .lobby import Lobby
from .model import TIME_ZONES, Group, Marks, Table
from .outcome import Held, Outcome, Resumed, WentAutoplay
from .ports import UnitOfWork
from .stretch import advance

KNOWN_USERS_MAX = 100_000


class Deliveries:
    def __init__(self, ctx: Context, lobby: Lobby, clock: Clock) -> None:
        self.ctx = ctx
        self.lobby = lobby
        self.clock = clock
        # The name and language last written for each user: nearly every update repeats them, and a unit
        # of work to find that out was one of the few per tap. Losing it costs one write per user.
        self._known_users: dict[int, tuple[str, str | None]] = {}

    async def see_user(self, user_id: int, name: str, language: str | None) -> None:
        """Keep the user's name and language current (what the table shows, what language he reads)."""
        said = (name[:255], language)
        if self._known_users.get(user_id) == said:
            return
        async with self.ctx.uow() as uow:
            await uow.users.ensure(user_id, *said)
            await uow.commit()
        if len(self._known_users) >= KNOWN_USERS_MAX:
            self._known_users.clear()
        self._known_users[user_id] = said

    async def see_group(self, group_id: int, title: str | None) -> Group:
        """Keep the group's title current; the group as stored."""
        async with self.ctx.uow() as uow:
            await uow.groups.ensure(group_id, (title or "")[:255] or None)
            await uow.commit()
            return group_of(await uow.groups.get(group_id), group_id)

    async def set_zone(self, user_id: int, zone: str | None) -> None:
        """The player's own time zone for the deadlines in his private chat (None: each group's)."""
        if zone is not None and zone not in TIME_ZONES:
            raise NothingToDo(f"no such time zone {zone}")
        async with self.ctx.uow() as uow:
            await uow.users.set_time_zone(user_id, zone)
            await uow.commit()

    async def hand_message_sent(
        self, table_id: int, seat: int, message_id: int, version: int, *, turn: bool = False
    ) -> bool:
        """The seat's new hand message, if the table is still at the version it shows; whether it is.
        ``turn``: it is his turn message for that version (a restart then does not send it again)."""
        async with self.ctx.uow() as uow:
            mine = await uow.seats.claim_hand_message(table_id, seat, message_id, version, turn=turn)
            await uow.commit()
        return mine

    async def table_message_posted(self, table_id: int, message_id: int | None) -> None:
        """Which group message shows the table: not a change of the game, so no new version."""
        async with self.ctx.uow() as uow:
            await uow.tables.set_table_message(table_id, message_id)
            await uow.commit()

    async def pinning(self, group_id: int, allowed: bool) -> None:
        """Whether Telegram let the bot pin the table in this group: where it may not, the group's other
        messages carry a way back to the table instead."""
        async with self.ctx.uow() as uow:
            await uow.groups.update_settings(group_id, pinning=allowed)
            await uow.commit()

    async def note_glossed(self, table: Table, terms: frozenset[str]) -> None:
        """The group was told what these terms mean (English): not again at this table. Kept while the table
        is at this version (no new version: buttons stay good); lost otherwise, at the cost of a repeat."""
        async with self.ctx.uow() as uow:
            if await _amend_marks(
                uow, table.id, table.version, lambda m: replace(m, glossed=m.glossed | terms)
            ):
                await uow.commit()

    async def summary_posted(self, table_id: int, message_id: int | None, version: int | None = None) -> None:
        """Which group message is the last round's summary (its buttons go when the next round is dealt);
        with ``version``, the round that ended there has had its end told (a restart does not tell it again)."""
        async with self.ctx.uow() as uow:
            await uow.tables.set_summary_message(table_id, message_id)
            if version is not None and message_id is not None:
                await _amend_marks(uow, table_id, version, lambda m: replace(m, summarized=True))
            await uow.commit()

    async def blocked(self, user_id: int) -> list[Outcome]:
        """Telegram refuses to deliver to him (he blocked the bot, or never started it): nothing more is written
        to him until he talks to the bot, the computer plays his seats (托管), and each group is told how he
        gets them back."""
        ctx = self.ctx
        async with ctx.uow() as uow:
            await uow.chats.blocked(user_id, True, ctx.bot_id)
            await uow.commit()
        outcomes = []
        for found in await reads.tables_of(ctx, user_id):
            async with ctx.turn(found.id):
                table = await ctx.load(found.id)
                seat = table.seat_of(user_id)
                if seat is None or seat.autoplay or not table.playing:
                    continue
                away = replace(seat, autoplay=True)
                outcomes.append(
                    await advance(
                        ctx, table.with_seat(away), None, seats=[away], notices=[WentAutoplay(seat.n, True)]
                    )
                )
        return outcomes

    async def unblocked(self, user_id: int) -> list[Outcome]:
        """He talked to the bot after it could not reach him: he may be written to again, and his seats come
        back to him (with his hand, and his turn if it is his)."""
        async with self.ctx.uow() as uow:
            await uow.chats.blocked(user_id, False, self.ctx.bot_id)
            await uow.commit()
        return await self.lobby.back(user_id)

    async def group_reach(self, group_id: int, reachable: bool) -> list[Outcome]:
        """The bot was removed from the group, or may no longer write there (or is back, or may again): its
        tables hold where they are (nothing moves, no deadline runs, nothing goes to the group) until it is
        back, when they go on, their deadlines counted from then. What each open table should show. Told of
        this bot: another bot of the fleet in the group keeps writing there, and its tables go on."""
        ctx = self.ctx
        async with ctx.uow() as uow:
            await uow.groups.ensure(group_id)
            if await uow.chats.is_blocked(group_id, ctx.bot_id) != reachable:
                return []
            await uow.chats.blocked(group_id, not reachable, ctx.bot_id)
            await uow.commit()
        outcomes = []
        for found in await self.tables_in(group_id):
            if not reachable:
                async with ctx.turn(found.id), ctx.uow() as uow:
                    await uow.deadlines.drop_outdated(found.id, found.version + 1)  # none runs meanwhile
                    await uow.commit()
                outcomes.append(Outcome(table=await ctx.load(found.id), notices=(Held(),)))
            elif found.playing:
                resumed = await self.clock.resume(found.id)
                # The turn he was asked has a new deadline: a new message says so (and rings).
                outcomes.append(
                    replace(resumed, notices=(*resumed.notices, Resumed()), repost=True, rearmed=True)
                )
            else:
                outcomes.append(Outcome(table=await ctx.load(found.id), notices=(Resumed(),), repost=True))
        return outcomes

    async def tables_in(self, group_id: int) -> list[Table]:
        """The group's open tables this bot hosts, in all its topics."""
        async with self.ctx.uow() as uow:
            ids = [t.id for t in await uow.tables.all_open(self.ctx.bot_id) if t.group_id == group_id]
        return [await self.ctx.load(table_id) for table_id in ids]

    async def chat_paused(self, chat_id: int, until: datetime) -> None:
        """Telegram asked for a pause in this chat (a 429): kept, so that the next process honours it too."""
        async with self.ctx.uow() as uow:
            await uow.chats.retry_until(chat_id, until, self.ctx.bot_id)
            await uow.commit()

    async def chat_limits(self) -> ChatLimits:
        """The pauses and the unreachable chats that earlier processes heard of."""
        async with self.ctx.uow() as uow:
            return await uow.chats.read(self.ctx.bot_id)

    async def migrate_group(self, old_id: int, new_id: int) -> Outcome | None:
        """A group became a supergroup: its settings, tables and statistics follow it; its open table is to be
        posted again there (the old message stayed behind). None when it had moved already."""
        async with self.ctx.uow() as uow:
            moved = await uow.groups.move(old_id, new_id)
            await uow.commit()
        if not moved:
            return None
        table = await reads.table_in_group(self.ctx, new_id)
        if table is None:
            return None
        return Outcome(table=replace(table, message_id=None), repost=True)


async def _amend_marks(
    uow: UnitOfWork, table_id: int, version: int, change: Callable[[Marks], Marks]
) -> bool:
    """Change the stored marks while the table is at ``version``, from the marks as stored now: two notes
    at one version (a term explained, the summary posted) must not undo each other. Whether they were."""
    record = await uow.tables.get(table_id, with_state=False)
    if record is None or record.version != version:
        return False
    return await uow.tables.set_marks(table_id, version, change(Marks.from_json(record.marks)).to_json())
