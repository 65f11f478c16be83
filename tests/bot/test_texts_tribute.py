"""Tribute accounted for (issue 22, defect 5): a debt owed and then waived says why, in the group and to the
payer; each player's deal says what he gave and got (tribute, 买三)."""

from __future__ import annotations

import random

import pytest
from unit_support import Stage

from bot.texts.group import announcements, summary_text
from bot.texts.player import deal_text, round_end_text
from bot.texts.words import seat_infos
from engine import Event
from table import Table

pytestmark = pytest.mark.unit


async def _round_over(stage: Stage, seed: int) -> Table:
    rng = random.Random(seed)
    table = await stage.in_play({0: 101, 1: 102})
    while table.match is not None and not table.match.round_over:
        await stage.show(await stage.act(table, rng.choice(table.match.legal_actions())))
        table = await stage.load(table.id)
    return table


async def test_a_round_end_says_which_debts_were_waived_and_why() -> None:
    for seed in range(8):
        table = await _round_over(Stage(), seed)
        assert table.match is not None
        result = table.match.public_view().result
        assert result is not None
        if not result.waived:
            continue
        summary = summary_text("en", table)
        assert "Waived:" in summary
        for w in result.waived:
            assert ("they are teammates" if w.why == "team" else "圈贡 replaces it") in summary
        for seat in (0, 1):
            mine = [w for w in result.waived if seat in (w.debt.payer, w.debt.receiver)]
            if mine:
                assert "waived" in round_end_text("en", table, seat)
        return
    pytest.fail("no round with a waived debt in eight: choose other seeds")


async def test_the_deal_says_what_he_paid_got_and_why_the_rest_was_waived() -> None:
    stage = Stage()
    table = await stage.in_play({0: 101, 1: 102})
    assert table.match is not None
    table.match.shown[:] = [
        Event("tribute_luo", 0, (0,) * 13 + (0, 1), other=1, n=1).to_dict(),
        Event("tribute_short", 0, None, other=1, n=1).to_dict(),
        Event("bought_three", 1, (0,) * 12 + (1, 0, 0), other=0).to_dict(),
    ]
    payer, receiver = deal_text("en", table, 0), deal_text("en", table, 1)
    assert "You paid Bob 落贡: R" in payer
    assert (
        "you has no more" not in payer
        and "no more naturally dealt" in payer
        and "1 owed to Bob waived" in payer
    )
    assert "Ann paid you 落贡: R" in receiver
    assert "You got a 3 from Ann, paying 2" in receiver and "Bob got a 3 from you, paying 2" in payer
    seats = seat_infos(table, "en")
    group = announcements("en", (), [Event("tribute_exempt", 0, None, other=1, n=2)], seats)
    assert group == ["Ann owes Bob nothing: 抗贡 (2 waived)"]
