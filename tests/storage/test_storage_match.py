"""A whole match stored round after round: 'next' in the log, rebuilt from the first round's seed."""

from __future__ import annotations

import random

from storage_helpers import Database

from engine import Match, Rules
from engine.ai import computer_action, make_player
from storage import service


async def _play_round(
    db: Database, table_id: int, version: int, state: Match, rng: random.Random
) -> tuple[int, Match]:
    player = make_player("baseline")
    while not state.is_over:
        applied = await service.apply_action(
            db.uow, table_id, version, str(computer_action(state, player, rng))
        )
        version, state = applied.version, applied.state  # type: ignore[assignment]
    return version, state


async def test_a_match_is_stored_round_after_round_and_rebuilds_from_its_log(
    db: Database, rng: random.Random
) -> None:
    async with db.uow() as u:
        await u.groups.ensure(-2001, title="match group")
        await u.users.ensure(301, name="player 301", language="zh")
        await u.commit()
    table = await service.open_table(db.uow, -2001, rules=Rules.preset("qingdao").to_dict(), kind="match")
    version = await service.take_seat(db.uow, table.id, table.version, 0, user_id=301)
    for seat in range(1, 6):
        version = await service.take_seat(db.uow, table.id, version, seat, computer_level=1)
    dealt = await service.start_round(db.uow, table.id, version, seed=rng.randrange(2**62))
    version, state = await _play_round(db, table.id, dealt.version, dealt.state, rng)  # type: ignore[arg-type]

    nxt = await service.next_round(db.uow, table.id, version)
    assert nxt.round_no == 2 and nxt.action == "next"
    assert any(e.kind == "dealt" for e in nxt.events)
    version, state = await _play_round(db, table.id, nxt.version, nxt.state, rng)  # type: ignore[arg-type]
    assert state.round_no == 2

    async with db.uow() as u:
        rebuilt = await service.rebuild_round(u, table.id, 2)
        log = await u.actions.of_table(table.id)
        group = await u.groups.get(-2001)
        stats = await u.users.stats_in_group(-2001, 301)
    assert rebuilt == state, "the seed and the log rebuild the saved match"
    assert [a.seq for a in log] == list(range(1, len(log) + 1))
    assert [a.action for a in log].count("next") == 1
    # Each finished round counted once, in the same transaction as its last action (R11.1 scores summed).
    assert group is not None and group.rounds_played == 2
    assert stats is not None and stats.rounds_played == 2
    assert stats.points == sum(r["scores"][0] for r in state.results)


async def test_next_round_is_refused_while_a_round_is_played(db: Database, rng: random.Random) -> None:
    async with db.uow() as u:
        await u.groups.ensure(-2002)
        await u.commit()
    table = await service.open_table(db.uow, -2002, kind="match")
    version = table.version
    for seat in range(6):
        version = await service.take_seat(db.uow, table.id, version, seat, computer_level=1)
    dealt = await service.start_round(db.uow, table.id, version, seed=7)
    try:
        await service.next_round(db.uow, table.id, dealt.version)
    except service.RoundInProgress:
        pass
    else:
        raise AssertionError("a next round while this one is played")
    async with db.uow() as u:
        assert (await u.tables.get(table.id)).version == dealt.version  # type: ignore[union-attr]
