"""Any round can be rebuilt from its stored seed and log, exactly as the table saved it."""

from __future__ import annotations

import random

from storage_helpers import Database
from table_helpers import SIX, begin, play_until, seated_table

from table.rebuild import rebuild_round


async def test_every_round_of_a_table_rebuilds_from_seed_and_log(db: Database, rng: random.Random) -> None:
    service = db.service()
    seated = await seated_table(service, -5001)
    await begin(service, seated)
    finished = []
    for _ in range(2):
        table = await play_until(service, seated.table_id, rng, stop_before_end=False)
        assert table.match is not None
        finished.append((table.round_no, table.match.copy()))
        await service.play.next_round(table.id, SIX[0], table.version)
    midway = await play_until(service, seated.table_id, rng, stop_before_end=True)

    async with db.uow() as u:
        for round_no, match in finished:
            rebuilt = await rebuild_round(u, seated.table_id, round_no)
            assert rebuilt == match
            assert (rebuilt.places, rebuilt.scores()) == (match.places, match.scores())
        assert await rebuild_round(u, seated.table_id, 3) == midway.match
        seeds = [info.seed for info in await u.rounds.of_table(seated.table_id)]
    assert len(seeds) == 3


async def test_the_log_records_who_acted_and_what(db: Database, rng: random.Random) -> None:
    service = db.service()
    seated = await seated_table(service, -5002)
    table = (await begin(service, seated)).table
    played = []
    for _ in range(12):
        assert table.match is not None
        if table.match.round_over:
            break
        action = rng.choice(table.match.legal_actions())
        user = table.to_act.user_id  # type: ignore[union-attr]
        outcome = await service.play.act(table.id, user, action, version=table.version)
        played += [(m.seat, str(m.action)) for m in outcome.moves]
        assert outcome.moves[0].action == action and outcome.moves[0].actor == "player"
        table = outcome.table
    async with db.uow() as u:
        log = await u.actions.of_round(seated.table_id, 1)
    assert [(e.seat, e.action) for e in log][-len(played) :] == played
