"""A Telegram update delivered twice acts once."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest
from storage_helpers import Database, seated_table

from engine import IllegalAction
from storage import AlreadyProcessed, service
from storage.models import utcnow


async def _log_length(db: Database, table_id: int) -> tuple[int, int]:
    async with db.uow() as u:
        table = await u.tables.get(table_id)
        assert table is not None
        return table.version, len(await u.actions.of_table(table_id))


async def test_redelivered_update_does_nothing(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-4001)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    first = await service.apply_action(
        db.uow, seated.table_id, dealt.version, str(rng.choice(dealt.state.legal_actions())), update_id=5001
    )
    before = await _log_length(db, seated.table_id)
    # Even carrying the current version, the same update id is skipped.
    with pytest.raises(AlreadyProcessed):
        await service.apply_action(
            db.uow,
            seated.table_id,
            first.version,
            str(rng.choice(first.state.legal_actions())),
            update_id=5001,
        )
    assert await _log_length(db, seated.table_id) == before


async def test_same_update_racing_on_two_workers_acts_once(db: Database, rng: random.Random) -> None:
    tables = [await seated_table(db.uow, group_id=g) for g in (-4002, -4003)]
    dealt = [
        await service.start_round(db.uow, t.table_id, t.version, seed=rng.randrange(2**62)) for t in tables
    ]
    outcomes = await asyncio.gather(
        *(
            service.apply_action(
                db.uow, d.table_id, d.version, str(d.state.legal_actions()[0]), update_id=5002
            )
            for d in dealt
        ),
        return_exceptions=True,
    )
    assert sum(isinstance(o, service.Applied) for o in outcomes) == 1
    assert sum(isinstance(o, AlreadyProcessed) for o in outcomes) == 1
    lengths = [(await _log_length(db, d.table_id))[1] for d in dealt]
    assert sorted(lengths) == [0, 1]


async def test_failed_handling_does_not_mark_the_update_processed(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-4004)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    legal = {str(a) for a in dealt.state.legal_actions()}
    illegal = next(t for t in ("pass", "play R", "play 3", "play RRRR") if t not in legal)
    with pytest.raises(IllegalAction):
        await service.apply_action(db.uow, seated.table_id, dealt.version, illegal, update_id=5003)
    # The record of the update was rolled back with the rest, so a redelivery is handled afresh.
    applied = await service.apply_action(
        db.uow, seated.table_id, dealt.version, sorted(legal)[0], update_id=5003
    )
    assert applied.seq == 1


async def test_old_update_ids_can_be_forgotten(db: Database) -> None:
    async with db.uow() as u:
        assert await u.updates.record(1) and await u.updates.record(2)
        assert not await u.updates.record(1)
        await u.commit()
    async with db.uow() as u:
        assert await u.updates.forget_before(utcnow() + timedelta(seconds=1)) == 2
        assert await u.updates.count() == 0
        await u.commit()
