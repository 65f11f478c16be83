"""The presenter against the real table layer (in memory) and the real outbox on a recording bot: for each kind
of outcome, which chat gets which call and how many, as the players and the operator see it (README, "A game,
as the players see it"; DESIGN.md: count Bot API calls per human move and keep it low, no hand in the group).
"""

from __future__ import annotations

import random

import pytest
from recording_bot import BOT_USERNAME, Call, RecordingBot
from unit_support import GROUP, NAMES, SIX, Stage, quiet_move, smallest_single

from bot import codec
from bot.outbox import Outbox
from bot.present import Presenter
from bot.texts.words import cards_text
from engine.actions import PASS
from table import Table

pytestmark = pytest.mark.unit

ANN, BOB, CAI, DAN = 101, 102, 103, 104
NAMES_TO_USER = {name: user for user, name in NAMES.items()}


@pytest.fixture
def stage() -> Stage:
    return Stage()


def group(bot: RecordingBot) -> list[Call]:
    return bot.to(GROUP)


def kinds(calls: list[Call]) -> list[str]:
    return [c.method for c in calls]


def hands_of(table: Table) -> list[str]:
    """Each seat's hand as his hand message shows it (only hands long enough to be told from a table's plays)."""
    assert table.match is not None
    hands = [table.match.view(s).hand for s in range(6)]
    return [cards_text(h) for h in hands if sum(h) >= 8 and sum(1 for c in h if c) >= 4]


def assert_no_hand_in_the_group(bot: RecordingBot, table: Table, since: int = 0) -> None:
    """No group message (of the calls from ``since`` on) holds a hand or any seat's cards as they are now."""
    for text in bot.texts([GROUP], since):
        assert "Your cards" not in text
        for hand in hands_of(table):
            assert hand not in text


# ----------------------------------------------------------------------------- the lobby


async def test_a_lobby_opened_is_one_new_group_message_with_its_buttons(stage: Stage) -> None:
    opened = await stage.open(ANN)
    await stage.show(opened)
    (call,) = stage.bot.calls
    assert (call.method, call.chat_id) == ("sendMessage", GROUP)
    assert "waiting for players" in str(call.text)
    assert {"join", "bots"} <= {codec.decode(d).what for d in call.buttons}  # type: ignore[union-attr]
    assert (await stage.load(opened.table.id)).message_id == call.message_id  # the next edits go there


async def test_a_join_edits_the_lobby_in_place_and_two_joins_at_once_cost_one_edit(stage: Stage) -> None:
    opened = await stage.open(ANN)
    await stage.show(opened)
    lobby = stage.bot.calls[0].message_id
    stage.bot.forget()
    await stage.show(await stage.join(opened.table.id, ANN, 0))
    assert [(c.method, c.message_id) for c in stage.bot.calls] == [("editMessageText", lobby)]
    assert "1. Ann" in str(stage.bot.calls[0].text)
    stage.bot.forget()
    bob = await stage.join(opened.table.id, BOB, 1)
    cai = await stage.join(opened.table.id, CAI, 2)
    await stage.presenter.show(bob)
    await stage.presenter.show(cai)
    await stage.drain()
    (edit,) = stage.bot.calls
    assert edit.method == "editMessageText" and "2. Bob" in str(edit.text) and "3. Cai" in str(edit.text)


async def test_a_lobby_read_before_a_later_change_and_shown_after_it_does_not_replace_it(
    stage: Stage,
) -> None:
    """A /settings tap's lobby (read before a join committed) shown after the join's: the group keeps the join
    and its buttons of the newer version; the older drawing had made every later lobby tap out of date."""
    opened = await stage.open(ANN)
    await stage.show(opened)
    lobby = stage.bot.calls[0].message_id
    before = await stage.join(opened.table.id, ANN, 0)
    after = await stage.join(opened.table.id, BOB, 1)
    await stage.show(after)
    await stage.show(before)
    shown = stage.bot.shows(GROUP, lobby)
    assert shown is not None and "2. Bob" in shown.text
    versions = {codec.decode(d).version for d in shown.buttons}  # type: ignore[union-attr]
    assert versions == {after.table.version}


# ----------------------------------------------------------------------------- the deal


