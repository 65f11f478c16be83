"""A whole match stored round after round: 'next' in the log, rebuilt from the first round's seed; the stored
state stays the size of one round, however long the match."""

from __future__ import annotations

import json
import random

from storage_helpers import Database
from table_helpers import SIX, begin, play_until, seated_table

from table.rebuild import rebuild_round


async def _stored_bytes(db: Database, table_id: int) -> int:
    async with db.uow() as u:
        table = await u.tables.get(table_id)
    assert table is not None and table.match is not None
    return len(json.dumps(table.match.to_json()))


async def test_a_match_is_stored_round_after_round_and_rebuilds_from_its_log(
    db: Database, rng: random.Random
) -> None:
    service = db.service()
    seated = await seated_table(service, -2001)
    await begin(service, seated)
    table = await play_until(service, seated.table_id, rng, stop_before_end=False)
    sizes = [await _stored_bytes(db, table.id)]
    for round_no in (2, 3):
        nxt = await service.play.next_round(table.id, SIX[0], table.version)
        assert nxt.table.round_no == round_no and any(e.kind == "dealt" for e in nxt.dealt)
        table = await play_until(service, table.id, rng, stop_before_end=False)
        sizes.append(await _stored_bytes(db, table.id))
    assert table.match is not None and table.match.round_no == 3

    async with db.uow() as u:
        rebuilt = await rebuild_round(u, table.id, 3)
        log = await u.actions.of_table(table.id)
        group = await u.groups.get(-2001)
        stats = await u.users.stats_in_group(-2001, SIX[0])
    assert rebuilt == table.match, "the seed and the log rebuild the saved match"
    assert [a.seq for a in log] == list(range(1, len(log) + 1))
    assert [a.action for a in log].count("next") == 2
    # Each finished round counted once, in the same transaction as its last action (R11.1 scores summed).
    assert group is not None and group.rounds_played == 3
    assert stats is not None and stats.rounds_played == 3 and stats.points == table.match.totals[0]
    # The finished rounds' moves live in the log, not in the state: round 3 stores no more than round 1
    # (give or take the hands' spread).
    assert max(sizes) < 1.5 * min(sizes), sizes
