"""``gouji-bot``: read the settings, upgrade the database, run the bot (long polling, or webhook).

Without BOT_TOKEN, or with ``--playground``, it runs the playground instead: the same bot against an
embedded Bot API emulator, played in a web page on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import logging
import sys

from .config import Settings

BOTFATHER_STEPS = """  1. In Telegram, talk to @BotFather: send /newbot, pick a name and a username.
  2. BotFather answers with a token like 123456:ABC-DEF...
  3. Put it in a file named .env next to where you run the bot:
         BOT_TOKEN=123456:ABC-DEF...
     (.env.example lists every setting), or export BOT_TOKEN in the shell.
  4. Run gouji-bot again. In BotFather, /setprivacy → Disable lets the bot see typed plays in groups (optional).
"""


def quiet_request_logs() -> None:
    """Keep message texts (and so hands) out of the logs, even at DEBUG: PTB logs every Bot API call with
    its parameters and every update it processes, httpx and httpcore log requests."""
    logging.getLogger("httpx").setLevel(logging.WARNING)
    for name in ("telegram", "httpcore"):
        logging.getLogger(name).setLevel(logging.INFO)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gouji-bot", description="Telegram bot for 够级")
    parser.add_argument("--env-file", default=".env")
    parser.add_argument(
        "--playground",
        action="store_true",
        help="play in a web page against a local Telegram emulator (the default when BOT_TOKEN is not set)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="the playground's port on 127.0.0.1 (default PLAYGROUND_PORT, 8765)",
    )
    args = parser.parse_args(argv)
    settings = Settings.from_env(args.env_file)
    logging.basicConfig(
        level=getattr(logging, settings.log_level, logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    quiet_request_logs()
    if args.playground or not settings.bot_token:
        from playground import serve

        port = settings.playground_port if args.port is None else args.port
        return serve(settings, port=port, hint=None if settings.bot_token else BOTFATHER_STEPS)
    from .app import run

    run(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
