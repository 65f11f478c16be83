"""End to end: the real Application over HTTP against the local Bot API emulator (issue 5's scenarios)."""

from __future__ import annotations

import random

from players import Table, round_summaries
from telegram.ext import Application

from emulator import TelegramEmulator


async def test_whole_round_one_human_five_computers(bot_app: Application, emulator: TelegramEmulator) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Alice"])
    await table.begin()

    await table.play_until(table.round_over, random.Random(1))

    summary = round_summaries(emu, table.group.id)[0]
    assert "Alice" in summary.text
    assert "总分：甲队" in summary.text  # the group speaks Chinese unless /settings says otherwise
    # The lobby message was edited in place into the table, and on to the final table.
    final = table.lobby_now()
    assert "第 1 局" in (final.text or "") and len(final.history) > 3
    # Alice's hand came to her private chat, in English, and never to the group.
    assert any("Your cards" in (m.text or "") for m in emu.bot_messages(table.humans[0].id))
    table.assert_no_hand_in_group()


async def test_six_humans_play_a_round_and_pay_tribute_in_the_next(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben", "Cai", "Dan", "Eve", "Fei"], bots=False)
    await table.begin()
    await table.play_until(table.round_over, random.Random(2))
    table.assert_no_hand_in_group()

    summary = round_summaries(emu, table.group.id)[0]
    next_button = next(
        b["callback_data"] for row in summary.buttons for b in row if b["callback_data"].endswith(":next")
    )
    emu.tap(table.humans[0], summary, next_button)

    service = bot_app.bot_data["service"]
    # Round 2 is dealt: the debts of round 1 are paid before its first lead, shown to the table card by card.
    await emu.wait_for(
        lambda: "round 2" in (emu.bot_messages(table.humans[0].id)[-1].text or ""),
        timeout=10,
        description="round 2",
    )
    match = (await service.reads.load(1)).match
    assert match is not None and match.round_no == 2
    paid = [e for e in match.shown if e["kind"].startswith("tribute_") and e.get("cards")]
    expected = [f"贡：{' '.join(_groups(e['cards']))}" for e in paid]

    def shown() -> bool:
        group = "\n".join(m.text or "" for m in emu.bot_messages(table.group.id))
        return all(line in group for line in expected)

    await emu.wait_for(shown, timeout=10, description="every tribute card shown in the group")
    table.assert_no_hand_in_group()


def _groups(cards: str) -> list[str]:
    out: list[str] = []
    for ch in cards:
        if out and out[-1][0] == ch:
            out[-1] += ch
        else:
            out.append(ch)
    return out
