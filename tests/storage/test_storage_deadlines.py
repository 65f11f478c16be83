"""Turn deadlines live in the database, survive a restart, and each fires in one worker only."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

import pytest
from storage_helpers import Database
from table_helpers import begin, play_one, seated_table

from storage.records import DeadlineRecord
from storage.uow import uow_factory
from table import TableService

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


async def _table_with_deadlines(db: Database, group_id: int, count: int) -> int:
    seated = await seated_table(db.service(), group_id)
    async with db.uow() as u:
        # A table holds one deadline of each kind: so many kinds, one per second.
        for version in range(count):
            await u.deadlines.arm(seated.table_id, version, f"k{version}", T0 + timedelta(seconds=version))
        await u.commit()
    return seated.table_id


async def _claim_due(db: Database, worker: str, now: datetime, limit: int = 100) -> list[DeadlineRecord]:
    async with db.uow() as u:
        claimed = await u.deadlines.claim_due(worker, now=now, limit=limit)
        await u.commit()
    return claimed


async def test_moves_arm_deadlines_for_their_version_and_retire_older_ones(
    db: Database, rng: random.Random
) -> None:
    async with db.uow() as u:
        await u.groups.ensure(-3001)
        await u.groups.update_settings(-3001, turn_timeout_seconds=3600)  # long enough for a reminder
        await u.commit()
    service = TableService(db.uow, clock=lambda: T0)
    seated = await seated_table(service, -3001)
    dealt = (await begin(service, seated)).table
    async with db.uow() as u:
        armed = await u.deadlines.of_table(seated.table_id)
    assert sorted((d.version, d.kind, d.due_at) for d in armed) == [
        (dealt.version, "reminder", T0 + timedelta(seconds=1800)),
        (dealt.version, "timeout", T0 + timedelta(seconds=3600)),
    ]

    moved = (await play_one(service, dealt, rng)).table
    # A restarted bot re-arms what is pending: only the deadlines of the current version are left.
    restarted = db.new_engine()
    try:
        async with uow_factory(restarted)() as u:
            pending = await u.deadlines.pending()
    finally:
        await restarted.dispose()
    assert {(d.table_id, d.version, d.kind) for d in pending} == {
        (seated.table_id, moved.version, "reminder"),
        (seated.table_id, moved.version, "timeout"),
    }


async def test_two_concurrent_claimers_never_get_the_same_deadline(db: Database) -> None:
    table_id = await _table_with_deadlines(db, -3002, count=20)
    now = T0 + timedelta(seconds=14)  # deadlines 0..14 are due, 15..19 are not
    for _ in range(3):
        first, second = await asyncio.gather(_claim_due(db, "worker-a", now), _claim_due(db, "worker-b", now))
        ids_a, ids_b = {d.id for d in first}, {d.id for d in second}
        assert not ids_a & ids_b
    async with db.uow() as u:
        rows = await u.deadlines.of_table(table_id)
    due = {d.id for d in rows if d.due_at <= now}
    assert len(due) == 15
    claimed = {d.id: d.claimed_by for d in rows if d.claimed_by is not None}
    assert set(claimed) == due  # every due deadline claimed, by exactly the worker that got it back
    assert all(d.claimed_by is None for d in rows if d.due_at > now)


async def test_one_deadline_claimed_once_by_two_workers(db: Database) -> None:
    table_id = await _table_with_deadlines(db, -3003, count=1)
    async with db.uow() as u:
        (deadline,) = await u.deadlines.of_table(table_id)

    async def claim(worker: str) -> DeadlineRecord | None:
        async with db.uow() as u:
            got = await u.deadlines.claim(deadline.id, worker, now=T0)
            await u.commit()
        return got

    results = await asyncio.gather(*(claim(f"worker-{i}") for i in range(4)))
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    # Within the lease, nobody else gets it either.
    assert await asyncio.gather(*(claim(f"late-{i}") for i in range(4))) == [None] * 4
    async with db.uow() as u:
        (stored,) = await u.deadlines.of_table(table_id)
    assert stored.claimed_by == winners[0].claimed_by


async def test_a_dead_workers_claim_expires_after_the_lease(db: Database) -> None:
    table_id = await _table_with_deadlines(db, -3004, count=1)
    (claimed,) = await _claim_due(db, "crashed-worker", T0)
    assert await _claim_due(db, "worker-b", T0 + timedelta(minutes=1)) == []
    (taken_over,) = await _claim_due(db, "worker-b", T0 + timedelta(minutes=10))
    assert (taken_over.id, taken_over.claimed_by) == (claimed.id, "worker-b")
    async with db.uow() as u:
        await u.deadlines.done(taken_over)
        await u.commit()
    async with db.uow() as u:
        assert await u.deadlines.of_table(table_id) == []


async def test_postgresql_claimers_skip_rows_another_is_claiming(db: Database) -> None:
    if db.backend != "postgresql":
        pytest.skip("SQLite has one writer at a time: a second claimer waits instead of skipping")
    await _table_with_deadlines(db, -3005, count=10)
    async with db.uow() as holder:
        held = await holder.deadlines.claim_due("worker-a", now=T0 + timedelta(seconds=9), limit=4)
        assert len(held) == 4
        # worker-a's transaction is still open: worker-b must neither wait for it nor take its rows.
        other = await asyncio.wait_for(_claim_due(db, "worker-b", T0 + timedelta(seconds=9)), timeout=10)
        assert {d.id for d in other}.isdisjoint({d.id for d in held})
        assert len(other) == 6
        await holder.commit()


async def test_a_table_has_one_deadline_of_a_kind_moved_in_place_by_each_move(db: Database) -> None:
    """What a restart re-arms and a sweep checks: never two time-outs for one table."""
    seated = await seated_table(db.service(), -3006)
    async with db.uow() as u:
        for version in range(3):
            await u.deadlines.arm(seated.table_id, version, "timeout", T0 + timedelta(seconds=version))
        await u.commit()
    async with db.uow() as u:
        (only,) = await u.deadlines.of_table(seated.table_id)
    assert (only.version, only.due_at) == (2, T0 + timedelta(seconds=2))
