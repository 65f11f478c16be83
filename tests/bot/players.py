"""Scripted human players: they read their private chat in the emulator and tap or type, as a person would."""

from __future__ import annotations

import random
import re

from bot.emulator import TelegramEmulator
from bot.emulator.state import StoredMessage

HAND_HEADER = re.compile(r"^\[(?P<group>.+?)\] ")


def turn_message(emu: TelegramEmulator, user_id: int) -> StoredMessage | None:
    """The private message that currently shows buttons to act with (the player's turn), if any."""
    for msg in reversed(emu.bot_messages(user_id)):
        if msg.buttons and any(
            b.get("callback_data", "").startswith("a:") for row in msg.buttons for b in row
        ):
            return msg
    return None


def buttons(msg: StoredMessage) -> list[dict]:
    return [b for row in msg.buttons for b in row]


def choose_tap(msg: StoredMessage, rng: random.Random) -> str:
    """The callback data a simple player taps: a one-tap play, else pass; when leading, a rank then Play."""
    all_buttons = buttons(msg)
    one_tap = [b for b in all_buttons if b["text"].startswith("▶ ")]
    passes = [b for b in all_buttons if b["callback_data"].endswith(":x")]
    choices = [
        b
        for b in all_buttons
        if b["callback_data"].startswith("a:") and not b["callback_data"].endswith(":h")
    ]
    if one_tap and (not passes or rng.random() < 0.7):
        return rng.choice(one_tap)["callback_data"]
    if passes:
        return passes[0]["callback_data"]
    return rng.choice(choices)["callback_data"]
