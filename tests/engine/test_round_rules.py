"""Round rules that a transcript cannot set up (a revolutionary is placed only by a match, R9)."""

from __future__ import annotations

from engine import Action, Round, Rules, parse_cards


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
