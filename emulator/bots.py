"""One bot of the emulated Telegram: its identity and token, its update queue (getUpdates or a webhook), its
flood limits, its record of calls, and the Bot API as it answers that token.

An ``EmulatedBot`` is also the handle tests drive the emulator through from that bot's side (``control``,
``groups``); the emulator itself is the handle of its first bot, ``create_bot`` makes more.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from . import schema
from .errors import ApiError, not_found
from .flood import FloodControl, FloodLimits
from .groups import GroupControls
from .methods import lookup
from .params import Params
from .schema_check import check_call
from .updates import UpdateQueue
from .world import Network, World

log = logging.getLogger(__name__)

FIRST_UPDATE_ID = 700_000_001


class EmulatedBot(GroupControls):
    """A bot account: ``token`` starts with its user id, as Telegram's do.

    ``privacy_mode`` mirrors BotFather's group privacy: when on (Telegram's default) the bot sees only
    commands, replies to its own messages, mentions and service messages in groups where it is not an
    administrator. ``check_calls`` holds every call against the published Bot API (only the emulator's own
    tests turn it off).
    """

    def __init__(
        self,
        network: Network,
        token: str,
        *,
        name: str,
        username: str,
        privacy_mode: bool = True,
        flood_limits: FloodLimits | None = None,
        flood_enabled: bool = False,
        clock: Callable[[], float] = time.monotonic,
        check_calls: bool = True,
        first_update_id: int = FIRST_UPDATE_ID,
    ) -> None:
        bot_id_text = token.partition(":")[0]
        if not bot_id_text.isdigit():
            raise ValueError("a bot token starts with the bot's numeric id and a colon")
        if network.bot_by_token(token) is not None or int(bot_id_text) in network.users:
            raise ValueError(f"a bot or user with id {bot_id_text} already exists")
        self.network = network
        self.token = token
        self.privacy_mode = privacy_mode
        self.check_calls = check_calls
        bot = network.add_user(
            name, username=username, user_id=int(bot_id_text), is_bot=True, language_code=None
        )
        self.world = World(network, bot)
        self.journal = network.journal
        # Each bot counts its own update ids, as in Telegram: two bots' ids may overlap.
        self.updates = UpdateQueue(
            now=network.now,
            on_webhook_reply=self._run_webhook_reply,
            on_event=self.journal.add,
            next_update_id=first_update_id,
        )
        self.flood = FloodControl(limits=flood_limits or FloodLimits(), enabled=flood_enabled, clock=clock)
        self.calls: Counter[str] = Counter()
        self.api_log: list[dict[str, Any]] = []
        # Calls the check against the published API refused: a bot that makes one has a bug.
        self.refused_calls: list[str] = []
        network.bots[bot.id] = self

    @property
    def bot_id(self) -> int:
        return self.world.bot.id

    @property
    def username(self) -> str:
        return self.world.bot.username or ""

    @property
    def internal_errors(self) -> list[str]:
        return self.network.internal_errors

    @property
    def base_url(self) -> str:
        return self.network.base_url

    @property
    def api_base_url(self) -> str:
        """What PTB's ``base_url`` should be; PTB appends the token."""
        return f"{self.network.base_url}/bot"

    @property
    def file_base_url(self) -> str:
        return f"{self.network.base_url}/file/bot"

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Run one Bot API method for this bot and return the JSON body Telegram would answer with."""
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
            self.network.internal_errors.append(f"{name}: {error!r}")
            body = {"ok": False, "error_code": 500, "description": "Internal Server Error"}
        self.api_log.append({"method": name, "params": params, "response": body, "at": time.time()})
        if name != "getUpdates" or body.get("result"):
            self.journal.add(
                "api_call", method=name, ok=body["ok"], error=body.get("description"), bot_id=self.bot_id
            )
        return body

    async def _run_webhook_reply(self, reply: dict[str, Any]) -> None:
        method = str(reply.pop("method"))
        await self.call(method, reply)
