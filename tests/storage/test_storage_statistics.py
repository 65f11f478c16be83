"""A finished round counts once in each player's and each group's statistics, with the round's result."""

from __future__ import annotations

import asyncio
import random

import pytest
from storage_helpers import Database
from table_helpers import SIX, begin, followed, last_move, play_until, seated_table

from engine import Action
from storage.records import Stats
from table import Outcome, StaleVersion, Table


def _expected(results: list[tuple[int, int, bool]]) -> Stats:
    places = [0] * 6
    for place, _, _ in results:
        places[place - 1] += 1
    return Stats(
        rounds_played=len(results),
        points=sum(p for _, p, _ in results),
        places=tuple(places),  # type: ignore[arg-type]
        team_wins=sum(won for _, _, won in results),
    )


async def test_statistics_follow_each_finished_round_once(db: Database, rng: random.Random) -> None:
    service = db.service()
    seated = await seated_table(service, -2001)
    await begin(service, seated)
    results: dict[int, list[tuple[int, int, bool]]] = {user: [] for user in SIX}
    for round_no in (1, 2):
        before = await play_until(service, seated.table_id, rng, stop_before_end=True)
        action, user = await last_move(service, before)
        ended = (await service.play.act(before.id, user, action, version=before.version)).table
        match = ended.match
        assert match is not None and match.round_over
        places, scores = match.places, match.scores()
        assert scores is not None
        for seat, user_id in enumerate(SIX):
            won = sum(scores[seat % 2 :: 2]) > 0  # his team's round score (R11.1)
            results[user_id].append((places.index(seat) + 1, scores[seat], won))

        # The last button tapped twice: refused, and the round is not counted again.
        with pytest.raises(StaleVersion):
            await service.play.act(before.id, user, action, version=before.version)

        async with db.uow() as u:
            for user_id in SIX:
                record = await u.users.get(user_id)
                assert record is not None and record.stats == _expected(results[user_id])
                assert await u.users.stats_in_group(seated.group_id, user_id) == _expected(results[user_id])
            group = await u.groups.get(seated.group_id)
            assert group is not None and group.rounds_played == round_no
            info = await u.rounds.get(seated.table_id, round_no)
            assert info is not None and info.finished_at is not None
            assert (info.places, info.scores) == (places, scores)
        if round_no == 1:
            await service.play.next_round(ended.id, SIX[0], ended.version)


async def test_no_statistics_before_the_round_ends(db: Database, rng: random.Random) -> None:
    service = db.service()
    seated = await seated_table(service, -2002)
    await begin(service, seated)
    await play_until(service, seated.table_id, rng, stop_before_end=True)
    async with db.uow() as u:
        record = await u.users.get(SIX[0])
        assert record is not None and record.stats == Stats(0, 0, (0, 0, 0, 0, 0, 0))
        assert await u.users.stats_in_group(seated.group_id, SIX[0]) is None
        group = await u.groups.get(seated.group_id)
        assert group is not None and group.rounds_played == 0


async def test_rounds_ending_at_once_in_two_groups_both_count(db: Database, rng: random.Random) -> None:
    """The same player at two tables: both last moves commit together, neither result is lost."""
    service = db.service()
    user = 777
    tables = [await seated_table(service, g, humans=(user,)) for g in (-2003, -2004)]
    finals = []
    for seated in tables:
        table = (await begin(service, seated)).table
        if table.match is not None and table.match.round_over:
            pytest.skip("the computers ended a round without him")  # pragma: no cover
        # He plays (the computers answer inside each move) until his next move would end the round.
        table = await play_until(service, seated.table_id, rng, stop_before_end=True)
        finals.append((table, *(await last_move(service, table))))

    async def last(table: Table, action: Action, user: int) -> Outcome:
        # His move, and the computers' after it that end the round (as the clock makes them).
        return await followed(service, await service.play.act(table.id, user, action, version=table.version))

    outcomes = await asyncio.gather(*(last(t, a, u) for t, a, u in finals))
    results = []
    for outcome in outcomes:
        match = outcome.table.match
        assert match is not None and match.round_over
        scores = match.scores()
        assert scores is not None
        results.append((match.places.index(0) + 1, scores[0], sum(scores[0::2]) > 0))
    async with db.uow() as u:
        record = await u.users.get(user)
        assert record is not None and record.stats == _expected(results)
        for seated, result in zip(tables, results, strict=True):
            assert await u.users.stats_in_group(seated.group_id, user) == _expected([result])
