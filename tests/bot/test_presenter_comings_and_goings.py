"""Leaving, 托管 and coming back as the players see them (issue 22, defect 6), on the presenter against the real
table layer in memory and a recording bot: /leave is answered and says what becomes of the seat, nobody gets a
second turn message for one turn, a prompt whose moment has passed says what happened, and the deal tells a
seat on 托管 that no turn message will come."""

from __future__ import annotations

import random

import pytest
from recording_bot import RecordingBot
from unit_support import GROUP, Stage

from table import Table

pytestmark = pytest.mark.unit

ANN, BOB, CAI = 101, 102, 103


@pytest.fixture
def stage() -> Stage:
    return Stage()


def sent_to(bot: RecordingBot, chat: int) -> list[str]:
    return [str(c.text) for c in bot.to(chat) if c.method == "sendMessage"]


async def _ann_to_act(stage: Stage) -> Table:
    """Ann, Bob and Cai with three computers, played until it is Ann's turn (a move of Bob's or Cai's
    may come first)."""
    rng = random.Random(4)
    table = await stage.in_play({0: ANN, 1: BOB, 2: CAI})
    while table.to_act is not None and table.to_act.user_id != ANN:
        assert table.match is not None
        await stage.show(await stage.act(table, rng.choice(table.match.legal_actions())))
        table = await stage.load(table.id)
    assert table.to_act is not None
    return table


async def test_another_seat_going_to_tuoguan_during_your_turn_redraws_your_turn_without_a_ring(
    stage: Stage,
) -> None:
    table = await _ann_to_act(stage)
    stage.bot.forget()
    await stage.show(await stage.leave(table.id, BOB))
    after = await stage.load(table.id)
    assert after.to_act is not None and after.to_act.user_id == ANN
    assert sent_to(stage.bot, ANN) == [], "no second turn message (no second ring)"
    (redrawn,) = [c for c in stage.bot.to(ANN) if c.method == "editMessageText"]
    assert "your turn" in str(redrawn.text)
    # Its buttons are good for the new version: a tap on them plays.
    ann = after.seat_of(ANN)
    assert ann is not None and redrawn.message_id == ann.hand_message_id
    assert after.match is not None
    moved = await stage.act(after, after.match.legal_actions()[0])
    assert moved.table.version > after.version


async def test_leave_mid_round_is_answered_and_says_what_becomes_of_the_seat(stage: Stage) -> None:
    table = await _ann_to_act(stage)
    stage.bot.forget()
    await stage.show(await stage.leave(table.id, ANN))
    (word,) = [t for t in sent_to(stage.bot, GROUP) if "left the match" in t]
    assert "Ann" in word and "/back" in word and "next round" in word
    private = [str(c.text) for c in stage.bot.to(ANN)]
    assert any("You left the match" in t and "/back" in t for t in private)
    # Her turn message, whose moment has passed, says so instead of asking: no buttons that move are left.
    assert all(not shown.moves for shown in stage.bot.chat_messages(ANN).values())


async def test_a_seat_on_tuoguan_is_dealt_without_a_promise_of_a_turn_message(stage: Stage) -> None:
    rng = random.Random(2)
    table = await stage.in_play({0: ANN, 1: BOB})
    timeouts = 0
    while table.match is not None and not table.match.round_over:
        seat = table.to_act
        if seat is not None and seat.user_id == BOB and timeouts < 2:
            await stage.show(await stage.time_out(table))  # two in a row: 托管
            timeouts += 1
        else:
            await stage.show(await stage.act(table, rng.choice(table.match.legal_actions())))
        table = await stage.load(table.id)
    bob = table.seat_of(BOB)
    assert bob is not None and bob.autoplay
    stage.bot.forget()
    await stage.show(await stage.next_round(table, ANN))
    (deal,) = sent_to(stage.bot, BOB)
    assert "Your cards (36)" in deal
    assert "托管" in deal and "/back" in deal
    assert "your turn message will come" not in deal
