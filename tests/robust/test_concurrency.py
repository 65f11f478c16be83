"""Taps that arrive together: two players at once, one button twice, one update delivered twice. Each action
applies at most once, in order, and the log stays continuous."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from players import Table, buttons, choose_tap, move_buttons, turn_message
from telegram import Update
from telegram.ext import Application

from emulator import TelegramEmulator
from storage import make_engine, uow_factory
from table import TableService


async def logged(app: Application) -> list[tuple[int, int | None, str]]:
    async with app.bot_data["uow"]() as u:
        return [(a.seq, a.seat, a.action) for a in await u.actions.of_table(1)]


async def taps_applied(app: Application) -> int:
    """Player actions applied from an update: each records its update id with the action."""
    async with app.bot_data["uow"]() as u:
        return await u.updates.count()


def a_tap(msg) -> str:
    """A button that acts at once: a one-tap play, or pass."""
    return next(
        b["callback_data"]
        for b in buttons(msg)
        if b["text"].startswith("▶ ") or b["callback_data"].endswith(":x")
    )


async def turn_with_a_tap(table: Table, user_id: int, rng: random.Random) -> None:
    def ready() -> bool:
        msg = table.turn_to_act_on(user_id)
        return msg is not None and any(
            b["text"].startswith("▶ ") or b["callback_data"].endswith(":x") for b in buttons(msg)
        )

    await table.play_until(ready, rng, type_some=False)


async def test_two_players_a_double_tap_and_a_redelivered_update_each_act_at_most_once(
    bot_app: Application, emulator: TelegramEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben"])
    await table.begin()
    ann, ben = table.humans
    rng = random.Random(8)

    # Ann's turn: Ann and Ben tap at the same moment; Ben's button is an old one.
    await turn_with_a_tap(table, ann.id, rng)
    before = await logged(bot_app)
    ann_msg = turn_message(emu, ann.id)
    ben_old = turn_message(emu, ben.id)
    taps = [emu.tap(ann, ann_msg, a_tap(ann_msg))]
    table.note_acted(ann, ann_msg)
    if ben_old is not None:
        old = [b["callback_data"] for b in buttons(ben_old) if b["callback_data"].startswith("a:")]
        taps.append(emu.forge_tap(ben, ben_old, old[0] if old else "a:1:1:x"))
    for q in taps:
        await emu.wait_for_answer(q)
    after = await logged(bot_app)
    new = after[len(before) :]
    assert new and new[0][1] == 0, "Ann's play is the next entry of the log"
    assert all(seat != 1 or i > 0 for i, (_, seat, _) in enumerate(new)), "Ben's old button did not act"
    if len(taps) > 1:
        assert "out of date" in (taps[1].answer_text or "") or "not your turn" in (taps[1].answer_text or "")

    # One button tapped twice before the bot answers either: one action, one 'out of date'.
    await turn_with_a_tap(table, ann.id, rng)
    before, applied = await logged(bot_app), await taps_applied(bot_app)
    msg = turn_message(emu, ann.id)
    data = a_tap(msg)
    first, second = emu.tap(ann, msg, data), emu.tap(ann, msg, data)
    table.note_acted(ann, msg)
    await emu.wait_for_answer(first)
    await emu.wait_for_answer(second)
    after = await logged(bot_app)
    assert after[len(before)][1] == 0 and await taps_applied(bot_app) == applied + 1
    texts = [first.answer_text or "", second.answer_text or ""]
    assert sum("out of date" in t for t in texts) == 1, texts

    # The same update delivered twice (a webhook retry, or a second instance): it acts once.
    await turn_with_a_tap(table, ann.id, rng)
    before, applied = await logged(bot_app), await taps_applied(bot_app)
    msg = turn_message(emu, ann.id)
    query = emu.tap(ann, msg, a_tap(msg))
    table.note_acted(ann, msg)
    update = next(u for u in emu.updates.history if u.get("callback_query", {}).get("id") == query.id)
    await bot_app.update_queue.put(Update.de_json(update, bot_app.bot))
    await emu.wait_for_answer(query)
    answers = lambda: [  # noqa: E731
        c
        for c in emu.api_log
        if c["method"] == "answerCallbackQuery" and c["params"].get("callback_query_id") == query.id
    ]
    await emu.wait_for(lambda: len(answers()) >= 2, timeout=5, description="both deliveries handled")
    await bot_app.bot_data["outbox"].flush()
    after = await logged(bot_app)
    assert after[len(before)][1] == 0
    assert await taps_applied(bot_app) == applied + 1, "the redelivered update acted again"
    assert [s for s, _, _ in after] == list(range(1, len(after) + 1))
    assert not query.answer_text or "wrong" not in query.answer_text
    assert "error handling an update" not in caplog.text


Meanwhile = Callable[[int, Any, int | None], Awaitable[None]]


def before_the_id_comes_back(monkeypatch: pytest.MonkeyPatch, app: Application, meanwhile: Meanwhile) -> None:
    """Each new message is on screen before Telegram's answer with its id reaches the bot: `meanwhile`
    (chat id, keyboard, message id) runs in between."""
    outbox = app.bot_data["outbox"]
    send = outbox.send

    def sending(chat_id: int, text: str, markup: Any = None, **kwargs: Any) -> asyncio.Future[int | None]:
        async def sent() -> int | None:
            message_id = await send(chat_id, text, markup, **kwargs)
            await meanwhile(chat_id, markup, message_id)
            return message_id

        return asyncio.ensure_future(sent())

    monkeypatch.setattr(outbox, "send", sending)


def answers_come_late(monkeypatch: pytest.MonkeyPatch, app: Application) -> None:
    """Telegram's answer to each new message, with its id, reaches the bot 0.3 s after people see it."""

    async def pause(_chat_id: int, _markup: Any, _message_id: int | None) -> None:
        await asyncio.sleep(0.3)

    before_the_id_comes_back(monkeypatch, app, pause)


