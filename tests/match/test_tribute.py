"""R10 tribute before the next round: order, natural cards only, 抗贡, teammates waived, 还贡."""

from __future__ import annotations

import random

import pytest
from match_helpers import computer, deck, drive

from engine.actions import Action
from engine.cards import parse_cards
from engine.match import P_RETURN, Match, parse_action
from engine.round import Debt, IllegalAction
from engine.rules import Rules
from engine.tribute import pay

pytestmark = pytest.mark.unit

QINGDAO = Rules.preset("qingdao")


def _hands(*texts: str) -> list[list[int]]:
    return [list(parse_cards(t)) for t in texts]


def _paid(events: list) -> list[tuple[str, int, int, str]]:
    from engine.cards import format_cards

    return [
        (e.kind, e.seat, e.other, format_cards(e.cards) if e.cards else "-")
        for e in events
        if e.kind != "kang_gong"
    ]


def test_r10_1_debts_are_paid_in_the_tables_tribute_order() -> None:
    debts = [Debt(0, 1, 1, "dian"), Debt(0, 3, 1, "shao"), Debt(0, 5, 2, "luo")]
    hands = _hands("22BR5", "6", "7", "8", "9", "T")
    events, _ = pay(QINGDAO, debts, hands, [list(h) for h in hands], [list(h) for h in hands])
    assert _paid(events) == [
        ("tribute_dian", 0, 1, "R"),
        ("tribute_shao", 0, 3, "B"),
        ("tribute_luo", 0, 5, "22"),
    ]
    s3 = QINGDAO.set_key("tribute_order", "quan,men,shao,dian,luo")
    hands = _hands("22BR5", "6", "7", "8", "9", "T")
    events, _ = pay(s3, debts, hands, [list(h) for h in hands], [list(h) for h in hands])
    assert _paid(events)[0] == ("tribute_shao", 0, 3, "R")


def test_r10_3_only_naturally_dealt_jokers_and_twos_highest_first_and_a_short_payer_owes_no_more() -> None:
    hands = _hands("2RR5", "6", "7", "8", "9", "T")
    natural = _hands("25", "6", "7", "8", "9", "T")  # the jokers came as tribute or purchase
    events, returns = pay(QINGDAO, [Debt(0, 5, 2, "luo")], hands, natural, natural)
    # What was paid, and what was waived for want of natural R/B/2 (said, not silently dropped).
    assert _paid(events) == [("tribute_luo", 0, 5, "2"), ("tribute_short", 0, 5, "-")]
    assert events[0].n == 1 and events[1].n == 1
    assert hands[0] == list(parse_cards("RR5")) and hands[5] == list(parse_cards("T2"))
    assert returns[0].n == 1  # 还贡 gives back as many as were received


def test_r10_3_cards_received_as_tribute_do_not_pay_a_later_debt() -> None:
    hands = _hands("5", "R", "7", "8", "9", "T")
    natural = [list(h) for h in hands]
    events, _ = pay(QINGDAO, [Debt(1, 0, 1, "dian"), Debt(0, 3, 1, "shao")], hands, natural, natural)
    assert _paid(events) == [
        ("tribute_dian", 1, 0, "R"),
        ("tribute_shao", 0, 3, "-"),
        ("tribute_short", 0, 3, "-"),  # the R he received does not pay: his 1 烧贡 is waived, and said so
    ]
    assert hands[0] == list(parse_cards("5R"))


def test_r10_4_tribute_between_teammates_is_waived() -> None:
    hands = _hands("2", "6", "7", "8", "9", "T")
    events, _ = pay(
        QINGDAO, [Debt(0, 2, 1, "luo")], hands, [list(h) for h in hands], [list(h) for h in hands]
    )
    assert events == [] and hands[0] == list(parse_cards("2"))


def test_r10_5_four_natural_big_jokers_exempt_the_whole_team_four_small_only_the_holder() -> None:
    debts = [Debt(0, 1, 1, "dian"), Debt(2, 5, 1, "shao"), Debt(3, 4, 1, "men")]
    hands = _hands("RRRR", "2", "22", "BBBB2", "2", "2")
    events, _ = pay(QINGDAO, debts, hands, [list(h) for h in hands], [list(h) for h in hands])
    assert [(e.kind, e.seat, e.n) for e in events if e.kind == "kang_gong"] == [
        ("kang_gong", 0, 3),
        ("kang_gong", 3, 1),
    ]
    assert all(e.n == 0 for e in events if e.kind.startswith("tribute_") and e.kind != "tribute_exempt")
    assert [(e.seat, e.other, e.n) for e in events if e.kind == "tribute_exempt"] == [
        (0, 1, 1),
        (2, 5, 1),
        (3, 4, 1),
    ]
    assert hands[2] == list(parse_cards("22")) and hands[3][12] == 1
    off = QINGDAO.set_key("kang_gong", False)
    hands = _hands("RRRR", "2", "22", "BBBB2", "2", "2")
    events, _ = pay(off, debts, hands, [list(h) for h in hands], [list(h) for h in hands])
    assert [e.n for e in events] == [1, 1, 1]


