"""The Match as the bot drives it: notation round trip, refusals that change nothing, the between-rounds stop
(R11.2), per-seat observations without other hands, and a set position from a Round."""

from __future__ import annotations

import random

import pytest
from match_helpers import computer, drive

from engine.actions import Action
from engine.cards import parse_cards
from engine.match import P_OVER, P_PLAY, Match, parse_action
from engine.round import IllegalAction, Round
from engine.rules import Rules

pytestmark = pytest.mark.unit

QINGDAO = Rules.preset("qingdao")


@pytest.mark.parametrize(
    "text",
    [
        "return 34",
        "return 2B",
        "revolt",
        "no_revolt",
        "yaotou",
        "wutou",
        "declare",
        "no_declare",
        "play TTTT2",
        "burn 888B",
        "pass",
        "yield",
    ],
)
def test_every_action_kind_reads_back_from_its_notation(text: str) -> None:
    a = parse_action(text)
    assert str(a) == text and parse_action(str(a)) == a


def test_chinese_words_for_the_decisions() -> None:
    assert parse_action("革命") == Action("revolt")
    assert parse_action("要头") == Action("yaotou") and parse_action("无头") == Action("wutou")
    assert parse_action("宣点") == Action("declare") and parse_action("不宣") == Action("no_declare")
    assert parse_action("还贡 43") == Action("return", parse_cards("34"))
    with pytest.raises(ValueError):
        parse_action("revolt now")


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    m = Match(QINGDAO, 1)
    rng = random.Random(1)
    while m.phase != P_PLAY:
        m.apply(computer()(m, rng))
    before = m.to_json()
    for bad in (Action("revolt"), Action("pass"), Action("play", parse_cards("R" * 5))):
        with pytest.raises(IllegalAction):
            m.apply(bad)
        assert m.to_json() == before


def test_r11_2_the_match_waits_between_rounds_and_keeps_running_totals() -> None:
    m = Match(QINGDAO, 4)
    rng = random.Random(4)
    with pytest.raises(IllegalAction):
        m.next_round()
    drive(m, computer(), rng)
    assert m.phase == P_OVER and m.current_player is None and m.legal_actions() == []
    with pytest.raises(IllegalAction):
        m.apply(Action("pass"))
    first = list(m.totals)
    assert m.last_result is not None and first == m.last_result["scores"] == m.scores()
    m.next_round()
    assert m.round_no == 2 and m.scores() is None
    drive(m, computer(), rng)
    assert m.last_result is not None and m.last_result["round"] == 2
    assert m.totals == [a + b for a, b in zip(first, m.last_result["scores"], strict=True)]


def test_an_observation_shows_ones_own_hand_and_never_another() -> None:
    m = Match(QINGDAO, 2)
    rng = random.Random(2)
    while m.phase != P_PLAY:
        m.apply(computer()(m, rng))
    for seat in range(6):
        obs = m.observation(seat)
        text = repr(obs)
        assert obs["hand"] == obs["play"]["hand"]
        others = {obs["hand"]} ^ {m.observation(t)["hand"] for t in range(6)}
        assert all(h not in text for h in others)
    # A view does not change when hidden hands of the same size are exchanged among the others.
    other = Match.from_json(m.to_json())
    hands = other.round.hands
    pairs = [(a, b) for a in range(1, 6) for b in range(a + 1, 6) if sum(hands[a]) == sum(hands[b])]
    assert pairs
    a, b = pairs[0]
    hands[a], hands[b] = hands[b], hands[a]
    assert other != m and other.view(0) == m.view(0)


def test_a_set_position_plays_as_its_round() -> None:
    rnd = Round.from_position(
        QINGDAO, [parse_cards(h) for h in ("KK", "5", "6", "7", "8", "9")], 0, opened=[0]
    )
    m = Match.from_round(rnd)
    assert m.phase == P_PLAY and m.current_player == 0
    m.apply(parse_action("play KK"))
    assert m.round.out == [0]