async def test_a_lobby_tapped_before_the_bot_stored_its_id_is_edited_not_posted_again(
    bot_app: Application, emulator: TelegramEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    emu = emulator
    answers_come_late(monkeypatch, bot_app)
    # Each player taps Join the moment the lobby appears; Table.seated waits for their names in it.
    table = await Table.seated(emu, ["Ann", "Ben"])
    lobbies = [
        m
        for m in emu.bot_messages(table.group.id)
        if any(b["callback_data"].endswith(":join") for b in buttons(m))
    ]
    assert [m.message_id for m in lobbies] == [table.lobby_now().message_id]


async def test_a_turn_message_acted_on_before_the_bot_recorded_it_keeps_no_buttons(
    bot_app: Application, emulator: TelegramEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player is quicker than the bot: he taps (or types) in a new turn message while the bot is still
    waiting for Telegram's answer with its id. His move must leave that message without buttons."""
    emu = emulator
    answers_come_late(monkeypatch, bot_app)
    table = await Table.seated(emu, ["Ann"])
    await table.begin()
    (ann,) = table.humans
    rng = random.Random(3)
    acted_in: list[int] = []
    for turn in range(8):
        # Her turn: a new message, or (when it comes straight back to her) the one she just acted in.
        # Generous: on a loaded two-core CI machine the five computers' moves after hers can take seconds.
        try:
            await emu.wait_for(lambda: table.turn_to_act_on(ann.id) or table.round_over(1), timeout=30)
        except TimeoutError:
            answers = [(q.data, q.answer_text) for q in emu.world.callback_queries.values()]
            raise AssertionError(
                f"no next turn, no round's end:\n{table.dump()}\nanswers: {answers}"
            ) from None
        msg = table.turn_to_act_on(ann.id)
        if msg is None:
            break  # the round is over
        table.note_acted(ann, msg)
        data = choose_tap(msg, rng)
        assert data.startswith("a:"), "round 1 has no tribute to compose"
        if turn % 2 and data.split(":")[3][:1] == "p":
            label = next(b["text"] for b in buttons(msg) if b["callback_data"] == data)
            emu.user_sends(ann, ann.id, label.removeprefix("▶ "))
        else:
            emu.tap(ann, msg, data)
        acted_in.append(msg.message_id)

    def left_with_buttons() -> list[int]:
        chat = emu.world.chat(ann.id)
        current = turn_message(emu, ann.id)
        live = current.message_id if current is not None and table.turn_to_act_on(ann.id) else None
        return [m for m in acted_in if m != live and move_buttons(chat.messages[m])]

    assert len(acted_in) >= 3
    await emu.wait_for(lambda: not left_with_buttons(), timeout=10, description="no buttons left behind")


async def test_a_turn_message_whose_turn_another_worker_closed_meanwhile_loses_its_buttons(
    bot_app: Application, emulator: TelegramEmulator, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Two bot processes: while this one's new turn message is on its way, the player's move (typed at
    once) reaches the other one, which moves the table on and shows it in the message it knew of."""
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben"])
    await table.begin()
    ann, ben = table.humans
    rng = random.Random(4)
    await turn_with_a_tap(table, ann.id, rng)
    other = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'gouji.db'}")
    other_uow = uow_factory(other)
    raced: list[tuple[int, int]] = []

    async def other_worker_moves_on(chat_id: int, markup: Any, message_id: int | None) -> None:
        if chat_id in (ann.id, ben.id) and markup is not None and not raced and message_id is not None:
            raced.append((chat_id, message_id))
            other_service = TableService(other_uow, bot_id=bot_app.bot.id)
            view = await other_service.reads.load(1)
            assert view.match is not None and view.to_act is not None and view.to_act.user_id == chat_id
            legal = view.match.legal_actions()
            action = next((a for a in legal if str(a) == "pass"), legal[0])
            await other_service.play.act(1, chat_id, action, version=view.version)

    before_the_id_comes_back(monkeypatch, bot_app, other_worker_moves_on)
    try:
        # They play on until a new turn message is on its way (a turn that comes straight back is an edit).
        await table.play_until(lambda: bool(raced) or table.round_over(), rng, type_some=False)
        if not raced:
            pytest.skip("the round ended before a new turn message")  # pragma: no cover
        chat_id, message_id = raced[0]
        left = emu.world.chat(chat_id).messages[message_id]
        await emu.wait_for(lambda: not move_buttons(left), timeout=5, description="its buttons gone")
        assert "your turn" not in (left.text or "")
    finally:
        await other.dispose()


async def test_a_tap_answered_after_telegram_stopped_waiting_is_no_error(
    bot_app: Application, emulator: TelegramEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram waits a few seconds for a tap's answer; an answer after that (a slow moment, or a second
    worker that got the same update) is refused. The bot logs no error and tells the player nothing."""
    emu = emulator
    table = await Table.seated(emu, ["Ann"])
    await table.begin()
    (ann,) = table.humans
    await turn_with_a_tap(table, ann.id, random.Random(5))
    msg = turn_message(emu, ann.id)
    assert msg is not None
    data = a_tap(msg)
    await emu.wait_for_answer(emu.tap(ann, msg, data))
    said = len(emu.bot_messages(ann.id))

    late = emu.forge_tap(ann, msg, data)  # the old button again, now out of date
    late.answered = True  # ... and Telegram no longer waits for its answer
    answers = lambda: [  # noqa: E731
        c
        for c in emu.api_log
        if c["method"] == "answerCallbackQuery" and c["params"].get("callback_query_id") == late.id
    ]
    await emu.wait_for(answers, timeout=5, description="the bot's answer")
    await bot_app.bot_data["outbox"].flush()
    assert "error handling an update" not in caplog.text
    assert len(answers()) == 1, "the bot tried again to answer a tap Telegram gave up on"
    assert not any("went wrong" in (m.text or "") for m in emu.bot_messages(ann.id)[said:])