def test_r10_6_return_tribute_only_for_luo() -> None:
    hands = _hands("22", "2", "7", "8", "9", "T")
    natural = [list(h) for h in hands]
    _, returns = pay(QINGDAO, [Debt(1, 0, 1, "dian"), Debt(0, 5, 2, "luo")], hands, natural, natural)
    assert [(r.receiver, r.payer, r.n) for r in returns] == [(5, 0, 2)]
    hands = _hands("22", "2", "7", "8", "9", "T")
    natural = [list(h) for h in hands]
    _, returns = pay(
        QINGDAO.set_key("return_tribute", False), [Debt(0, 5, 2, "luo")], hands, natural, natural
    )
    assert returns == []


def _match_at_return(seed: int) -> Match:
    m = Match(QINGDAO, seed)
    rng = random.Random(seed)
    drive(m, computer(), rng)
    m.next_round()
    return m


def test_r10_6_the_receiver_chooses_the_cards_he_gives_back_and_the_table_sees_them() -> None:
    for seed in range(20):
        m = _match_at_return(seed)
        if m.phase == P_RETURN:
            break
    else:
        raise AssertionError("no 落贡 was paid in 20 matches")
    receiver = m.current_player
    ret = m.returns[0]
    assert receiver == ret.receiver
    legal = m.legal_actions()
    assert legal and all(a.kind == "return" and sum(a.cards) == ret.n for a in legal)
    assert len(set(legal)) == len(legal)
    with pytest.raises(IllegalAction):
        m.apply(Action("return", parse_cards("3" * (ret.n + 1))))
    with pytest.raises(IllegalAction):
        m.apply(Action("revolt"))
    choice = legal[-1]
    before_r, before_p = m.hand(receiver), m.hand(ret.payer)
    events = m.apply(parse_action(str(choice)))
    assert [(e.kind, e.seat, e.other, e.cards) for e in events][:1] == [
        ("returned", receiver, ret.payer, choice.cards)
    ]
    assert all(a - c == b for a, b, c in zip(before_r, m.hand(receiver), choice.cards, strict=True))
    assert all(a + c == b for a, b, c in zip(before_p, m.hand(ret.payer), choice.cards, strict=True))
    assert any(e["kind"] == "returned" and e["seat"] == receiver for e in m.shown)
    assert m.phase != P_RETURN or m.current_player != receiver


def test_r10_tribute_is_shown_and_the_cards_stay_in_the_deck() -> None:
    for seed in range(6):
        m = _match_at_return(seed)
        shown = [e for e in m.shown if e["kind"].startswith("tribute_")]
        assert len(shown) == len([d for d in m.debts if d.payer % 2 != d.receiver % 2])
        assert m.cards_in_play() == deck(QINGDAO)


def test_r10_5_a_debt_exempt_by_kang_gong_says_how_many_cards_it_waived() -> None:
    hands = _hands("RRRR22", "6", "7", "8", "9", "T")
    events, _ = pay(
        QINGDAO, [Debt(0, 5, 2, "luo")], hands, [list(h) for h in hands], [list(h) for h in hands]
    )
    assert _paid(events) == [("tribute_luo", 0, 5, "-"), ("tribute_exempt", 0, 5, "-")]
    assert events[-1].n == 2


def test_r10_2_and_r10_4_the_debts_a_round_made_that_the_rules_waived_say_why() -> None:
    from engine.tribute import Waived, waived

    arisen = [Debt(1, 3, 1, "men"), Debt(0, 5, 2, "shao")]  # a teammate's 闷; a burn on a circled player
    places = [1, 3, 5, 0, 2, 4]  # team B took 头科, 二科, 三科: 串三户
    found = waived(QINGDAO, arisen, places, circled=True)
    assert Waived(Debt(1, 3, 1, "men"), "team") in found
    assert Waived(Debt(0, 5, 2, "shao"), "quan") in found
    assert Waived(Debt(4, 1, 2, "luo"), "quan") in found  # 大落 of the circled team pays 圈贡 instead
