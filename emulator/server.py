"""The emulator's HTTP face: the Bot API under /bot<TOKEN>/ for every bot it holds, and the control API under
/_emu/."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from . import control_http
from .bots import FIRST_UPDATE_ID, EmulatedBot
from .errors import not_found, unauthorized
from .flood import FloodLimits
from .world import Network

DEFAULT_TOKEN = "123456789:AAEmulatedTelegramBotTokenForTests0"


class TelegramEmulator(EmulatedBot):
    """One emulated Telegram served on 127.0.0.1, with one bot in it to begin with (this object is that bot's
    handle: ``token``, ``updates``, ``flood``, the control methods) and as many more as ``create_bot`` makes.

    ``callback_answer_window``: the seconds in which a tap may be answered (Telegram's is about 15).
    """

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_name: str = "Gouji Test Bot",
        bot_username: str = "gouji_test_bot",
        privacy_mode: bool = True,
        flood_limits: FloodLimits | None = None,
        flood_enabled: bool = False,
        clock: Callable[[], float] = time.monotonic,
        check_calls: bool = True,
        callback_answer_window: float | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        network = Network()
        if callback_answer_window is not None:
            network.callback_answer_window = callback_answer_window
        super().__init__(
            network,
            token,
            name=bot_name,
            username=bot_username,
            privacy_mode=privacy_mode,
            flood_limits=flood_limits,
            flood_enabled=flood_enabled,
            clock=clock,
            check_calls=check_calls,
        )
        self._clock = clock
        self._bot_ids = itertools.count(int(token.partition(":")[0]) + 1)
        self._host, self._port = host, port
        self._runner: web.AppRunner | None = None

    # --- more bots ------------------------------------------------------------------------------------

    def create_bot(
        self,
        name: str = "Another Test Bot",
        *,
        username: str | None = None,
        token: str | None = None,
        privacy_mode: bool = True,
        flood_limits: FloodLimits | None = None,
        flood_enabled: bool = False,
        first_update_id: int = FIRST_UPDATE_ID,
        check_calls: bool | None = None,
    ) -> EmulatedBot:
        """Another bot on the same Telegram, served by the same server under its own token: its own id,
        update ids (counted from ``first_update_id``, so they overlap the first bot's unless told otherwise),
        queue, flood limits, private chats; it is in no group until added (``create_group`` or ``add_bot``
        on its handle). Returns its handle, which has every control method, seen from that bot."""
        if token is None:
            bot_id = next(self._bot_ids)
            while bot_id in self.network.users:
                bot_id = next(self._bot_ids)
            token = f"{bot_id}:AAEmulatedTelegramBotTokenForTests{len(self.network.bots)}"
        bot_id = int(token.partition(":")[0])
        bot = EmulatedBot(
            self.network,
            token,
            name=name,
            username=username or f"test_bot_{bot_id}",
            privacy_mode=privacy_mode,
            flood_limits=flood_limits,
            flood_enabled=flood_enabled,
            clock=self._clock,
            check_calls=self.check_calls if check_calls is None else check_calls,
            first_update_id=first_update_id,
        )
        self.journal.add("bot_created", bot=bot.world.bot.to_api())
        return bot

    def bot(self, ref: str | int) -> EmulatedBot:
        """A bot's handle by its token, id or @username."""
        for bot in self.network.bots.values():
            if ref in (bot.token, bot.bot_id, str(bot.bot_id)) or str(ref).removeprefix("@") == bot.username:
                return bot
        raise KeyError(f"no bot {ref!r}")

    @property
    def bots(self) -> list[EmulatedBot]:
        return list(self.network.bots.values())

    # --- life cycle --------------------------------------------------------------------------------

    def make_app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        app.router.add_route("*", "/file/bot{token}/{path:.*}", self._handle_file)
        control_http.register(app, self)
        return app

    async def start(self) -> str:
        """Serve on the host and port given (port 0 picks a free one); return the base URL."""
        for bot in self.network.bots.values():
            bot.updates.closing = False
        self._runner = web.AppRunner(
            self.make_app(), handle_signals=False, access_log=None, shutdown_timeout=0.5
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.network.base_url = f"http://{host}:{port}"
        return self.network.base_url

    async def stop(self) -> None:
        # Wake long polls first so the server does not wait out their timeouts.
        for bot in list(self.network.bots.values()):
            await bot.updates.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> TelegramEmulator:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # --- HTTP -----------------------------------------------------------------------------------------

    async def _handle_api(self, request: web.Request) -> web.Response:
        bot = self.network.bot_by_token(request.match_info["token"])
        if bot is None:
            return self._respond(unauthorized().payload())
        try:
            params = await self._read_params(request)
        except ValueError:
            return self._respond({"ok": False, "error_code": 400, "description": "Bad Request: invalid JSON"})
        return self._respond(await bot.call(request.match_info["method"], params))

    @staticmethod
    async def _read_params(request: web.Request) -> dict[str, Any]:
        params: dict[str, Any] = dict(request.query)
        if request.method == "POST" and request.can_read_body:
            if request.content_type == "application/json":
                body = await request.json()
                if not isinstance(body, dict):
                    raise ValueError("a JSON object is expected")
                params.update(body)
            else:
                form = await request.post()
                params.update({key: value for key, value in form.items() if isinstance(value, str)})
        return params

    @staticmethod
    def _respond(body: dict[str, Any]) -> web.Response:
        status = 200 if body["ok"] else body["error_code"]
        return web.Response(
            status=status, text=json.dumps(body, ensure_ascii=False), content_type="application/json"
        )

    async def _handle_file(self, request: web.Request) -> web.Response:
        return self._respond(not_found().payload())
