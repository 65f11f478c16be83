"""The table's use cases on an in-memory unit of work: what each one does, refuses, writes and reports."""

from __future__ import annotations

import random

import pytest
from table_fakes import Clock, FakeStore
from table_helpers import SIX, begin, past_the_questions, play_one, play_until, seated_table, user_to_act

from engine import Action
from engine.actions import PASS, PLAY
from table import (
    AlreadyBegun,
    AlreadySeated,
    IllegalMove,
    NoRoundInPlay,
    NotInLobby,
    NotSeated,
    NotYourTurn,
    RoundInProgress,
    SeatTaken,
    StaleVersion,
    TableAlreadyOpen,
    TableService,
    TimedOut,
)
from table.policy import FOLLOW, REMINDER, TIMEOUT

pytestmark = pytest.mark.unit


async def _log(store: FakeStore, table_id: int) -> list[tuple[int, int | None, str]]:
    async with store.uow() as u:
        return [(a.seq, a.seat, a.action) for a in await u.actions.of_table(table_id)]


async def test_the_lobby_seats_players_and_refuses_what_cannot_be(service: TableService) -> None:
    seated = await seated_table(service, -1, humans=(1, 2), computers=False)
    table = await service.reads.load(seated.table_id)
    assert [(s.n, s.user_id) for s in table.seats] == [(0, 1), (1, 2)]
    await service.deliveries.see_user(3, "three", None)
    with pytest.raises(AlreadySeated):
        await service.lobby.join(seated.table_id, 1)
    with pytest.raises(SeatTaken):
        await service.lobby.join(seated.table_id, 3, 0)
    with pytest.raises(TableAlreadyOpen):
        await service.lobby.open(-1, 3)
    await service.lobby.leave(seated.table_id, 2)
    table = (await service.lobby.join(seated.table_id, 3)).table
    assert [(s.n, s.user_id) for s in table.seats] == [(0, 1), (1, 3)], "the first free seat"
    with pytest.raises(NotSeated):
        await service.lobby.leave(seated.table_id, 2)


async def test_begin_deals_round_one_to_every_player_and_fills_empty_seats(service: TableService) -> None:
    seated = await seated_table(service, -2, humans=(1, 2), computers=False)
    with pytest.raises(NotSeated):
        await service.lobby.begin(seated.table_id, 99)
    outcome = await begin(service, seated)
    table = outcome.table
    assert table.playing and table.round_no == 1 and table.match is not None
    assert [s.human for s in table.seats] == [True, True, False, False, False, False]
    # The deal reaches whoever shows it: its events, and every player's cards to be shown to him.
    assert any(e.kind == "dealt" for e in outcome.dealt)
    assert outcome.hands == {0, 1}
    # The computers moved until a player has to decide, in the same version.
    assert table.to_act is None or table.to_act.plays_himself
    with pytest.raises(AlreadyBegun):
        await service.lobby.begin(seated.table_id, 1)
    with pytest.raises(NotInLobby):
        await service.lobby.add_computers(seated.table_id, 1)


async def test_her_move_is_stored_alone_and_the_computers_follow_in_one_version_logged_in_order(
    service: TableService, store: FakeStore, rng: random.Random
) -> None:
    """Issue 23: her tap waits for no computer. Her move is one version (its deadline: the follow-on, due at
    once); the computers' moves after it, until she has to decide again, are the next."""
    seated = await seated_table(service, -3, humans=(1,))
    table = await past_the_questions(service, (await begin(service, seated)).table)
    while table.to_act is None or table.match is None or table.match.current_player is None:
        pytest.skip("the computers ended the round without her")  # pragma: no cover
    before = await _log(store, table.id)
    expected = table.match.copy()
    action = rng.choice(table.match.legal_actions())
    mine = await service.play.act(table.id, 1, action, version=table.version)
    assert [m.seat for m in mine.moves] == [0] and mine.table.version == table.version + 1
    assert mine.pending and [d.kind for d in mine.deadlines] == [FOLLOW]
    follow = await service.clock.follow(mine.table.id, mine.table.version)
    assert follow is not None and follow.table.version == table.version + 2 and follow.follows == 0
    assert follow.moves and all(m.actor == "computer" for m in follow.moves)
    moves = [*mine.moves, *follow.moves]
    logged = (await _log(store, table.id))[len(before) :]
    assert [(seat, action) for _, seat, action in logged] == [(m.seat, str(m.action)) for m in moves]
    assert [seq for seq, _, _ in logged] == list(range(len(before) + 1, len(before) + 1 + len(logged)))
    for m in moves:
        expected.apply(m.action, m.seat)
    assert (await service.reads.load(table.id)).match == expected
    # It stops where she has to decide again, or where the round ended; the follow-on fires once.
    after = follow.table
    assert after.match is not None
    assert after.match.round_over or after.match.current_player == 0
    assert await service.clock.follow(mine.table.id, mine.table.version) is None


