"""Round rules that a transcript cannot set up (a revolutionary is placed only by a match, R9)."""

from __future__ import annotations

import pytest

from engine import Action, Match, Round, Rules, parse_cards

pytestmark = pytest.mark.unit


def _round(preset: str) -> Round:
    hands = [parse_cards(h) for h in ("9", "55", "66", "77", "88", "TT")]
    rnd = Round.from_position(Rules.preset(preset).with_(bie_san=False, dian_si=False), hands, 0)
    rnd.revolted = 3  # R9.3: seat 3 laid down his hand
    return rnd


def test_r7_2_a_revolutionary_counts_as_one_who_left() -> None:
    rnd = _round("classic")
    assert not rnd.free_due()
    rnd.apply(Action.play("9"))  # seat 0 goes out: 头科, and with the revolutionary two have left
    for seat in (1, 2, 4, 5):
        assert rnd.current_player == seat
        rnd.apply(Action.parse("pass"))
    assert rnd.free
    assert rnd.places[0] == 0


def test_r1_5_zhangqiu_waits_for_a_real_touke() -> None:
    rnd = _round("zhangqiu")
    assert not rnd.free_due(), "a revolution alone does not start 五户乱缠"
    rnd.apply(Action.play("9"))
    for _seat in (1, 2, 4, 5):
        rnd.apply(Action.parse("pass"))
    assert rnd.free


def test_r9_3_the_revolutionary_keeps_si_ke_when_three_seats_die() -> None:
    """R9.3 with R8.3/R6.7: the dead rank from the bottom around the revolutionary's 四科, so a third dead seat
    is 三科; the round's places are final as they are, and the match reads them unchanged."""
    rnd = _round("classic")
    rnd.dead = [(1, "men"), (5, "hu"), (4, "men")]  # 大落, 二落, then the next place up that is free
    with pytest.raises(ValueError):
        rnd.final_places()
    rnd.apply(Action.play("9"))  # seat 0 goes out; only his teammate 2 still holds cards (R7.3)
    assert rnd.is_over
    assert rnd.places == rnd.final_places() == [0, 2, 4, 3, 5, 1]
    assert rnd.scores() == [8, -8, 4, 0, 0, -4]  # 0, 2, 4 took 头科, 二科 and 三科: 串三户 doubles (R7.4)
    assert Match.from_round(rnd).places == [0, 2, 4, 3, 5, 1]
