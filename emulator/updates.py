"""The bot's update queue, handed out by getUpdates long polling or pushed to a webhook."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from .errors import bad_request, conflict

log = logging.getLogger(__name__)

JSON = dict[str, Any]

# What Telegram leaves out when allowed_updates is empty or was never given.
DEFAULT_EXCLUDED = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
MAX_RETRY_DELAY = 1.0


@dataclass
class Webhook:
    url: str
    secret_token: str | None = None
    max_connections: int = 40
    ip_address: str | None = None
    last_error_date: int | None = None
    last_error_message: str | None = None
    delivered: int = 0


@dataclass
class UpdateQueue:
    now: Callable[[], int]
    pending: list[JSON] = field(default_factory=list)
    history: list[JSON] = field(default_factory=list)
    allowed_updates: list[str] = field(default_factory=list)
    webhook: Webhook | None = None
    closing: bool = False
    next_update_id: int = 700_000_001
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)
    _poll_generation: int = 0
    _delivery: asyncio.Task[None] | None = None
    _session: aiohttp.ClientSession | None = None
    # Executes a method that a webhook answered with, as Telegram does with such replies.
    on_webhook_reply: Callable[[JSON], Awaitable[None]] | None = None
    # Tells the journal about deliveries, so waiting tests wake up at once.
    on_event: Callable[..., object] | None = None

    def _event(self, kind: str, **data: Any) -> None:
        if self.on_event is not None:
            self.on_event(kind, **data)

    def _wake(self) -> None:
        arrived, self._arrived = self._arrived, asyncio.Event()
        arrived.set()

    def push(self, kind: str, payload: JSON) -> JSON:
        update = {"update_id": self.next_update_id, kind: payload}
        self.next_update_id += 1
        self.pending.append(update)
        self.history.append(update)
        self._wake()
        return update

    def is_allowed(self, update: JSON) -> bool:
        kind = next(key for key in update if key != "update_id")
        if self.allowed_updates:
            return kind in self.allowed_updates
        return kind not in DEFAULT_EXCLUDED

    def _drop_unwanted(self) -> None:
        self.pending = [u for u in self.pending if self.is_allowed(u)]

    # --- getUpdates ----------------------------------------------------------------------------

    async def get_updates(
        self, offset: int | None, limit: int, timeout: float, allowed_updates: list[str] | None
    ) -> list[JSON]:
        if self.webhook is not None:
            raise conflict(
                "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first"
            )
        if allowed_updates is not None:
            self.allowed_updates = list(allowed_updates)
        if offset is not None:
            if offset < 0:
                self.pending = self.pending[offset:]
            else:
                self.pending = [u for u in self.pending if u["update_id"] >= offset]
        limit = min(max(limit, 1), 100)
        # A newer getUpdates call ends an older one still waiting, as on api.telegram.org.
        self._poll_generation += 1
        generation = self._poll_generation
        self._wake()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout, 0)
        while True:
            self._drop_unwanted()
            if self.pending or self.closing:
                return self.pending[:limit]
            remaining = deadline - loop.time()
            if remaining <= 0:
                return []
            arrived = self._arrived
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrived.wait(), remaining)
            if generation != self._poll_generation:
                raise conflict(
                    "terminated by other getUpdates request; make sure that only one bot instance is running"
                )

    # --- webhook ---------------------------------------------------------------------------------

    async def set_webhook(
        self,
        url: str,
        *,
        secret_token: str | None,
        allowed_updates: list[str] | None,
        drop_pending_updates: bool,
        max_connections: int,
        ip_address: str | None,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        if secret_token is not None and (
            not 1 <= len(secret_token) <= 256
            or not all(c.isascii() and (c.isalnum() or c in "_-") for c in secret_token)
        ):
            raise bad_request("secret token contains unallowed characters")
        if allowed_updates is not None:
            self.allowed_updates = list(allowed_updates)
        if drop_pending_updates:
            self.pending.clear()
        self.webhook = Webhook(url, secret_token, max_connections, ip_address)
        self._poll_generation += 1
        self._wake()
        if self._delivery is None or self._delivery.done():
            self._delivery = asyncio.create_task(self._deliver_forever(), name="emulator-webhook")

    async def delete_webhook(self, drop_pending_updates: bool) -> None:
        self.webhook = None
        if drop_pending_updates:
            self.pending.clear()
        await self._stop_delivery()

    def webhook_info(self) -> JSON:
        info: JSON = {
            "url": self.webhook.url if self.webhook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self.pending),
        }
        if self.webhook is not None:
            info["max_connections"] = self.webhook.max_connections
            if self.webhook.ip_address:
                info["ip_address"] = self.webhook.ip_address
            if self.webhook.last_error_date is not None:
                info["last_error_date"] = self.webhook.last_error_date
                info["last_error_message"] = self.webhook.last_error_message
            if self.allowed_updates:
                info["allowed_updates"] = self.allowed_updates
        return info

    async def _stop_delivery(self) -> None:
        task, self._delivery = self._delivery, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def close(self) -> None:
        self.closing = True
        self._wake()
        await self._stop_delivery()
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _deliver_forever(self) -> None:
        delay = 0.05
        while not self.closing and self.webhook is not None:
            self._drop_unwanted()
            if not self.pending:
                await self._arrived.wait()
                continue
            webhook, update = self.webhook, self.pending[0]
            error = await self._post(webhook, update)
            if error is None:
                if self.pending and self.pending[0] is update:
                    self.pending.pop(0)
                webhook.delivered += 1
                self._event("webhook_delivered", update_id=update["update_id"])
                delay = 0.05
                continue
            webhook.last_error_date, webhook.last_error_message = self.now(), error
            log.debug("webhook delivery failed: %s", error)
            self._event("webhook_failed", update_id=update["update_id"], error=error)
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_RETRY_DELAY)

    async def _post(self, webhook: Webhook, update: JSON) -> str | None:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))
        headers = {"X-Telegram-Bot-Api-Secret-Token": webhook.secret_token} if webhook.secret_token else {}
        try:
            async with self._session.post(webhook.url, json=update, headers=headers) as response:
                if not 200 <= response.status < 300:
                    return f"Wrong response from the webhook: {response.status} {response.reason}"
                reply = None
                if response.content_type == "application/json":
                    with contextlib.suppress(ValueError):
                        reply = await response.json()
        except aiohttp.ClientConnectorError:
            return "Connection refused"
        except (aiohttp.ClientError, TimeoutError) as error:
            return f"Connection error: {error.__class__.__name__}"
        if isinstance(reply, dict) and "method" in reply and self.on_webhook_reply is not None:
            await self.on_webhook_reply(reply)
        return None
