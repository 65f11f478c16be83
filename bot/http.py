"""PTB's requests to the Bot API over aiohttp instead of httpx.

PTB makes every Bot API call through a BaseRequest; its default one is built on httpx, whose pure-Python
connection pool and HTTP parser were a fifth of a busy bot's CPU time (bench_load, py-spy). aiohttp parses
HTTP in C and is already what the bot's webhook server and the emulator run on.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData


class AiohttpRequest(BaseRequest):
    """One aiohttp ClientSession with at most `connections` connections open at once."""

    __slots__ = ("_connections", "_media_write_timeout", "_session", "_timeouts")

    def __init__(
        self,
        connections: int = 32,
        *,
        read_timeout: float | None = 5.0,
        write_timeout: float | None = 5.0,
        connect_timeout: float | None = 5.0,
        pool_timeout: float | None = 1.0,
        media_write_timeout: float | None = 20.0,
    ) -> None:
        self._connections = connections
        self._timeouts = {
            "read": read_timeout,
            "write": write_timeout,
            "connect": connect_timeout,
            "pool": pool_timeout,
        }
        self._media_write_timeout = media_write_timeout
        self._session: aiohttp.ClientSession | None = None

    @property
    def read_timeout(self) -> float | None:
        return self._timeouts["read"]

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._connections),
                headers={"User-Agent": self.USER_AGENT},
            )

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    def _timeout(self, name: str, given: Any) -> float | None:
        # PTB passes its DEFAULT_NONE marker when the caller named no timeout.
        return self._timeouts[name] if isinstance(given, type(BaseRequest.DEFAULT_NONE)) else given

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data else None
        fields = request_data.json_parameters if request_data else None
        data: aiohttp.FormData | dict[str, str] | None = fields
        if files:
            data = aiohttp.FormData(fields or {})
            for name, part in files.items():
                # PTB gives (file name, content, MIME type) for an upload, bare bytes otherwise.
                if isinstance(part, tuple):
                    filename, content, mime = part
                    data.add_field(name, content, filename=filename, content_type=mime)
                else:
                    data.add_field(name, part)
        write = self._timeout("write", write_timeout) if not files else self._media_write_timeout
        # aiohttp has no separate write timeout: the whole request may take connect + write + read.
        parts = [self._timeout("connect", connect_timeout), write, self._timeout("read", read_timeout)]
        total = None if any(p is None for p in parts) else sum(p for p in parts if p is not None)
        timeout = aiohttp.ClientTimeout(
            total=total,
            connect=self._timeout("pool", pool_timeout),
            sock_connect=self._timeout("connect", connect_timeout),
            sock_read=self._timeout("read", read_timeout),
        )
        try:
            async with self._session.request(method, url, data=data, timeout=timeout) as response:
                return response.status, await response.read()
        except TimeoutError as err:
            raise TimedOut from err
        except aiohttp.ClientError as err:
            raise NetworkError(f"aiohttp.{type(err).__name__}: {err}") from err
