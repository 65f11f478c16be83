"""Leaving a match and coming back (issue 22, defect 6): /leave mid-round puts the seat on 托管 for the rest of
the round and frees it at the next deal (a computer's seat, the player no longer seated) unless he comes back
before; /back keeps it."""

from __future__ import annotations

import random

import pytest
from table_helpers import begin, play_until, seated_table

from table import NothingToDo, SeatFreed, TableService, WentAutoplay

pytestmark = pytest.mark.unit

GROUP = -601
HUMANS = (1, 2, 3)


async def _round_over(service: TableService, table_id: int, seed: int) -> int:
    table = await play_until(service, table_id, random.Random(seed), stop_before_end=False)
    assert table.match is not None and table.match.round_over
    return table.version


async def test_a_player_who_left_is_not_dealt_the_next_round(service: TableService) -> None:
    seated = await seated_table(service, GROUP, humans=HUMANS)
    await begin(service, seated)
    left = await service.lobby.leave(seated.table_id, 2)
    seat = left.table.seat_of(2)
    assert seat is not None and seat.autoplay and seat.leaving
    assert WentAutoplay(seat.n, False, left=True) in left.notices
    with pytest.raises(NothingToDo):
        await service.lobby.leave(seated.table_id, 2)

    version = await _round_over(service, seated.table_id, 5)
    dealt = await service.play.next_round(seated.table_id, 1, version)
    assert dealt.table.seat_of(2) is None, "no longer seated"
    freed = dealt.table.seat(seat.n)
    assert freed is not None and not freed.human and freed.computer_level == dealt.table.group.computer_level
    assert SeatFreed(seat.n, 2, "player 2", "en") in dealt.notices
    assert seat.n not in dealt.hands, "no deal message for him"
    assert await service.reads.tables_of(2) == []


async def test_back_before_the_next_deal_keeps_the_seat(service: TableService) -> None:
    seated = await seated_table(service, GROUP, humans=HUMANS)
    await begin(service, seated)
    await service.lobby.leave(seated.table_id, 3)
    (back,) = await service.lobby.back(3)
    seat = back.table.seat_of(3)
    assert seat is not None and not seat.autoplay and not seat.leaving
    version = await _round_over(service, seated.table_id, 6)
    dealt = await service.play.next_round(seated.table_id, 1, version)
    seat = dealt.table.seat_of(3)
    assert seat is not None and seat.n in dealt.hands and not dealt.notices
