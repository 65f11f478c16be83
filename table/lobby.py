"""Coming and going: a table opened, seats taken and freed, computers added, the match begun, a player who
leaves mid-match (托管) or comes back, and the table closed."""

from __future__ import annotations

import secrets
from dataclasses import replace

from engine import Match, Rules
from storage.errors import TableAlreadyOpen as StoredTableAlreadyOpen

from . import reads
from .context import Context
from .errors import (
    AlreadyBegun,
    AlreadySeated,
    NotAllowed,
    NothingToDo,
    NotInLobby,
    NotSeated,
    SeatTaken,
    StaleVersion,
    TableAlreadyOpen,
    TableNotFound,
)
from .load import group_of, read_table
from .model import CLOSED, LOBBY, PLAYING, Seat, Table
from .outcome import CameBack, Closed, Outcome, WentAutoplay
from .stretch import advance


class Lobby:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def open(
        self,
        group_id: int,
        user_id: int | None,
        *,
        thread_id: int = 0,
        topic: str | None = None,
    ) -> Outcome:
        """Open a table (a lobby) in the group's topic (0: no topic, or General) with the group's house rules,
        hosted by this bot: one open table per topic, whichever bot hosts it (TableAlreadyOpen says which)."""
        ctx = self.ctx
        try:
            async with ctx.uow() as uow:
                await uow.groups.ensure(group_id)
                group = group_of(await uow.groups.get(group_id), group_id)
                record = await uow.tables.add(
                    group_id,
                    group.rules.to_dict(),
                    created_by=user_id,
                    thread_id=thread_id,
                    topic=topic,
                    bot_id=ctx.bot_id,
                )
                await uow.commit()
        except StoredTableAlreadyOpen:
            # Read anew: on PostgreSQL the refused INSERT spoiled the transaction it was tried in.
            async with ctx.uow() as uow:
                found = await uow.tables.open_in_group(group_id, thread_id)
            raise TableAlreadyOpen(group_id, None if found is None else found.bot_id) from None
        return Outcome(table=await ctx.load(record.id), repost=True)

    async def free_seat(self, table_id: int, user_id: int, seat: int | None = None) -> tuple[Table, int]:
        """The seat the user would take (the one asked for, else the first free one); raises when he cannot."""
        table = await self.ctx.load(table_id)
        return table, _seat_to_take(table, user_id, seat)

    async def join(self, table_id: int, user_id: int, seat: int | None = None) -> Outcome:
        ctx = self.ctx
        async with ctx.turn(table_id), ctx.uow() as uow:
            table = await read_table(uow, table_id, ctx.matches, host=ctx.bot_id)
            n = _seat_to_take(table, user_id, seat)
            await ctx.save(uow, table)
            await uow.seats.put(table_id, n, user_id=user_id)
            await uow.commit()
        return Outcome(table=await ctx.load(table_id))

    async def add_computers(self, table_id: int, user_id: int | None) -> Outcome:
        """Computer players in the empty seats of the lobby, at the group's level; only for a seated player."""
        ctx = self.ctx
        async with ctx.turn(table_id), ctx.uow() as uow:
            table = await read_table(uow, table_id, ctx.matches, host=ctx.bot_id)
            if table.status != LOBBY:
                raise NotInLobby(table_id)
            if user_id is not None and table.seat_of(user_id) is None:
                raise NotSeated(table_id)
            if table.free_seats:
                await ctx.save(uow, table)
                for n in table.free_seats:
                    await uow.seats.put(table_id, n, computer_level=table.group.computer_level)
                await uow.commit()
        return Outcome(table=await ctx.load(table_id))

    async def leave(self, table_id: int, user_id: int) -> Outcome:
        """In the lobby the seat is freed; in a match the computer plays it (托管) for the rest of the round,
        and from the next deal it is a computer's seat, unless he comes back (/back) before then."""
        ctx = self.ctx
        async with ctx.turn(table_id):
            table = await ctx.load(table_id)
            seat = table.seat_of(user_id)
            if seat is None:
                raise NotSeated(table_id)
            if table.status == LOBBY:
                async with ctx.uow() as uow:
                    await ctx.save(uow, table)
                    await uow.seats.remove(table_id, seat.n)
                    await uow.commit()
                return Outcome(table=await ctx.load(table_id))
            if seat.leaving or not table.playing:
                raise NothingToDo("left already")
            away = replace(seat, autoplay=True, leaving=True)
            return await advance(
                ctx,
                table.with_seat(away),
                None,
                seats=[away],
                notices=[WentAutoplay(seat.n, False, left=True)],
            )

    async def begin(self, table_id: int, user_id: int | None, version: int | None = None) -> Outcome:
        """Fill the empty seats with computer players and deal the match's first round (R1.3)."""
        ctx = self.ctx
        async with ctx.turn(table_id):
            table = await ctx.load(table_id)
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
            return await advance(
                ctx,
                table,
                None,
                dealt=dealt,
                new_seats=added,
                new_round=(1, seed),
                changes={"status": PLAYING, "round_no": 1},
                all_hands=True,
            )

    async def back(self, user_id: int, table_id: int | None = None) -> list[Outcome]:
        """He plays his own cards again, at every table (or at ``table_id``) where the computer kept his seat
        (托管)."""
        ctx = self.ctx
        outcomes = []
        for found in await reads.tables_of(ctx, user_id):
            if table_id not in (None, found.id):
                continue
            async with ctx.turn(found.id):
                table = await ctx.load(found.id)
                seat = table.seat_of(user_id)
                if seat is None or not seat.autoplay or not table.playing:
                    continue
                me = replace(seat, autoplay=False, timeouts=0, leaving=False)
                outcomes.append(
                    await advance(ctx, table.with_seat(me), None, seats=[me], notices=[CameBack(me.n)])
                )
        return outcomes

    async def stop(
        self, table_id: int, user_id: int | None, *, is_admin: bool = False, version: int | None = None
    ) -> Outcome:
        """Close the table (its record and log stay); a seated player, its creator or an admin may."""
        ctx = self.ctx
        async with ctx.turn(table_id), ctx.uow() as uow:
            table = await read_table(uow, table_id, ctx.matches, host=ctx.bot_id)
            if table.status == CLOSED:
                raise TableNotFound(table_id)
            allowed = is_admin or user_id is None or user_id == table.created_by or table.seat_of(user_id)
            if not allowed:
                raise NotAllowed(table_id)
            if version is not None and version != table.version:
                raise StaleVersion(table_id, version, table.version)
            version = await ctx.save(uow, table, status=CLOSED, closed_at=ctx.clock())
            await uow.deadlines.drop_outdated(table_id, version + 1)
            await uow.commit()
        ctx.matches.forget(table_id)
        closed = replace(table, status=CLOSED, version=version)
        return Outcome(table=closed, notices=(Closed(user_id),))


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