async def test_the_deal_brings_each_player_one_message_with_his_cards_and_the_group_its_table(
    stage: Stage,
) -> None:
    table_id = await stage.lobby(dict(enumerate(SIX)))
    lobby = (await stage.load(table_id)).message_id
    stage.bot.forget()
    await stage.show(await stage.begin(table_id, ANN))
    table = await stage.load(table_id)
    assert table.match is not None
    # The group: the lobby message becomes the table; what the deal brought (a 3 bought, say) is one message.
    edits = [c for c in group(stage.bot) if c.method == "editMessageText"]
    assert [c.message_id for c in edits] == [lobby]
    assert "round 1" in str(edits[0].text) and edits[0].buttons == []
    assert kinds(group(stage.bot)).count("sendMessage") <= 1
    assert_no_hand_in_the_group(stage.bot, table)
    acting = table.to_act
    assert acting is not None
    for n, user_id in enumerate(SIX):
        deal, *turn = stage.bot.to(user_id)  # his deal, silent; the first to act also his turn, ringing
        assert deal.method == "sendMessage" and not deal.rings
        assert "round 1 is dealt" in str(deal.text) and cards_text(table.match.view(n).hand) in str(deal.text)
        assert deal.buttons == [codec.cards_data(table.id)]  # his cards, later, in one tap
        if n == acting.n:
            # Issue 22: the first to act had no deal message; his cards went with the answer to his question.
            (call,) = turn
            assert call.method == "sendMessage" and call.rings and call.moves
            assert "your turn" in str(call.text) and cards_text(table.match.view(n).hand) in str(call.text)
        else:
            assert turn == []
            call = deal
        assert table.seat(n).hand_message_id == call.message_id  # type: ignore[union-attr]


# ----------------------------------------------------------------------------- a move


async def test_a_move_shrinks_the_movers_message_to_one_line_and_rings_only_the_next_player(
    stage: Stage,
) -> None:
    table = await stage.in_play(dict(enumerate(SIX)))
    mover = table.to_act
    assert mover is not None and mover.hand_message_id is not None
    stage.bot.forget()
    action = smallest_single(table)
    outcome = await stage.act(table, action)
    await stage.show(outcome, tapped=mover.hand_message_id)
    after = await stage.load(table.id)
    nxt = after.to_act
    assert nxt is not None and nxt.user_id is not None and nxt.n != mover.n
    assert [(c.method, c.message_id) for c in group(stage.bot)] == [("editMessageText", table.message_id)]
    (line,) = stage.bot.to(NAMES_TO_USER[mover.name])
    assert (line.method, line.message_id) == ("editMessageText", mover.hand_message_id)
    assert line.buttons == [codec.cards_data(table.id)]  # no move left to tap; his cards one tap away
    assert line.text == f"[Friends] round 1 · you {cards_text(action.cards or ())} · 35 cards left"
    (turn,) = stage.bot.to(nxt.user_id)
    assert turn.method == "sendMessage" and turn.buttons and "your turn" in str(turn.text)
    assert f"{mover.name} {cards_text(action.cards or ())}" in str(turn.text)  # what happened since
    assert len(stage.bot.calls) == 3  # nobody else hears of a move he did not make


async def test_a_stretch_of_computer_moves_costs_the_group_one_table_edit(stage: Stage) -> None:
    table = await stage.in_play({0: ANN, 3: DAN})
    mover = table.to_act
    assert mover is not None and mover.user_id is not None
    stage.bot.forget()
    outcome = await stage.act(table, quiet_move(table))
    assert len(outcome.moves) == 1 and outcome.pending  # his move alone; the computers' follow (issue 23)
    await stage.show(outcome, tapped=mover.hand_message_id)  # his, then the follow-on's
    calls = group(stage.bot)
    assert [c.message_id for c in calls if c.method == "editMessageText"] == [table.message_id]
    assert kinds(calls).count("sendMessage") <= 1  # its big moments (开点, say), all in one message
    other = DAN if mover.user_id == ANN else ANN
    (turn,) = stage.bot.to(other)
    assert "Computer" in str(turn.text).split("\n")[1]  # "Since your last move: … Computer 5 …"
    assert turn.buttons


async def test_his_turn_back_at_once_turns_the_message_he_tapped_into_it(stage: Stage) -> None:
    table = await stage.in_play({0: ANN})
    seat = table.to_act
    assert seat is not None and seat.user_id == ANN and seat.hand_message_id is not None
    stage.bot.forget()
    outcome = await stage.act(table, quiet_move(table))
    await stage.show(outcome, tapped=seat.hand_message_id)
    # No new message (no ring): the one he is looking at says what he did as soon as it is stored, then,
    # once the computers have moved, is his new turn.
    # (Two edits, or one when the first was still queued: the outbox sends only the latest.)
    calls = stage.bot.to(ANN)
    assert 1 <= len(calls) <= 2
    assert all((c.method, c.message_id) == ("editMessageText", seat.hand_message_id) for c in calls)
    assert "your turn" in str(calls[-1].text) and calls[-1].buttons
    assert [c.method for c in group(stage.bot)].count("editMessageText") == 1


