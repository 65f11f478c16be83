"""What the bot does around the use cases: shows each outcome and arms its deadlines; fires the deadlines when
they are due (PTB's JobQueue, any process, claimed in the database so only one acts); hands the outbox's
reports (a blocked chat, a migrated group) to the table layer; picks up every open table at start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Iterable
from datetime import datetime, timedelta

from telegram.ext import ContextTypes, JobQueue

from storage.models import utcnow
from table import Outcome, TableService
from table.policy import Deadline

from .outbox import ChatBlocked, GroupMigrated, Outbox
from .present import Presenter

log = logging.getLogger(__name__)
SWEEP_EVERY_S = 30.0


class Desk:
    def __init__(
        self, service: TableService, presenter: Presenter, outbox: Outbox, job_queue: JobQueue | None
    ) -> None:
        self.service = service
        self.presenter = presenter
        self.outbox = outbox
        self.job_queue = job_queue
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        self._armed: set[datetime] = set()  # the moments a sweep job is waiting for
        self._reports: asyncio.Task[None] | None = None
        self._busy = 0  # reports being handled

    # ------------------------------------------------------------------ outcomes

    async def after(self, outcome: Outcome | None) -> None:
        if outcome is None:
            return
        self.schedule(outcome.deadlines)
        await self.presenter.show(outcome)

    async def after_all(self, outcomes: Iterable[Outcome | None]) -> None:
        for outcome in outcomes:
            await self.after(outcome)

    # ------------------------------------------------------------------ deadlines

    def schedule(self, deadlines: Iterable[Deadline]) -> None:
        for d in deadlines:
            self._arm(d.due_at)

    def _arm(self, due_at: datetime) -> None:
        if self.job_queue is None:
            return
        # One sweep per second of due times: a sweep handles everything due by then, and a busy bot arms
        # a deadline at nearly every move (each one a job, each job a transaction when it fires).
        at = due_at.replace(microsecond=0) + timedelta(seconds=1) if due_at.microsecond else due_at
        if at in self._armed:
            return
        self._armed.add(at)
        delay = max(0.0, (at - utcnow()).total_seconds()) + 0.05
        self.job_queue.run_once(self._sweep_job, when=delay, name="deadline", data=at)

    async def _sweep_job(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        due = context.job.data if context.job is not None else None
        self._armed.discard(due)  # type: ignore[arg-type]
        await self.sweep(due if isinstance(due, datetime) else None)

    async def sweep(self, due: datetime | None = None) -> int:
        """Fire every deadline due by now (by ``due``, for a job that fires a hair early)."""
        now = max(utcnow(), due) if due is not None else utcnow()
        claimed = await self.service.due_deadlines(self.worker, now)
        for d in claimed:
            try:
                await self.after(await self.service.fire(d))
            except Exception as e:  # one table's trouble must not stop the others' deadlines
                log.error("deadline %s of table %s failed: %s", d.kind, d.table_id, type(e).__name__)
            await self.service.deadline_done(d)
        return len(claimed)

    # ------------------------------------------------------------------ start and stop

    async def start(self) -> None:
        """Re-arm every pending deadline, sweep regularly for ones another process missed, listen to the
        outbox, and pick up what a crash interrupted (computer moves not made, views not sent)."""
        for d in await self.service.pending_deadlines():
            self._arm(d.due_at)
        if self.job_queue is not None:
            self.job_queue.run_repeating(
                self._sweep_job, interval=SWEEP_EVERY_S, first=SWEEP_EVERY_S, name="sweep"
            )
        self._reports = asyncio.create_task(self._pump_reports())
        for table_id in await self.service.open_tables():
            try:
                table = await self.service.load(table_id)
                if table.playing:
                    await self.after(await self.service.resume(table_id))
            except Exception as e:  # one broken table must not keep the bot from starting
                log.error("could not resume table %s: %s", table_id, type(e).__name__)

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until everything queued has been sent and every report handled (tests, shutdown)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            await self.outbox.flush(max(0.0, deadline - loop.time()))
            if self.outbox.reports.empty() and not self._busy:
                return
            await asyncio.sleep(0.005)

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
                    await self.after_all(await self.service.blocked(report.chat_id))
                elif isinstance(report, GroupMigrated):
                    await self.after(await self.service.migrate_group(report.old_id, report.new_id))
            except Exception as e:  # a report that cannot be handled must not stop the next ones
                log.error("could not handle %s: %s", type(report).__name__, type(e).__name__)
            finally:
                self._busy -= 1
