"""Issue 22: a player's hand at any moment, from his private chat. /hand and the 🃏 button under his deal and
under each move of his show his cards as they are now, the play on the table and whose turn it is; they never
act, never reach the group, and change nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from desk_stage import GROUP, DeskStage, staged
from unit_support import SIX, smallest_single

from bot import codec
from bot.texts.words import cards_text
from table import Table

pytestmark = pytest.mark.unit


@pytest.fixture
async def stage() -> AsyncIterator[DeskStage]:
    async with staged() as s:
        yield s


def waiting(table: Table) -> tuple[int, int]:
    """A player who is not to act, and his seat."""
    assert table.to_act is not None
    seat = next(s for s in table.seats if s.user_id is not None and s.n != table.to_act.n)
    assert seat.user_id is not None
    return seat.user_id, seat.n


async def after_one_move(stage: DeskStage) -> Table:
    table = await stage.playing(turn_seconds=86400)
    seat = table.to_act
    assert seat is not None and seat.user_id is not None and seat.hand_message_id is not None
    action = smallest_single(table)
    await stage.send(
        stage.tap(
            seat.user_id,
            codec.act_data(table.id, table.version, action),
            chat_id=seat.user_id,
            message_id=seat.hand_message_id,
        )
    )
    after = await stage.service.reads.load(table.id, with_due=True)
    stage.bot.forget()
    return after


async def test_hand_in_private_shows_his_cards_now_the_top_play_and_whose_turn(stage: DeskStage) -> None:
    table = await after_one_move(stage)
    user_id, n = waiting(table)
    assert table.match is not None and table.to_act is not None
    hand = table.match.hand(n)
    await stage.send(stage.message(user_id, "/hand", chat_id=user_id))
    (text,) = stage.said(user_id)
    assert f"Your cards ({sum(hand)}):\n{cards_text(hand)}" in text
    assert "On the table: " in text
    turn = next(line for line in text.split("\n") if line.startswith("Turn: "))
    assert turn.startswith(f"Turn: {table.to_act.name} (play) · until ")
    assert [c.chat_id for c in stage.bot.calls] == [user_id], "nobody else hears of it"
    assert not stage.bot.calls[0].buttons, "nothing to tap: his turn message is where he acts"
    assert (await stage.load(table.id)).version == table.version


async def test_hand_on_his_turn_points_to_his_turn_message(stage: DeskStage) -> None:
    table = await after_one_move(stage)
    seat = table.to_act
    assert seat is not None and seat.user_id is not None
    await stage.send(stage.message(seat.user_id, "/hand", chat_id=seat.user_id))
    (text,) = stage.said(seat.user_id)
    assert text.endswith("It is your turn: answer in your turn message.")


async def test_hand_in_the_group_shows_no_cards_there(stage: DeskStage) -> None:
    table = await after_one_move(stage)
    user_id, _n = waiting(table)
    await stage.send(stage.message(user_id, "/hand"))
    assert stage.said(GROUP) == ["Your cards are shown only in private: send /hand to me there."]
    assert [c.chat_id for c in stage.bot.calls] == [GROUP]


async def test_hand_from_someone_at_no_table_says_so(stage: DeskStage) -> None:
    await after_one_move(stage)
    await stage.send(stage.message(999, "/hand", chat_id=999))
    assert stage.said(999) == [
        "You are not seated at any table. In a group, /new opens one and /join sits you down."
    ]


async def test_the_cards_button_under_his_move_answers_with_his_hand_now(stage: DeskStage) -> None:
    table = await after_one_move(stage)
    user_id, n = waiting(table)
    assert table.match is not None
    seat = table.seat(n)
    assert seat is not None and seat.hand_message_id is not None
    shown = stage.bot.shows(user_id, seat.hand_message_id)
    assert shown is not None and shown.buttons == [codec.cards_data(table.id)], "his deal has the button"
    await stage.send(
        stage.tap(user_id, codec.cards_data(table.id), chat_id=user_id, message_id=seat.hand_message_id)
    )
    (call,) = stage.bot.calls  # the answer to the tap, nothing new in his chat (no ring, nothing to scroll)
    assert call.method == "answerCallbackQuery" and call.params.get("show_alert")
    hand = table.match.hand(n)
    assert f"Your cards ({sum(hand)}):\n{cards_text(hand)}" in str(call.params.get("text"))
    assert (await stage.load(table.id)).version == table.version


async def test_the_cards_button_refuses_someone_else_and_a_closed_table(stage: DeskStage) -> None:
    table = await after_one_move(stage)
    user_id, n = waiting(table)
    seat = table.seat(n)
    assert seat is not None and seat.hand_message_id is not None
    data = codec.cards_data(table.id)
    await stage.send(stage.tap(999, data, chat_id=999, message_id=seat.hand_message_id))
    assert [c.params.get("text") for c in stage.answers()] == ["You are not seated at this table."]
    stage.bot.forget()
    await stage.stop(table.id, SIX[0])
    stage.bot.forget()
    await stage.send(stage.tap(user_id, data, chat_id=user_id, message_id=seat.hand_message_id))
    assert [c.params.get("text") for c in stage.answers()] == ["That table is closed."]
    await stage.settle()
    shown = stage.bot.shows(user_id, seat.hand_message_id)
    assert shown is not None and shown.buttons == [], "the button goes with the table"


@pytest.mark.parametrize("data", ["c:1:3:", "c:1:0:x"])
async def test_a_forged_cards_button_is_out_of_date(stage: DeskStage, data: str) -> None:
    table = await after_one_move(stage)
    user_id, n = waiting(table)
    seat = table.seat(n)
    assert seat is not None and seat.hand_message_id is not None
    await stage.send(stage.tap(user_id, data, chat_id=user_id, message_id=seat.hand_message_id))
    assert [c.params.get("text") for c in stage.answers()] == ["That button is out of date."]
