"""Turn deadlines: kept in the database, fired by PTB's JobQueue, re-armed after every restart.

Any process may fire a deadline; claiming it in the database makes sure only one acts on it.
"""

from __future__ import annotations

import logging
import os
import socket
from datetime import datetime, timedelta

from telegram.ext import Application, ContextTypes

from storage import UnitOfWorkFactory
from storage.models import utcnow

from .tables import Tables

log = logging.getLogger(__name__)
SWEEP_EVERY_S = 30.0


class Timers:
    def __init__(self, app: Application, tables: Tables, uow: UnitOfWorkFactory) -> None:
        self.app = app
        self.tables = tables
        self.uow = uow
        self.worker = f"{socket.gethostname()}:{os.getpid()}"
        self._armed: set[datetime] = set()  # the moments a sweep job is waiting for
        tables.on_deadline_armed = self.arm

    def arm(self, due_at: datetime) -> None:
        jq = self.app.job_queue
        if jq is None:
            return
        # One sweep per second of due times: a sweep handles everything due by then, and a busy bot arms
        # a deadline at nearly every move (each one a job, each job a transaction when it fires).
        at = due_at.replace(microsecond=0) + timedelta(seconds=1) if due_at.microsecond else due_at
        if at in self._armed:
            return
        self._armed.add(at)
        delay = max(0.0, (at - utcnow()).total_seconds()) + 0.05
        jq.run_once(self._sweep, when=delay, name="deadline", data=at)

    async def start(self) -> None:
        """Re-arm every pending deadline (after a restart) and sweep regularly for ones another process missed."""
        async with self.uow() as uow:
            pending = await uow.deadlines.pending()
        for d in pending:
            self.arm(d.due_at)
        if self.app.job_queue is not None:
            self.app.job_queue.run_repeating(
                self._sweep, interval=SWEEP_EVERY_S, first=SWEEP_EVERY_S, name="sweep"
            )

    async def _sweep(self, context: ContextTypes.DEFAULT_TYPE) -> None:
        due = context.job.data if context.job is not None else None
        self._armed.discard(due)
        await self.sweep(due if isinstance(due, datetime) else None)

    async def sweep(self, due: datetime | None = None) -> int:
        # A job may fire a hair before the moment it was armed for; the deadline it was armed for counts as due.
        now = max(utcnow(), due) if due is not None else utcnow()
        async with self.uow() as uow:
            claimed = await uow.deadlines.claim_due(self.worker, now=now)
            await uow.commit()
        log.debug("deadline sweep at %s claimed %s", now, [(d.table_id, d.version, d.kind) for d in claimed])
        for d in claimed:
            try:
                if d.kind == "timeout":
                    await self.tables.timeout(d.table_id, d.version)
                elif d.kind == "reminder":
                    await self.tables.remind(d.table_id, d.version)
            except Exception as e:  # one table's trouble must not stop the others' deadlines
                log.error("deadline %s of table %s failed: %s", d.kind, d.table_id, type(e).__name__)
            async with self.uow() as uow:
                await uow.deadlines.done(d)
                await uow.commit()
        return len(claimed)
