"""R9 革命 (eligibility, redeal, laying down, 要头/无头) and R5.6 宣点 before the first lead, asked of every seat
at once and revealed together (engine/stage.py)."""

from __future__ import annotations

import random

import pytest
from match_helpers import answer_stage, asked_kinds, computer, deck, drive, find_seed, revolt_seats

from engine.actions import Action
from engine.cards import BIG, SMALL, TWO
from engine.match import P_HEAD, P_PLAY, Match
from engine.round import opposite
from engine.rules import Rules

pytestmark = pytest.mark.unit

QINGDAO, CLASSIC = Rules.preset("qingdao"), Rules.preset("classic")


def _eligible(m: Match, s: int) -> bool:
    h = m.hands[s]
    return not (h[TWO] or h[SMALL] or h[BIG])


def _revolt_seed(rules: Rules, at_least: int) -> int:
    return find_seed(rules, lambda m: len(revolt_seats(m)) >= at_least)


def _answers(
    revolt: frozenset[int] | set[int] = frozenset(), declare: frozenset[int] | set[int] = frozenset()
):
    def answer(m: Match, seat: int) -> Action:
        q = m.question(seat)
        assert q is not None
        if q.kind == "revolt":
            return Action("revolt" if seat in revolt else "no_revolt")
        if q.kind == "declare":
            return Action("declare" if seat in declare else "no_declare")
        return m.legal_actions(seat)[0]

    return answer


def test_r9_1_every_seat_without_jokers_and_twos_is_asked_at_once_and_every_other_seat_for_its_xuan_dian() -> (
    None
):
    for rules in (QINGDAO, CLASSIC):
        m = Match(rules, _revolt_seed(rules, 1))
        order = [(m.leader + i) % 6 for i in range(6)]
        kinds = asked_kinds(m)
        assert revolt_seats(m) == [s for s in order if _eligible(m, s)]
        if rules.xuan_dian_active:
            assert list(m.asked) == order  # the others are asked their 宣点 at the same time
            assert all(kinds[s] == "declare" for s in order if not _eligible(m, s))
        else:
            assert list(m.asked) == revolt_seats(m)
        assert m.current_player == m.asked[0]
        for s in revolt_seats(m):
            assert set(m.legal_actions(s)) == {Action("revolt"), Action("no_revolt")}
            assert not m.is_legal(Action("declare"), s)


def test_r9_1_declining_the_revolution_plays_on_with_every_seat() -> None:
    m = Match(CLASSIC, _revolt_seed(CLASSIC, 1))
    answer_stage(m, _answers())
    assert m.phase == P_PLAY and m.revolted is None and m.round is not None and m.round.revolted is None


def test_r9_2_two_declarations_void_the_deal_and_redeal_with_the_same_leader() -> None:
    m = Match(QINGDAO, _revolt_seed(QINGDAO, 2))
    leader, first_deal = m.leader, [list(h) for h in m.dealt]
    two = set(revolt_seats(m)[:2])
    events = answer_stage(m, _answers(revolt=two, declare={0, 1, 2, 3, 4, 5}))
    kinds = [e.kind for e in events]
    assert m.deal_no == 1 and "redeal" in kinds
    # Revealed together, then the deal is void: no 宣点 of the void deal is shown.
    order = [(leader + i) % 6 for i in range(6)]
    assert [e.seat for e in events if e.kind == "revolt"] == [s for s in order if s in two]
    assert "declared" not in kinds and "no_declare" not in kinds
    assert kinds.index("revolt") > max(i for i, k in enumerate(kinds) if k == "answered")
    assert m.leader == leader and m.dealt != first_deal
    assert m.revolted is None and m.cards_in_play() == deck(QINGDAO)
    assert m.step == "stage" and m.declare_answers == [None] * 6  # a new stage: every answer void


def test_r9_2_one_declaration_among_two_eligible_is_a_revolution_not_a_redeal() -> None:
    m = Match(QINGDAO, _revolt_seed(QINGDAO, 2))
    first = revolt_seats(m)[0]
    answer_stage(m, _answers(revolt={first}))
    assert m.deal_no == 0 and m.revolted == first and m.phase == P_HEAD
    assert m.asked == (opposite(first),)


def _revolution(rules: Rules, head: str) -> Match:
    m = Match(rules, _revolt_seed(rules, 1))
    answer_stage(m, _answers(revolt={revolt_seats(m)[0]}))
    assert m.phase == P_HEAD
    m.apply(Action(head))
    return m


def test_r9_3_the_revolutionary_lays_down_his_hand_and_counts_as_not_opened() -> None:
    m = Match(CLASSIC, _revolt_seed(CLASSIC, 1))
    r = revolt_seats(m)[0]
    hand = m.hand(r)
    events = answer_stage(m, _answers(revolt={r}))
    assert [(e.kind, e.seat, e.cards) for e in events if e.kind == "laid_down"] == [("laid_down", r, hand)]
    assert m.current_player == opposite(r) and m.question(opposite(r)).kind == "head"
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
        if not revolt_seats(m):
            continue
        rng = random.Random(seed)
        m.apply(Action("revolt"), revolt_seats(m)[0])
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


def test_r5_6_every_seat_declares_at_once_and_the_round_keeps_it() -> None:
    seed = find_seed(QINGDAO, lambda m: not revolt_seats(m))
    m = Match(QINGDAO, seed)
    order = [(m.leader + i) % 6 for i in range(6)]
    assert list(m.asked) == order and set(asked_kinds(m).values()) == {"declare"}
    for s in order:
        assert set(m.legal_actions(s)) == {Action("declare"), Action("no_declare")}
    events = []
    for s in reversed(order):  # any order
        events += m.apply(Action("declare" if s in (1, 2) else "no_declare"), s)
    assert m.round.declared == [False, True, True, False, False, False]
    assert [(e.kind, e.seat) for e in events if e.kind in ("declared", "no_declare")] == [
        ("declared" if s in (1, 2) else "no_declare", s) for s in order
    ]
    assert {"kind": "declared", "seat": 1} in m.shown


def test_r5_6_a_revolutionary_is_not_asked_his_xuan_dian_and_his_pairs_is_void() -> None:
    m = Match(QINGDAO, _revolt_seed(QINGDAO, 1))
    r = revolt_seats(m)[0]
    o = opposite(r)
    m.apply(Action("revolt"), r)
    assert m.question(r) is None and r not in m.asked  # not asked 宣点 after his 革命
    events = answer_stage(m, _answers(declare={0, 1, 2, 3, 4, 5}))
    declared = [e.seat for e in events if e.kind == "declared"]
    assert r not in declared and o not in declared and len(declared) == 4
    m.apply(Action("yaotou"))
    assert not m.round.declared[r] and not m.round.declared[o]
    assert sum(m.round.declared) == 4
    for rules in (CLASSIC, QINGDAO.set_key("xuan_dian", False), QINGDAO.set_key("dian_gong", False)):
        seed = find_seed(rules, lambda m: not revolt_seats(m))
        assert Match(rules, seed).phase == P_PLAY
