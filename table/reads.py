"""The read side: the table, the tables of a player or a group, and the statistics, as they are committed.
Nothing here writes."""

from __future__ import annotations

from dataclasses import replace

from engine import Action
from storage.records import Standing, Stats, UserRecord

from . import policy, stretch
from .context import Context, turn_due
from .errors import NotSeated, StaleVersion
from .load import group_of, read_table
from .model import Group, Table


async def table_in_group(ctx: Context, group_id: int, thread_id: int = 0) -> Table | None:
    """The open table this bot hosts in the group's topic: another bot's is that bot's to show and move."""
    async with ctx.uow() as uow:
        record = await uow.tables.open_in_group(group_id, thread_id)
        if record is None or record.bot_id != ctx.bot_id:
            return None
        return await read_table(uow, record.id, ctx.matches, host=ctx.bot_id)


async def tables_of(ctx: Context, user_id: int, *, with_due: bool = False) -> list[Table]:
    async with ctx.uow() as uow:
        ids = await uow.seats.tables_of_user(user_id, ctx.bot_id)
        tables = [await read_table(uow, table_id, ctx.matches, host=ctx.bot_id) for table_id in ids]
        if with_due:
            tables = [replace(table, due=await turn_due(uow, table)) for table in tables]
        return tables


class Reads:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def load(self, table_id: int, *, with_due: bool = False) -> Table:
        """The table as stored (its match the caller's own), with the turn's deadline when asked."""
        return await self.ctx.load(table_id, with_due=with_due)

    async def version(self, table_id: int) -> int | None:
        """The table's version as committed (None: no such table), without reading its state."""
        async with self.ctx.uow() as uow:
            record = await uow.tables.get(table_id, with_state=False)
        return None if record is None else record.version

    async def still_asks(self, table: Table, seat: int) -> bool:
        """Whether what the seat was asked at ``table``'s version is still his to answer as committed now:
        the table is still at that version, or before the first lead he is still asked the question put to him
        then (the others' answers move the table on; his buttons still answer it)."""
        if await self.version(table.id) == table.version:
            return True
        if table.marks.asked_since_version(seat) is None:
            return False  # during the play a turn's buttons answer only at its version
        return policy.same_question(table, await self.load(table.id), seat)

    async def table_in_group(self, group_id: int, thread_id: int = 0) -> Table | None:
        """The open table of the group's topic (0: a group without topics, or its General topic), if this bot
        hosts it."""
        return await table_in_group(self.ctx, group_id, thread_id)

    async def host(self, group_id: int, thread_id: int = 0) -> int | None:
        """The bot that hosts the open table of the group's topic (None: none is open): a command sent to
        another bot of the fleet is told where the table is."""
        async with self.ctx.uow() as uow:
            record = await uow.tables.open_in_group(group_id, thread_id)
        return None if record is None else record.bot_id

    async def tables_in_group(self, group_id: int) -> list[Table]:
        """Every open table this bot hosts in the group, in any of its topics."""
        async with self.ctx.uow() as uow:
            found = [t for t in await uow.tables.all_open(self.ctx.bot_id) if t.group_id == group_id]
            return [await read_table(uow, t.id, self.ctx.matches, host=self.ctx.bot_id) for t in found]

    async def tables_of(self, user_id: int, *, with_due: bool = False) -> list[Table]:
        """The open tables of this bot where the user sits, with their turns' deadlines when asked."""
        return await tables_of(self.ctx, user_id, with_due=with_due)

    async def stats(self, group_id: int, user_id: int) -> tuple[Group, Stats | None, list[Standing]]:
        """The user's record in the group, and the group's leaderboard."""
        async with self.ctx.uow() as uow:
            group = group_of(await uow.groups.get(group_id), group_id)
            return (
                group,
                await uow.users.stats_in_group(group_id, user_id),
                await uow.users.leaderboard(group_id),
            )

    async def user(self, user_id: int) -> UserRecord | None:
        """What the bot keeps of a user (his name, language, time zone, record)."""
        async with self.ctx.uow() as uow:
            return await uow.users.get(user_id)

    async def player_record(self, user_id: int) -> Stats | None:
        """The user's record over every group."""
        async with self.ctx.uow() as uow:
            user = await uow.users.get(user_id)
        return None if user is None else user.stats

    async def hint(self, table_id: int, user_id: int, version: int) -> Action:
        """What the computer would play in his place (the Hint button), at the table's level but never by a
        search: a hint answers the tap at once (benches.load, strong computers: hints waited p50 183 ms for the
        pool, and were most of the taps answered after 100 ms)."""
        table = await self.ctx.load(table_id)
        seat = table.seat_of(user_id)
        if seat is None:
            raise NotSeated(table_id)
        if table.version != version or table.match is None or seat.n not in table.match.asked:
            raise StaleVersion(table_id, version, table.version)
        return await stretch.computer_move(self.ctx, table, table.match, seat.n, 0, quick=True)
