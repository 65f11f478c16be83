"""Answers before the first lead in any order (hypothesis): a match rebuilt from its seed and a log of
(seat, action) pairs equals the one played, whatever order the seats answered in; and two orders of the same
answers give the same match after the stage: the same events at the reveal, the same hands, the same round
and, played on alike, the same 点贡 and places (R5.6, R9.2–R9.4, R10.6)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from match_helpers import computer, drive

from engine.actions import Action
from engine.ai import computer_action, make_player
from engine.cards import NRANKS, Counts
from engine.events import Event
from engine.match import LogEntry, Match
from engine.rules import Rules
from engine.tribute import Returned

pytestmark = pytest.mark.unit

PRESETS = ("qingdao", "classic", "zhangqiu")
FAST = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _rules(preset: str, xuan_dian: bool) -> Rules:
    return Rules.preset(preset).set_key("xuan_dian", xuan_dian)


@FAST
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 10**9),
    levels=st.sampled_from((("heuristic", "baseline"), ("baseline", "easy"))),
)
def test_a_match_answered_in_a_random_order_is_rebuilt_from_its_log_of_seats_and_actions(
    preset: str, seed: int, levels: tuple[str, str]
) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(seed)
    players = [make_player(levels[s % 2]) for s in range(6)]
    m = Match(rules, seed)
    log: list[LogEntry] = []
    for i in range(2):
        if i:
            m.next_round()
            log.append("next")
        while m.asked:
            if m.step == "play":
                action = computer_action(m, players[m.current_player], rng)
                m.apply(action)
                log.append(str(action))  # a move of the play: the plain form of the old logs still reads
                continue
            seat = rng.choice(m.asked)
            # Now and then a 革命 (random choices reach redeals); else the computer's own choice.
            if m.question(seat).kind == "revolt" and rng.random() < 0.5:
                action = Action("revolt")
            else:
                action = computer_action(m, players[seat], rng, seat)
            m.apply(action, seat)
            log.append((seat, str(action)))
    assert Match.replay(rules, seed, log) == m


# ----------------------------------------------------------------- two orders, the same answers


def _answers(key: int) -> Any:
    """Fixed answers: what a seat answers depends on the deal, the seat and the question, never on when."""

    def answer(m: Match, seat: int) -> Action:
        q = m.question(seat)
        assert q is not None
        r = random.Random(f"{key}/{m.deal_no}/{seat}/{q.kind}")
        legal = m.legal_actions(seat)
        if q.kind == "revolt":
            return Action("revolt" if r.random() < 0.4 else "no_revolt")
        if q.kind == "declare":
            return Action("declare" if r.random() < 0.3 else "no_declare")
        return legal[r.randrange(len(legal))]

    return answer


def _through_the_stage(m: Match, answer: Any, order: random.Random) -> list[list[Event]]:
    """Answer every question in a random order until the first lead; the events of each stage (one per
    deal) and of 要头/无头."""
    stages: list[list[Event]] = [[]]
    while m.step != "play" and m.step != "over":
        deal_no = m.deal_no
        seat = order.choice(m.asked)
        stages[-1] += m.apply(answer(m, seat), seat)
        if m.deal_no != deal_no:
            stages.append([])
    return stages


def _reveal(events: list[Event]) -> list[Event]:
    """The events after the last answer of a stage: its reveal and what followed it."""
    last = max((i for i, e in enumerate(events) if e.kind in ("answered", "returned")), default=-1)
    return events[last + 1 :]


def _same_after_the_stage(a: Match, b: Match, ea: list[list[Event]], eb: list[list[Event]]) -> None:
    assert [_reveal(x) for x in ea] == [_reveal(x) for x in eb]
    assert [sorted(x, key=repr) for x in ea] == [
        sorted(x, key=repr) for x in eb
    ]  # the same, in another order
    ja, jb = a.to_json(), b.to_json()
    shown_a, shown_b = ja.pop("shown"), jb.pop("shown")
    assert ja == jb  # hands, round, declarations, revolution, tally …
    assert sorted(map(repr, shown_a)) == sorted(map(repr, shown_b))
    assert a.view(0).received == b.view(0).received
    rng_a, rng_b = random.Random(7), random.Random(7)
    drive(a, computer(), rng_a)
    drive(b, computer(), rng_b)
    assert a.round is not None and b.round is not None
    assert a.round.debts() == b.round.debts() and a.last_result == b.last_result


@FAST
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 10**9),
    key=st.integers(0, 10**9),
    xuan_dian=st.booleans(),
)
def test_two_orders_of_the_same_answers_in_a_dealt_round_two_give_the_same_match(
    preset: str, seed: int, key: int, xuan_dian: bool
) -> None:
    rules = _rules(preset, xuan_dian)
    m = Match(rules, seed)
    drive(m, computer(("baseline", "baseline")), random.Random(seed))
    m.next_round()  # tribute paid, 还贡 owed
    a, b = m.copy(), m.copy()
    answer = _answers(key)
    ea = _through_the_stage(a, answer, random.Random(seed))
    eb = _through_the_stage(b, answer, random.Random(seed + 1))
    _same_after_the_stage(a, b, ea, eb)


def _position(rng: random.Random) -> tuple[list[Counts], list[Returned]]:
    """Short hands, about half of them without 2s and jokers (eligible for 革命), and up to two 还贡 owed."""
    hands: list[Counts] = []
    for _ in range(6):
        h = [0] * NRANKS
        for _ in range(rng.randint(3, 8)):
            h[rng.randrange(12)] += 1
        if rng.random() < 0.5:
            h[rng.randrange(12, NRANKS)] += 1
        hands.append(tuple(h))
    returns: list[Returned] = []
    receivers = rng.sample(range(6), rng.randint(0, 2))
    for r in receivers:
        payer = rng.choice([p for p in range(6) if p % 2 != r % 2 and p not in receivers])
        if all(x.payer != payer for x in returns):
            returns.append(Returned(r, payer, rng.randint(1, 2)))
    return hands, returns


@FAST
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 10**9),
    key=st.integers(0, 10**9),
    xuan_dian=st.booleans(),
)
def test_two_orders_of_the_same_answers_at_a_set_position_with_many_revolutionaries_give_the_same_match(
    preset: str, seed: int, key: int, xuan_dian: bool
) -> None:
    rules = _rules(preset, xuan_dian)
    pos = random.Random(seed)
    hands, returns = _position(pos)
    leader = pos.randrange(6)
    a, _ = Match.from_stage(rules, hands, leader, returns=returns, seed=seed)
    b = a.copy()
    answer = _answers(key)
    ea = _through_the_stage(a, answer, random.Random(seed))
    eb = _through_the_stage(b, answer, random.Random(seed + 1))
    _same_after_the_stage(a, b, ea, eb)
