"""The private chat, handled by the real Application on the recording bot: a play typed in the notation of
RULES.md (R2.2) played or refused with the refusal's words and nothing changed, texts that are no play,
/start and its deep link, /back from 托管."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from desk_stage import GROUP, TITLE, DeskStage, staged
from recording_bot import blocked
from unit_support import SIX, smallest_single

from bot.texts.player import refusal_text
from engine import Action
from engine.actions import PLAY
from engine.cards import NRANKS, RANKS, format_cards
from table import Outcome, Table

pytestmark = pytest.mark.unit

NOT_UNDERSTOOD = "I did not understand that. Type a play like TTTT2 or 888B, or pass / 过. /help explains."
NOT_YOUR_TURN = "It is not your turn at any table."


@pytest.fixture
async def stage() -> AsyncIterator[DeskStage]:
    async with staged() as s:
        yield s


def acting(table: Table) -> int:
    seat = table.to_act
    assert seat is not None and seat.user_id is not None
    return seat.user_id


def logged(stage: DeskStage, table: Table) -> list[tuple[int | None, str]]:
    return [(a.seat, a.action) for a in stage.store.data.actions if a.table_id == table.id]


@pytest.mark.parametrize("typed", ["{cards}", "/p {cards}", "/p@gouji_test_bot {cards}"])
async def test_a_typed_play_is_played(stage: DeskStage, typed: str) -> None:
    table = await stage.playing()
    player, action = acting(table), smallest_single(table)
    assert action.cards is not None
    await stage.send(stage.message(player, typed.format(cards=format_cards(action.cards)), chat_id=player))
    after = await stage.load(table.id)
    assert after.version > table.version
    assert after.match is not None and table.match is not None and table.to_act is not None
    assert after.match.hand(table.to_act.n) != table.match.hand(table.to_act.n), "his card left his hand"
    assert stage.said(player) == [], "no refusal, no second message: his turn message says what he did"
    nxt = acting(after)
    assert [c.method for c in stage.bot.calls if c.chat_id == nxt] == ["sendMessage"], "the next one's turn"


async def test_an_illegal_typed_play_is_refused_in_the_engines_words_and_changes_nothing(
    stage: DeskStage,
) -> None:
    table = await stage.playing()
    player = acting(table)
    assert table.match is not None and table.to_act is not None
    hand = table.match.hand(table.to_act.n)
    missing = next(r for r in range(NRANKS) if hand[r] == 0)  # a card he does not hold
    play = Action(PLAY, tuple(1 if r == missing else 0 for r in range(NRANKS)))
    reason = table.match.illegal_reason(play)
    assert reason is not None
    before = logged(stage, table)
    await stage.send(stage.message(player, RANKS[missing], chat_id=player))
    assert stage.said(player) == ["Not allowed: " + refusal_text("en", reason)]
    assert (await stage.load(table.id)).version == table.version and logged(stage, table) == before
    assert [c.chat_id for c in stage.bot.calls] == [player], "nobody else hears of it"


async def test_a_typed_play_out_of_turn_or_from_someone_not_seated_is_refused(stage: DeskStage) -> None:
    table = await stage.playing()
    waiting = next(u for u in SIX if u != acting(table))
    assert table.match is not None
    await stage.send(stage.message(waiting, "pass", chat_id=waiting))
    await stage.send(stage.message(999, "pass", chat_id=999))
    assert stage.said(waiting) == [NOT_YOUR_TURN]
    # Issue 22: someone at no table was told "not your turn", as if he had one.
    assert stage.said(999) == [
        "You are not seated at any table. In a group, /new opens one and /join sits you down."
    ]
    assert (await stage.load(table.id)).version == table.version


@pytest.mark.parametrize("text", ["hello", "/p", "/p @@@", "x" * 5000, "烧", "\u202e\u0000"])
async def test_a_text_that_is_no_play_is_answered_and_changes_nothing(stage: DeskStage, text: str) -> None:
    table = await stage.playing()
    player = acting(table)
    await stage.send(stage.message(player, text, chat_id=player))
    assert stage.said(player) == [NOT_UNDERSTOOD]
    assert (await stage.load(table.id)).version == table.version


async def test_start_welcomes_and_explains(stage: DeskStage) -> None:
    await stage.send(stage.message(101, "/start", chat_id=101))
    [welcome] = stage.said(101)
    assert welcome.startswith("Welcome! Add me to your group and send /new there to open a 够级 table.")


async def test_a_malformed_deep_link_is_a_plain_start(stage: DeskStage) -> None:
    await stage.send(stage.message(101, "/start j1s9", chat_id=101))
    [welcome] = stage.said(101)
    assert welcome.startswith("Welcome!")


async def test_the_deep_link_seats_a_player_the_bot_could_not_write_to_once_he_starts_it(
    stage: DeskStage,
) -> None:
    table_id = await stage.lobby({0: 101}, computers=False)
    stage.bot.fail("sendMessage", blocked(), chat_id=102)
    await stage.send(stage.message(102, "/join"))
    assert 102 in stage.outbox.blocked and (await stage.load(table_id)).seat_of(102) is None
    stage.bot.forget()
    # He taps the link, Telegram opens the private chat and sends /start with the link's payload.
    await stage.send(stage.message(102, f"/start j{table_id}s1", chat_id=102))
    assert 102 not in stage.outbox.blocked
    seat = (await stage.load(table_id)).seat_of(102)
    assert seat is not None and seat.n == 1
    assert stage.said(102) == [f"You sit at seat 2 of the table in {TITLE}. Your cards will come here."]
    assert [c.method for c in stage.bot.calls if c.chat_id == GROUP] == ["editMessageText"], "the lobby"


async def test_back_from_tuoguan_and_back_when_not_on_it(stage: DeskStage) -> None:
    table = await stage.playing()
    player = next(u for u in SIX if u != acting(table))
    await stage.send(stage.message(player, "/back", chat_id=player))
    assert stage.said(player) == ["You are not on 托管 anywhere."]
    n = table.seat_of(player)
    assert n is not None
    await stage.leave(table.id, player)  # in a match, leaving puts the seat on 托管
    assert (await stage.load(table.id)).seat(n.n).autoplay
    stage.bot.forget()
    await stage.send(stage.message(player, "/back", chat_id=player))
    # One message (one ring at most): welcome back, with his hand.
    said = stage.said(player)
    assert len(said) == 1
    assert said[0].startswith(f"[{TITLE}] Welcome back: you play your own cards again.\nYour cards (")
    assert not (await stage.load(table.id)).seat(n.n).autoplay


async def test_a_player_sets_his_own_time_zone_and_his_deadlines_follow_it(stage: DeskStage) -> None:
    """Issue 22: friends in different cities; his deadlines in his time, the group's table in the group's."""
    from bot import codec

    table = await stage.playing()
    player = acting(table)
    await stage.send(stage.message(player, "/zone", chat_id=player))
    (panel,) = [c for c in stage.bot.calls if c.method == "sendMessage" and c.chat_id == player]
    assert "each group's time zone" in str(panel.text)
    assert codec.zone_data("Europe/London") in panel.buttons
    assert panel.message_id is not None
    await stage.send(
        stage.tap(player, codec.zone_data("Europe/London"), chat_id=player, message_id=panel.message_id)
    )
    seat = (await stage.load(table.id)).seat_of(player)
    assert seat is not None and seat.time_zone == "Europe/London"
    from bot.texts.player import turn_text

    shown = await stage.service.reads.load(table.id, with_due=True)
    assert shown.due is not None
    mine = turn_text("en", shown, seat.n, stage.when())
    assert "GMT" in mine and "CST" not in mine, "his deadline in his own zone"
    await stage.show(Outcome(table=shown, repost=True))
    group = stage.bot.shows(GROUP, (await stage.load(table.id)).message_id)  # type: ignore[arg-type]
    assert group is not None and "CST" in group.text, "the group's table in the group's zone"