# ----------------------------------------------------------------------------- nobody taps


async def test_a_time_out_says_in_the_late_players_turn_message_what_the_computer_played(
    stage: Stage,
) -> None:
    table = await stage.in_play(dict(enumerate(SIX)))
    late = table.to_act
    assert late is not None and late.user_id is not None
    stage.bot.forget()
    await stage.show(await stage.time_out(table))
    (told,) = stage.bot.to(late.user_id)
    assert (told.method, told.message_id, told.buttons) == ("editMessageText", late.hand_message_id, [])
    assert "Time ran out: the computer played" in str(told.text)
    after = await stage.load(table.id)
    assert after.to_act is not None and after.to_act.user_id is not None
    assert kinds(stage.bot.to(after.to_act.user_id)) == ["sendMessage"]
    assert [c.method for c in group(stage.bot)] == ["editMessageText"]


async def test_two_time_outs_in_a_row_hand_the_seat_to_the_computer_and_back_brings_it_back(
    stage: Stage,
) -> None:
    rng = random.Random(7)
    table = await stage.in_play({0: ANN, 1: BOB})
    timeouts = 0
    while timeouts < 2:
        seat = table.to_act
        assert seat is not None
        if seat.user_id == ANN:
            if timeouts == 1:
                stage.bot.forget()
            await stage.show(await stage.time_out(table))
            timeouts += 1
        else:
            await stage.show(await stage.act(table, rng.choice(table.match.legal_actions())))  # type: ignore[union-attr]
        table = await stage.load(table.id)
    ann = table.seat(0)
    assert ann is not None and ann.autoplay
    # The missed turn message says what happened (not a deadline that has passed), in place: no new message.
    assert [c.method for c in stage.bot.to(ANN)] == ["editMessageText"]
    (missed,) = [m.text for m in stage.bot.chat_messages(ANN).values() if "Time ran out again" in m.text]
    assert "now plays your seat (托管)" in missed and "⏳" not in missed
    assert all(not shown.moves for shown in stage.bot.chat_messages(ANN).values())  # no turn left to tap
    assert any("Ann: 托管" in str(c.text) for c in group(stage.bot) if c.method == "sendMessage")
    assert "托管" in stage.bot.shows(GROUP, table.message_id).text.split("\n")[2]  # type: ignore[arg-type,union-attr]

    stage.bot.forget()
    await stage.show_all(await stage.back(ANN, table.id))
    table = await stage.load(table.id)
    assert table.seat(0).autoplay is False  # type: ignore[union-attr]
    if table.to_act is None or table.to_act.user_id != ANN:
        (welcome,) = [c for c in stage.bot.to(ANN) if c.method == "sendMessage"]
        assert "you play your own cards again." in str(welcome.text) and "Your cards" in str(welcome.text)
    assert any("Ann plays again" in str(c.text) for c in group(stage.bot) if c.method == "sendMessage")


async def test_a_player_who_blocked_the_bot_is_played_by_the_computer_and_the_group_told_the_cure(
    stage: Stage,
) -> None:
    table = await stage.in_play({0: ANN, 1: BOB})
    stage.bot.forget()
    await stage.show_all(await stage.blocked(BOB))
    assert stage.bot.to(BOB) == []
    (word,) = [c for c in group(stage.bot) if c.method == "sendMessage" and "Bob cannot get" in str(c.text)]
    assert f"open @{BOT_USERNAME} and send /start" in str(word.text)
    assert (await stage.load(table.id)).seat(1).autoplay  # type: ignore[union-attr]


async def test_a_nudge_rings_the_player_to_act_and_costs_no_other_call(stage: Stage) -> None:
    table = await stage.in_play(dict(enumerate(SIX)))
    acting = table.to_act
    assert acting is not None and acting.user_id is not None
    by = next(u for u in SIX if u != acting.user_id)
    stage.bot.forget()
    await stage.show(await stage.nudge(table.id, by))
    (call,) = stage.bot.calls  # the table shows what it showed: no edit of it
    assert (call.method, call.chat_id) == ("sendMessage", acting.user_id)
    assert f"👋 {NAMES[by]} asks you to play (催一下)" in str(call.text)


