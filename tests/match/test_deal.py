"""R1.3–R1.5 the deal and the leader, R5.2 自然点, R8.2 买三/买四."""

from __future__ import annotations

import random

import pytest
from match_helpers import computer, deck, drive, total

from engine.cards import BIG, SMALL, THREE, TWO, parse_cards
from engine.deal import Deal, buy_all, deal
from engine.match import Match
from engine.plays import has_pure_gouji
from engine.rules import Rules

pytestmark = pytest.mark.unit

QINGDAO, CLASSIC, ZHANGQIU = Rules.preset("qingdao"), Rules.preset("classic"), Rules.preset("zhangqiu")


def test_r1_3_deal_is_36_each_of_the_whole_deck_and_reproducible_from_the_seed() -> None:
    d = deal(CLASSIC, 11, 1, 0, None)
    assert [sum(h) for h in d.hands] == [36] * 6
    assert total(d.hands) == deck(CLASSIC)
    assert deal(CLASSIC, 11, 1, 0, None).hands == d.hands
    assert deal(CLASSIC, 12, 1, 0, None).hands != d.hands
    assert deal(CLASSIC, 11, 2, 0, None).hands != d.hands  # the next round is a fresh deal
    assert Match(CLASSIC, 11).dealt == Match(CLASSIC, 11).dealt


def test_r1_4_round_one_leader_comes_from_the_seed() -> None:
    leaders = {Match(CLASSIC, seed).leader for seed in range(40)}
    assert leaders == set(range(6))
    assert Match(CLASSIC, 5).leader == Match(CLASSIC, 5).leader


def test_r1_4_later_rounds_are_led_by_the_previous_da_luo() -> None:
    m = Match(QINGDAO, 3)
    rng = random.Random(3)
    for _ in range(3):
        drive(m, computer(), rng)
        da_luo = m.last_result["places"][5]
        m.next_round()
        assert m.leader == da_luo
        while m.round is None:
            m.apply(computer()(m, rng))
        assert m.round.current_player == da_luo or m.revolted == da_luo


def test_r1_5_zhangqiu_deals_196_cards_33_to_the_leader_and_next_three() -> None:
    for seed in range(5):
        d = deal(ZHANGQIU, seed, 1, 0, None)
        assert total(d.hands) == deck(ZHANGQIU)
        assert sum(deck(ZHANGQIU)) == 196
        sizes = [sum(d.hands[(d.leader + i) % 6]) for i in range(6)]
        assert sizes == [33, 33, 33, 33, 32, 32]


def test_r5_2_a_dealt_hand_without_pure_gouji_is_natural_and_opened_from_the_first_lead() -> None:
    found = 0
    for seed in range(60):
        m = Match(CLASSIC, seed)
        for s in range(6):
            assert m.natural[s] == (not has_pure_gouji(m.dealt[s]))
            if m.natural[s]:
                found += 1
                assert {"kind": "natural", "seat": s} in m.shown
        if m.round is not None:
            assert m.round.opened == [m.natural[s] and s != m.revolted for s in range(6)]
    assert found  # the seeds above do hold natural hands


def _deal_of(hands: list[str], leader: int = 0) -> Deal:
    hs = [list(parse_cards(h)) for h in hands]
    return Deal(hs, [list(h) for h in hs], [False] * 6, leader)


def test_r8_2_buyer_without_a_three_buys_from_his_opposite_with_a_natural_two() -> None:
    d = _deal_of(["2245", "3", "33", "333", "3", "3"])
    events = buy_all(QINGDAO, d)
    assert d.hands[0] == list(parse_cards("2345")) and d.hands[3] == list(parse_cards("332"))
    assert [(e.kind, e.seat, e.other) for e in events] == [("bought_three", 0, 3)]
    assert d.natural_cards[0][TWO] == 1 and d.natural_cards[3][TWO] == 0  # a bought card is not natural
    assert d.natural_cards[0][THREE] == 0


def test_r8_2_opposite_with_one_three_sends_him_to_an_opponent_neighbour_next_seat_first() -> None:
    d = _deal_of(["B45", "33", "33", "3", "3", "333"])
    buy_all(QINGDAO, d)
    assert d.hands[1] == list(parse_cards("3B")) and d.hands[0] == list(parse_cards("345"))


def test_r8_2_pays_small_joker_before_big_when_he_has_no_two() -> None:
    d = _deal_of(["BR5", "33", "3", "33", "3", "3"])
    buy_all(QINGDAO, d)
    assert d.hands[0][SMALL] == 0 and d.hands[0][BIG] == 1 and d.hands[3][SMALL] == 1


def test_r8_2_a_teammate_gives_one_free_when_no_opponent_has_two() -> None:
    d = _deal_of(["25", "3", "333", "3", "3", "3"])
    events = buy_all(QINGDAO, d)
    assert d.hands[0] == list(parse_cards("235")) and d.hands[2] == list(parse_cards("33"))
    assert (events[0].seat, events[0].other, events[0].cards) == (0, 2, None)


def test_r8_2_a_buyer_with_nothing_to_pay_is_helped_by_his_team() -> None:
    d = _deal_of(["5", "33", "3", "333", "33", "3"])
    buy_all(QINGDAO, d)
    assert d.hands[0] == list(parse_cards("35")) and d.hands[4] == list(parse_cards("3"))
    assert d.hands[3] == list(parse_cards("333"))


def test_r8_2_only_with_bie_san_and_buying_fours_only_with_zhangqiu() -> None:
    hands = ["25", "33", "32", "2334", "3", "3444"]
    d = _deal_of(hands)
    assert buy_all(CLASSIC, d) == [] and d.hands == _deal_of(hands).hands
    d = _deal_of(hands)
    events = buy_all(QINGDAO, d)
    assert [(e.kind, e.seat, e.other) for e in events] == [("bought_three", 0, 3)]
    d = _deal_of(hands)
    events = buy_all(ZHANGQIU, d)
    # 买四 in turn from the leader: 1 cannot pay, so his teammate 5 gives one; 2 pays his 2 to his 对头 5.
    assert [(e.kind, e.seat, e.other, e.cards) for e in events] == [
        ("bought_three", 0, 3, parse_cards("2")),
        ("bought_four", 1, 5, None),
        ("bought_four", 2, 5, parse_cards("2")),
    ]
    assert d.hands[5] == list(parse_cards("342"))
