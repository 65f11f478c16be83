"""What people and modified clients can throw at the bot: forged and random button data, overlong and
malformed texts, unicode junk, commands from people not seated. Nothing crashes, nothing changes at the table,
a clear answer comes where one is due, and no hand reaches a group or a log line."""

from __future__ import annotations

import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from players import Table, hands_seen, turn_message
from telegram.ext import Application

from bot.main import quiet_request_logs
from emulator import TelegramEmulator

JUNK = [
    "x" * 5000,
    "/p " + "9" * 4990,
    "\u202e\u0000\ud7ff" * 10,
    "🂡🃏" * 50,
    "/p",
    "/p @@@",
    "  \t.",
    "烧",
    "play",
]


def fuzzed_callback_data() -> list[str]:
    """Random and near-valid callback data, drawn by hypothesis (bounded: drawn once, replayed at the bot)."""
    drawn: list[str] = []
    near = st.builds(
        lambda kind, table, version, arg: f"{kind}:{table}:{version}:{arg}",
        st.sampled_from(["a", "k", "l", "s", "zz", ""]),
        st.one_of(st.integers(-2, 3), st.just(10**30)),
        st.one_of(st.integers(-1, 400), st.just(2**64)),
        st.text(max_size=70),
    )

    @settings(max_examples=60, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(st.one_of(st.text(max_size=80), near))
    def draw(data: str) -> None:
        drawn.append(data)

    draw()
    return drawn


async def table_state(app: Application) -> tuple[int, list[int]]:
    async with app.bot_data["uow"]() as u:
        table = await u.tables.get(1)
        assert table is not None
        return table.version, [a.seq for a in await u.actions.of_table(1)]


async def test_junk_forged_buttons_and_strangers_change_nothing_and_leak_no_hand(
    bot_app: Application, emulator: TelegramEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    emu = emulator
    levels = {n: logging.getLogger(n).level for n in ("httpx", "telegram", "httpcore")}
    quiet_request_logs()  # the logging set-up of bot.main
    caplog.set_level(logging.DEBUG)
    try:
        table = await Table.seated(emu, ["Ann", "Ben"])
        await table.begin()
        ann, ben = table.humans
        await emu.wait_for(
            lambda: turn_message(emu, ann.id) or turn_message(emu, ben.id), timeout=10, description="a turn"
        )
        mallory = emu.create_user("Mallory", language_code="en")
        emu.add_member(table.group, mallory)
        emu.start_bot(mallory)
        await emu.wait_for(lambda: emu.bot_messages(mallory.id), timeout=5)
        await bot_app.bot_data["outbox"].flush()
        before = await table_state(bot_app)

        # Button data no button carries, from a seated player's turn message and from a stranger's chat.
        own = turn_message(emu, ann.id) or turn_message(emu, ann.id) or emu.bot_messages(ann.id)[-1]
        queries = []
        for i, data in enumerate(fuzzed_callback_data()):
            if not data or len(data.encode()) > 64:
                continue  # a Telegram client cannot send these
            user, msg = (ann, own) if i % 2 else (mallory, emu.bot_messages(mallory.id)[-1])
            queries.append(emu.forge_tap(user, msg, data))
        queries.append(emu.forge_tap(mallory, table.lobby_now(), "l:1:0:stop"))
        for q in queries:
            answered = await emu.wait_for_answer(q, timeout=10)
            assert "Traceback" not in (answered.answer_text or "")

        # Texts: overlong, malformed, junk, in private and as commands in the group.
        said = []
        for text in JUNK:
            said.append((ben.id, emu.user_sends(ben, ben.id, text)))
            said.append((mallory.id, emu.user_sends(mallory, mallory.id, text)))
        commands = ("/begin", "/leave", "/stop", "/join", "/addbot", "/new x" * 3)
        first = emu.user_sends(mallory, table.group.id, commands[0])
        for command in commands[1:]:
            emu.user_sends(mallory, table.group.id, command)
        for chat_id, msg in said:
            reply = await emu.wait_for_bot_message(chat_id, after=msg, timeout=10)
            assert reply.text and "Traceback" not in reply.text
        # Each of the stranger's commands got a reply of its own (the group speaks Chinese by default).
        replies = lambda: [  # noqa: E731
            m.text or "" for m in emu.bot_messages(table.group.id) if m.message_id > first.message_id
        ]
        await emu.wait_for(lambda: len(replies()) >= len(commands), timeout=10, description="the replies")
        assert all(t and "Traceback" not in t for t in replies())
        await bot_app.bot_data["outbox"].flush()
        assert await table_state(bot_app) == before, "junk changed the table"
        assert "error handling an update" not in caplog.text
        assert emu.internal_errors == []

        # Play on a little so hands have been dealt and redrawn, then look for them in the group and logs.
        import random

        await table.play_until(
            lambda: len(hands_seen(emu, ann.id)) >= 3 or table.round_over(), random.Random(3)
        )
        await bot_app.bot_data["outbox"].flush()
        table.assert_no_hand_in_group()
        hands = {h for u in table.humans for h in hands_seen(emu, u.id) if len(h.split()) >= 4}
        assert hands
        logged = caplog.text
        assert not [h for h in hands if h in logged], "a hand reached the logs"
    finally:
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
