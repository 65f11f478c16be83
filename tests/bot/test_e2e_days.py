"""Issue 22 end to end: a game that lasts days, as each of three friends lives it in his private chat and the
group, with 24-hour turns and three computers. Every player is asked his question before the first lead within
seconds of the deal, whoever answers first; a player who is not to act has his hand one command away; nobody
gets two turn messages for one turn; every turn message tells every play since his last move.

Run with ``-s`` to read the figures of the closing note: each private chat's new messages over two rounds, how
many rang, and the time from the deal to the first lead when everyone answers at once."""

from __future__ import annotations

import json
import random
from typing import Any

from players import Table, buttons, choose_tap, lobby_button, round_summaries, turn_message
from telegram.ext import Application

from bot import codec
from emulator import TelegramEmulator
from emulator.state import StoredMessage
from engine.cards import format_cards
from engine.match import parse_action

DAY = 86_400


async def _day_long_turns(emu: TelegramEmulator, table: Table) -> None:
    said = emu.user_sends(table.humans[0], table.group.id, "/settings")
    panel = await emu.wait_for_bot_message(table.group.id, after=said)
    data = next(b["callback_data"] for b in buttons(panel) if b["callback_data"].endswith(f":t:{DAY}"))
    await emu.wait_for_answer(emu.tap(table.humans[0], panel, data))


async def _log(bot_app: Application, table_id: int) -> list[Any]:
    service = bot_app.bot_data["service"]
    async with service.context.uow() as uow:
        return list(await uow.actions.of_table(table_id))


def _asks(markup: Any) -> bool:
    """A keyboard with buttons that act (a move, a choice, the composer of 还贡), as sent."""
    if isinstance(markup, str):
        markup = json.loads(markup)
    rows = (markup or {}).get("inline_keyboard", [])
    return any(codec.moves(b.get("callback_data", "")) for row in rows for b in row)


def _since_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.startswith("Since your last move:")), "")


async def test_three_friends_over_days_are_asked_at_once_and_told_every_play(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben", "Cai"], bots=True)
    await _day_long_turns(emu, table)
    names = {0: "Ann", 1: "Ben", 2: "Cai", 3: "Computer 4", 4: "Computer 5", 5: "Computer 6"}
    table_id = int(lobby_button(table.lobby_now(), "begin").split(":")[1])
    started = len(emu.api_log)
    await table.begin()
    dealt_at = emu.api_log[started]["at"]

    # Every human is asked his question within seconds of the deal, before anyone answers.
    await emu.wait_for(
        lambda: all(turn_message(emu, u.id) is not None for u in table.humans),
        timeout=10,
        description="a question for every human at the deal",
    )
    asked_at = max(emu.api_log[-1]["at"], dealt_at)
    assert asked_at - dealt_at < 5

    rng = random.Random(22)
    decided_at: dict[int, int] = {}  # user -> the log's length when he last decided (before his move)
    seen: dict[int, tuple[int, int]] = {}
    turn_messages: dict[int, list[int]] = {u.id: [] for u in table.humans}
    acted: dict[int, list[int]] = {u.id: [] for u in table.humans}  # where in the API log he acted
    checked = 0
    for _ in range(4000):
        if len(round_summaries(emu, table.group.id)) >= 2:
            break
        progressed = False
        summary = next(
            (
                m
                for m in reversed(emu.bot_messages(table.group.id))
                if any(b["callback_data"].endswith(":next") for b in buttons(m))
            ),
            None,
        )
        if summary is not None and seen.get(table.group.id) != (summary.message_id, len(summary.history)):
            seen[table.group.id] = (summary.message_id, len(summary.history))
            emu.tap(table.humans[0], summary, lobby_button(summary, "next"))
            decided_at.clear()
            for taps in acted.values():
                taps.append(len(emu.api_log))  # a new deal: a new question for everyone
            progressed = True
        log = await _log(bot_app, table_id)
        for user in table.humans:
            msg: StoredMessage | None = turn_message(emu, user.id)
            if msg is None or seen.get(user.id) == (msg.message_id, len(msg.history)):
                continue
            seen[user.id] = (msg.message_id, len(msg.history))
            if msg.message_id not in turn_messages[user.id]:
                turn_messages[user.id].append(msg.message_id)
            text = msg.text or ""
            since = _since_line(text)
            if user.id in decided_at and "your turn" in text:
                # Every play since his own last decision is in his list, the one he was passed on included.
                plays = [e for e in log[decided_at[user.id] + 1 :] if e.action.startswith(("play", "burn"))]
                for e in plays:
                    action = parse_action(e.action)
                    assert action.cards is not None
                    assert format_cards(action.cards) in since and names[e.seat] in since, (since, e.action)
                checked += 1
            # A player who is not to act sees his hand, with the right count, from his private chat.
            other = next(
                (u for u in table.humans if u.id != user.id and turn_message(emu, u.id) is None), None
            )
            if other is not None and rng.random() < 0.05:
                said = emu.user_sends(other, other.id, "/hand")
                reply = await emu.wait_for_bot_message(other.id, after=said)
                assert "Your cards (" in (reply.text or "")
            data = choose_tap(msg, rng)
            if data.startswith("a:"):
                decided_at[user.id] = len(log)
                acted[user.id].append(len(emu.api_log))
            emu.tap(user, msg, data)
            progressed = True
        if not progressed:
            await emu.wait_for(
                lambda: (
                    any(
                        (m := turn_message(emu, u.id)) is not None
                        and seen.get(u.id) != (m.message_id, len(m.history))
                        for u in table.humans
                    )
                    or len(round_summaries(emu, table.group.id)) >= 2
                    or any(
                        any(b["callback_data"].endswith(":next") for b in buttons(m))
                        and seen.get(table.group.id) != (m.message_id, len(m.history))
                        for m in emu.bot_messages(table.group.id)[-3:]
                    )
                ),
                timeout=20,
                description="the game to move on",
            )
    assert len(round_summaries(emu, table.group.id)) >= 2
    assert checked > 10

    # No human got two turn messages for one turn: between two new messages asking him to act, he acted.
    for user in table.humans:
        calls = [
            (i, c)
            for i, c in enumerate(emu.api_log)
            if i >= started
            and c["method"] == "sendMessage"
            and str(c["params"].get("chat_id")) == str(user.id)
        ]
        asking = [i for i, c in calls if _asks(c["params"].get("reply_markup"))]
        for earlier, later in zip(asking, asking[1:], strict=False):
            assert any(earlier < a < later for a in acted[user.id]), f"{user.first_name}: two turn messages"
        rang = [c for _, c in calls if not c["params"].get("disable_notification")]
        assert len(rang) <= len(asking), "only what asks something of him rings"
        print(
            f"{user.first_name}: {len(calls)} new messages, {len(rang)} rang, {len(asking)} asked him to act"
        )
    service = bot_app.bot_data["service"]
    async with service.context.uow() as uow:
        dealt = await uow.rounds.get(table_id, 1)
        log = await uow.actions.of_round(table_id, 1)
    assert dealt is not None
    first_lead = next(e.created_at for e in log if e.action.startswith("play"))
    # From the deal (stored) to the first card played (stored): every question was asked at once and each
    # player here answers as soon as his question reaches him.
    print(f"deal to the first lead: {(first_lead - dealt.started_at).total_seconds():.2f} s")
