"""A seat's hand message is the private message the bot edits for him: the one he last acted from, and
never a message sent for a version the table has already left (its buttons would belong to a past turn)."""

from __future__ import annotations

import asyncio
import random

import pytest
from storage_helpers import Database
from table_helpers import begin, seated_table, user_to_act

from storage import uow_factory


async def _hand_message(db: Database, table_id: int, seat: int) -> int | None:
    async with db.uow() as u:
        return next(s for s in await u.seats.of_table(table_id) if s.seat == seat).hand_message_id


async def _claim(db: Database, table_id: int, seat: int, message_id: int, version: int) -> bool:
    async with db.uow() as u:
        mine = await u.seats.claim_hand_message(table_id, seat, message_id, version)
        await u.commit()
    return mine


async def test_a_message_sent_for_a_version_the_table_left_never_replaces_the_newer_one(
    db: Database, rng: random.Random
) -> None:
    service = db.service()
    seated = await seated_table(service, -1101)
    dealt = (await begin(service, seated)).table
    assert dealt.match is not None and dealt.to_act is not None
    mover = dealt.to_act.n

    assert await service.deliveries.hand_message_sent(dealt.id, mover, 50, dealt.version)
    assert await _hand_message(db, seated.table_id, mover) == 50

    # He acts from message 60 (a turn message whose id the bot had not stored yet): the move names it.
    action = rng.choice(dealt.match.legal_actions())
    await service.play.act(dealt.id, user_to_act(dealt), action, version=dealt.version, from_message=60)
    assert await _hand_message(db, seated.table_id, mover) == 60

    # Message 70, sent for the version his move left, comes back late: it is not his hand message.
    assert not await service.deliveries.hand_message_sent(dealt.id, mover, 70, dealt.version)
    assert await _hand_message(db, seated.table_id, mover) == 60
    # The message his move named is his, even asked about late.
    assert await service.deliveries.hand_message_sent(dealt.id, mover, 60, dealt.version)


async def test_a_claim_racing_a_move_waits_for_it_and_loses(db: Database, rng: random.Random) -> None:
    """Two workers: one commits the next version while the other records a message of the old one."""
    if db.backend != "postgresql":
        pytest.skip("one SQLite file has one writer at a time: the bot runs one process on it")
    seated = await seated_table(db.service(), -1102)
    dealt = (await begin(db.service(), seated)).table
    assert dealt.to_act is not None
    mover = dealt.to_act.n
    other = db.new_engine()
    try:
        async with db.uow() as moving:
            await moving.tables.save(seated.table_id, dealt.version, last_seq=0)
            late = asyncio.ensure_future(
                _claim(
                    Database(db.backend, db.url, db.engine_kwargs, other, uow_factory(other), None),
                    seated.table_id,
                    mover,
                    80,
                    dealt.version,
                )
            )
            await asyncio.sleep(0.3)  # the claim has read the table row by now, or is waiting for it
            await moving.commit()
        assert not await late
    finally:
        await other.dispose()
    assert await _hand_message(db, seated.table_id, mover) is None
