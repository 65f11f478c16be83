"""Settings from the environment and `.env` (see `.env.example`)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from dotenv import load_dotenv

from .pace import Pace

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///gouji.db"


@dataclass(frozen=True)
class Settings:
    # One token, or several separated by commas: one process then serves them all (a fleet, bot/app.py).
    bot_token: str | None
    database_url: str = DEFAULT_DATABASE_URL
    api_base_url: str | None = None  # another Bot API server, e.g. http://127.0.0.1:8081
    webhook_url: str | None = None  # webhook mode when set
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    webhook_secret: str | None = None
    log_level: str = "INFO"
    playground_port: int = 8765
    # Telegram's limits (DESIGN.md): 20 messages a minute in a group, 30 a second in all, about one a second
    # in a private chat (a burst of three in three seconds passes, as the emulator's FloodLimits).
    group_messages_per_minute: int = 20
    messages_per_second: int = 30
    private_messages_per_3s: int = 3
    strong_budget_ms: float = 200.0  # how long a strong computer player thinks per decision
    # Under load the budget bends down to this (bot/computers.py): a weaker move rather than a late one.
    strong_floor_ms: float = 50.0
    strong_workers: int | None = None  # processes thinking for the strong computers; None: one per core
    # How often the desk looks for deadlines another process missed and for tables in play without their
    # deadline (bot/desk.py). Tests with turn times of seconds shorten it.
    sweep_every_s: float = 30.0
    # How long a stop waits for messages still queued (Telegram's limits may hold them back for minutes
    # under load); what is left is shown again by the next start, from what was committed.
    shutdown_wait_s: float = 30.0

    @classmethod
    def from_env(cls, env_file: str | None = ".env") -> Settings:
        if env_file:
            load_dotenv(env_file, override=False)
        env = os.environ
        return cls(
            bot_token=env.get("BOT_TOKEN") or None,
            database_url=env.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            api_base_url=env.get("TELEGRAM_API_BASE_URL") or None,
            webhook_url=env.get("WEBHOOK_URL") or None,
            webhook_listen=env.get("WEBHOOK_LISTEN", "0.0.0.0"),
            webhook_port=int(env.get("WEBHOOK_PORT", "8443")),
            webhook_secret=env.get("WEBHOOK_SECRET") or None,
            log_level=env.get("LOG_LEVEL", "INFO").upper(),
            playground_port=int(env.get("PLAYGROUND_PORT", "8765")),
            # Only for a local Bot API server or emulator without Telegram's limits (tests).
            group_messages_per_minute=int(env.get("GROUP_MESSAGES_PER_MINUTE", "20")),
            messages_per_second=int(env.get("MESSAGES_PER_SECOND", "30")),
            private_messages_per_3s=int(env.get("PRIVATE_MESSAGES_PER_3S", "3")),
            strong_budget_ms=float(env.get("STRONG_BUDGET_MS", "200")),
            strong_floor_ms=float(env.get("STRONG_FLOOR_MS", "50")),
            strong_workers=int(env.get("STRONG_WORKERS") or 0) or None,
            sweep_every_s=float(env.get("SWEEP_EVERY_S", "30")),
            shutdown_wait_s=float(env.get("SHUTDOWN_WAIT_S", "30")),
        )

    def tokens(self) -> list[str]:
        """The bots this process serves: BOT_TOKEN's tokens, in the order given."""
        return [token.strip() for token in (self.bot_token or "").split(",") if token.strip()]

    def pace(self) -> Pace:
        """The limits the outbox of each bot keeps (Telegram counts them per token)."""
        return Pace(
            group_messages=self.group_messages_per_minute,
            group_period=60.0,
            private_messages=self.private_messages_per_3s,
            private_period=3.0,
            total_messages=self.messages_per_second,
            total_period=1.0,
        )

    def api_urls(self) -> tuple[str, str] | None:
        """PTB's base_url and base_file_url for TELEGRAM_API_BASE_URL (the token is appended by PTB)."""
        if not self.api_base_url:
            return None
        root = self.api_base_url.rstrip("/")
        if root.endswith("/bot"):
            root = root[: -len("/bot")]
        return f"{root}/bot", f"{root}/file/bot"
