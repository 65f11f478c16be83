"""R1.2, R2 and R3 on single plays: notation, shapes, values, beating and 够级牌."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import CardError, Rules, format_cards, is_gouji, is_pure_gouji, parse_cards, shape_of
from engine.plays import beats_shape

pytestmark = pytest.mark.unit

QINGDAO = Rules.preset("qingdao")


def beats(new: str, old: str, **rules: bool) -> bool:
    a, b = shape_of(parse_cards(new)), shape_of(parse_cards(old))
    assert a is not None and b is not None
    return beats_shape(a, b, rules.get("two_big_kill_one", False))


def gouji(text: str, **rules: bool) -> bool:
    s = shape_of(parse_cards(text))
    assert s is not None
    return is_gouji(s, QINGDAO.with_(**rules))


def test_r1_2_deck_has_216_cards_in_rank_order() -> None:
    from engine.cards import FULL_DECK, RANKS

    assert sum(FULL_DECK) == 216
    assert RANKS == "3456789TJQKA2BR"


def test_r2_2_notation_accepts_10_lower_case_spaces_and_chinese_jokers() -> None:
    assert format_cards(parse_cards("10 10 t T 2")) == "TTTT2"
    assert format_cards(parse_cards("小王大王 8 8 8")) == "888BR"
    assert format_cards(parse_cards("r b 2 a k q j 9 3")) == "39JQKA2BR"


def test_r2_2_error_names_the_bad_token() -> None:
    with pytest.raises(CardError, match="X"):
        parse_cards("88 X9")


@given(st.lists(st.integers(0, 4), min_size=15, max_size=15))
def test_r2_2_canonical_output_round_trips_and_is_sorted(counts: list[int]) -> None:
    text = format_cards(counts)
    if sum(counts) == 0:
        assert text == "-"
        return
    assert parse_cards(text) == tuple(counts)
    order = "3456789TJQKA2BR"
    assert list(text) == sorted(text, key=order.index)


@pytest.mark.parametrize("text", ["89", "TTJ", "33 44 B"])
def test_r2_1_two_base_ranks_are_not_a_play(text: str) -> None:
    assert shape_of(parse_cards(text)) is None


@pytest.mark.parametrize("text", ["7", "TTTT2", "888BB", "22", "22B", "BR", "R", "A22RB"])
def test_r2_1_shapes_that_are_plays(text: str) -> None:
    assert shape_of(parse_cards(text)) is not None


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        ("B9999", "88888", True),  # R2.4 a joker over a lower base
        ("8888B", "99999", False),
        ("27777", "77777", False),  # equal is not higher
        ("77777", "27777", False),
        ("BBB", "222", True),
        ("B22", "222", False),
        ("RR", "BB", True),
        ("RB", "BB", False),
        ("RRR99", "BB888", True),  # extra jokers stand in for base cards
        ("RRRRR", "R8888", False),  # anything with R is unbeatable
        ("22", "AA", True),
        ("A2", "AA", False),
        ("99", "888", False),  # different sizes never compare
    ],
)
def test_r2_4_beating(new: str, old: str, expected: bool) -> None:
    assert beats(new, old) is expected


def test_r2_5_two_big_kill_one_is_off_by_default_and_lets_rr22_beat_raa() -> None:
    assert not beats("RR22", "RAA")
    assert beats("RR22", "RAA", two_big_kill_one=True)
    assert not beats("RRKK", "RAA", two_big_kill_one=True)  # the rest must be higher
    assert not beats("RR222", "RAA", two_big_kill_one=True)  # and of the same count


def test_r2_5_a_lone_big_joker_falls_to_two_and_the_joker_parts_must_match() -> None:
    # S0 §4: "无论单出大、小王还是挂花时": both non-joker parts are empty.
    assert not beats("RR", "R")
    assert beats("RR", "R", two_big_kill_one=True)
    assert beats("RRB", "RB", two_big_kill_one=True)
    assert not beats("RR", "RB", two_big_kill_one=True)  # the same number of B
    assert not beats("RRA", "R", two_big_kill_one=True)  # the same non-joker count
    assert not beats("RRR", "RR", two_big_kill_one=True)  # only a play with one R falls this way


def test_r3_1_gouji_thresholds() -> None:
    assert gouji("TTTTT") and not gouji("TTTT")
    assert gouji("JJJJ") and not gouji("JJJ")
    assert gouji("QQQ") and not gouji("QQ")
    assert gouji("KK") and not gouji("K")
    assert gouji("AA") and not gouji("A")
    assert gouji("TTTT2")  # 2s count toward the threshold
    assert not gouji("99999999")
    assert gouji("3B")  # any joker


def test_r3_1_single_two_gouji_house_rule() -> None:
    assert gouji("2")
    assert not gouji("2", single_two_gouji=False)
    assert gouji("22", single_two_gouji=False)


def test_r3_2_pure_gouji_has_no_twos_and_no_jokers() -> None:
    pure = {
        t: is_pure_gouji(shape_of(parse_cards(t))) for t in ["TTTTT", "TTTT2", "KK", "KKB", "22", "B", "JJJ"]
    }
    assert pure == {
        "TTTTT": True,
        "TTTT2": False,
        "KK": True,
        "KKB": False,
        "22": False,
        "B": False,
        "JJJ": False,
    }


def test_a_refusal_says_what_would_be_allowed() -> None:
    """Issue 13: "7777 does not beat 666" says the play must have 3 cards; "JJ2" names the missing 2."""
    from engine import Action, Round, Rules
    from engine.actions import PLAY
    from engine.cards import parse_cards

    hands = [parse_cards(h) for h in ("666 5", "7777 JJ 8", "9", "T", "Q", "K")]
    rnd = Round.from_position(Rules.preset("classic"), hands, 0)
    rnd.apply(Action(PLAY, parse_cards("666")))
    too_many = rnd.illegal_reason(Action(PLAY, parse_cards("7777")))
    assert too_many is not None and too_many.code == "does_not_beat" and too_many.facts["size"] == 3
    not_held = rnd.illegal_reason(Action(PLAY, parse_cards("JJ2")))
    assert not_held is not None and not_held.code == "not_held"
    assert not_held.facts["missing"] == parse_cards("2")
