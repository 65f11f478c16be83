"""Issue 13, defect 6: the turn prompt says what is asked of the player in this position, 让牌 is not offered
when it can only come straight back, and a refusal says what would be allowed. Set positions (RULES.md R3.3,
R4.2, R4.4), words from bot.texts, buttons from bot.keyboards."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.keyboards import hand_keyboard
from bot.texts.player import refusal_text, why_text
from bot.texts.words import seat_infos
from engine import Action, Match, Round, Rules
from engine.actions import PASS, PLAY, YIELD
from engine.cards import parse_cards
from table import Group, Seat, Table

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def table_of(rnd: Round) -> Table:
    seats = tuple(Seat(n=n, user_id=100 + n, name=f"P{n + 1}", language="en") for n in range(6))
    return Table(
        id=1,
        group=Group(id=-1, title="Friends"),
        status="playing",
        version=7,
        rules=rnd.rules.to_dict(),
        match=Match.from_round(rnd),
        seats=seats,
        round_no=1,
    )


def position(hands: list[str], leader: int = 0) -> Round:
    return Round.from_position(Rules.preset("classic"), [parse_cards(h) for h in hands], leader)


def prompt(table: Table, seat: int) -> str:
    assert table.match is not None
    return why_text("en", table, table.match.public_view(), seat, seat_infos(table, "en"))


def test_only_the_duitou_may_answer_a_gouji_and_he_is_told_so() -> None:
    rnd = position(["KK 5", "6", "7", "AA 8", "9", "T"])  # seat 3 is seat 0's 对头 (R1.1)
    rnd.apply(Action(PLAY, parse_cards("KK")))  # a gouji (R3.1): seats 1 and 2 are offered the burn first
    rnd.apply(Action(PASS))
    rnd.apply(Action(PASS))  # then the answer goes to his 对头 (R6.2)
    table = table_of(rnd)
    assert table.match is not None and table.match.current_player == 3
    assert "Only you, as 对头, may answer this gouji" in prompt(table, 3)


def test_a_yield_that_comes_back_says_so() -> None:
    rnd = position(["7 3", "5", "6", "8 4", "9", "T"], leader=0)
    rnd.apply(Action(PLAY, parse_cards("7")))  # seat 0 leads; 1 and 2 pass; 3 (his 对头) may yield (R4.4)
    rnd.apply(Action(PASS))
    rnd.apply(Action(PASS))
    rnd.apply(Action(YIELD))
    rnd.apply(Action(PASS))  # seat 4
    rnd.apply(Action(PASS))  # seat 5: both after him passed, the decision is back with seat 3
    table = table_of(rnd)
    assert table.match is not None and table.match.current_player == 3
    assert "Your 让 came back" in prompt(table, 3)


def test_yield_is_not_offered_when_it_could_only_come_straight_back() -> None:
    """R4.4/R4.7: seat 3 may yield to his 对头's 7, but seat 4 is out and seat 5 passed in this trick: the
    让牌 would come straight back, so the keyboard does not offer it (it still does where it would not)."""
    hands = [parse_cards(h) for h in ("7 Q", "5", "6", "4 8 9", "", "3 T")]
    rnd = Round.from_position(Rules.preset("classic"), hands, 3, out=[4])
    rnd.apply(Action(PLAY, parse_cards("4")))  # seat 3 leads
    rnd.apply(Action(PASS))  # 5: bound for the trick (R4.2)
    rnd.apply(Action(PLAY, parse_cards("7")))  # 0, seat 3's 对头
    rnd.apply(Action(PASS))  # 1
    rnd.apply(Action(PASS))  # 2
    table = table_of(rnd)
    match = table.match
    assert match is not None and match.current_player == 3
    assert Action(YIELD) in match.legal_actions(), "the engine allows the yield"
    labels = [b.text for row in hand_keyboard("en", table, 3).inline_keyboard for b in row]
    assert "让牌" not in labels and "Pass" in labels

    # Where the two after him could answer, it is offered.
    rnd = position(["7 3", "5", "6", "8 4", "9", "T"], leader=0)
    for action in (Action(PLAY, parse_cards("7")), Action(PASS), Action(PASS)):
        rnd.apply(action)
    table = table_of(rnd)
    labels = [b.text for row in hand_keyboard("en", table, 3).inline_keyboard for b in row]
    assert "让牌" in labels


def test_a_refused_play_says_what_would_be_allowed() -> None:
    rnd = position(["666 5", "7777 JJ 8", "9", "T", "Q", "K"])
    rnd.apply(Action(PLAY, parse_cards("666")))
    size = rnd.illegal_reason(Action(PLAY, parse_cards("7777")))
    held = rnd.illegal_reason(Action(PLAY, parse_cards("JJ2")))
    assert size is not None and held is not None
    assert refusal_text("en", size) == "7777 does not beat 666: the play must have 3 cards."
    assert refusal_text("en", held) == "you do not hold JJ2: you have no 2."
    assert "必须出 3 张" in refusal_text("zh", size)
