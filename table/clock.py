"""The clock: what happens when nobody taps. Deadlines fired when due (a player's time-out, the reminder at
half time), a table picked up after a start or found waiting without its deadline (resume), and the
invariant the sweep keeps: every table in play waits with the deadline of the decision it waits on, or on
nobody.

A deadline is claimed in the database before it is fired, so that of several processes exactly one fires
it; the claim lapses after :data:`CLAIM_LEASE` if its process died with it.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime, timedelta

from storage.records import DeadlineRecord

from . import policy
from .context import Context, armed
from .model import DECISIONS, MOVES, Table
from .outcome import Outcome, Reminder, TimedOut
from .policy import Deadline
from .stretch import advance

log = logging.getLogger(__name__)

# A claimed deadline is another worker's for this long: the time one firing takes (a read, the computer's
# decision, one write) is well under a second (a strong computer thinks 200 ms; benches.load's slowest move,
# p99 on PostgreSQL, 338 ms). A claim older than this is a worker that died with it, and the table waits on
# nobody else; a worker of this host that is gone is found out at once (bot/desk.py).
CLAIM_LEASE = timedelta(seconds=30)


class Clock:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def fire_due(self, worker: str, now: datetime) -> AsyncIterator[Outcome]:
        """Claim every deadline of this bot's tables due by ``now`` for ``worker``, fire each, and mark it done:
        what each did, as soon as it is done (the next is fired once the caller has taken it). One table's
        trouble is logged and does not keep the others' deadlines from firing. Another bot's tables are
        that bot's to move: what a deadline does is told with the token of the bot that hosts the table."""
        async with self.ctx.uow() as uow:
            claimed = await uow.deadlines.claim_due(
                worker, bot_id=self.ctx.bot_id, now=now, lease=CLAIM_LEASE
            )
            await uow.commit()
        # Each fired on its own: one table's computers thinking (a strong search) holds no other table back.
        firing = [asyncio.ensure_future(self._fire_and_mark(d)) for d in claimed]
        for done in asyncio.as_completed(firing):
            outcome = await done
            if outcome is not None:
                yield outcome

    async def _fire_and_mark(self, deadline: DeadlineRecord) -> Outcome | None:
        try:
            outcome = await self._fire(deadline)
        except Exception as e:
            where = traceback.extract_tb(e.__traceback__)[-1]
            log.error(
                "deadline %s of table %s failed: %s at %s:%s",
                deadline.kind,
                deadline.table_id,
                type(e).__name__,
                where.filename.rsplit("/", 1)[-1],
                where.lineno,
            )
            outcome = None
        async with self.ctx.uow() as uow:
            await uow.deadlines.done(deadline)
            await uow.commit()
        return outcome

    async def _fire(self, deadline: DeadlineRecord) -> Outcome | None:
        if deadline.kind == policy.TIMEOUT:
            return await self.time_out(deadline.table_id, deadline.version)
        if deadline.kind == policy.REMINDER:
            return await self.remind(deadline.table_id, deadline.version)
        if deadline.kind == policy.FOLLOW:
            return await self.follow(deadline.table_id, deadline.version)
        return None

    async def follow(self, table_id: int, version: int) -> Outcome | None:
        """The computers' moves after a player's move stored alone (and every move after them that nobody
        taps for), one write. None when the table has moved on since."""
        ctx = self.ctx
        async with ctx.turn(table_id):
            table = await ctx.load(table_id)
            if (
                table.version != version
                or table.match is None
                or policy.automatic(table, table.match) is None
            ):
                return None
            return await advance(ctx, table, None, follows=_last_decider(table))

    async def time_out(self, table_id: int, version: int) -> Outcome | None:
        """The players the table waits on let their time run out (the one to act, or before the first lead
        every player not yet answering): the computer plays each such turn; after two in a row it keeps his
        seat (托管). None when the table has moved on since the deadline was armed."""
        ctx = self.ctx
        async with ctx.turn(table_id):
            table = await ctx.load(table_id)
            late = policy.waits_on(table, table.match)
            if table.version != version or not late:
                return None
            changed = [policy.after_timeout(seat) for seat in late]
            for seat in changed:
                table = table.with_seat(seat)
            outcome = await advance(ctx, table, None, seats=changed, late=[s.n for s in late])
            # What the computer did for each, as the outcome's notices (the moves are made in the stretch).
            done = {m.seat: m.action for m in outcome.moves if m.actor == "timeout"}
            notices = tuple(TimedOut(s.n, done[s.n], s.autoplay) for s in changed if s.n in done)
            return replace(outcome, notices=outcome.notices + notices)

    async def remind(self, table_id: int, version: int) -> Outcome | None:
        """Half the player's turn time is gone; None when the table has moved on since. Read with its deadline:
        the reminder says until when, and the table it shows keeps its deadline line."""
        table = await self.ctx.load(table_id, with_due=True)
        late = policy.waits_on(table, table.match)
        if table.version != version or not late:
            return None
        return Outcome(table=table, notices=tuple(Reminder(seat.n) for seat in late))

    async def resume(self, table_id: int) -> Outcome:
        """After a start, or when a sweep finds a table waiting without its deadline: the moves nobody has to
        tap for that a crash left unmade, and the deadline of the decision the table waits on, armed again.
        ``rearmed`` in the outcome says whether it had to be."""
        ctx = self.ctx
        async with ctx.turn(table_id):
            table = await ctx.load(table_id)
            if table.playing and table.match is not None and policy.automatic(table, table.match) is not None:
                return await advance(ctx, table, None)
            async with ctx.uow() as uow:
                wanted = policy.deadlines(table, table.match, ctx.clock(), since=table.marks.asked_since)
                were = await armed(uow, table)
                planned: tuple[Deadline, ...] = ()
                if {d.kind for d in were} != {d.kind for d in wanted}:
                    planned = wanted
                    await uow.deadlines.rearm(table_id, table.version, [(d.kind, d.due_at) for d in planned])
                    await uow.commit()
                    log.warning(
                        "table %s waited %s without its deadline: armed again",
                        table_id,
                        "on a player" if planned else "on nobody",
                    )
                due = next((d.due_at for d in (planned or were) if d.kind == policy.TIMEOUT), None)
        # His turn message for this version was delivered before (a restart, a second worker): not twice.
        prompt = any(not policy.prompted(table, seat) for seat in policy.waits_on(table, table.match))
        unsummarized = bool(table.match is not None and table.match.round_over and not table.marks.summarized)
        return Outcome(
            table=replace(table, due=due),
            deadlines=planned,
            prompt=prompt,
            rearmed=bool(planned),
            unsummarized=unsummarized,
        )

    async def waiting_without_deadline(self) -> list[int]:
        """This bot's tables in play with no deadline for their version that should have one, or moves to
        make: each is to be resumed (the invariant every start and every sweep keeps)."""
        ctx = self.ctx
        async with ctx.uow() as uow:
            found = await uow.tables.waiting_without_deadline(ctx.bot_id)
        wrong = []
        for table_id in found:
            table = await ctx.load(table_id)
            if table.match is not None and (
                policy.automatic(table, table.match) is not None
                or policy.deadlines(table, table.match, ctx.clock())
            ):
                wrong.append(table_id)
        return wrong

    async def pending_deadlines(self) -> list[DeadlineRecord]:
        """Every deadline of this bot's tables not yet done, soonest first: what a start arms its timers for."""
        async with self.ctx.uow() as uow:
            return await uow.deadlines.pending(self.ctx.bot_id)

    async def release_claim(self, deadline: DeadlineRecord) -> bool:
        """The worker that claimed this deadline is gone (it died between the claim and the move): anybody's
        again, at once rather than after the lease. Whether it was still that worker's claim."""
        async with self.ctx.uow() as uow:
            released = await uow.deadlines.release(deadline)
            await uow.commit()
        return released

    async def open_tables(self) -> list[int]:
        """This bot's tables not closed: what a start picks up."""
        async with self.ctx.uow() as uow:
            return [t.id for t in await uow.tables.all_open(self.ctx.bot_id)]

    async def adopt(self) -> int:
        """The tables opened before bots were told apart (and the update ids recorded then, and what Telegram
        said of each chat) become this bot's: a bot that ran alone before carries its tables on after the
        upgrade. The first bot to start takes them all: a fleet made of a bot that ran alone starts that bot
        first (README, Capacity). How many tables it took."""
        ctx = self.ctx
        if ctx.bot_id == 0:
            return 0
        async with ctx.uow() as uow:
            taken = await uow.tables.adopt(ctx.bot_id)
            await uow.updates.adopt(ctx.bot_id)
            await uow.chats.adopt(ctx.bot_id)
            await uow.commit()
        if taken:
            log.warning("%s table(s) opened before bots were told apart are bot %s's now", taken, ctx.bot_id)
        return taken


def _last_decider(table: Table) -> int | None:
    """The seat whose own decision is the latest in the table's story (the move a follow-on follows)."""
    for e in reversed(table.marks.recent):
        if (
            e.actor is None
            and e.seat is not None
            and (e.kind in DECISIONS or (e.kind in MOVES and e.kind != "auto_pass"))
        ):
            return e.seat
    return None
