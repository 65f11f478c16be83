"""The questions before the first lead asked of every seat at once (issue 22, defect 2): the computers answer at
once, every player is asked as soon as the deal is dealt and may answer in any order (a button drawn before
another seat answered still answers), one deadline for them all, and the first lead once the last is in."""

from __future__ import annotations

import random

import pytest
from table_fakes import Clock
from table_helpers import begin, seated_table

from table import NotYourTurn, StaleVersion, TableService, TimedOut
from table.policy import TIMEOUT, waits_on

pytestmark = pytest.mark.unit

HUMANS = (1, 2, 3)  # seats 0-2, computers in 3-5: the table


async def _dealt(service: TableService, seed: int = 1):  # type: ignore[no-untyped-def]
    seated = await seated_table(service, -700 - seed, humans=HUMANS)
    return await begin(service, seated)


async def test_every_player_is_asked_at_the_deal_and_the_computers_have_answered(
    service: TableService,
) -> None:
    dealt = await _dealt(service)
    table = dealt.table
    assert table.match is not None and table.match.step == "stage"
    asked = {s.user_id for s in waits_on(table, table.match)}
    assert asked == set(HUMANS)
    assert dealt.asked_anew == {0, 1, 2}
    assert all(n < 3 for n in table.match.asked), "the computers answered at once"
    assert [d.kind for d in dealt.deadlines] == [TIMEOUT]


@pytest.mark.parametrize("order", [(1, 2, 3), (3, 1, 2), (2, 3, 1)])
async def test_answers_in_any_order_with_the_buttons_drawn_at_the_deal(
    service: TableService, clock: Clock, order: tuple[int, ...]
) -> None:
    dealt = await _dealt(service)
    drawn = dealt.table.version  # every question message's buttons carry the deal's version
    due = dealt.due
    table = dealt.table
    for i, user in enumerate(order):
        clock.advance(30)
        assert table.match is not None
        seat = table.seat_of(user)
        assert seat is not None
        version = drawn  # his question's message was drawn at the deal; a second question comes anew
        while table.match.question(seat.n) is not None:
            answer = table.match.legal_actions(seat.n)[0]
            outcome = await service.play.act(table.id, user, answer, version=version)
            table, version = outcome.table, outcome.table.version
            assert table.match is not None
            if i < len(order) - 1:
                assert outcome.due == due, "one deadline for the questions, counted from the deal"
                assert outcome.asked_anew <= {seat.n}, "nobody else is asked again"
        if i < len(order) - 1:
            with pytest.raises(StaleVersion):  # he answered: the same tap again is out of date
                await service.play.act(table.id, user, answer, version=drawn)
            with pytest.raises(NotYourTurn):  # and typed (no version), it is not his to answer now
                await service.play.act(table.id, user, answer)
    assert table.match.step in ("play", "head")
    if table.match.step == "play":
        assert table.marks.asked_since is None


async def test_a_button_of_a_question_no_longer_asked_is_out_of_date(service: TableService) -> None:
    dealt = await _dealt(service)
    table = dealt.table
    assert table.match is not None
    ann = table.seat_of(1)
    assert ann is not None
    answer = table.match.legal_actions(ann.n)[0]
    moved = await service.play.act(table.id, 1, answer, version=table.version)
    assert moved.table.match is not None
    with pytest.raises(StaleVersion):  # answered, or asked another question: the old button is out of date
        await service.play.act(table.id, 1, answer, version=table.version)


async def test_the_deadline_answers_for_every_player_not_yet_answering(service: TableService) -> None:
    dealt = await _dealt(service, seed=2)
    table = dealt.table
    assert table.match is not None
    first = table.seat_of(1)
    assert first is not None
    table = (
        await service.play.act(table.id, 1, table.match.legal_actions(first.n)[0], version=table.version)
    ).table
    late = {s.n for s in waits_on(table, table.match)}
    timed = await service.clock.time_out(table.id, table.version)
    assert timed is not None
    told = {n.seat for n in timed.notices if isinstance(n, TimedOut)}
    assert late <= told, "each late player is told what the computer answered for him"
    assert all(not n.autoplay for n in timed.notices if isinstance(n, TimedOut))
    assert timed.table.match is not None and timed.table.match.step != "stage"


async def test_answers_in_any_order_are_rebuilt_from_the_log(service: TableService, store) -> None:  # type: ignore[no-untyped-def]
    from table.rebuild import rebuild_round

    rng = random.Random(9)
    dealt = await _dealt(service, seed=3)
    table = dealt.table
    while table.match is not None and table.match.step == "stage":
        seat = rng.choice(waits_on(table, table.match))
        assert seat.user_id is not None
        action = rng.choice(table.match.legal_actions(seat.n))
        table = (await service.play.act(table.id, seat.user_id, action, version=table.version)).table
    async with store.uow() as uow:
        assert await rebuild_round(uow, table.id, 1) == table.match


async def test_a_question_drawn_at_the_deal_is_still_his_after_another_answers_and_not_after_his_own(
    service: TableService,
) -> None:
    """What a message held on its way (his chat's pace) asks is checked before it goes (bot/present.py): the
    others' answers move the table on while his question stands; his own answer ends it."""
    dealt = await _dealt(service)
    drawn = dealt.table
    assert drawn.match is not None
    ann, bob = drawn.seat_of(1), drawn.seat_of(2)
    assert ann is not None and bob is not None
    assert await service.reads.still_asks(drawn, ann.n)
    answered = await service.play.act(drawn.id, 2, drawn.match.legal_actions(bob.n)[0], version=drawn.version)
    assert answered.table.version > drawn.version
    assert await service.reads.still_asks(drawn, ann.n), "Bob's answer leaves Ann's question standing"
    assert not await service.reads.still_asks(drawn, bob.n), "Bob's was answered"