async def test_a_reminder_at_half_time_tells_only_the_player_to_act_until_when(stage: Stage) -> None:
    table = await stage.in_play(dict(enumerate(SIX)))
    acting = table.to_act
    assert acting is not None
    stage.bot.forget()
    await stage.show(await stage.remind(table))
    (call,) = stage.bot.calls  # the group's table shows what it showed: no edit of it
    assert (call.method, call.chat_id) == ("sendMessage", acting.user_id)
    assert "half of your time is gone" in str(call.text)
    assert "until 20:02 CST (in 2 min)" in str(call.text)  # the turn time, 2 min, from the table's clock


# ----------------------------------------------------------------------------- a round's end, the next round


async def test_a_rounds_end_is_one_summary_in_the_group_and_each_players_place_in_private(
    stage: Stage,
) -> None:
    rng = random.Random(3)
    table = await stage.in_play({0: ANN, 3: DAN})
    table, last = await stage.to_the_last_move(table, rng)
    mover = table.to_act
    assert mover is not None and mover.user_id is not None
    await stage.presenter.send_turn(table, mover)  # the turn message he taps
    await stage.drain()
    mover = (await stage.load(table.id)).to_act
    assert mover is not None and mover.user_id is not None and mover.hand_message_id is not None
    stage.bot.forget()
    await stage.show(await stage.act(table, last), tapped=mover.hand_message_id)
    table = await stage.load(table.id)
    assert table.match is not None and table.match.round_over

    (summary,) = [c for c in group(stage.bot) if c.method == "sendMessage"]
    assert "Round 1 is over" in str(summary.text)
    assert {codec.decode(d).what for d in summary.buttons} == {"next", "stop"}  # type: ignore[union-attr]
    assert table.summary_message_id == summary.message_id
    assert [c.message_id for c in group(stage.bot) if c.method == "editMessageText"] == [table.message_id]
    for user_id in (ANN, DAN):
        (end,) = [c for c in stage.bot.to(user_id) if c.method == "sendMessage"]
        assert "Round 1 is over" in str(end.text) and "You: " in str(end.text) and end.buttons == []
    (line,) = [c for c in stage.bot.to(mover.user_id) if c.method == "editMessageText"]
    assert line.message_id == mover.hand_message_id and line.buttons == [codec.cards_data(table.id)]
    assert not any(c.moves for c in stage.bot.calls if c.chat_id != GROUP)  # no turn while the round is over

    stage.bot.forget()
    await stage.show(await stage.next_round(table, ANN))
    table = await stage.load(table.id)
    calls = group(stage.bot)
    # The summary loses its buttons, the old table goes, the table of round 2 is posted at the bottom.
    assert ("editMessageText", summary.message_id) in [(c.method, c.message_id) for c in calls]
    assert stage.bot.shows(GROUP, summary.message_id).buttons == []  # type: ignore[arg-type,union-attr]
    (deleted,) = [c for c in calls if c.method == "deleteMessage"]
    posted = [c for c in calls if c.method == "sendMessage" and "round 2" in str(c.text)]
    assert [c.message_id for c in posted] == [table.message_id] and deleted.message_id != table.message_id
    first = table.to_act
    for user_id in (ANN, DAN):
        # His cards of round 2, and his turn when he is the first to act.
        theirs = first is not None and first.user_id == user_id
        assert kinds(stage.bot.to(user_id)) == ["sendMessage"] * (2 if theirs else 1)
    assert_no_hand_in_the_group(stage.bot, table)


async def test_a_whole_round_never_shows_a_hand_in_the_group(stage: Stage) -> None:
    rng = random.Random(11)
    table = await stage.in_play({0: ANN, 3: DAN})
    assert_no_hand_in_the_group(stage.bot, table)
    while table.match is not None and not table.match.round_over:
        seat = table.to_act
        assert seat is not None
        legal = table.match.legal_actions()
        action = rng.choice([a for a in legal if a.kind != PASS] or legal)
        checked = len(stage.bot.calls)
        await stage.show(await stage.act(table, action), tapped=seat.hand_message_id)
        table = await stage.load(table.id)
        assert_no_hand_in_the_group(stage.bot, table, since=checked)
    assert any("Round 1 is over" in str(c.text) for c in group(stage.bot))


