"""The emulator's HTTP face: the Bot API under /bot<TOKEN>/ and the control API under /_emu/."""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from aiohttp import web

from . import control_http, schema
from .control import Controls
from .errors import ApiError, not_found, unauthorized
from .flood import FloodControl, FloodLimits
from .journal import Journal
from .methods import lookup
from .params import Params
from .schema_check import check_call
from .state import World
from .updates import UpdateQueue

log = logging.getLogger(__name__)

DEFAULT_TOKEN = "123456789:AAEmulatedTelegramBotTokenForTests0"


class TelegramEmulator(Controls):
    """One emulated Telegram with one bot in it, served on 127.0.0.1.

    ``privacy_mode`` mirrors BotFather's group privacy: when on (Telegram's default) the bot sees
    only commands, replies to its own messages, mentions and service messages in groups where it
    is not an administrator.
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
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        bot_id_text = token.partition(":")[0]
        if not bot_id_text.isdigit():
            raise ValueError("a bot token starts with the bot's numeric id and a colon")
        self.token = token
        self.privacy_mode = privacy_mode
        # Every call is held against the published Bot API first; only the emulator's own tests turn it off.
        self.check_calls = check_calls
        self.world = World(int(bot_id_text), bot_name, bot_username)
        self.journal = Journal()
        self.updates = UpdateQueue(
            now=World.now, on_webhook_reply=self._run_webhook_reply, on_event=self.journal.add
        )
        self.flood = FloodControl(limits=flood_limits or FloodLimits(), enabled=flood_enabled, clock=clock)
        self.calls: Counter[str] = Counter()
        self.api_log: list[dict[str, Any]] = []
        self.internal_errors: list[str] = []
        # Calls the check against the published API refused: a bot that makes one has a bug.
        self.refused_calls: list[str] = []
        self._host, self._port = host, port
        self._runner: web.AppRunner | None = None
        self.base_url = ""

    # --- life cycle --------------------------------------------------------------------------------

    @property
    def api_base_url(self) -> str:
        """What PTB's ``base_url`` should be; PTB appends the token."""
        return f"{self.base_url}/bot"

    @property
    def file_base_url(self) -> str:
        return f"{self.base_url}/file/bot"

    def make_app(self) -> web.Application:
        app = web.Application()
        app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        app.router.add_route("*", "/file/bot{token}/{path:.*}", self._handle_file)
        control_http.register(app, self)
        return app

    async def start(self) -> str:
        """Serve on the host and port given (port 0 picks a free one); return the base URL."""
        self.updates.closing = False
        self._runner = web.AppRunner(
            self.make_app(), handle_signals=False, access_log=None, shutdown_timeout=0.5
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.base_url = f"http://{host}:{port}"
        return self.base_url

    async def stop(self) -> None:
        # Wake long polls first so the server does not wait out their timeouts.
        await self.updates.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> TelegramEmulator:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    # --- the Bot API --------------------------------------------------------------------------------

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Run one Bot API method and return the JSON body Telegram would answer with."""
        found = lookup(method)
        published = schema.load().method(method)
        name = found[0] if found else published.name if published else method
        self.calls[name] += 1
        try:
            if self.check_calls:
                try:
                    check_call(method, params)
                except ApiError as refusal:
                    self.refused_calls.append(f"{name}: {refusal.description}")
                    raise
            if found is None and published is not None:
                raise NotImplementedError(f"the emulator does not implement {name}")
            if found is None:
                raise not_found()
            result = await found[1](self, Params(params))
            body: dict[str, Any] = {"ok": True, "result": result}
        except ApiError as error:
            body = error.payload()
        except Exception as error:  # an emulator bug must not take the server down mid-test
            log.exception("emulator failed in %s", name)
            self.internal_errors.append(f"{name}: {error!r}")
            body = {"ok": False, "error_code": 500, "description": "Internal Server Error"}
        self.api_log.append({"method": name, "params": params, "response": body, "at": time.time()})
        if name != "getUpdates" or body.get("result"):
            self.journal.add("api_call", method=name, ok=body["ok"], error=body.get("description"))
        return body

    async def _handle_api(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return self._respond(unauthorized().payload())
        try:
            params = await self._read_params(request)
        except ValueError:
            return self._respond({"ok": False, "error_code": 400, "description": "Bad Request: invalid JSON"})
        return self._respond(await self.call(request.match_info["method"], params))

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

    async def _run_webhook_reply(self, reply: dict[str, Any]) -> None:
        method = str(reply.pop("method"))
        await self.call(method, reply)
