"""A finished round counts once in each player's and each group's statistics, with the round's result."""

from __future__ import annotations

import asyncio
import random

import pytest
from storage_helpers import HUMANS, Database, play_round, play_until, seated_table

from storage import VersionConflict, service
from storage.records import Stats


def _expected(results: list[tuple[int | None, int]]) -> Stats:
    places = [0] * 6
    for place, _ in results:
        assert place is not None
        places[place - 1] += 1
    return Stats(rounds_played=len(results), points=sum(p for _, p in results), places=tuple(places))  # type: ignore[arg-type]


async def test_statistics_follow_each_finished_round_once(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-2001)
    version = seated.version
    results: dict[int, list[tuple[int | None, int]]] = {user: [] for user in HUMANS}
    for _ in range(2):
        version, last = await play_round(db.uow, seated.table_id, version, rng)
        assert last.places is not None and last.scores is not None
        for seat, user in enumerate(HUMANS):
            results[user].append((last.places.index(seat) + 1, last.scores[seat]))

        # The last button tapped twice: refused, and the round is not counted again.
        with pytest.raises(VersionConflict):
            await service.apply_action(db.uow, seated.table_id, last.version - 1, last.action)

        async with db.uow() as u:
            for user in HUMANS:
                record = await u.users.get(user)
                assert record is not None
                assert record.stats == _expected(results[user])
                assert await u.users.stats_in_group(seated.group_id, user) == _expected(results[user])
            group = await u.groups.get(seated.group_id)
            assert group is not None and group.rounds_played == len(results[HUMANS[0]])
            info = await u.rounds.get(seated.table_id, last.round_no)
            assert info is not None and info.finished_at is not None
            assert (info.places, info.scores) == (last.places, last.scores)


async def test_no_statistics_before_the_round_ends(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-2002)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    await play_until(db.uow, seated.table_id, dealt.version, dealt.state, rng, stop_before_end=True)
    async with db.uow() as u:
        record = await u.users.get(HUMANS[0])
        assert record is not None and record.stats == Stats(0, 0, (0, 0, 0, 0, 0, 0))
        assert await u.users.stats_in_group(seated.group_id, HUMANS[0]) is None
        group = await u.groups.get(seated.group_id)
        assert group is not None and group.rounds_played == 0


async def test_rounds_ending_at_once_in_two_groups_both_count(db: Database, rng: random.Random) -> None:
    """The same player at two tables: both last moves commit together, neither result is lost."""
    user = 777
    tables = [await seated_table(db.uow, group_id=g, humans=(user,)) for g in (-2003, -2004)]
    finals = []
    for seated in tables:
        dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
        version, state, _ = await play_until(
            db.uow, seated.table_id, dealt.version, dealt.state, rng, stop_before_end=True
        )
        from storage_helpers import ends_round

        last = next(str(a) for a in state.legal_actions() if ends_round(state, str(a)))
        finals.append((seated.table_id, version, last))

    applied = await asyncio.gather(*(service.apply_action(db.uow, t, v, a) for t, v, a in finals))
    assert all(a.round_over for a in applied)
    results = [(a.places.index(0) + 1, a.scores[0]) for a in applied]  # type: ignore[union-attr, index]
    async with db.uow() as u:
        record = await u.users.get(user)
        assert record is not None and record.stats == _expected(results)
        for seated, result in zip(tables, results, strict=True):
            assert await u.users.stats_in_group(seated.group_id, user) == _expected([result])