async def test_a_refused_move_changes_nothing(service: TableService, store: FakeStore) -> None:
    seated = await seated_table(service, -4)
    table = (await begin(service, seated)).table
    assert table.match is not None
    table = await past_the_questions(service, table)  # asked of all at once
    assert table.match is not None
    before = (await _log(store, table.id), table.version, table.match)
    mover = user_to_act(table)
    other = next(u for u in SIX if u != mover)
    legal = set(table.match.legal_actions())
    illegal = next(a for a in (Action(PASS), Action(PLAY, (0,) * 14 + (9,))) if a not in legal)
    with pytest.raises(IllegalMove):
        await service.play.act(table.id, mover, illegal, version=table.version)
    with pytest.raises(NotYourTurn):
        await service.play.act(table.id, other, next(iter(legal)), version=table.version)
    with pytest.raises(StaleVersion):
        await service.play.act(table.id, mover, next(iter(legal)), version=table.version - 1)
    with pytest.raises(NotSeated):
        await service.play.act(table.id, 999, next(iter(legal)), version=table.version)
    after = await service.reads.load(table.id)
    assert (await _log(store, table.id), after.version, after.match) == before


async def test_a_redelivered_tap_acts_once(
    service: TableService, store: FakeStore, rng: random.Random
) -> None:
    from table import AlreadyProcessed

    seated = await seated_table(service, -5)
    table = (await begin(service, seated)).table
    assert table.match is not None
    action = rng.choice(table.match.legal_actions())
    done = await service.play.act(table.id, user_to_act(table), action, version=table.version, update_id=77)
    log = await _log(store, table.id)
    with pytest.raises(AlreadyProcessed):
        await service.play.act(table.id, user_to_act(table), action, version=table.version, update_id=77)
    assert await _log(store, table.id) == log
    assert (await service.reads.load(table.id)).version == done.table.version


async def test_the_player_to_act_has_one_deadline_and_older_ones_go(
    service: TableService, store: FakeStore, clock: Clock, rng: random.Random
) -> None:
    seated = await seated_table(service, -6)
    table = (await begin(service, seated)).table
    assert [d.kind for d in (await begin_deadlines(store, table.id))] == [TIMEOUT]
    outcome = await play_one(service, table, rng)
    armed = await begin_deadlines(store, table.id)
    assert [(d.version, d.kind) for d in armed] == [(outcome.table.version, TIMEOUT)]
    assert outcome.due == armed[0].due_at
    assert (armed[0].due_at - clock.now).total_seconds() == 120  # the group's default turn time


async def begin_deadlines(store: FakeStore, table_id: int):
    async with store.uow() as u:
        return await u.deadlines.of_table(table_id)


async def test_a_long_turn_time_gets_a_reminder_at_half_time(
    service: TableService, store: FakeStore, clock: Clock
) -> None:
    seated = await seated_table(service, -7)
    async with store.uow() as u:
        await u.groups.update_settings(-7, turn_timeout_seconds=3600)
        await u.commit()
    table = (await begin(service, seated)).table
    armed = {d.kind: d.due_at for d in await begin_deadlines(store, table.id)}
    assert set(armed) == {TIMEOUT, REMINDER}
    assert (armed[TIMEOUT] - clock.now).total_seconds() == 3600
    assert (armed[REMINDER] - clock.now).total_seconds() == 1800


