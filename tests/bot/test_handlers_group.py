"""The group's commands, handled by the real Application (its chores before the handlers, its error handler)
on the recording bot: Telegram updates in, the table layer's state and the bot's calls out. The answers are
the words players read (byte for byte: the end-to-end tests and the players know them)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from desk_stage import GROUP, TITLE, DeskStage, staged
from recording_bot import blocked

from table import Table, TableNotFound

pytestmark = pytest.mark.unit

ANN, BOB, CAI = 101, 102, 103
SOMETHING_WRONG = "Something went wrong; please try again."
STOP_QUESTION = "Stop the match and close the table for everyone? The final standings will be posted."
STOP_REFUSED = "Only a seated player, the table's creator or a group admin can stop the table."


@pytest.fixture
async def stage() -> AsyncIterator[DeskStage]:
    async with staged() as s:
        await s.english_group()
        yield s


async def the_table(stage: DeskStage) -> Table:
    table = await stage.service.reads.table_in_group(GROUP)
    assert table is not None
    return await stage.load(table.id)


async def lobby_with(stage: DeskStage, *players: int) -> Table:
    await stage.send(stage.message(players[0], "/new"))
    for user_id in players:
        await stage.send(stage.message(user_id, "/join"))
    stage.bot.forget()
    return await the_table(stage)


async def test_new_opens_a_table_and_the_group_sees_its_lobby(stage: DeskStage) -> None:
    await stage.send(stage.message(ANN, "/new"))
    table = await the_table(stage)
    assert table.status == "lobby" and table.seat_of(ANN) is None
    [lobby] = stage.bot.calls
    assert (lobby.method, lobby.chat_id) == ("sendMessage", GROUP)
    assert f"l:{table.id}:{table.version}:join" in lobby.buttons
    assert table.message_id == lobby.message_id, "the lobby is the table's message, edited from now on"


async def test_new_where_a_table_is_open_says_so_and_opens_no_second(stage: DeskStage) -> None:
    await stage.send(stage.message(ANN, "/new"))
    first = await the_table(stage)
    stage.bot.forget()
    await stage.send(stage.message(BOB, "/new"))
    assert stage.said(GROUP) == ["A table is already open here: /table shows it, /stop ends it."]
    assert await stage.load(first.id) == first


async def test_join_seats_the_player_tells_him_in_private_and_edits_the_lobby(stage: DeskStage) -> None:
    await stage.send(stage.message(ANN, "/new"))
    lobby = await the_table(stage)
    stage.bot.forget()
    await stage.send(stage.message(ANN, "/join"))
    table = await the_table(stage)
    seat = table.seat_of(ANN)
    assert seat is not None and seat.n == 0
    assert stage.said(ANN) == [f"You sit at seat 1 of the table in {TITLE}. Your cards will come here."]
    edits = [c for c in stage.bot.calls if c.chat_id == GROUP]
    assert [(c.method, c.message_id) for c in edits] == [("editMessageText", lobby.message_id)]
    assert "Ann" in str(edits[0].text)
    assert f"l:{table.id}:{table.version}:join" in edits[0].buttons, "redrawn for the new version"


async def test_join_by_a_player_the_bot_cannot_write_to_posts_the_deep_link_and_seats_nobody(
    stage: DeskStage,
) -> None:
    await stage.send(stage.message(ANN, "/new"))
    stage.bot.forget()
    stage.bot.fail("sendMessage", blocked(), chat_id=BOB)  # Bob never started the bot
    await stage.send(stage.message(BOB, "/join"))
    table = await the_table(stage)
    assert table.seat_of(BOB) is None
    [link] = [c for c in stage.bot.calls if c.chat_id == GROUP]
    assert link.text == (
        "Bob: I can only deal you cards in a private chat. Tap the button, press Start, and you are seated."
    )
    assert link.reply_markup is not None
    [[button]] = link.reply_markup.inline_keyboard
    assert button.url == f"https://t.me/gouji_test_bot?start=j{table.id}s0"


async def test_begin_by_a_player_not_seated_is_refused_and_changes_nothing(stage: DeskStage) -> None:
    before = await lobby_with(stage, ANN)
    await stage.send(stage.message(ANN, "/addbot"))
    before = await the_table(stage)
    stage.bot.forget()
    await stage.send(stage.message(BOB, "/begin"))
    assert stage.said(GROUP) == ["Only a seated player can start the table."]
    assert [c.method for c in stage.bot.calls] == ["sendMessage"]
    assert await the_table(stage) == before


async def test_begin_deals_the_round_and_the_first_to_act_gets_his_turn(stage: DeskStage) -> None:
    await lobby_with(stage, ANN, BOB)
    await stage.send(stage.message(ANN, "/addbot"))
    stage.bot.forget()
    await stage.send(stage.message(BOB, "/begin"))
    table = await the_table(stage)
    assert table.playing and table.match is not None
    to_act = table.to_act
    assert to_act is not None and to_act.user_id in (ANN, BOB), "the computers played up to a person's turn"
    turn = [c for c in stage.bot.calls if c.chat_id == to_act.user_id and c.moves]
    assert len(turn) == 1 and turn[0].method == "sendMessage", "his turn message, with its keyboard"
    assert all(c.chat_id in (GROUP, ANN, BOB) for c in stage.bot.calls)
    # No hand reaches the group: its messages name no card counts of a hand (the hand's header).
    assert not any("Your cards" in text for text in stage.bot.texts([GROUP]))


async def test_leave_by_a_player_not_seated_is_refused(stage: DeskStage) -> None:
    before = await lobby_with(stage, ANN)
    await stage.send(stage.message(CAI, "/leave"))
    assert stage.said(GROUP) == ["You are not seated at this table."]
    assert await the_table(stage) == before


async def test_stop_by_a_member_neither_seated_nor_its_creator_nor_an_admin_is_refused_without_a_question(
    stage: DeskStage,
) -> None:
    before = await lobby_with(stage, ANN)
    await stage.send(stage.message(CAI, "/stop"))
    assert stage.said(GROUP) == [STOP_REFUSED]
    assert not any(c.buttons for c in stage.bot.calls), "no question with buttons he could not use"
    assert await the_table(stage) == before


async def test_stop_by_a_group_admin_not_seated_asks_and_his_yes_closes_the_table(stage: DeskStage) -> None:
    table = await lobby_with(stage, ANN)
    stage.bot.admins.add(CAI)
    await stage.send(stage.message(CAI, "/stop"))
    [question] = [c for c in stage.bot.calls if c.chat_id == GROUP and c.method == "sendMessage"]
    assert question.text == STOP_QUESTION and question.message_id is not None
    [yes] = [b for b in question.buttons if b.endswith(":stopok")]
    stage.bot.forget()
    await stage.send(stage.tap(CAI, yes, chat_id=GROUP, message_id=question.message_id))
    [answer] = stage.answers()
    assert answer.text == "The table is closed."
    assert (await stage.load(table.id)).status == "closed"
    assert any(text.startswith("The table is closed. Final standings:") for text in stage.said(GROUP))


async def test_a_table_command_without_a_table_says_how_to_open_one(stage: DeskStage) -> None:
    await stage.send(stage.message(ANN, "/begin"))
    assert stage.said(GROUP) == ["No table is open: /new opens one."]
    assert await stage.service.reads.table_in_group(GROUP) is None


async def test_a_table_command_sent_in_private_says_where_it_works(stage: DeskStage) -> None:
    await stage.send(stage.message(ANN, "/join", chat_id=ANN))
    assert stage.said(ANN) == ["/join works in your group's chat, where the table is."]
    assert await stage.service.reads.table_in_group(GROUP) is None


async def test_a_command_for_another_bot_or_with_our_name_is_told_apart(stage: DeskStage) -> None:
    await stage.send(stage.message(ANN, "/new@some_other_bot"))
    assert stage.bot.calls == [] and await stage.service.reads.table_in_group(GROUP) is None
    assert ANN not in stage.store.data.users, "not a word to us: not even the chores"
    await stage.send(stage.message(ANN, "/new@Gouji_Test_Bot and some words"))
    assert (await the_table(stage)).status == "lobby"


async def test_the_chores_keep_the_users_name_current(stage: DeskStage) -> None:
    await stage.send(stage.message(ANN, "/help", name="Ann"))
    assert stage.store.data.users[ANN].name == "Ann"
    await stage.send(stage.message(ANN, "/help", name="Annie"))
    assert stage.store.data.users[ANN].name == "Annie"


async def test_a_player_on_tuoguan_for_a_blocked_chat_is_back_when_he_sends_a_command_not_a_chat_line(
    stage: DeskStage,
) -> None:
    await lobby_with(stage, ANN, BOB)
    await stage.send(stage.message(ANN, "/addbot"))
    await stage.send(stage.message(ANN, "/begin"))
    table = await the_table(stage)
    # Telegram refused to deliver to Bob (the outbox's report): his seat went on 托管.
    stage.outbox.blocked.add(BOB)
    await stage.desk.after_all(await stage.service.deliveries.blocked(BOB))
    await stage.settle()
    assert (await the_table(stage)).seat(1).autoplay
    # A line of chat in the group (a bot without privacy mode hears it) is not talking to the bot.
    await stage.send(stage.message(BOB, "ha, nice one"))
    assert BOB in stage.outbox.blocked and (await the_table(stage)).seat(1).autoplay
    await stage.send(stage.message(BOB, "/table"))
    assert BOB not in stage.outbox.blocked
    back = await the_table(stage)
    assert not back.seat(1).autoplay, "his seat is his again"
    assert back.id == table.id


async def test_an_exception_in_a_handler_answers_something_went_wrong_and_nothing_more(
    stage: DeskStage, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("secret: Ann holds 3333")

    monkeypatch.setattr(stage.service.lobby, "open", broken)
    await stage.send(stage.message(ANN, "/new"))
    assert stage.said(GROUP) == [SOMETHING_WRONG]
    assert not any("secret" in r.getMessage() or r.exc_info for r in caplog.records), "nor in the log"


async def test_when_the_chores_fail_the_user_gets_one_answer_not_two(
    stage: DeskStage, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("the database is away")

    monkeypatch.setattr(stage.service.deliveries, "see_user", broken)
    await stage.send(stage.message(ANN, "/new"))
    assert stage.said(GROUP) == [SOMETHING_WRONG]
    assert await stage.service.reads.table_in_group(GROUP) is None, "the handler did not run after it"


async def test_a_refusal_no_handler_words_reaches_the_user_as_the_refusal_not_as_a_failure(
    stage: DeskStage, monkeypatch: pytest.MonkeyPatch
) -> None:
    await lobby_with(stage, ANN)

    async def closed_meanwhile(table_id: int, **_: object) -> Table:
        raise TableNotFound(table_id)

    monkeypatch.setattr(stage.service.reads, "load", closed_meanwhile)
    await stage.send(stage.message(ANN, "/table"))
    assert stage.said(GROUP) == ["That table is closed."]