async def test_only_what_asks_something_of_a_player_rings_his_phone(stage: Stage) -> None:
    """Issue 22: each private chat rang 36-55 times a round. A turn (or a question before the first lead)
    rings; the deal, a round's end, the group's news and summary arrive silently."""
    rng = random.Random(5)
    table = await stage.in_play({0: ANN, 3: DAN})
    while table.match is not None and not table.match.round_over:
        seat = table.to_act
        assert seat is not None
        legal = table.match.legal_actions()
        action = rng.choice([a for a in legal if a.kind != PASS] or legal)
        await stage.show(await stage.act(table, action), tapped=seat.hand_message_id)
        table = await stage.load(table.id)
    await stage.show(await stage.next_round(table, ANN))
    for user_id in (ANN, DAN):
        sent = [c for c in stage.bot.to(user_id) if c.method == "sendMessage"]
        rang = [c for c in sent if c.rings]
        assert rang and len(rang) < len(sent)  # his deal messages and his round's end came silently
        for call in sent:
            assert call.rings == bool(call.moves), call.text  # rings exactly when it holds his turn
    lobby, *sent = [c for c in group(stage.bot) if c.method == "sendMessage"]
    assert lobby.rings  # an invitation to sit down
    assert sent and not any(c.rings for c in sent)  # news, the summary, the table posted anew


# ----------------------------------------------------------------------------- a stop


async def test_a_stop_posts_the_final_standings_and_takes_every_button_away(stage: Stage) -> None:
    table = await stage.in_play(dict(enumerate(SIX)))
    stage.bot.forget()
    await stage.show(await stage.stop(table.id, ANN))
    (final,) = [c for c in group(stage.bot) if c.method == "sendMessage"]
    assert "The table is closed. Final standings:" in str(final.text)
    closed = "[Friends] The table is closed. Your total: +0. Final standings are in the group."
    acting = table.to_act.user_id if table.to_act else None
    for user_id in SIX:
        calls = [(c.method, c.text) for c in stage.bot.to(user_id) if c.method != "editMessageReplyMarkup"]
        # The one asked to act reads it in the message that asked him (no deadline left standing); the others
        # get a message of their own.
        assert calls == [("editMessageText" if user_id == acting else "sendMessage", closed)]
        # Only the buttons that show his cards stay (a tap on one says the table is closed).
        assert all(not shown.moves for shown in stage.bot.chat_messages(user_id).values())
    assert all(not shown.buttons for shown in stage.bot.chat_messages(GROUP).values())


# ----------------------------------------------------------------------------- two processes, one database


def second_process(stage: Stage) -> Stage:
    """Another bot process on the same database and the same token (webhook workers): its own table service,
    outbox and presenter, writing into the same chats on Telegram, on the same clocks."""
    other = Stage(store=stage.store, when=stage.when, time=stage.time)
    other.bot = stage.bot
    other.outbox = Outbox(stage.bot.as_bot(), other.pace, clock=stage.time)
    other.presenter = Presenter(other.outbox, other.service, other.username, clock=stage.when)
    return other


async def test_a_turn_held_by_his_chats_pace_does_not_land_over_what_another_process_drew_after_it(
    stage: Stage,
) -> None:
    """Two webhook workers: in one, his turn (handed straight back by the computers) waits 3 s for his chat's
    window; in the other, his time runs out meanwhile and its word goes into the same message. The held turn,
    its buttons dead, must not cover that word (found end to end: tests/scale/test_two_webhook_workers.py)."""
    table = await stage.in_play({0: ANN})
    seat = table.to_act
    assert seat is not None and seat.user_id == ANN and seat.hand_message_id is not None
    message = seat.hand_message_id
    for n in range(3):  # his chat's three messages in 3 s, used up in this process
        stage.outbox.send(ANN, f"news {n}", silent=True)
    await stage.time.settle()
    # This process: his move, then the computers, and the turn is his again; it waits for his chat's pace.
    moved = await stage.act(table, quiet_move(table))
    await stage.presenter.show(moved, tapped=message)
    followed = await stage.service.clock.follow(moved.table.id, moved.table.version)
    assert followed is not None and followed.table.to_act is not None
    assert followed.table.to_act.user_id == ANN, "the deal hands the turn straight back to him"
    await stage.presenter.show(followed)
    await stage.time.settle()
    assert stage.outbox.busy() and stage.time.sleeping
    # The other process: his time runs out (his deadline fired there) and it tells him so at once.
    other = second_process(stage)
    await other.presenter.show(await other.time_out(followed.table))
    await stage.drain()
    await other.drain()
    shown = stage.bot.shows(ANN, message)
    assert shown is not None and "Time ran out" in shown.text and not shown.moves
    now = await stage.load(table.id)
    for m in stage.bot.chat_messages(ANN).values():  # what buttons he has, answer at the present version
        assert {codec.decode(b).version for b in m.moves} <= {now.version}
