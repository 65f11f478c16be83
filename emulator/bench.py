"""Throughput and latency of the emulator as a real PTB bot sees them.

    python -m emulator.bench [--messages 500]

Prints sendMessage round trips per second through ``telegram.Bot`` (with every call held against the
published Bot API, and without), the time that check takes for a message with a keyboard of 24 buttons, and
the time from a user's message to the echo of a polling ``Application`` (median and 95th percentile).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

from .schema_check import check_call
from .server import TelegramEmulator

# A turn message's worth of keyboard: four rows of six buttons, each with callback data.
KEYBOARD = InlineKeyboardMarkup(
    [[InlineKeyboardButton(f"{r}{c}", callback_data=f"a:1:2:p{r}{c}") for c in range(6)] for r in range(4)]
)


async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text(update.effective_message.text or "")


async def sends_per_second(messages: int, check_calls: bool) -> float:
    async with TelegramEmulator(check_calls=check_calls) as emu:
        alice = emu.create_user("Alice")
        emu.start_bot(alice)
        async with Bot(emu.token, base_url=emu.api_base_url) as bot:
            began = time.perf_counter()
            for n in range(messages):
                await bot.send_message(
                    alice.id, f"<b>message</b> {n}", parse_mode="HTML", reply_markup=KEYBOARD
                )
            return messages / (time.perf_counter() - began)


def check_time(repeats: int = 2000) -> float:
    params = {"chat_id": "100000001", "text": "<b>Your turn</b>", "parse_mode": "HTML"}
    params["reply_markup"] = json.dumps(KEYBOARD.to_dict())
    began = time.perf_counter()
    for _ in range(repeats):
        check_call("sendMessage", params)
    return (time.perf_counter() - began) / repeats


async def measure(messages: int) -> None:
    for check_calls in (True, False):
        rate = await sends_per_second(messages, check_calls)
        print(
            f"sendMessage with a 24-button keyboard via telegram.Bot, check {'on' if check_calls else 'off'}: "
            f"{rate:.0f} calls/s ({messages} sequential calls)"
        )
    print(f"the check against the published Bot API, such a sendMessage: {check_time() * 1e6:.0f} µs a call")
    async with TelegramEmulator() as emu:
        alice = emu.create_user("Alice")
        emu.start_bot(alice)

        app = Application.builder().token(emu.token).base_url(emu.api_base_url).build()
        app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND, echo))
        latencies: list[float] = []
        async with app:
            await app.start()
            assert app.updater is not None
            await app.updater.start_polling(poll_interval=0.0, timeout=10)
            rounds = max(messages // 5, 10)
            for n in range(rounds):
                began = time.perf_counter()
                said = emu.user_sends(alice, alice, f"ping {n}")
                await emu.wait_for_bot_message(alice, after=said, timeout=10)
                latencies.append(time.perf_counter() - began)
            await app.updater.stop()
            await app.stop()
        latencies.sort()
        p95 = latencies[int(len(latencies) * 0.95) - 1]
        print(
            f"user message -> polling Application echo: median {statistics.median(latencies) * 1000:.1f} ms, "
            f"p95 {p95 * 1000:.1f} ms ({rounds} round trips)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=500)
    asyncio.run(measure(parser.parse_args().messages))


if __name__ == "__main__":
    main()
