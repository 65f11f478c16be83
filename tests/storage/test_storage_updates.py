"""A Telegram update delivered twice acts once."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

import pytest
from storage_helpers import Database
from table_helpers import begin, seated_table, user_to_act

from engine import Action
from engine.actions import PASS, PLAY
from storage.models import utcnow
from table import AlreadyProcessed, IllegalMove


async def _log_length(db: Database, table_id: int) -> tuple[int, int]:
    async with db.uow() as u:
        table = await u.tables.get(table_id)
        assert table is not None
        return table.version, len(await u.actions.of_table(table_id))


async def test_a_redelivered_update_does_nothing(db: Database, rng: random.Random) -> None:
    service = db.service()
    seated = await seated_table(service, -4001)
    table = (await begin(service, seated)).table
    assert table.match is not None
    first = await service.play.act(
        table.id, user_to_act(table), rng.choice(table.match.legal_actions()), update_id=5001
    )
    before = await _log_length(db, table.id)
    # Even as a typed play (no version to compare), the same update id is skipped.
    after = first.table
    assert after.match is not None
    with pytest.raises(AlreadyProcessed):
        await service.play.act(
            table.id, user_to_act(after), rng.choice(after.match.legal_actions()), update_id=5001
        )
    assert await _log_length(db, table.id) == before


async def test_the_same_update_racing_on_two_workers_acts_once(db: Database, rng: random.Random) -> None:
    service = db.service()
    other = db.new_engine()
    try:
        services = [service, db.service(other)]
        tables = [(await begin(service, await seated_table(service, g))).table for g in (-4002, -4003)]
        outcomes = await asyncio.gather(
            *(
                s.play.act(t.id, user_to_act(t), t.match.legal_actions()[0], update_id=5002)  # type: ignore[union-attr]
                for s, t in zip(services, tables, strict=True)
            ),
            return_exceptions=True,
        )
    finally:
        await other.dispose()
    assert sum(isinstance(o, AlreadyProcessed) for o in outcomes) == 1, outcomes
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 1, outcomes
    versions = sorted([(await _log_length(db, t.id))[0] - t.version for t in tables])
    assert versions == [0, 1]


async def test_a_refused_update_is_not_marked_processed(db: Database) -> None:
    service = db.service()
    seated = await seated_table(service, -4004)
    table = (await begin(service, seated)).table
    assert table.match is not None
    legal = table.match.legal_actions()
    illegal = next(a for a in (Action(PASS), Action(PLAY, (0,) * 14 + (9,))) if a not in legal)
    with pytest.raises(IllegalMove):
        await service.play.act(table.id, user_to_act(table), illegal, update_id=5003)
    # Nothing of the refused attempt was written, so a redelivery (now legal) is handled afresh.
    done = await service.play.act(table.id, user_to_act(table), legal[0], update_id=5003)
    assert done.table.version == table.version + 1


async def test_old_update_ids_can_be_forgotten(db: Database) -> None:
    async with db.uow() as u:
        assert await u.updates.record(1) and await u.updates.record(2)
        assert not await u.updates.record(1)
        await u.commit()
    async with db.uow() as u:
        assert await u.updates.forget_before(utcnow() + timedelta(seconds=1)) == 2
        assert await u.updates.count() == 0
        await u.commit()
