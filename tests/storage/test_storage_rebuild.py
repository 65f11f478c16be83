"""Any round can be rebuilt from its stored seed and log, exactly as the table saved it."""

from __future__ import annotations

import random

from storage_helpers import Database, play_round, play_until, seated_table

from engine import Round
from storage import service


async def test_every_round_of_a_table_rebuilds_from_seed_and_log(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-5001)
    version = seated.version
    finished = []
    for _ in range(2):
        version, last = await play_round(db.uow, seated.table_id, version, rng)
        finished.append(last)
    dealt = await service.start_round(db.uow, seated.table_id, version, seed=rng.randrange(2**62))
    _, midway, _ = await play_until(
        db.uow, seated.table_id, dealt.version, dealt.state, rng, stop_before_end=True
    )

    async with db.uow() as u:
        table = await u.tables.get(seated.table_id)
        assert table is not None and table.state is not None and table.round_no == 3
        for last in finished:
            rebuilt = await service.rebuild_round(u, seated.table_id, last.round_no)
            assert rebuilt == last.state
            assert (rebuilt.places, rebuilt.scores()) == (last.places, last.scores)
        current = await service.rebuild_round(u, seated.table_id, 3)
        assert current == midway == Round.from_json(table.state)
        seeds = [info.seed for info in await u.rounds.list(seated.table_id)]
    assert len(set(seeds)) == 3  # each round has its own stored seed


async def test_log_records_who_acted_and_what(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-5002)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    state, version, played = dealt.state, dealt.version, []
    for _ in range(12):
        if state.is_over:
            break
        mover = state.current_player
        applied = await service.apply_action(
            db.uow, seated.table_id, version, str(rng.choice(state.legal_actions())), seat=mover
        )
        played.append((applied.seq, mover, applied.action))
        state, version = applied.state, applied.version
    async with db.uow() as u:
        log = await u.actions.of_round(seated.table_id, dealt.round_no)
    assert [(e.seq, e.seat, e.action) for e in log] == played
