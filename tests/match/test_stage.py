"""The questions before the first lead asked at once (engine/stage.py, issue 22): who is asked what, answers in
any order (each seat's own in the order 还贡 → 革命 → 宣点), sealed 革命 and 宣点 answers that nobody else sees
until all are in, refusals that change nothing, the state kept in JSON and pickles and states saved by the
engine that asked seat by seat."""

from __future__ import annotations

import json
import pickle
import random

import pytest
from match_helpers import answer_stage, asked_kinds, computer, drive, find_seed

from engine.actions import Action
from engine.cards import parse_cards
from engine.match import P_PLAY, Match, Question
from engine.refusals import IllegalAction
from engine.rules import Rules
from engine.tribute import Returned

pytestmark = pytest.mark.unit

QINGDAO, CLASSIC = Rules.preset("qingdao"), Rules.preset("classic")
A = Action


def stage(
    *hands: str, rules: Rules = QINGDAO, leader: int = 0, returns: list[Returned] | None = None
) -> Match:
    m, _ = Match.from_stage(rules, [parse_cards(h) for h in hands], leader, returns=returns or [])
    return m


# Seat 0 received 落贡 (a 2 and a B) from seat 3 and owes 2 back; seat 3 holds no 2 and no joker; seat 4 holds
# none either (eligible for 革命 at once); the others hold 2s.
HANDS = ("5566KK2B", "77882", "99TT2", "JJQQ", "3344", "AA2")
RETURNS = [Returned(0, 3, 2)]


def test_every_question_that_can_be_judged_is_open_at_the_deal() -> None:
    m = stage(*HANDS, returns=RETURNS)
    # Seat 3 waits for his 还贡; seat 0 gives back first; seat 4 may revolt; the others are asked 宣点.
    assert m.asked == (0, 1, 2, 4, 5) and m.current_player == 0
    assert asked_kinds(m) == {0: "return", 1: "declare", 2: "declare", 4: "revolt", 5: "declare"}
    assert m.question(0) == Question(0, "return", 2, 3)
    assert m.question(3) is None and m.legal_actions(3) == []
    reason = m.illegal_reason(A("no_declare"), 3)
    assert reason is not None and reason.code == "not_asked" and reason.facts["waits_for"] == 0
    assert m.view(0).asked == Question(0, "return", 2, 3) and m.view(0).return_n == 2
    assert m.view(4).asked == Question(4, "revolt") and m.view(4).phase == "revolt"
    # The table sees the same seats, a sealed question as 宣点 (seat 4's eligibility does not show).
    pub = m.public_view()
    assert [(q.seat, q.kind) for q in pub.asked] == [
        (0, "return"),
        (1, "declare"),
        (2, "declare"),
        (4, "declare"),
        (5, "declare"),
    ]
    assert pub.asked[0] == Question(0, "return", 2, 3) and pub.returning == (0, 3, 2)


def test_a_seat_answers_his_own_questions_in_the_order_return_revolt_declare() -> None:
    m = stage(*HANDS, returns=RETURNS)
    events = m.apply(A("return", parse_cards("2B")), 0)
    assert [(e.kind, e.seat, e.other) for e in events] == [("returned", 0, 3)]
    # Giving back his 2 and his B made seat 0 eligible; the cards made seat 3 ineligible.
    assert m.question(0) == Question(0, "revolt") and m.question(3) == Question(3, "declare")
    assert m.apply(A("no_revolt"), 0) == []  # his next question opens; the table learns nothing yet
    assert m.question(0) == Question(0, "declare")
    assert [(e.kind, e.seat) for e in m.apply(A("declare"), 0)] == [("answered", 0)]
    assert m.question(0) is None and 0 not in m.asked


def test_r9_1_the_payer_is_asked_his_revolution_once_the_return_cards_have_come() -> None:
    m = stage(*HANDS, returns=RETURNS)
    m.apply(A("return", parse_cards("55")), 0)
    assert m.question(3) == Question(3, "revolt")  # 55 left him without jokers and 2s
    m = stage(*HANDS, returns=RETURNS)
    m.apply(A("return", parse_cards("5B")), 0)
    assert m.question(3) == Question(3, "declare")  # a B: no 革命 for him


