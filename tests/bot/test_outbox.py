"""The outbox against a recording bot, on a clock the test moves: what reaches Telegram, how many calls it
costs, what Telegram's refusals turn into, and Telegram's pace (DESIGN.md: about 30 messages a second in all,
20 a minute into a group, about one a second into a private chat)."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from fake_clock import FakeClock
from recording_bot import RecordingBot, blocked, migrated, not_modified, retry_after, too_old_to_delete
from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.outbox import ChatBlocked, GroupMigrated, Outbox, Report, RetryWindow
from bot.pace import Gate, Pace, Window
from storage.models import utcnow

pytestmark = pytest.mark.unit

GROUP, ANN, BOB = -100_200, 101, 102
PRIVATE_PERIOD = 3.2  # three messages in 3 s, and the margin of 0.2 s a call takes to reach Telegram
GROUP_PERIOD = 60.2
TOTAL_PERIOD = 1.2


def keyboard(*data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(d, callback_data=d) for d in data]])


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def bot(clock: FakeClock) -> RecordingBot:
    return RecordingBot(clock=clock.time)


@pytest.fixture
def outbox(bot: RecordingBot, clock: FakeClock) -> Outbox:
    return Outbox(bot.as_bot(), Pace(), clock=clock)


async def sent(outbox: Outbox, clock: FakeClock, chat_id: int, text: str, markup=None) -> int:  # type: ignore[no-untyped-def]
    """A message delivered (time let pass as Telegram's pace asks): its id."""
    future = outbox.send(chat_id, text, markup)
    await clock.run()
    message_id = await future
    assert message_id is not None
    return message_id


def reports(outbox: Outbox) -> list[Report]:
    found: list[Report] = []
    while not outbox.reports.empty():
        found.append(outbox.reports.get_nowait())
    return found


def within(times: list[float], period: float) -> int:
    """The most calls made in any sliding ``period``."""
    return max((sum(1 for u in times if t <= u < t + period) for t in times), default=0)


# ----------------------------------------------------------------------------- what reaches the chat


async def test_a_message_is_sent_once_with_its_keyboard_and_its_id_comes_back(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    message_id = await sent(outbox, clock, ANN, "your turn", keyboard("a|1|5|x"))
    assert bot.methods() == ["sendMessage"]
    call = bot.calls[0]
    assert (call.chat_id, call.message_id, call.text, call.buttons) == (
        ANN,
        message_id,
        "your turn",
        ["a|1|5|x"],
    )
    assert outbox.shows(ANN, message_id) == (
        "your turn",
        json.dumps(keyboard("a|1|5|x").to_dict(), sort_keys=True),
    )


async def test_edits_of_one_message_not_yet_made_go_out_as_one_call_with_the_latest(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    table = await sent(outbox, clock, GROUP, "table v1")
    bot.forget()
    for v in (2, 3, 4):
        outbox.edit(GROUP, table, f"table v{v}")
    await clock.run()
    assert [(c.method, c.message_id, c.text) for c in bot.calls] == [("editMessageText", table, "table v4")]
    assert bot.shows(GROUP, table).text == "table v4"  # type: ignore[union-attr]


async def test_an_edit_that_changes_nothing_costs_no_call(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    hand = await sent(outbox, clock, ANN, "round 1 · your turn", keyboard("a|1|5|x"))
    bot.forget()
    outbox.edit(ANN, hand, "round 1 · your turn", keyboard("a|1|5|x"))  # what it shows
    outbox.edit(ANN, hand, "round 1 · 77", None)
    outbox.edit(ANN, hand, "round 1 · your turn", keyboard("a|1|5|x"))  # and back, before it went out
    await clock.run()
    assert bot.calls == []


async def test_a_message_deleted_loses_the_edit_still_queued_for_it(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    table = await sent(outbox, clock, GROUP, "table v1")
    bot.forget()
    outbox.edit(GROUP, table, "table v2")
    outbox.delete(GROUP, table, instead="⬇ The table moved below.")
    await clock.run()
    assert [(c.method, c.message_id) for c in bot.calls] == [("deleteMessage", table)]
    assert bot.shows(GROUP, table) is None


async def test_a_message_too_old_to_delete_says_instead_that_the_table_moved(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    table = await sent(outbox, clock, GROUP, "table v1")
    bot.forget()
    bot.fail("deleteMessage", too_old_to_delete())
    outbox.delete(GROUP, table, instead="⬇ The table moved below.")
    await clock.run()
    assert bot.methods() == ["deleteMessage", "editMessageText"]
    assert bot.shows(GROUP, table).text == "⬇ The table moved below."  # type: ignore[union-attr]


async def test_a_keyboard_dropped_keeps_the_text(outbox: Outbox, bot: RecordingBot, clock: FakeClock) -> None:
    hand = await sent(outbox, clock, ANN, "your turn", keyboard("a|1|5|x"))
    bot.forget()
    outbox.drop_keyboard(ANN, hand)
    await clock.run()
    assert [(c.method, c.text, c.buttons) for c in bot.calls] == [("editMessageText", "your turn", [])]
    outbox.drop_keyboard(ANN, hand)  # nothing left to drop
    await clock.run()
    assert len(bot.calls) == 1


# ----------------------------------------------------------------------------- a double tap (commit de4ffc8)


async def test_the_second_tap_of_a_double_tap_leaves_the_next_turns_keyboard_queued_into_the_message(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    """Ann's turn message holds the buttons of version 5. Her first tap plays, the trick comes back to her,
    and her new turn (the buttons of version 9) is queued as an edit of the same message. The second tap of
    her double tap, drawn for version 5, is out of date: it may strip the buttons of version 5, never the
    new turn's, or she is left with no buttons at all."""
    old, new = "a|1|5|p0010", "a|1|9|p0100"
    hand = await sent(outbox, clock, ANN, "round 1 · your turn", keyboard(old, "a|1|5|x"))
    bot.forget()
    outbox.edit(ANN, hand, "round 1 · your turn again", keyboard(new, "a|1|9|x"))  # the first tap's answer
    outbox.drop_keyboard(ANN, hand, tapped=json.dumps(old))  # the second tap, before the edit went out
    await clock.run()
    assert [(c.method, c.text) for c in bot.calls] == [("editMessageText", "round 1 · your turn again")]
    assert bot.shows(ANN, hand).buttons == [new, "a|1|9|x"]  # type: ignore[union-attr]


async def test_an_out_of_date_tap_strips_a_keyboard_still_holding_its_button(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    stale = "a|1|5|p0010"
    hand = await sent(outbox, clock, ANN, "round 1 · your turn", keyboard(stale))
    bot.forget()
    outbox.edit(ANN, hand, "round 1 · your turn (selected 4)", keyboard(stale))
    outbox.drop_keyboard(ANN, hand, tapped=json.dumps(stale))
    await clock.run()
    assert [(c.method, c.text, c.buttons) for c in bot.calls] == [
        ("editMessageText", "round 1 · your turn (selected 4)", [])
    ]


# ----------------------------------------------------------------------------- what Telegram told


async def test_a_user_who_blocked_the_bot_is_reported_and_not_written_to_again(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    bot.fail("sendMessage", blocked(), chat_id=ANN)
    first = outbox.send(ANN, "your cards")
    queued = outbox.send(ANN, "your turn")
    await clock.run()
    assert (await first, await queued) == (None, None)
    assert reports(outbox) == [ChatBlocked(ANN)]
    assert len(bot.to(ANN)) == 1  # the queued message was not tried
    assert await outbox.send(ANN, "still there?") is None
    assert len(bot.to(ANN)) == 1
    assert outbox.unblock(ANN)  # he talked to the bot again
    assert await sent(outbox, clock, ANN, "welcome back") is not None
    assert bot.to(ANN)[-1].ok


async def test_a_group_that_became_a_supergroup_is_reported_and_the_message_goes_to_its_new_id(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    supergroup = -100_999
    bot.fail("sendMessage", migrated(supergroup), chat_id=GROUP)
    message_id = await sent(outbox, clock, GROUP, "the lobby")
    assert reports(outbox) == [GroupMigrated(GROUP, supergroup)]
    assert [(c.chat_id, c.ok) for c in bot.calls] == [(GROUP, False), (supergroup, True)]
    assert bot.shows(supergroup, message_id).text == "the lobby"  # type: ignore[union-attr]


async def test_a_429_holds_that_chat_for_its_retry_after_and_no_other(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "true")  # as the bot runs (bot/app.py): retry_after as a timedelta
    start = clock.time()
    bot.fail("sendMessage", retry_after(7), chat_id=GROUP)
    before = utcnow()
    held = outbox.send(GROUP, "the table")
    other = outbox.send(ANN, "your cards")
    await clock.advance(6.9)
    assert await other is not None and not held.done()
    await clock.run()
    assert await held is not None
    (report,) = reports(outbox)
    assert isinstance(report, RetryWindow) and report.chat_id == GROUP
    assert before + timedelta(seconds=7) <= report.until <= utcnow() + timedelta(seconds=7)
    group_times = [c.at - start for c in bot.to(GROUP)]  # type: ignore[operator]
    assert group_times == [0.0, pytest.approx(7.0)]
    assert outbox.refused == 1


async def test_not_modified_from_telegram_is_no_failure_and_is_not_tried_again(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    table = await sent(outbox, clock, GROUP, "table v1")
    bot.forget()
    bot.fail("editMessageText", not_modified())  # another process made this very edit first
    outbox.edit(GROUP, table, "table v2")
    await clock.run()
    assert len(bot.calls) == 1 and reports(outbox) == [] and outbox.failed == 0
    outbox.edit(GROUP, table, "table v2")
    await clock.run()
    assert len(bot.calls) == 1  # it knows the message shows it


# ----------------------------------------------------------------------------- the pace


def test_a_private_window_lets_three_through_in_three_seconds() -> None:
    window = Window(3, PRIVATE_PERIOD)
    for _ in range(3):
        assert window.wait(0.0) == 0.0
        window.use(0.0)
    assert window.wait(0.0) == pytest.approx(PRIVATE_PERIOD)
    assert window.wait(PRIVATE_PERIOD) == 0.0


def test_a_group_window_sends_a_burst_at_once_then_spreads_the_rest_over_the_minute() -> None:
    window = Window(20, GROUP_PERIOD, burst=4)
    now, times = 0.0, []
    for _ in range(40):
        now += window.wait(now)
        window.use(now)
        times.append(now)
    assert times[:4] == [0.0] * 4
    gaps = {round(b - a, 6) for a, b in zip(times[4:], times[5:], strict=False)}
    assert gaps == {round(GROUP_PERIOD / 16, 6)}  # the rest of the minute's 20, evenly
    assert within(times, GROUP_PERIOD) <= 20


async def test_a_private_chat_gets_three_messages_at_once_and_the_next_after_three_seconds(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    start = clock.time()
    for n in range(5):
        outbox.send(ANN, f"message {n}")
    took = await clock.run()
    times = [c.at - start for c in bot.to(ANN)]  # type: ignore[operator]
    assert times[:3] == [0.0, 0.0, 0.0]
    assert times[3:] == [pytest.approx(PRIVATE_PERIOD)] * 2
    assert took == pytest.approx(PRIVATE_PERIOD)
    assert [c.text for c in bot.to(ANN)] == [f"message {n}" for n in range(5)]  # in order


async def test_a_group_never_gets_more_than_twenty_calls_a_minute(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    start = clock.time()
    for n in range(30):
        outbox.send(GROUP, f"news {n}")
    await clock.run()
    times = [c.at - start for c in bot.to(GROUP)]  # type: ignore[operator]
    assert len(times) == 30
    assert within(times, 60.0) <= 20
    assert times[:4] == [0.0] * 4  # a round's end goes at once
    assert times[4] == pytest.approx(GROUP_PERIOD / 16)  # then a steady pace: the table a few seconds behind


async def test_all_chats_together_get_at_most_thirty_calls_a_second(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    start = clock.time()
    users = range(1_000, 1_045)
    for user in users:
        outbox.send(user, "your cards")
    await clock.run()
    times = sorted(c.at - start for c in bot.calls)  # type: ignore[operator]
    assert len(times) == 45
    assert within(times, 1.0) <= 30
    assert times[29] == 0.0 and times[30] == pytest.approx(TOTAL_PERIOD)


async def test_past_the_overall_limit_turn_messages_come_before_the_tables_which_still_get_a_share(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    """At the token's limit a player's turn message (it rings) waits for no group's table: with the second's
    thirty messages used up, 20 groups' tables are queued before 40 turn messages, and the turns still go out
    first, every fourth slot a table."""
    tables = {group: await sent(outbox, clock, group, "table v1") for group in range(-2_000, -2_020, -1)}
    await clock.advance(61.0)  # the groups' minutes start afresh
    for user in range(3_000, 3_030):
        outbox.send(user, "news", silent=True)
    await clock.settle()
    bot.forget()
    start = clock.time()
    for group, table in tables.items():
        outbox.edit(group, table, "table v2")
    players = range(1_000, 1_040)
    for user in players:
        outbox.send(user, "your turn")
    await clock.run()
    next_second = [c for c in bot.calls if c.at - start < TOTAL_PERIOD + 1.0]  # type: ignore[operator]
    assert len(next_second) == 30
    assert sum(c.chat_id in players for c in next_second) >= 22  # three in four slots at least
    assert sum(c.chat_id < 0 for c in next_second) >= 7  # never starved: a quarter of the slots
    last_player = max(c.at - start for c in bot.calls if c.chat_id in players)  # type: ignore[operator]
    assert (
        last_player < 2 * TOTAL_PERIOD + 1.0
    )  # first come, first served had the turns wait behind the tables
    assert len([c for c in bot.calls if c.chat_id < 0]) == 20  # and every table got its edit


async def test_an_edit_that_waited_for_its_slot_goes_out_with_the_edit_that_came_meanwhile(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    """A group's table held back at the limit is edited again while it waits: one call shows the latest."""
    table = await sent(outbox, clock, GROUP, "table v1")
    await clock.advance(61.0)
    bot.forget()
    for user in range(1_000, 1_030):  # the second's thirty messages used up by turns
        outbox.send(user, "your turn")
    await clock.settle()
    outbox.edit(GROUP, table, "table v2")
    await clock.settle()  # the group's worker takes v2 and waits for a slot
    assert clock.sleeping and [c.chat_id for c in bot.calls if c.chat_id < 0] == []
    outbox.edit(GROUP, table, "table v3")
    await clock.run()
    assert [c.text for c in bot.to(GROUP)] == ["table v3"]
    assert bot.shows(GROUP, table).text == "table v3"  # type: ignore[union-attr]


async def test_a_retry_window_learned_by_an_earlier_process_is_kept(
    bot: RecordingBot, clock: FakeClock
) -> None:
    outbox = Outbox(bot.as_bot(), Pace(), clock=clock)
    outbox.prime({GROUP: utcnow() + timedelta(seconds=30)}, {BOB})
    start = clock.time()
    table = outbox.send(GROUP, "the table")
    assert await outbox.send(BOB, "your cards") is None  # blocked, as the database remembers
    await clock.run()
    assert await table is not None
    (call,) = bot.calls
    assert call.at - start == pytest.approx(30.0, abs=0.1)  # type: ignore[operator]


async def test_an_edit_waiting_for_its_chats_pace_is_what_a_later_drop_builds_on(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    """His turn message redrawn into a line of what he did waits for the chat's pace (three messages in 3 s
    went before it); a keyboard dropped meanwhile must not bring the turn's text back without its buttons
    (found end to end with the computers' follow-on of issue 23)."""
    turn = await sent(outbox, clock, ANN, "your turn", keyboard("a:1:1:x"))
    for n in range(2):
        outbox.send(ANN, f"news {n}")
    await clock.settle()  # the chat's three in 3 s are used up
    outbox.edit(ANN, turn, "you 77 · 12 cards left", keyboard("c:1:0:"))
    await clock.settle()  # the worker takes the edit and waits for the chat's pace
    assert clock.sleeping
    outbox.drop_keyboard(ANN, turn)
    await clock.run()
    shown = bot.shows(ANN, turn)
    assert shown is not None and shown.text == "you 77 · 12 cards left"
    assert not shown.buttons


async def test_a_movers_line_taking_his_chats_last_slot_waits_for_the_turn_handed_back_and_goes_as_it(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    """Two composer redraws used two of his three messages in 3 s; his move's line would take the last, and
    his turn, handed straight back by the computers 0.4 s later, would wait for the window (2.8 s more). The
    line lingers instead, and the turn goes out in its place at once."""
    turn = await sent(outbox, clock, ANN, "your turn", keyboard("a:1:1:x"))
    await clock.advance(4.0)
    bot.forget()
    outbox.edit(ANN, turn, "your turn · K selected", keyboard("a:1:1:K"))
    outbox.edit(ANN, turn, "your turn · KK selected", keyboard("a:1:1:KK"))
    await clock.settle()
    await clock.advance(0.5)
    outbox.edit(ANN, turn, "your turn · KKK selected", keyboard("a:1:1:KKK"))
    await clock.advance(0.5)
    assert len(bot.to(ANN)) == 2  # two redraws (K and KK, tapped at once, went as one)
    start = clock.time()
    outbox.edit(ANN, turn, "you KKK · 33 cards left", keyboard("c:1:0:"), linger=1.0)
    await clock.advance(0.4)
    assert len(bot.to(ANN)) == 2  # the line lingers
    outbox.edit(ANN, turn, "your turn again", keyboard("a:1:2:x"))
    await clock.run()
    calls = bot.to(ANN)[2:]
    assert [c.text for c in calls] == ["your turn again"]
    assert calls[0].at - start == pytest.approx(0.4, abs=0.06)  # type: ignore[operator]


async def test_a_lingering_line_goes_out_when_released_or_at_the_latest_after_its_linger(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    """The computers moved and the turn went elsewhere: released, his line goes at once; nobody releases it (the
    follow-on fired in another process): it goes after its linger, never later."""
    turn = await sent(outbox, clock, ANN, "your turn", keyboard("a:1:1:x"))
    start = clock.time()
    outbox.edit(ANN, turn, "you K · 35 cards left", None, linger=1.0)
    await clock.advance(0.1)
    assert len(bot.to(ANN)) == 1  # it lingers, with room in his window
    outbox.release(ANN)
    await clock.run()
    line = bot.to(ANN)[-1]
    assert line.text == "you K · 35 cards left"
    assert line.at - start == pytest.approx(0.1, abs=0.03)  # type: ignore[operator]
    start = clock.time()
    outbox.edit(ANN, turn, "you K · 35 cards left · the trick is yours", None, linger=1.0)
    await clock.run()
    assert bot.to(ANN)[-1].at - start == pytest.approx(1.0, abs=0.03)  # type: ignore[operator]


async def test_with_nobody_waiting_a_message_passes_the_overall_gate_without_waiting_a_turn(
    clock: FakeClock,
) -> None:
    """Two chats' messages queued together must leave together: when the gate made each wait a turn of the
    loop, the second left after the first's 429 had come back, inside the window Telegram had just told for
    every chat (found end to end: tests/bot/test_e2e_situations.py, a join during a 429)."""
    gate = Gate(Window(30, 1.2), clock)
    entering = gate.enter(first=False)
    with pytest.raises(StopIteration):
        entering.send(None)  # done at its first step: no await on the runner
    assert gate.runner is None


async def test_an_edit_that_had_to_wait_goes_only_if_its_check_still_says_so(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    """A turn drawn into his message waits for his chat's pace; by its slot another process may have moved the
    table on and drawn what followed there. Its check is asked then, and only then: an edit that goes at once
    costs no question."""
    asked: list[str] = []

    def check(text: str, answer: bool):  # type: ignore[no-untyped-def]
        async def still() -> bool:
            asked.append(text)
            return answer

        return still

    turn = await sent(outbox, clock, ANN, "your turn", keyboard("a:1:1:x"))
    outbox.edit(ANN, turn, "your turn, redrawn", keyboard("a:1:2:x"), still=check("redrawn", True))
    await clock.run()
    assert asked == [] and bot.shows(ANN, turn).text == "your turn, redrawn"  # type: ignore[union-attr]
    outbox.send(ANN, "news")
    await clock.settle()  # his chat's three messages in 3 s are used up
    outbox.edit(ANN, turn, "your turn, version 3", keyboard("a:1:3:x"), still=check("v3", False))
    await clock.run()
    assert asked == ["v3"]
    shown = bot.shows(ANN, turn)
    assert shown is not None and shown.text == "your turn, redrawn"  # what the other process drew stays
    assert outbox.shows(ANN, turn) is None  # and this one no longer claims to know what it shows
    outbox.send(ANN, "more news")
    outbox.send(ANN, "and more")
    await clock.settle()
    outbox.edit(ANN, turn, "your turn, version 4", keyboard("a:1:4:x"), still=check("v4", True))
    await clock.run()
    assert asked == ["v3", "v4"] and bot.shows(ANN, turn).text == "your turn, version 4"  # type: ignore[union-attr]


async def test_an_edit_held_behind_a_message_that_waited_is_asked_too(
    outbox: Outbox, bot: RecordingBot, clock: FakeClock
) -> None:
    """His window full, a message waits 3 s and his turn's edit behind it: that edit then needs no wait of its
    own (the window's first three went together), but what it shows was drawn 3 s ago."""
    asked: list[int] = []

    async def still() -> bool:
        asked.append(1)
        return False

    turn = await sent(outbox, clock, ANN, "your turn", keyboard("a:1:1:x"))
    outbox.send(ANN, "news 1")
    outbox.send(ANN, "news 2")
    await clock.settle()  # three in 3 s: the window is full
    outbox.send(ANN, "news 3")
    outbox.edit(ANN, turn, "your turn, version 2", keyboard("a:1:2:x"), still=still)
    await clock.run()
    assert asked == [1]
    assert [c.text for c in bot.to(ANN)][-1] == "news 3"
    assert bot.shows(ANN, turn).text == "your turn"  # type: ignore[union-attr]
