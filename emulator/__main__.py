"""Run the emulator on its own: ``python -m emulator --port 8081``.

Point a bot at ``http://127.0.0.1:PORT/bot`` (PTB's ``base_url``) and drive the users' side
through the /_emu/ routes; ``POST /_emu/bots`` adds another bot (its token in the answer), and every route
acts for the bot its ``bot`` field names.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from .server import DEFAULT_TOKEN, TelegramEmulator


async def serve(port: int, token: str, flood: bool, privacy: bool) -> None:
    emulator = TelegramEmulator(token, port=port, flood_enabled=flood, privacy_mode=privacy)
    base = await emulator.start()
    print(f"Bot API:     {emulator.api_base_url}  (token {token})")
    print(f"Control API: {base}/_emu/state")
    try:
        await asyncio.Event().wait()
    finally:
        await emulator.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description="Local Telegram Bot API emulator")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--token", default=DEFAULT_TOKEN)
    parser.add_argument("--flood", action="store_true", help="enforce Telegram's flood limits")
    parser.add_argument("--no-privacy", action="store_true", help="let the bot see every group message")
    args = parser.parse_args()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args.port, args.token, args.flood, not args.no_privacy))


if __name__ == "__main__":
    main()