def test_sealed_answers_show_nowhere_but_to_their_seat_until_all_are_in() -> None:
    m = stage(*HANDS)
    before = m.public_view()
    m.apply(A("declare"), 1)
    m.apply(A("no_revolt"), 4)  # seat 4 now asked 宣点: nothing of it shows to the table
    pub = m.public_view()
    assert pub.declared == before.declared == (False,) * 6
    assert [(q.seat, q.kind) for q in pub.asked] == [
        (0, "declare"),
        (2, "declare"),
        (3, "declare"),
        (4, "declare"),
        (5, "declare"),
    ]
    assert pub.answered == (1,)
    assert [e["kind"] for e in m.shown] == ["answered"]
    for s in (0, 2, 3, 5):
        view, obs = m.view(s), m.observation(s)
        assert view.declared == (False,) * 6 and view.sealed == ()
        assert "declare" not in json.dumps(obs["shown"]) and obs["declared"] == [False] * 6
    assert m.view(1).sealed == ("declare",) and m.view(4).sealed == ("no_revolt",)
    assert m.question(3) == Question(3, "revolt")  # without the 还贡 seat 3 holds no 2 and no joker
    events = m.apply(A("no_revolt"), 3)
    for s in (5, 3, 0, 2):
        events += m.apply(A("no_declare"), s)
    events += m.apply(A("no_declare"), 4)
    kinds = [(e.kind, e.seat) for e in events]
    # Revealed together, in seat order from the leader; no 不革命 shown (it would tell a hand without 2s).
    assert kinds[-6:] == [
        ("no_declare", 0),
        ("declared", 1),
        ("no_declare", 2),
        ("no_declare", 3),
        ("no_declare", 4),
        ("no_declare", 5),
    ]
    assert (
        m.phase == P_PLAY
        and m.round is not None
        and m.round.declared == [False, True, False, False, False, False]
    )


def test_without_xuan_dian_only_the_revolution_is_asked_and_a_declined_one_is_shown() -> None:
    m = stage(*HANDS, rules=CLASSIC)
    assert m.asked == (3, 4) and m.public_view().asked == (Question(3, "revolt"), Question(4, "revolt"))
    assert [(e.kind, e.seat) for e in m.apply(A("no_revolt"), 4)] == [("answered", 4)]
    events = m.apply(A("no_revolt"), 3)
    assert [(e.kind, e.seat) for e in events] == [("answered", 3), ("no_revolt", 3), ("no_revolt", 4)]
    assert m.phase == P_PLAY


def test_a_seat_not_asked_or_not_to_act_is_refused_and_nothing_changes() -> None:
    m = stage(*HANDS, returns=RETURNS)
    m.apply(A("no_declare"), 1)
    before = m.to_json()
    for action, seat, code in [
        (A("no_declare"), 1, "not_asked"),  # answered already
        (A("declare"), 3, "not_asked"),  # waits for his 还贡
        (A("revolt"), 1, "not_asked"),
        (A("declare"), 4, "choose"),  # his question is 革命
        (A("return", parse_cards("22")), 0, "not_held"),
        (A("pass"), 2, "choose"),
    ]:
        reason = m.illegal_reason(action, seat)
        assert reason is not None and reason.code == code, (action, seat, reason)
        assert not m.is_legal(action, seat)
        with pytest.raises(IllegalAction):
            m.apply(action, seat)
        assert m.to_json() == before
    answer_stage(m, lambda m, s: m.legal_actions(s)[0])
    assert m.phase == P_PLAY
    cur = m.current_player
    other = (cur + 1) % 6
    reason = m.illegal_reason(A("pass"), other)
    assert reason is not None and reason.code == "not_your_turn" and reason.facts["current"] == cur
    assert m.legal_actions(other) == [] and m.asked == (cur,)
    before = m.to_json()
    with pytest.raises(IllegalAction):
        m.apply(m.legal_actions()[0], other)
    assert m.to_json() == before


def test_one_revolution_lays_his_hand_down_voids_his_pairs_xuan_dian_then_asks_his_opposite() -> None:
    m = stage(*HANDS)
    m.apply(A("revolt"), 4)
    assert m.question(4) is None  # not asked 宣点 after his 革命
    assert [q.seat for q in m.public_view().asked] == [0, 1, 2, 3, 5]
    assert m.public_view().answered == (4,)
    for s in (0, 1, 5):
        m.apply(A("declare"), s)  # seat 1 is the revolutionary's 对头: his 宣点 is void
    m.apply(A("no_revolt"), 3)
    m.apply(A("no_declare"), 3)
    events = m.apply(A("no_declare"), 2)
    assert [(e.kind, e.seat) for e in events] == [
        ("answered", 2),
        ("revolt", 4),
        ("declared", 0),
        ("no_declare", 2),
        ("no_declare", 3),
        ("declared", 5),
        ("laid_down", 4),
    ]
    assert m.asked == (1,) and m.question(1) == Question(1, "head") and m.phase == "head"
    assert m.public_view().asked == (Question(1, "head"),)
    assert [(e.kind, e.seat) for e in m.apply(A("yaotou"), 1)] == [("yaotou", 1)]
    assert m.round is not None and m.round.declared == [True, False, False, False, False, True]
    assert m.round.current_player == 0 and sum(m.round.hands[4]) == 0


def test_r9_2_two_revolutions_void_the_deal_and_every_answer_and_open_a_new_stage() -> None:
    m = stage(*HANDS)
    m.apply(A("revolt"), 4)
    m.apply(A("declare"), 1)
    for s in (0, 2, 5):
        m.apply(A("no_declare"), s)
    events = m.apply(A("revolt"), 3)
    assert [e.kind for e in events][:4] == ["answered", "revolt", "revolt", "dealt"] and m.deal_no == 1
    assert "declared" not in [e.kind for e in events]
    assert m.step == "stage" and m.revolted is None and m.declare_answers == [None] * 6


