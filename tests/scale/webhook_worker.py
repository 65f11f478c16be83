"""One bot process in webhook mode, for the scale tests: the real ``bot.app.run`` with settings from the
environment, and rate limits far above Telegram's (the emulator enforces none here)."""

from __future__ import annotations

import dataclasses
import logging

from bot.app import run
from bot.config import Settings


def main() -> None:
    settings = dataclasses.replace(
        Settings.from_env(None), group_messages_per_minute=100_000, messages_per_second=100_000
    )
    logging.basicConfig(level=logging.WARNING, format="%(process)d %(levelname)s %(name)s: %(message)s")
    run(settings)


if __name__ == "__main__":
    main()
