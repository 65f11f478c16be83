"""What the bot does around the use cases: shows each outcome and arms its deadlines; fires the deadlines of its
own tables when they are due (PTB's JobQueue, any process of this bot, claimed in the database so only one
acts; another bot of the fleet fires its own); keeps the invariant that every table in play waits with a
deadline on the decision it waits for; hands the outbox's reports (a blocked chat, a migrated group, a retry
window) to the table layer; picks up every open table of its own at start.

The time it fires deadlines by is injected (the system's UTC clock unless a test gives its own); a desk
without a JobQueue arms nothing and fires what is due when it is swept.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from telegram.ext import CallbackContext, JobQueue

from storage.records import DeadlineRecord
from table import Outcome, TableService
from table.policy import FOLLOW, Deadline

from .outbox import ChatBlocked, GroupMigrated, Outbox, RetryWindow
from .present import Presenter
from .where import where

log = logging.getLogger(__name__)
SWEEP_EVERY_S = 30.0


def utcnow() -> datetime:
    """The system's UTC clock: the desk's unless it is given another."""
    return datetime.now(UTC)


class Desk:
    def __init__(
        self,
        service: TableService,
        presenter: Presenter,
        outbox: Outbox,
        job_queue: JobQueue[Any] | None,
        *,
        sweep_every: float = SWEEP_EVERY_S,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.service = service
        self.presenter = presenter
        self.outbox = outbox
        self.job_queue = job_queue
        self.sweep_every = sweep_every
        self.clock = clock
        self.host = socket.gethostname()
        self.worker = f"{self.host}:{os.getpid()}"
        self.started_at = clock()  # a claim under this worker's name from before it is a predecessor's
        self._armed: set[datetime] = set()  # the moments a sweep job is waiting for
        self._reports: asyncio.Task[None] | None = None
        self._busy = 0  # reports being handled
        self.rearmed = 0  # tables found without their deadline and given one (the invariant kept)
        self._following: set[asyncio.Task[int]] = set()  # follow-ons swept without a JobQueue

    # ------------------------------------------------------------------ outcomes

    async def after(self, outcome: Outcome | None, *, tapped: int | None = None) -> None:
        if outcome is None:
            return
        self.schedule(outcome.deadlines)
        await self.presenter.show(outcome, tapped=tapped)

    async def after_all(self, outcomes: Iterable[Outcome | None]) -> None:
        for outcome in outcomes:
            await self.after(outcome)

    async def heard_from(self, user_id: int) -> None:
        """The user talked to the bot (a command, a tap, a message): if Telegram had refused to deliver to him,
        he may be written to again, and his seats, hand and turn come back to him."""
        if self.outbox.unblock(user_id):
            await self.after_all(await self.service.deliveries.unblocked(user_id))

    # ------------------------------------------------------------------ deadlines

    def schedule(self, deadlines: Iterable[Deadline]) -> None:
        for d in deadlines:
            if d.kind == FOLLOW:
                self._now(d.due_at)
            else:
                self._arm(d.due_at)

    def _now(self, due_at: datetime) -> None:
        """A follow-on (the computers' moves after a player's) is swept for at once, not on the next second;
        a desk without a JobQueue (the fast tests) sweeps in a task of its own."""
        if self.job_queue is not None:
            self.job_queue.run_once(self._sweep_job, when=0, name="follow", data=due_at)
            return
        task = asyncio.create_task(self.sweep(due_at))
        self._following.add(task)
        task.add_done_callback(self._following.discard)

    def _arm(self, due_at: datetime) -> None:
        if self.job_queue is None:
            return
        # One sweep per second of due times: a sweep handles everything due by then, and a busy bot arms
        # a deadline at nearly every move (each one a job, each job a transaction when it fires).
        at = due_at.replace(microsecond=0) + timedelta(seconds=1) if due_at.microsecond else due_at
        if at in self._armed:
            return
        self._armed.add(at)
        delay = max(0.0, (at - self.clock()).total_seconds()) + 0.05
        self.job_queue.run_once(self._sweep_job, when=delay, name="deadline", data=at)

    async def _sweep_job(self, context: CallbackContext[Any, Any, Any, Any]) -> None:
        due = context.job.data if context.job is not None else None
        if isinstance(due, datetime):
            self._armed.discard(due)
        await self.sweep(due if isinstance(due, datetime) else None)

    async def _regular_sweep(self, context: CallbackContext[Any, Any, Any, Any]) -> None:
        await self.release_claims_of_the_gone()
        await self.sweep()
        await self.keep_invariant()

    async def sweep(self, due: datetime | None = None) -> int:
        """Fire every deadline due by now (by ``due``, for a job that fires a hair early); how many did."""
        now = max(self.clock(), due) if due is not None else self.clock()
        fired = 0
        async for outcome in self.service.clock.fire_due(self.worker, now):
            fired += 1
            try:
                await self.after(outcome)
            except Exception as e:  # one table's trouble must not stop the others' deadlines
                log.error("showing table %s failed: %s at %s", outcome.table.id, type(e).__name__, where(e))
        return fired

    async def release_claims_of_the_gone(self, pending: Iterable[DeadlineRecord] | None = None) -> int:
        """A deadline claimed by a process that died before its move (killed between the claim and the
        commit) would wait out the claim's lease while its table waits on it: a worker of this host that no
        longer runs, or this worker's name before this process started (a restarted container, same pid),
        gives its claims up now."""
        released = 0
        for d in await self.service.clock.pending_deadlines() if pending is None else pending:
            if d.claimed_by is None or d.claimed_at is None or not self._gone(d.claimed_by, d.claimed_at):
                continue
            if await self.service.clock.release_claim(d):
                released += 1
                log.warning(
                    "deadline %s of table %s was claimed by %s, which is gone: released",
                    d.kind,
                    d.table_id,
                    d.claimed_by,
                )
                self._arm(d.due_at)
        return released

    def _gone(self, worker: str, claimed_at: datetime) -> bool:
        if worker == self.worker:
            return claimed_at < self.started_at
        host, _, pid = worker.rpartition(":")
        if host != self.host or not pid.isdigit():
            return False  # another machine's: its claim lapses after the lease (table.clock.CLAIM_LEASE)
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # it runs, under another user
            return False
        return False

    async def keep_invariant(self) -> int:
        """Every table in play waits with exactly one deadline on the decision it waits for (or on nobody): a
        table found otherwise (a process died between its commit and its deadline, say) is resumed."""
        fixed = 0
        for table_id in await self.service.clock.waiting_without_deadline():
            try:
                outcome = await self.service.clock.resume(table_id)
            except Exception as e:  # one broken table must not stop the others
                log.error("could not resume table %s: %s at %s", table_id, type(e).__name__, where(e))
                continue
            fixed += 1
            await self.after(outcome)
        self.rearmed += fixed
        return fixed

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Learn what earlier processes heard from Telegram, re-arm every pending deadline, sweep regularly for
        ones another process missed, listen to the outbox, and pick up what a crash interrupted (computer moves
        not made, a turn message not sent), from the committed state only."""
        await self.service.clock.adopt()
        limits = await self.service.deliveries.chat_limits()
        self.outbox.prime(limits.retry_until, set(limits.blocked))
        pending = await self.service.clock.pending_deadlines()
        await self.release_claims_of_the_gone(pending)
        for d in pending:
            self._arm(d.due_at)
        if self.job_queue is not None:
            self.job_queue.run_repeating(
                self._regular_sweep, interval=self.sweep_every, first=self.sweep_every, name="sweep"
            )
        self._reports = asyncio.create_task(self._pump_reports())
        for table_id in await self.service.clock.open_tables():
            try:
                table = await self.service.reads.load(table_id)
                if table.playing:
                    await self.after(await self.service.clock.resume(table_id))
            except Exception as e:  # one broken table must not keep the bot from starting
                log.error("could not resume table %s: %s at %s", table_id, type(e).__name__, where(e))

    async def flush(self, timeout: float = 30.0) -> bool:
        """Wait until everything queued has been sent and every report handled (tests, shutdown), at most
        ``timeout`` seconds; whether it was. A shutdown with Telegram's limits reached goes on without the rest:
        the next start shows every seat to act his turn from what was committed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            await self.outbox.flush(max(0.0, deadline - loop.time()))
            try:
                await asyncio.wait_for(self.presenter.idle(), max(0.001, deadline - loop.time()))
            except TimeoutError:
                break
            if self.quiet():
                return True
            await asyncio.sleep(0.005)
        log.warning("stopping with messages still queued: Telegram's limits held them back")
        return False

    def quiet(self) -> bool:
        """Nothing queued for Telegram, and no report of the outbox waiting or being handled."""
        return (
            self.outbox.reports.empty() and not self._busy and not self.outbox.busy() and not self._following
        )

    async def close(self) -> None:
        if self._reports is not None:
            self._reports.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reports

    # ------------------------------------------------------------------ what Telegram told the outbox

    async def _pump_reports(self) -> None:
        while True:
            report = await self.outbox.reports.get()
            self._busy += 1
            try:
                if isinstance(report, ChatBlocked) and report.chat_id > 0:
                    # A private chat: the player blocked the bot or never started it.
                    await self.after_all(await self.service.deliveries.blocked(report.chat_id))
                elif isinstance(report, ChatBlocked):
                    # A group the bot was removed from (its my_chat_member update may come late, or not at all).
                    await self.after_all(await self.service.deliveries.group_reach(report.chat_id, False))
                elif isinstance(report, GroupMigrated):
                    await self.after(
                        await self.service.deliveries.migrate_group(report.old_id, report.new_id)
                    )
                elif isinstance(report, RetryWindow):
                    await self.service.deliveries.chat_paused(report.chat_id, report.until)
            except Exception as e:  # a report that cannot be handled must not stop the next ones
                log.error("could not handle %s: %s at %s", type(report).__name__, type(e).__name__, where(e))
            finally:
                self._busy -= 1