def test_json_and_pickles_keep_the_stage_and_its_sealed_answers() -> None:
    m = stage(*HANDS, returns=RETURNS)
    m.apply(A("declare"), 1)
    m.apply(A("return", parse_cards("2B")), 0)
    m.apply(A("no_revolt"), 0)
    for copy in (
        Match.from_json(json.loads(json.dumps(m.to_json()))),
        pickle.loads(pickle.dumps(m)),
        m.copy(),
    ):
        assert copy == m and copy.asked == m.asked
        assert copy.view(1).sealed == ("declare",) and copy.question(0) == Question(0, "declare")
        answer_stage(copy, lambda m, s: m.legal_actions(s)[0])
        assert copy.round is not None and copy.round.declared[1]


def _legacy(d: dict, phase: str, pending: list[int], revolters: list[int]) -> dict:
    """``d`` as the engine that asked seat by seat saved its states (no step, no sealed answers)."""
    old = {k: v for k, v in d.items() if k not in ("step", "revolt_answers", "declare_answers")}
    old.update(phase=phase, pending=pending, revolters=revolters)
    return old


def test_states_saved_by_the_engine_that_asked_in_turn_load_as_a_stage() -> None:
    # 革命 phase: seat 3 had answered no; seat 4 was to answer.
    d = stage(*HANDS).to_json()
    m = Match.from_json(_legacy(d, "revolt", [4], []))
    assert m.asked == (0, 1, 2, 3, 4, 5) and m.question(3) == Question(3, "declare")
    assert m.question(4) == Question(4, "revolt")
    # 要头 phase: seat 4 revolted, laid down; the others' 宣点 were still to come.
    m = stage(*HANDS, rules=CLASSIC)
    m.apply(A("no_revolt"), 3)
    m.apply(A("revolt"), 4)
    d = m.to_json()
    assert m.question(1) == Question(1, "head")
    qd = dict(d, rules=QINGDAO.to_dict())
    m = Match.from_json(_legacy(qd, "head", [1], [4]))
    assert asked_kinds(m) == {0: "declare", 2: "declare", 3: "declare", 5: "declare"}
    answer_stage(m, lambda m, s: A("declare") if s == 0 else A("no_declare"))
    assert m.asked == (1,) and m.question(1) == Question(1, "head") and m.revolted == 4
    m.apply(A("wutou"), 1)
    assert m.round is not None and m.round.revolted == 4 and m.round.declared == [True] + [False] * 5
    m = Match.from_json(_legacy(dict(d), "head", [1], [4]))  # without 宣点: 要头/无头 at once
    assert m.asked == (1,) and m.step == "head"


def test_the_deal_of_a_real_match_asks_every_seat_at_once_in_round_two() -> None:
    def with_returns(m: Match) -> bool:
        drive(m, computer(), random.Random(0))
        m.next_round()
        return bool(m.returns)

    seed = find_seed(QINGDAO, with_returns, limit=50)
    m = Match(QINGDAO, seed)
    drive(m, computer(), random.Random(0))
    m.next_round()
    receivers = {r.receiver for r in m.returns}
    payers = {r.payer for r in m.returns}
    assert set(m.asked) == set(range(6)) - payers
    assert {s for s, k in asked_kinds(m).items() if k == "return"} == receivers


def test_old_states_in_the_return_and_declare_phases_load_too() -> None:
    # 还贡 phase: nothing else answered yet.
    m = Match.from_json(_legacy(stage(*HANDS, returns=RETURNS).to_json(), "return", [0], []))
    assert m.asked == (0, 1, 2, 4, 5) and m.question(0) == Question(0, "return", 2, 3)
    # 宣点 phase after a revolution and 无头: seat 2 had declared, seats 3 and 5 were still to answer.
    m = stage(*HANDS, rules=CLASSIC)
    m.apply(A("no_revolt"), 3)
    m.apply(A("revolt"), 4)
    m.apply(A("wutou"), 1)
    # Saved before the first lead: the hands still the match's, the revolutionary's laid down.
    d = dict(m.to_json(), rules=QINGDAO.to_dict(), round=None)
    old = _legacy(d, "declare", [3, 5], [4])
    old["hands"] = ["5566KK2B", "77882", "99TT2", "JJQQ", "-", "AA2"]
    old["declared"] = [False, False, True, False, False, False]
    m = Match.from_json(old)
    assert asked_kinds(m) == {3: "declare", 5: "declare"} and m.head == "wutou"
    m.apply(A("no_declare"), 5)
    events = m.apply(A("declare"), 3)
    assert [(e.kind, e.seat) for e in events] == [
        ("answered", 3),
        ("no_declare", 0),
        ("declared", 2),
        ("declared", 3),
        ("no_declare", 5),
    ]
    assert m.phase == P_PLAY and m.round is not None and m.round.revolted == 4 and not m.round.has_head(1)
    assert m.round.declared == [False, False, True, True, False, False]
