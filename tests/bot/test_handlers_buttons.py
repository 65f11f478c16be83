"""Taps on the bot's buttons, handled by the real Application on the recording bot: every tap answered, first
(python-telegram-bot's rule; the answer carries the news where it fits), a move tapped played, a stale,
forged or foreign button refused with nothing changed (DESIGN.md: "a stale or replayed button is refused with
a short notice instead of acting twice"), an illegal move refused in the engine's words."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from desk_stage import GROUP, DeskStage, staged
from recording_bot import Call
from unit_support import SIX

from bot import codec
from bot.texts.player import action_label, refusal_text
from engine import Action
from engine.actions import PLAY
from engine.cards import NRANKS
from table import SettingChange, Table

pytestmark = pytest.mark.unit

OUT_OF_DATE = "That button is out of date."


@pytest.fixture
async def stage() -> AsyncIterator[DeskStage]:
    async with staged() as s:
        yield s


def turn_of(table: Table) -> tuple[int, int]:
    """The player to act and his turn message."""
    seat = table.to_act
    assert seat is not None and seat.user_id is not None and seat.hand_message_id is not None
    return seat.user_id, seat.hand_message_id


def a_move_shown(stage: DeskStage, table: Table) -> str:
    """The data of a one-tap play on the player's turn message, as the bot drew it."""
    player, message_id = turn_of(table)
    shown = stage.bot.shows(player, message_id)
    assert shown is not None
    return next(b for b in shown.buttons if isinstance(codec.decode(b), codec.Act))


def answer(call: Call) -> tuple[str | None, bool]:
    return call.params.get("text"), bool(call.params.get("show_alert"))


async def test_a_move_tapped_is_played_and_the_answer_says_what(stage: DeskStage) -> None:
    table = await stage.playing()
    player, message_id = turn_of(table)
    data = a_move_shown(stage, table)
    button = codec.decode(data)
    assert isinstance(button, codec.Act)
    await stage.send(stage.tap(player, data, chat_id=player, message_id=message_id))
    after = await stage.load(table.id)
    assert after.version > table.version
    assert stage.bot.calls[0].method == "answerCallbackQuery", "the tap is answered first"
    assert [answer(c) for c in stage.answers()] == [("✓ " + action_label("en", button.action), False)]
    mine = [c for c in stage.bot.calls if c.chat_id == player]
    assert [(c.method, c.message_id) for c in mine] == [("editMessageText", message_id)]
    assert mine[0].buttons == [codec.cards_data(table.id)], "no move left to tap, only his cards to show"


async def test_the_same_button_tapped_again_is_out_of_date_and_changes_nothing(stage: DeskStage) -> None:
    table = await stage.playing()
    player, message_id = turn_of(table)
    data = a_move_shown(stage, table)
    await stage.send(stage.tap(player, data, chat_id=player, message_id=message_id))
    moved = await stage.load(table.id)
    stage.bot.forget()
    await stage.send(stage.tap(player, data, chat_id=player, message_id=message_id))
    assert [answer(c) for c in stage.answers()] == [(OUT_OF_DATE, False)]
    assert await stage.load(table.id) == moved
    nxt, turn = turn_of(moved)
    shown = stage.bot.shows(nxt, turn)
    assert shown is not None and shown.buttons, "the next turn keeps its keyboard"


@pytest.mark.parametrize(
    "data", ["", "zz", "a:1:99999:p31", "a:1:0:nonsense", "l:1:0:seat9", "k:1:0:Q", "x" * 70]
)
async def test_forged_button_data_is_out_of_date_and_the_live_turn_keeps_its_keyboard(
    stage: DeskStage, data: str
) -> None:
    table = await stage.playing()
    player, message_id = turn_of(table)
    keyboard = stage.bot.shows(player, message_id)
    await stage.send(stage.tap(player, data, chat_id=player, message_id=message_id))
    assert [answer(c) for c in stage.answers()] == [(OUT_OF_DATE, False)]
    assert [c.method for c in stage.bot.calls] == ["answerCallbackQuery"]
    assert stage.bot.shows(player, message_id) == keyboard
    assert await stage.load(table.id) == table


async def test_an_illegal_move_on_a_button_is_refused_in_the_engines_words_and_changes_nothing(
    stage: DeskStage,
) -> None:
    table = await stage.playing()
    player, message_id = turn_of(table)
    assert table.match is not None and table.to_act is not None
    hand = table.match.hand(table.to_act.n)
    missing = next(r for r in range(NRANKS) if hand[r] == 0)
    play = Action(PLAY, tuple(1 if r == missing else 0 for r in range(NRANKS)))
    reason = table.match.illegal_reason(play)
    assert reason is not None
    data = codec.act_data(table.id, table.version, play)  # drawn for this version: a modified client
    await stage.send(stage.tap(player, data, chat_id=player, message_id=message_id))
    assert [answer(c) for c in stage.answers()] == [("Not allowed: " + refusal_text("en", reason), True)]
    assert [c.method for c in stage.bot.calls] == ["answerCallbackQuery"]
    assert await stage.load(table.id) == table


async def test_a_user_not_seated_tapping_a_hand_button_is_told_so(stage: DeskStage) -> None:
    table = await stage.playing()
    data = a_move_shown(stage, table)
    await stage.send(stage.tap(999, data, chat_id=999, message_id=1))
    assert [answer(c) for c in stage.answers()] == [("You are not seated at this table.", True)]
    assert await stage.load(table.id) == table


