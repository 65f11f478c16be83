"""One process, one port on 127.0.0.1: the emulator (Bot API and /_emu/ control routes), the page and its
/_pg/ routes, and the real bot polling that emulator, on a SQLite file of its own."""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
from pathlib import Path
from typing import Any

from aiohttp import web
from telegram.ext import Application

from bot.app import build_application, start_application, stop_application
from bot.config import Settings
from emulator import TelegramEmulator
from emulator.state import Chat, User

from . import api

HOST = "127.0.0.1"
GROUP_TITLE = "Playground"
FIRST_PLAYER = "You"
LANGUAGES = ("en", "zh")
# The emulator enforces no flood limits, and Telegram's 20 group messages a minute would only make the
# group pane lag behind the game.
GROUP_MESSAGES_PER_MINUTE = 6000
PRIVATE_MESSAGES_PER_3S = 3000
SHUTDOWN_WAIT_S = 2.0


class PlaygroundEmulator(TelegramEmulator):
    """The emulator with the page and its API served next to the Bot API."""

    def __init__(self, playground: Playground, *, port: int) -> None:
        super().__init__(bot_name="Gouji Bot", bot_username="gouji_playground_bot", host=HOST, port=port)
        self.playground = playground

    def make_app(self) -> web.Application:
        app = super().make_app()
        api.register(app, self.playground)
        return app


class Playground:
    """The bot against an embedded emulator with a group "Playground" and one player, "You", in it.

    The database is a SQLite file in a temporary directory unless ``database_url`` is given: the
    emulator forgets its chats at exit, so tables kept from an earlier run would point at nothing.
    With ``open_table`` "You" sends /new at start, so the page opens on a lobby.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        port: int = 0,
        database_url: str | None = None,
        open_table: bool = True,
    ) -> None:
        self.settings = settings or Settings(bot_token=None)
        self.emulator = PlaygroundEmulator(self, port=port)
        self.open_table = open_table
        self._database_url = database_url
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.app: Application | None = None
        self.group: Chat | None = None
        self.players: list[User] = []

    @property
    def url(self) -> str:
        return f"{self.emulator.base_url}/"

    async def start(self) -> str:
        """Serve, start the bot, create the group and its first player; return the page's address."""
        try:
            await self.emulator.start()
            self.app = build_application(self._bot_settings())
            await start_application(self.app)
            you = self.emulator.create_user(FIRST_PLAYER, language_code="en")
            self.players.append(you)
            self.group = self.emulator.create_group(GROUP_TITLE, [you])
            self.emulator.start_bot(you)
            if self.open_table:
                self.emulator.user_sends(you, self.group, "/new")
        except BaseException:
            await self.stop()
            raise
        return self.url

    def _bot_settings(self) -> Settings:
        database_url = self._database_url
        if database_url is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="gouji-playground-")
            database_url = f"sqlite+aiosqlite:///{Path(self._tmp.name) / 'playground.db'}"
        return dataclasses.replace(
            self.settings,
            bot_token=self.emulator.token,
            database_url=database_url,
            api_base_url=self.emulator.api_base_url,
            webhook_url=None,
            group_messages_per_minute=GROUP_MESSAGES_PER_MINUTE,
            private_messages_per_3s=PRIVATE_MESSAGES_PER_3S,
            # Ctrl+C forgets the games: a message still queued is not worth the bot's 30 s wait at a stop.
            shutdown_wait_s=SHUTDOWN_WAIT_S,
        )

    async def stop(self) -> None:
        if self.app is not None:
            await stop_application(self.app)
            self.app = None
        await self.emulator.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    async def __aenter__(self) -> Playground:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    def add_player(self, first_name: str, language_code: str = "en", *, started: bool = True) -> User:
        """Another human in the group; ``started`` means he has pressed Start in his private chat."""
        if self.group is None:
            raise RuntimeError("the playground is not started")
        user = self.emulator.create_user(first_name, language_code=language_code)
        self.emulator.add_member(self.group, user)
        self.players.append(user)
        if started:
            self.emulator.start_bot(user)
        return user

    def view(self) -> dict[str, Any]:
        """What the page needs to lay out its panes; the messages come from /_emu/chats/{id}/messages."""
        assert self.group is not None
        return {
            "bot": self.emulator.world.bot.to_api(),
            "group": {"id": self.group.id, "title": self.group.title},
            "players": [self.emulator.world.user_summary(user) for user in self.players],
            "languages": list(LANGUAGES),
            "last_seq": self.emulator.journal.last_seq,
        }


async def _serve(settings: Settings, port: int, hint: str | None) -> None:
    playground = Playground(settings, port=port)
    url = await playground.start()
    lines = [
        "gouji-bot playground: the real bot against a local Telegram emulator (nothing leaves this machine).",
        f"  Open {url} in a browser. Ctrl+C stops it; the games are forgotten then.",
    ]
    if hint:
        lines += ["", "To run the bot on Telegram instead:", hint]
    print("\n".join(lines), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await playground.stop()


def serve(settings: Settings, *, port: int, hint: str | None = None) -> int:
    """Run the playground until Ctrl+C; the exit status for the command line."""
    try:
        asyncio.run(_serve(settings, port, hint))
    except KeyboardInterrupt:
        pass
    except OSError as error:
        print(f"gouji-bot: cannot serve on {HOST}:{port} ({error.strerror}); try --port", flush=True)
        return 1
    return 0
