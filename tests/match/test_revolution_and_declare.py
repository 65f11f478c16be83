"""R9 革命 (eligibility, redeal, laying down, 要头/无头) and R5.6 宣点 before the first lead."""

from __future__ import annotations

import random

import pytest
from match_helpers import computer, deck, drive, find_seed

from engine.actions import Action
from engine.cards import BIG, SMALL, TWO
from engine.match import P_DECLARE, P_HEAD, P_PLAY, P_REVOLT, Match
from engine.round import opposite
from engine.rules import Rules

pytestmark = pytest.mark.unit

QINGDAO, CLASSIC = Rules.preset("qingdao"), Rules.preset("classic")


def _eligible(m: Match, s: int) -> bool:
    h = m.hands[s]
    return not (h[TWO] or h[SMALL] or h[BIG])


def _revolt_seed(rules: Rules, at_least: int) -> int:
    return find_seed(rules, lambda m: m.phase == P_REVOLT and len(m.pending) >= at_least)


def test_r9_1_exactly_the_seats_without_jokers_and_twos_are_asked_in_turn_from_the_leader() -> None:
    for rules in (QINGDAO, CLASSIC):
        seed = _revolt_seed(rules, 1)
        m = Match(rules, seed)
        order = [(m.leader + i) % 6 for i in range(6)]
        assert m.pending == [s for s in order if _eligible(m, s)]
        assert m.current_player == m.pending[0]
        assert set(m.legal_actions()) == {Action("revolt"), Action("no_revolt")}
        assert not m.is_legal(Action("declare"))


def test_r9_1_declining_the_revolution_plays_on_with_every_seat() -> None:
    m = Match(CLASSIC, _revolt_seed(CLASSIC, 1))
    while m.phase == P_REVOLT:
        m.apply(Action("no_revolt"))
    assert m.phase == P_PLAY and m.revolted is None and m.round is not None and m.round.revolted is None


def test_r9_2_two_declarations_void_the_deal_and_redeal_with_the_same_leader() -> None:
    m = Match(QINGDAO, _revolt_seed(QINGDAO, 2))
    leader, first_deal = m.leader, [list(h) for h in m.dealt]
    events = []
    events += m.apply(Action("revolt"))
    events += m.apply(Action("revolt"))
    while m.phase == P_REVOLT and m.deal_no == 0:
        events += m.apply(Action("no_revolt"))
    assert m.deal_no == 1 and any(e.kind == "redeal" for e in events)
    assert m.leader == leader and m.dealt != first_deal
    assert m.revolted is None and m.cards_in_play() == deck(QINGDAO)


def test_r9_2_one_declaration_among_two_eligible_is_a_revolution_not_a_redeal() -> None:
    m = Match(QINGDAO, _revolt_seed(QINGDAO, 2))
    first = m.current_player
    m.apply(Action("revolt"))
    while m.phase == P_REVOLT:
        m.apply(Action("no_revolt"))
    assert m.deal_no == 0 and m.revolted == first and m.phase == P_HEAD


def _revolution(rules: Rules, head: str) -> Match:
    m = Match(rules, _revolt_seed(rules, 1))
    m.apply(Action("revolt"))
    while m.phase == P_REVOLT:
        m.apply(Action("no_revolt"))
    assert m.phase == P_HEAD
    m.apply(Action(head))
    while m.phase == P_DECLARE:
        m.apply(Action("no_declare"))
    return m


def test_r9_3_the_revolutionary_lays_down_his_hand_and_counts_as_not_opened() -> None:
    m = Match(CLASSIC, _revolt_seed(CLASSIC, 1))
    r = m.current_player
    hand = m.hand(r)
    events = m.apply(Action("revolt"))
    while m.phase == P_REVOLT:
        events += m.apply(Action("no_revolt"))
    assert [(e.kind, e.seat, e.cards) for e in events if e.kind == "laid_down"] == [("laid_down", r, hand)]
    assert m.current_player == opposite(r)
    m.apply(Action("wutou"))
    rnd = m.round
    assert rnd is not None and rnd.revolted == r and sum(rnd.hands[r]) == 0
    assert rnd.opened[r] is False
    assert m.cards_in_play() == deck(CLASSIC)
    assert rnd.current_player != r


def test_r9_3_the_revolutionary_ranks_si_ke_or_san_ke_when_his_team_takes_tou_ke_and_er_ke() -> None:
    seen = set()
    for seed in range(400):
        m = Match(QINGDAO, seed)
        if m.phase != P_REVOLT:
            continue
        rng = random.Random(seed)
        m.apply(Action("revolt"))
        drive(m, computer(("heuristic", "heuristic")), rng)
        if m.revolted is None:
            continue
        res = m.last_result
        r, places = m.revolted, res["places"]
        team_top = places[0] % 2 == places[1] % 2 == r % 2
        assert places.index(r) == (2 if team_top else 3)
        assert res["circled"] == team_top or places[0] % 2 == places[1] % 2 == places[2] % 2
        if team_top:
            assert sorted(abs(x) for x in res["scores"]) == [0, 0, 4, 4, 8, 8]  # 串三户 doubles (R7.4)
        seen.add(team_top)
        if len(seen) == 2:
            break
    assert False in seen


def test_r9_4_yaotou_gives_three_gousi_plays_and_opens_the_opposite() -> None:
    m = _revolution(QINGDAO, "yaotou")
    o = opposite(m.revolted)
    assert m.round.gousi_left[o] == 3 and m.round.opened[o]
    assert m.round.has_head(o)


def test_r9_4_wutou_leaves_the_opposite_without_head_but_opened() -> None:
    m = _revolution(QINGDAO, "wutou")
    o = opposite(m.revolted)
    assert m.round.gousi_left[o] == 0 and m.round.opened[o] and not m.round.has_head(o)


def test_r5_6_each_seat_may_declare_in_turn_from_the_leader_and_the_round_keeps_it() -> None:
    seed = find_seed(QINGDAO, lambda m: m.phase == P_DECLARE)
    m = Match(QINGDAO, seed)
    asked = []
    while m.phase == P_DECLARE:
        s = m.current_player
        asked.append(s)
        assert set(m.legal_actions()) == {Action("declare"), Action("no_declare")}
        m.apply(Action("declare" if s in (1, 2) else "no_declare"))
    assert asked == [(m.leader + i) % 6 for i in range(6)]
    assert m.round.declared == [False, True, True, False, False, False]
    assert {"kind": "declared", "seat": 1} in m.shown


def test_r5_6_no_declaring_against_a_revolution_nor_without_xuan_dian() -> None:
    m = Match(QINGDAO, _revolt_seed(QINGDAO, 1))
    m.apply(Action("revolt"))
    while m.phase == P_REVOLT:
        m.apply(Action("no_revolt"))
    m.apply(Action("yaotou"))
    asked = []
    while m.phase == P_DECLARE:
        asked.append(m.current_player)
        m.apply(Action("no_declare"))
    assert m.revolted not in asked and opposite(m.revolted) not in asked and len(asked) == 4
    for rules in (CLASSIC, QINGDAO.set_key("xuan_dian", False), QINGDAO.set_key("dian_gong", False)):
        seed = find_seed(rules, lambda m: m.phase != P_REVOLT)
        assert Match(rules, seed).phase == P_PLAY
