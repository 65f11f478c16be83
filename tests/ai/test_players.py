"""Computer players (engine/ai): legal choices in whole matches, the baseline's smallest play, and the
heuristic's plan — keep jokers, open early, spare teammates, yield, burn when the burn can finish."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine.actions import Action
from engine.ai import BaselinePlayer, HeuristicPlayer, computer_action, make_player
from engine.cards import parse_cards
from engine.match import P_RETURN, Match, parse_action
from engine.round import Round
from engine.rules import Rules

pytestmark = pytest.mark.unit

QINGDAO, CLASSIC = Rules.preset("qingdao"), Rules.preset("classic")
RNG = random.Random(0)


def position(hands: list[str], leader: int, opened: list[int] | None = None, rules: Rules = QINGDAO) -> Match:
    rnd = Round.from_position(rules, [parse_cards(h) for h in hands], leader, opened=opened or [])
    return Match.from_round(rnd)


def choice(m: Match, player: BaselinePlayer | HeuristicPlayer) -> Action:
    seat = m.current_player
    assert seat is not None
    return player.choose(m.view(seat), m.legal_actions(), RNG)


@pytest.mark.parametrize("preset", ["qingdao", "classic", "zhangqiu"])
@pytest.mark.parametrize("level", ["baseline", "heuristic"])
def test_every_choice_in_two_whole_rounds_is_legal(preset: str, level: str) -> None:
    player = make_player(level)
    m = Match(Rules.preset(preset), 21)
    rng = random.Random(21)
    for i in range(2):
        if i:
            m.next_round()
        while (seat := m.current_player) is not None:
            a = player.choose(m.view(seat), m.legal_actions(), rng)
            assert m.is_legal(a), (str(a), m.phase)
            m.apply(a)


def test_computer_action_falls_back_to_a_listed_action_when_a_player_errs() -> None:
    class Wrong:
        level = "wrong"

        def choose(self, view, legal, rng):  # type: ignore[no-untyped-def]
            return parse_action("play RRRRR")

    m = position(["55", "6", "7", "8", "9", "T"], 0, opened=list(range(6)))
    assert computer_action(m, Wrong(), RNG) == m.legal_actions()[0]


def test_baseline_leads_its_lowest_single_and_answers_with_the_smallest_beating_play() -> None:
    m = position(["5559KK", "68K", "7", "8", "9", "T"], 0, opened=list(range(6)))
    assert choice(m, BaselinePlayer()) == parse_action("play 5")
    m.apply(parse_action("play 555"))
    assert m.current_player == 1
    assert choice(m, BaselinePlayer()) == parse_action("pass")  # nothing of three
    m = position(["5559KK", "68K", "7", "8", "9", "T"], 0, opened=list(range(6)))
    m.apply(parse_action("play 5"))
    assert choice(m, BaselinePlayer()) == parse_action("play 6")


def test_heuristic_leads_the_smallest_rank_group_whole() -> None:
    m = position(["5559TTKK", "6", "7", "8", "9", "T"], 0, opened=list(range(6)))
    assert choice(m, HeuristicPlayer()) == parse_action("play 555")


def test_r5_1_heuristic_opens_early_with_its_pure_gouji() -> None:
    m = position(["5569QQQ", "6", "7", "8", "9", "T"], 0)
    assert choice(m, HeuristicPlayer()) == parse_action("play QQQ")
    m = position(["5569QQQ", "6", "7", "8", "9", "T"], 0, rules=CLASSIC)  # no 点贡: nothing to gain
    assert choice(m, HeuristicPlayer()) == parse_action("play 55")


def test_heuristic_does_not_beat_a_teammate_unless_it_goes_out() -> None:
    m = position(["55", "66", "58", "77", "99JJ", "KK"], 2, opened=list(range(6)))
    m.apply(parse_action("play 5"))  # seat 2
    m.apply(parse_action("pass"))  # seat 3
    assert m.current_player == 4
    assert choice(m, HeuristicPlayer()) == parse_action("pass")
    m = position(["55", "66", "58", "77", "9", "KK"], 2, opened=list(range(6)))
    m.apply(parse_action("play 5"))
    m.apply(parse_action("pass"))
    assert choice(m, HeuristicPlayer()) == parse_action("play 9")


def test_r4_4_heuristic_yields_to_let_its_team_through_rather_than_spend_a_two() -> None:
    m = position(["99JJ4456677", "66", "77", "33445566782", "8TQ", "KK"], 0, opened=list(range(6)))
    m.apply(parse_action("play 9"))
    m.apply(parse_action("pass"))
    m.apply(parse_action("pass"))
    assert m.current_player == 3
    assert Action("yield") in m.legal_actions()
    assert choice(m, HeuristicPlayer()) == Action("yield")


def test_heuristic_keeps_its_jokers_against_a_small_play_with_a_big_hand() -> None:
    m = position(["99JJ4456677", "556677B334", "77", "88", "TQ", "KK"], 0, opened=list(range(6)))
    m.apply(parse_action("play 9"))
    assert m.current_player == 1
    assert parse_action("play B") in m.legal_actions()
    assert choice(m, HeuristicPlayer()) == parse_action("pass")


def test_r6_heuristic_burns_an_opponents_gouji_when_the_burn_can_finish_baseline_does_not() -> None:
    hands = ["55", "AA6", "RR5", "77", "99", "KK"]
    m = position(hands, 1, opened=list(range(6)))
    m.apply(parse_action("play AA"))
    assert m.current_player == 2
    assert choice(m, HeuristicPlayer()) == parse_action("burn RR")
    assert choice(m, BaselinePlayer()) == parse_action("pass")


def test_heuristic_finishes_with_the_whole_hand_when_it_is_one_play() -> None:
    m = position(["KK2B", "6", "7", "8", "9", "T"], 0, opened=list(range(6)))
    a = choice(m, HeuristicPlayer())
    assert a == parse_action("play KK2B") and a not in m.legal_actions() and m.is_legal(a)


def test_r10_6_heuristic_gives_back_its_threes_first() -> None:
    m = Match(QINGDAO, 0)
    view = dataclasses.replace(m.view(0), phase=P_RETURN, hand=parse_cards("33567799JJQKA2B"), return_n=2)
    legal = [Action("return", parse_cards(t)) for t in ("33", "56", "2B", "35")]
    assert HeuristicPlayer().choose(view, legal, RNG) == Action("return", parse_cards("33"))
    assert BaselinePlayer().choose(view, legal, RNG) == Action("return", parse_cards("33"))


def _stage_matches() -> list[Match]:
    """Deals whose stage asks several seats at once: round 1 with a seat that may revolt (and every seat its
    宣点), and round 2 with 还贡 owed."""
    deals = (Match(QINGDAO, s) for s in range(400))
    with_revolt = next(m for m in deals if any(m.question(t).kind == "revolt" for t in m.asked))
    rng = random.Random(3)
    for seed in range(40):
        m = Match(QINGDAO, seed)
        while m.current_player is not None:
            m.apply(computer_action(m, BaselinePlayer(), rng))
        m.next_round()
        if m.returns:
            return [with_revolt, m]
    raise AssertionError("no 还贡 in 40 matches")


@pytest.mark.parametrize("level", ["baseline", "easy", "heuristic", "strong"])
def test_every_level_answers_for_any_asked_seat_in_any_order(level: str) -> None:
    player = make_player(level, deterministic=True, worlds=4, seed=1)
    rng = random.Random(5)
    for m in _stage_matches():
        kinds = set()
        revolted = False
        while m.step != "play":
            asked = m.asked
            assert len(asked) >= 1
            seat = asked[-1]  # the last asked first: not the current player while others are asked
            q = m.question(seat)
            assert q is not None and m.view(seat).asked == q
            kinds.add(q.kind)
            if q.kind == "revolt" and not revolted:
                a = Action("revolt")  # reach 要头/无头 too
                revolted = True
            else:
                a = computer_action(m, player, rng, seat)
                assert a in m.legal_actions(seat), (level, q, a)
            m.apply(a, seat)
        assert kinds >= {"declare"} and (kinds & {"return", "revolt"})
    with pytest.raises(ValueError):
        computer_action(m, player, rng, (m.current_player + 1) % 6)  # during the play only the seat to act
