"""A move and the automatic moves after it are one unit of work; a table is read with its people at once."""

from __future__ import annotations

import random

import pytest
from storage_helpers import Database, seated_table

from engine import Action, IllegalAction, Round
from storage import NotYourTurn, VersionConflict, service


def _computer(rng: random.Random, stop_at: set[int]):
    """Follow-ups: a random legal move for every seat not in `stop_at` (those wait for their player)."""

    def follow(state: Round) -> tuple[str, str] | None:
        if state.current_player in stop_at:
            return None
        return str(rng.choice(state.legal_actions())), "computer"

    return follow


async def _log(db: Database, table_id: int) -> list[tuple[int, int | None, str]]:
    async with db.uow() as u:
        return [(e.seq, e.seat, e.action) for e in await u.actions.of_table(table_id)]


async def test_a_stretch_is_one_version_step_with_every_move_logged_in_order(
    db: Database, rng: random.Random
) -> None:
    seated = await seated_table(db.uow, group_id=-3001, humans=(101,))
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    state = dealt.state
    first = state.current_player
    mover_action = str(rng.choice(state.legal_actions()))
    # The same moves, applied by hand to a copy: what the stored state must equal afterwards.
    expected = Round.from_json(state.to_json())

    applied = await service.apply_actions(
        db.uow,
        seated.table_id,
        dealt.version,
        mover_action,
        seat=first,
        follow=_computer(random.Random(5), stop_at={first}),
    )

    assert len(applied) > 1, "the computers after the first move were played in the same stretch"
    assert {a.version for a in applied} == {dealt.version + 1}
    assert [a.seq for a in applied] == list(range(1, len(applied) + 1))
    for a in applied:
        assert expected.current_player == a.seat
        expected.apply(Action.parse(a.action))
    assert await _log(db, seated.table_id) == [(a.seq, a.seat, a.action) for a in applied]
    view = await service.load_table(db.uow, seated.table_id)
    assert view.state == expected
    assert view.table.version == dealt.version + 1 and view.table.last_seq == len(applied)
    # The stretch stopped where a player has to decide (or where the round ended).
    assert view.state.is_over or view.state.current_player == first
    async with db.uow() as u:
        rebuilt = await service.rebuild_round(u, seated.table_id, 1)
    assert rebuilt == expected


async def test_a_refused_follow_up_rolls_back_the_whole_stretch(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-3002, humans=(101,))
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    first = dealt.state.current_player
    calls = 0

    def follow(state: Round) -> tuple[str, str] | None:
        nonlocal calls
        calls += 1
        # The second follow-up is something no seat may play: 17 big jokers.
        return ("play " + "R" * 17 if calls == 2 else str(rng.choice(state.legal_actions()))), "computer"

    with pytest.raises(IllegalAction):
        await service.apply_actions(
            db.uow,
            seated.table_id,
            dealt.version,
            str(rng.choice(dealt.state.legal_actions())),
            seat=first,
            follow=follow,
        )
    assert await _log(db, seated.table_id) == []
    view = await service.load_table(db.uow, seated.table_id)
    assert view.table.version == dealt.version and view.state == dealt.state


async def test_a_stretch_checks_the_version_and_the_seat_like_one_action(
    db: Database, rng: random.Random
) -> None:
    seated = await seated_table(db.uow, group_id=-3003, humans=(101,))
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    first = dealt.state.current_player
    action = str(rng.choice(dealt.state.legal_actions()))
    with pytest.raises(NotYourTurn):
        await service.apply_actions(db.uow, seated.table_id, dealt.version, action, seat=(first + 1) % 6)
    with pytest.raises(VersionConflict):
        await service.apply_actions(db.uow, seated.table_id, dealt.version - 1, action, seat=first)
    # The caller's own copy of the state is used (and changed) instead of the stored one.
    mine = Round.from_json(dealt.state.to_json())
    applied = await service.apply_actions(
        db.uow, seated.table_id, dealt.version, action, seat=first, state=mine
    )
    assert applied[0].state is mine and mine.current_player != first or mine.is_over
    assert (await service.load_table(db.uow, seated.table_id)).state == mine


async def test_a_scene_is_the_table_with_its_group_seats_and_players(
    db: Database, rng: random.Random
) -> None:
    seated = await seated_table(db.uow, group_id=-3004, humans=(101, 102))
    async with db.uow() as u:
        scene = await u.tables.scene(seated.table_id)
        table = await u.tables.get(seated.table_id)
        group = await u.groups.get(-3004)
        seats = await u.seats.list(seated.table_id)
        players = {uid: await u.users.get(uid) for uid in (101, 102)}
        missing = await u.tables.scene(seated.table_id + 1000)
    assert scene is not None and table is not None
    assert scene.table == table  # a lobby has no state to leave unread
    assert scene.group == group
    assert scene.seats == seats and [s.seat for s in scene.seats] == list(range(6))
    assert scene.users == players
    assert missing is None
