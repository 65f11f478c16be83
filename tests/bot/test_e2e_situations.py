"""End to end: what goes wrong at a real table — stale buttons, time-outs and 托管, restarts, blocked bots."""

from __future__ import annotations

import random
from collections.abc import Callable

from players import Table, buttons, lobby_button, round_summaries, turn_message
from telegram.ext import Application

from bot.app import stop_application
from emulator import TelegramEmulator
from table.rebuild import rebuild_round


def service_of(app: Application):
    return app.bot_data["service"]


async def logged_actions(app: Application, table_id: int = 1) -> list[str]:
    uow = app.bot_data["uow"]
    async with uow() as u:
        return [a.action for a in await u.actions.of_table(table_id)]


async def test_a_button_tapped_twice_acts_once_and_the_second_tap_is_out_of_date(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Alice"])
    await table.begin()
    alice = table.humans[0]
    rng = random.Random(4)
    # Play until Alice has a turn with a one-tap play or a pass to tap.
    await table.play_until(
        lambda: (
            (m := turn_message(emu, alice.id)) is not None
            and any(
                b["callback_data"].split(":")[3] in ("x",) or b["text"].startswith("▶") for b in buttons(m)
            )
        ),
        rng,
    )
    msg = turn_message(emu, alice.id)
    assert msg is not None
    data = next(
        b["callback_data"]
        for b in buttons(msg)
        if b["text"].startswith("▶") or b["callback_data"].endswith(":x")
    )
    before = await logged_actions(bot_app)
    first = emu.tap(alice, msg, data)
    second = emu.tap(alice, msg, data)  # the same button again, before the bot has answered the first
    await emu.wait_for_answer(first)
    await emu.wait_for_answer(second)
    await emu.wait_for(lambda: len(emu.callback_answers) >= 2, timeout=5)
    after = await logged_actions(bot_app)
    mine = [a for a in after[len(before) :]]
    answers = {q.id: q.answer_text for q in emu.callback_answers}
    texts = [answers.get(first.id), answers.get(second.id)]
    assert any(t and "out of date" in t for t in texts), texts
    # The tap counted once: the first entry after it is Alice's single move.
    assert mine, "the tap was applied"
    assert sum(1 for t in texts if t and "out of date" in t) == 1


async def test_a_forged_or_foreign_button_changes_nothing(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Alice"])
    await table.begin()
    alice = table.humans[0]
    outsider = emu.create_user("Mallory", language_code="en")
    started = emu.start_bot(outsider)
    hello = await emu.wait_for_bot_message(outsider.id, after=started, timeout=10)
    await emu.wait_for(
        lambda: turn_message(emu, alice.id) is not None, timeout=10, description="Alice's turn"
    )
    mine = turn_message(emu, alice.id)
    before = await logged_actions(bot_app)
    forged = [
        (outsider, hello, "a:1:0:x"),  # not seated at the table
        (alice, mine, "a:1:0:x"),  # an old version
        (alice, mine, "a:99:1:x"),  # another table
        (alice, mine, "zz:1:1:x"),  # not a button of ours
        (alice, mine, "a:1:1:" + "9" * 80),  # longer than Telegram allows
        (alice, mine, "a:1:1:pZZ"),  # cards that do not parse
        (alice, mine, "l:1:0:begin"),  # a lobby button, from a private chat
        (outsider, hello, "k:1:1:R9"),  # a composer of someone else's hand
    ]
    queries = [emu.forge_tap(user, msg, data) for user, msg, data in forged]
    for q in queries:
        answered = await emu.wait_for_answer(q)
        assert answered.answer_text, f"{q.data!r} got no clear answer"
        assert "Traceback" not in answered.answer_text
    assert await logged_actions(bot_app) == before


async def test_a_seat_that_times_out_goes_tuoguan_and_comes_back(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Alice"])
    async with bot_app.bot_data["uow"]() as u:
        await u.groups.update_settings(table.group.id, turn_timeout_seconds=1)
        await u.commit()
    await table.begin()
    alice = table.humans[0]
    # Alice does nothing: the computer plays her turns, and after two it keeps her seat on 托管.
    timeouts = lambda: [  # noqa: E731
        rev for m in emu.bot_messages(alice.id) for rev in m.history if "Time ran out" in (rev.text or "")
    ]
    try:
        await emu.wait_for(
            lambda: len(timeouts()) >= 2 or table.round_over(), timeout=30, description="two time-outs"
        )
    except TimeoutError:
        print(table.dump())
        snap = await service_of(bot_app).reads.load(1)
        print(snap.seats, snap.match.phase, snap.match.current_player, snap.version)
        async with bot_app.bot_data["uow"]() as u:
            print("DEADLINES", await u.deadlines.of_table(1))
        raise
    snap = await service_of(bot_app).reads.load(1)
    if not table.round_over():
        assert snap.seat(0).autoplay, "two time-outs in a row put the seat on 托管"
        assert any("托管" in (t or "") for t in [table.lobby_now().text])
    # She sends /back and gets her seat back: her own turn message comes again.
    said = emu.user_sends(alice, alice.id, "/back")
    answer = await emu.wait_for_bot_message(alice.id, after=said, contains="Welcome back")
    snap = await service_of(bot_app).reads.load(1)
    assert not snap.seat(0).autoplay, answer.text


async def test_a_restart_in_the_middle_of_a_round_continues_it_with_nothing_lost(
    start_bot: Callable[..., object], emulator: TelegramEmulator
) -> None:
    emu = emulator
    app: Application = await start_bot()  # type: ignore[misc]
    table = await Table.seated(emu, ["Alice", "Bob"])
    await table.begin()
    rng = random.Random(5)
    steps = 0

    for _ in range(30):
        if table.step(rng):
            steps += 1
        await emu.wait_for(lambda: table.has_new_turn() or table.round_over(), timeout=20)
        if steps >= 6:
            break
    log_before = await logged_actions(app)
    state_before = (await service_of(app).reads.load(1)).match
    await stop_application(app)

    app2: Application = await start_bot()  # type: ignore[misc]
    snap = await service_of(app2).reads.load(1)
    assert snap.match == state_before, "the stored state is the state before the restart"
    assert (await logged_actions(app2))[: len(log_before)] == log_before
    # The same round goes on to its end; the log has no gap and rebuilds the saved state.
    await table.play_until(table.round_over, rng)
    assert len(round_summaries(emu, table.group.id)) == 1
    uow = app2.bot_data["uow"]
    async with uow() as u:
        rebuilt = await rebuild_round(u, 1, 1)
        seqs = [a.seq for a in await u.actions.of_table(1)]
    assert seqs == list(range(1, len(seqs) + 1))
    assert rebuilt == (await service_of(app2).reads.load(1)).match


async def test_a_player_who_blocks_the_bot_goes_tuoguan_and_the_group_is_told(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Alice"])
    alice = table.humans[0]
    emu.block_bot(alice)
    await table.begin()
    await emu.wait_for(
        lambda: any(
            "/start" in (m.text or "") and "Alice" in (m.text or "") for m in emu.bot_messages(table.group.id)
        ),
        timeout=10,
        description="the group told how to fix it",
    )
    snap = await service_of(bot_app).reads.load(1)
    assert snap.seat(0).autoplay
    # The computer plays the seat: the round ends without Alice.
    await emu.wait_for(table.round_over, timeout=30, description="the round to end")


async def test_a_newcomer_joins_through_a_deep_link(bot_app: Application, emulator: TelegramEmulator) -> None:
    emu = emulator
    alice = emu.create_user("Alice", language_code="en")
    bob = emu.create_user("Bob", language_code="zh-hans")  # never opened a private chat with the bot
    group = emu.create_group("Friends", [alice, bob])
    emu.start_bot(alice)
    said = emu.user_sends(alice, group.id, "/new")
    lobby = await emu.wait_for_bot_message(group.id, after=said)
    emu.tap(bob, lobby, lobby_button(lobby, "join"))
    prompt = await emu.wait_for_bot_message(group.id, contains="Bob")
    url = next(b["url"] for b in buttons(prompt) if "url" in b)
    payload = url.split("start=")[1]
    emu.start_bot(bob, payload)
    await emu.wait_for(
        lambda: "Bob" in (emu.world.chat(group.id).messages[lobby.message_id].text or ""), timeout=10
    )
    welcome = emu.bot_messages(bob.id)
    assert any("你已坐在" in (m.text or "") for m in welcome), "Bob is told in Chinese, his Telegram language"


async def test_settings_change_the_group_language(bot_app: Application, emulator: TelegramEmulator) -> None:
    emu = emulator
    alice = emu.create_user("Alice", language_code="en")
    group = emu.create_group("Friends", [alice], admins=[alice])
    emu.start_bot(alice)
    said = emu.user_sends(alice, group.id, "/settings")
    settings = await emu.wait_for_bot_message(group.id, after=said)
    english = next(b["callback_data"] for b in buttons(settings) if b["callback_data"].endswith(":l:en"))
    emu.tap(alice, settings, english)
    await emu.wait_for(
        lambda: "Language: English" in (emu.world.chat(group.id).messages[settings.message_id].text or ""),
        timeout=10,
    )
    said = emu.user_sends(alice, group.id, "/new")
    lobby = await emu.wait_for_bot_message(group.id, after=said)
    assert "waiting for players" in (lobby.text or "")
    # Someone who is not an admin cannot change anything.
    carol = emu.create_user("Carol", language_code="en")
    emu.add_member(group, carol)
    query = emu.tap(carol, settings, english)
    answered = await emu.wait_for_answer(query)
    assert "admin" in (answered.answer_text or "")


async def test_a_group_that_becomes_a_supergroup_keeps_its_table(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Alice"])
    await table.begin()
    alice = table.humans[0]
    await emu.wait_for(lambda: turn_message(emu, alice.id) is not None or table.round_over(), timeout=10)
    new = emu.migrate_to_supergroup(table.group)
    # The table follows the group to its new id and is posted there again; play goes on in the supergroup.
    await emu.wait_for(
        lambda: any("第 1 局" in (m.text or "") for m in emu.bot_messages(new.id)),
        timeout=10,
        description="the table in the supergroup",
    )
    snap = await service_of(bot_app).reads.load(1)
    assert snap.group_id == new.id
    table.group = new
    table.lobby = next(m for m in emu.bot_messages(new.id) if "第 1 局" in (m.text or ""))
    await table.play_until(table.round_over, random.Random(6))
    assert round_summaries(emu, new.id)
    table.assert_no_hand_in_group()


async def test_a_join_while_telegram_asks_the_bot_to_wait_seats_the_player_once_the_wait_is_over(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """A player joining while the bot is busy elsewhere: Telegram answers the private message that opens his
    seat with a 429. The bot waits it out and seats him (it used to send that message past its outbox, take the
    429 as a failure, and leave him standing: bench_load seated 73 of 100 tables in 15 minutes)."""
    emu = emulator
    alice, bob = emu.create_user("Alice", language_code="en"), emu.create_user("Bob", language_code="en")
    group = emu.create_group("Friends", [alice, bob])
    for user in (alice, bob):
        emu.start_bot(user)
    table = Table(emu, group, [alice, bob])
    said = emu.user_sends(alice, group.id, "/new")
    table.lobby = await emu.wait_for_bot_message(group.id, after=said)
    emu.flood.enabled = True
    emu.flood.hold(2.0)  # every chat: the bot's other tables used up the limit just now
    query = emu.tap(bob, table.lobby_now(), lobby_button(table.lobby_now(), "join"))
    await emu.wait_for(lambda: "Bob" in (table.lobby_now().text or ""), timeout=10, description="Bob seated")
    assert emu.flood.refusals_by_limit["all chats"] >= 1, "Telegram did ask the bot to wait"
    assert emu.flood.violations == [], "the bot waited the 429 out"
    assert any("Your cards will come here" in (m.text or "") for m in emu.bot_messages(bob.id))
    assert "try again" not in (query.answer_text or "").lower()


async def test_a_stop_while_telegram_holds_messages_back_ends_in_its_wait_time(
    start_bot: Callable[..., object],
    bot_settings,
    emulator: TelegramEmulator,
) -> None:
    """Stopping a busy bot: Telegram has asked it to wait a minute in a group, and the lobby is still queued.
    The stop gives up after its wait (SHUTDOWN_WAIT_S) and says so in the log; it used to raise TimeoutError
    out of the shutdown (bench_load, 1,000 tables, the process ended with a traceback)."""
    import dataclasses
    import logging
    import time

    emu = emulator
    app = await start_bot(dataclasses.replace(bot_settings, shutdown_wait_s=1.0))  # type: ignore[operator]
    alice = emu.create_user("Alice", language_code="en")
    group = emu.create_group("Friends", [alice])
    emu.start_bot(alice)
    emu.flood.enabled = True
    emu.flood.hold(60.0, group.id)
    said = emu.user_sends(alice, group.id, "/new")
    await emu.wait_for(lambda: emu.flood.refusals_by_limit["group"] == 1, timeout=10, description="the 429")
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("bot").addHandler(handler)
    try:
        began = time.monotonic()
        await stop_application(app)  # type: ignore[arg-type]
        stopped_in = time.monotonic() - began
    finally:
        logging.getLogger("bot").removeHandler(handler)
    assert stopped_in < 10
    assert any("still queued" in r.getMessage() for r in records)
    assert not [m for m in emu.bot_messages(group.id) if m.message_id > said.message_id], (
        "nothing inside the wait"
    )