async def test_two_missed_turns_in_a_row_put_the_seat_on_tuoguan_until_he_acts(
    service: TableService, rng: random.Random
) -> None:
    seated = await seated_table(service, -8)
    table = await past_the_questions(service, (await begin(service, seated)).table)
    seat = table.to_act
    assert seat is not None

    async def until_his_turn(table):
        while table.match is not None and not table.match.round_over and table.to_act.n != seat.n:
            table = (await play_one(service, table, rng)).table
        if table.match.round_over:
            pytest.skip("the round ended first")  # pragma: no cover
        return table

    first = await service.clock.time_out(table.id, table.version)
    assert first is not None
    assert first.notices == (TimedOut(seat.n, first.moves[0].action, False),)
    assert first.moves[0].actor == "timeout" and first.moves[0].seat == seat.n
    assert first.table.seat(seat.n).timeouts == 1 and not first.table.seat(seat.n).autoplay
    table = await until_his_turn(first.table)
    second = await service.clock.time_out(table.id, table.version)
    assert second is not None and second.notices[0].autoplay  # type: ignore[union-attr]
    assert second.table.seat(seat.n).autoplay
    # On 托管 the table no longer waits for him: the computer plays his turns in the stretches.
    table = second.table
    for _ in range(200):
        if table.match is None or table.match.round_over:
            break
        assert table.to_act is None or table.to_act.n != seat.n
        if any(m.seat == seat.n and m.actor == "computer" for m in (await _one(service, table, rng)).moves):
            break
        table = await service.reads.load(table.id)
    # He comes back: he plays his own cards again, time-outs forgotten.
    (back,) = await service.lobby.back(seat.user_id, table.id)  # type: ignore[arg-type]
    assert not back.table.seat(seat.n).autoplay and back.table.seat(seat.n).timeouts == 0


async def _one(service: TableService, table, rng):
    return await play_one(service, table, rng)


async def test_a_time_out_for_a_version_that_is_past_does_nothing(
    service: TableService, rng: random.Random
) -> None:
    seated = await seated_table(service, -9)
    table = (await begin(service, seated)).table
    moved = await play_one(service, table, rng)
    assert await service.clock.time_out(table.id, table.version) is None
    assert (await service.reads.load(table.id)).version == moved.table.version


async def test_next_round_only_after_the_round_and_its_deal_is_logged(
    service: TableService, store: FakeStore, rng: random.Random
) -> None:
    seated = await seated_table(service, -10)
    table = (await begin(service, seated)).table
    with pytest.raises(RoundInProgress):
        await service.play.next_round(table.id, SIX[0], table.version)
    table = await play_until(service, table.id, rng, stop_before_end=False)
    with pytest.raises(StaleVersion):
        await service.play.next_round(table.id, SIX[0], table.version - 1)
    with pytest.raises(NotSeated):
        await service.play.next_round(table.id, 999, table.version)
    nxt = await service.play.next_round(table.id, SIX[0], table.version)
    assert nxt.table.round_no == 2 and nxt.hands == set(range(6))
    assert any(e.kind == "dealt" for e in nxt.dealt)
    assert [a for _, _, a in await _log(store, table.id)].count("next") == 1


async def test_an_old_summarys_stop_does_not_close_the_next_round(
    service: TableService, rng: random.Random
) -> None:
    seated = await seated_table(service, -11)
    table = (await begin(service, seated)).table
    table = await play_until(service, table.id, rng, stop_before_end=False)
    summary_version = table.version
    await service.play.next_round(table.id, SIX[0], summary_version)
    with pytest.raises(StaleVersion):
        await service.lobby.stop(table.id, SIX[0], version=summary_version)
    assert (await service.reads.load(table.id)).playing


async def test_a_player_who_may_only_pass_is_passed_and_the_mark_is_stored(
    service: TableService, store: FakeStore, rng: random.Random
) -> None:
    """R4.3: the table passes for him (要不起); a second process reads the same marks."""
    seated = await seated_table(service, -12)
    table = (await begin(service, seated)).table
    for _ in range(2000):
        assert table.match is not None
        if table.match.round_over:
            pytest.fail("no automatic pass in a whole round")
        outcome = await play_one(service, table, rng)
        table = outcome.table
        auto = [m for m in outcome.moves if m.actor == "computer" and m.action.kind == PASS]
        if auto and table.match is not None and table.match.round is not None and table.match.round.top:
            shown = {m.seat for m in auto} & {s for s in range(6) if table.match.public_view().passed[s]}
            if shown:
                assert shown <= table.marks.auto_passed
                other_process = TableService(store.uow)
                assert (await other_process.reads.load(table.id)).marks == table.marks
                return
    pytest.fail("no automatic pass seen")


async def test_leaving_mid_round_hands_the_seat_to_the_computer(
    service: TableService, rng: random.Random
) -> None:
    seated = await seated_table(service, -13)
    table = (await begin(service, seated)).table
    mover = user_to_act(table)
    outcome = await service.lobby.leave(table.id, mover)
    seat = outcome.table.seat_of(mover)
    assert seat is not None and seat.autoplay
    assert outcome.moves and outcome.moves[0].seat == seat.n and outcome.moves[0].actor == "computer"
    closed = await service.lobby.stop(table.id, SIX[0])
    with pytest.raises(NoRoundInPlay):
        await service.play.act(table.id, SIX[1], Action(PASS))
    assert closed.table.status == "closed"
