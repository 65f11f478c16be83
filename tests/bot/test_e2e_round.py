"""End to end: the real Application over HTTP against the local Bot API emulator."""

from __future__ import annotations

import random
import re

from players import buttons, choose_tap, turn_message
from telegram.ext import Application

from bot.emulator import TelegramEmulator

ROUND_OVER = re.compile(r"(Round \d+ is over|第 \d+ 局结束)")


def group_texts(emu: TelegramEmulator, group_id: int) -> list[str]:
    texts = []
    for msg in emu.messages(group_id):
        if msg.from_bot:
            texts += [rev.text or "" for rev in msg.history] or [msg.text or ""]
    return texts


async def open_table(emu: TelegramEmulator, group_id: int, user) -> object:  # noqa: ANN001
    said = emu.user_sends(user, group_id, "/new")
    return await emu.wait_for_bot_message(group_id, after=said)


def lobby_button(lobby, arg: str) -> str:  # noqa: ANN001
    """The callback data of a lobby button by what it does (join, bots, begin…), whatever the language."""
    return next(b["callback_data"] for b in buttons(lobby) if b["callback_data"].endswith(":" + arg))


async def play_until_round_over(
    emu: TelegramEmulator, group_id: int, humans: list, rng: random.Random, *, type_some: bool = True
) -> None:  # noqa: ANN001
    acted: dict[int, tuple[int, int]] = {}
    for _ in range(3000):
        if any(ROUND_OVER.search(m.text or "") for m in emu.bot_messages(group_id)):
            return
        progressed = False
        for user in humans:
            msg = turn_message(emu, user.id)
            if msg is None:
                continue
            stamp = (msg.message_id, len(msg.history))
            if acted.get(user.id) == stamp:
                continue
            acted[user.id] = stamp
            data = choose_tap(msg, rng)
            if type_some and data.split(":")[3][:1] == "p" and rng.random() < 0.3:
                # Type the play instead of tapping it, as RULES.md notation.
                label = next(b["text"] for b in buttons(msg) if b["callback_data"] == data)
                emu.user_sends(user, user.id, label.removeprefix("▶ ").removeprefix("Play "))
            else:
                emu.tap(user, msg, data)
            progressed = True
        if not progressed:
            try:
                await emu.wait_for(
                    lambda: _something_new(emu, humans, acted, group_id),
                    timeout=20,
                    description="the bot to move on",
                )
            except TimeoutError:
                raise AssertionError(dump(emu, [group_id] + [u.id for u in humans])) from None
    raise AssertionError("the round did not end")


def dump(emu: TelegramEmulator, chats: list[int]) -> str:
    lines = []
    for chat in chats:
        for m in emu.messages(chat)[-4:]:
            lines.append(
                f"{chat} {'bot' if m.from_bot else 'user'}: {(m.text or '')[-150:]!r} {m.buttons[:1]}"
            )
    return "\n".join(lines)


def _something_new(emu: TelegramEmulator, humans: list, acted: dict, group_id: int) -> bool:  # noqa: ANN001
    if any(ROUND_OVER.search(m.text or "") for m in emu.bot_messages(group_id)):
        return True
    for user in humans:
        msg = turn_message(emu, user.id)
        if msg is not None and acted.get(user.id) != (msg.message_id, len(msg.history)):
            return True
    return False


async def test_whole_round_one_human_five_computers(bot_app: Application, emulator: TelegramEmulator) -> None:
    emu = emulator
    alice = emu.create_user("Alice", language_code="en")
    group = emu.create_group("Friends", [alice])
    emu.start_bot(alice)
    lobby = await open_table(emu, group.id, alice)

    emu.tap(alice, lobby, lobby_button(lobby, "join"))
    await emu.wait_for(
        lambda: "Alice" in (emu.world.chat(group.id).messages[lobby.message_id].text or ""),
        description="Alice seated",
    )
    lobby = emu.world.chat(group.id).messages[lobby.message_id]
    emu.tap(alice, lobby, lobby_button(lobby, "bots"))
    await emu.wait_for(
        lambda: "（空）" not in (emu.world.chat(group.id).messages[lobby.message_id].text or ""),
        description="computers seated",
    )
    lobby = emu.world.chat(group.id).messages[lobby.message_id]
    emu.tap(alice, lobby, lobby_button(lobby, "begin"))

    try:
        await play_until_round_over(emu, group.id, [alice], random.Random(1))
    except AssertionError:
        tables = bot_app.bot_data["services"].tables
        snap = await tables.snapshot(1)
        m = snap.state
        for entry in emu.api_log[-15:]:
            print("API", str(entry)[:300])
        print("STATE", m.phase, m.current_player, m.round.to_json() if m.round else None, snap.seats)
        raise

    summary = next(m for m in emu.bot_messages(group.id) if ROUND_OVER.search(m.text or ""))
    assert "Alice" in summary.text
    assert "总分：甲队" in summary.text  # the group speaks Chinese unless /settings says otherwise
    # The table message was edited in place into the final table.
    table = emu.world.chat(group.id).messages[lobby.message_id]
    assert "第 1 局" in (table.text or "") and len(table.history) > 3
    # Alice's hand was shown to her privately, and never in the group.
    private = [m for m in emu.bot_messages(alice.id) if (m.text or "").startswith("[Friends]")]
    assert private, "Alice got her hand in private"
    hands = {
        (rev.text or "").splitlines()[2]
        for m in private
        for rev in m.history
        if len((rev.text or "").splitlines()) > 2
    }
    long_hands = [h for h in hands if len(h.split()) >= 4]
    assert long_hands
    for text in group_texts(emu, group.id):
        for hand in long_hands:
            assert hand not in text