async def test_a_hand_button_tapped_by_another_seated_player_is_refused(stage: DeskStage) -> None:
    table = await stage.playing()
    player, _ = turn_of(table)
    other = next(u for u in SIX if u != player)
    data = a_move_shown(stage, table)
    await stage.send(stage.tap(other, data, chat_id=other, message_id=1))
    assert [answer(c) for c in stage.answers()] == [(OUT_OF_DATE, False)]
    assert await stage.load(table.id) == table


async def test_a_composer_tap_redraws_the_turn_message_and_changes_nothing(stage: DeskStage) -> None:
    table = await stage.playing()
    player, message_id = turn_of(table)
    assert table.match is not None and table.to_act is not None
    rank = next(r for r in range(NRANKS) if table.match.hand(table.to_act.n)[r])
    selection = tuple(1 if r == rank else 0 for r in range(NRANKS))
    await stage.send(
        stage.tap(
            player,
            codec.compose_data(table.id, table.version, selection),
            chat_id=player,
            message_id=message_id,
        )
    )
    assert [answer(c) for c in stage.answers()] == [(None, False)]
    [redrawn] = [c for c in stage.bot.calls if c.method == "editMessageText"]
    assert (redrawn.chat_id, redrawn.message_id) == (player, message_id)
    assert codec.act_data(table.id, table.version, Action(PLAY, selection)) in redrawn.buttons
    assert await stage.load(table.id) == table


async def test_the_hint_answers_with_a_move(stage: DeskStage) -> None:
    table = await stage.playing()
    player, message_id = turn_of(table)
    await stage.send(
        stage.tap(player, codec.hint_data(table.id, table.version), chat_id=player, message_id=message_id)
    )
    [(text, alert)] = [answer(c) for c in stage.answers()]
    assert text is not None and text.startswith("Hint: ") and alert
    assert await stage.load(table.id) == table


async def test_the_lobbys_join_button_seats_the_player(stage: DeskStage) -> None:
    table_id = await stage.lobby({0: 101}, computers=False)
    lobby = await stage.load(table_id)
    assert lobby.message_id is not None
    stage.bot.forget()
    data = codec.lobby_data(table_id, lobby.version, "join", 3)
    await stage.send(stage.tap(102, data, chat_id=GROUP, message_id=lobby.message_id))
    assert [answer(c) for c in stage.answers()] == [("You are seated.", False)]
    seat = (await stage.load(table_id)).seat_of(102)
    assert seat is not None and seat.n == 3


async def test_the_lobbys_begin_tapped_by_a_player_not_seated_is_refused(stage: DeskStage) -> None:
    table_id = await stage.lobby({0: 101})
    lobby = await stage.load(table_id)
    assert lobby.message_id is not None
    stage.bot.forget()
    data = codec.lobby_data(table_id, lobby.version, "begin")
    await stage.send(stage.tap(999, data, chat_id=GROUP, message_id=lobby.message_id))
    assert [answer(c) for c in stage.answers()] == [("Only a seated player can start the table.", True)]
    assert await stage.load(table_id) == lobby


async def test_a_lobby_button_tapped_outside_its_group_is_out_of_date(stage: DeskStage) -> None:
    table_id = await stage.lobby({0: 101})
    lobby = await stage.load(table_id)
    stage.bot.forget()
    await stage.send(
        stage.tap(102, codec.lobby_data(table_id, lobby.version, "join"), chat_id=-1, message_id=1)
    )
    assert [answer(c) for c in stage.answers()] == [(OUT_OF_DATE, False)]
    assert await stage.load(table_id) == lobby


async def test_settings_change_for_an_admin_and_not_for_anyone_else(stage: DeskStage) -> None:
    await stage.lobby({0: 101})
    stage.bot.forget()
    data = codec.setting_data(SettingChange("turn_seconds", 300))
    await stage.send(stage.tap(102, data, chat_id=GROUP, message_id=1))
    assert [answer(c) for c in stage.answers()] == [
        ("Only the table's creator or a group admin can change the settings.", True)
    ]
    stage.bot.admins.add(102)
    await stage.send(stage.tap(102, data, chat_id=GROUP, message_id=1))
    assert answer(stage.answers()[-1]) == ("Saved.", False)
    group = await stage.service.deliveries.see_group(GROUP, None)
    assert group.turn_seconds == 300


async def test_an_exception_while_handling_a_tap_answers_it_with_something_went_wrong(
    stage: DeskStage, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await stage.playing()
    player, message_id = turn_of(table)

    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("secret")

    monkeypatch.setattr(stage.service.play, "act", broken)
    await stage.send(stage.tap(player, a_move_shown(stage, table), chat_id=player, message_id=message_id))
    assert [answer(c) for c in stage.answers()] == [("Something went wrong; please try again.", False)]
    assert await stage.load(table.id) == table


async def test_the_way_back_to_the_table_posts_it_anew_at_the_bottom(stage: DeskStage) -> None:
    table = await stage.playing()
    assert table.message_id is not None
    await stage.send(
        stage.tap(101, codec.lobby_data(table.id, 0, "table"), chat_id=GROUP, message_id=table.message_id + 5)
    )
    moved = await stage.load(table.id)
    assert moved.message_id is not None and moved.message_id != table.message_id
    assert [c.method for c in stage.bot.to(GROUP) if c.method in ("sendMessage", "deleteMessage")] == [
        "deleteMessage",
        "sendMessage",
    ]
    assert moved == table.__class__(**{**table.__dict__, "message_id": moved.message_id}), (
        "the game unchanged"
    )
