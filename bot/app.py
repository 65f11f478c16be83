"""The composition root: the Application with its handlers and job queue, and, inside the event loop, storage, the table service, the outbox, the presenter and the desk, each built once here per bot.

One process may serve several bots (a fleet: BOT_TOKEN lists their tokens), each its own Application with its
own outbox, Telegram's limits kept per token; they share one database engine and one pool of processes for
the strong computers (:class:`Shared`). Several processes, each with its own tokens, may share the database.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import signal
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine
from telegram import Update
from telegram.ext import Application, ApplicationBuilder

from storage import make_engine, uow_factory, upgrade_to_head
from table import TableService

from .computers import Computers
from .config import Settings
from .desk import Desk
from .handlers import CONTEXT_TYPES, GoujiApplication, register, set_commands
from .handlers.context import DESK
from .http import AiohttpRequest
from .i18n import LANGUAGES
from .outbox import Outbox
from .present import Presenter

log = logging.getLogger(__name__)
HTTP_CONNECTIONS = 32
SHARED = "shared"  # the key of the process's Shared in bot_data


class Shared:
    """What the bots of one process share: the database engine (one pool of connections, the schema upgraded
    once) and the process pool the strong computers think in (one per core, not one per core per bot). Made
    by the first bot's start, closed by the last bot's stop."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._held: tuple[AsyncEngine, Computers] | None = None
        self._users = 0
        self._lock = asyncio.Lock()

    async def take(self) -> tuple[AsyncEngine, Computers]:
        async with self._lock:
            if self._held is None:
                settings = self.settings
                engine = make_engine(settings.database_url)
                await upgrade_to_head(engine)
                computers = Computers(
                    settings.strong_budget_ms, settings.strong_workers, floor_ms=settings.strong_floor_ms
                )
                self._held = (engine, computers)
            self._users += 1
            return self._held

    async def give_back(self) -> None:
        async with self._lock:
            self._users -= 1
            if self._users > 0 or self._held is None:
                return
            (engine, computers), self._held = self._held, None
        await engine.dispose()
        computers.close()


def build_application(
    settings: Settings, token: str | None = None, *, shared: Shared | None = None
) -> GoujiApplication:
    """The Application of one bot: ``token``, else BOT_TOKEN's only one. Storage and the outbox are set up in
    post_init, inside the event loop, on ``shared`` (the process's other bots' too; its own when not given);
    the outbox keeps Telegram's limits for this token (bot/outbox.py), so no rate limiter sits in PTB's
    request path."""
    # PTB 22 moves time periods (retry_after…) to timedelta; opt in rather than read deprecated ints.
    os.environ.setdefault("PTB_TIMEDELTA", "true")
    if token is None:
        tokens = settings.tokens()
        if not tokens:
            raise ValueError("BOT_TOKEN is not set")
        if len(tokens) > 1:
            raise ValueError("BOT_TOKEN lists several tokens: build one Application per token (run() does)")
        token = tokens[0]
    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = Application.builder().token(token)
    urls = settings.api_urls()
    if urls is not None:
        builder = builder.base_url(urls[0]).base_file_url(urls[1])
    # 32 calls in flight cover Telegram's 30 messages a second at any round-trip time below one second.
    builder = builder.request(AiohttpRequest(HTTP_CONNECTIONS)).get_updates_request(AiohttpRequest(1))
    app = assemble(builder.post_init(_post_init).post_shutdown(_post_shutdown))
    app.bot_data["settings"] = settings
    app.bot_data[SHARED] = shared or Shared(settings)
    return app


def assemble(builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any]) -> GoujiApplication:
    """The Application the builder makes, with the bot's handlers, each update handled with the bot's
    :class:`~bot.handlers.context.CustomContext` (the fast tests assemble one on a recording bot). Its desk is
    put in ``bot_data`` by whoever builds it (here: post_init)."""
    app: GoujiApplication = builder.context_types(CONTEXT_TYPES).concurrent_updates(True).build()
    register(app)
    return app


async def _post_init(app: GoujiApplication) -> None:
    settings: Settings = app.bot_data["settings"]
    shared: Shared = app.bot_data[SHARED]
    engine, computers = await shared.take()
    app.bot_data["taken"] = True
    uow = uow_factory(engine)
    # The bot's id (its token's first part, as Telegram's getMe says) tells its tables from the fleet's others.
    service = TableService(uow, bot_id=app.bot.id, languages=LANGUAGES, decide=computers)
    outbox = Outbox(app.bot, settings.pace())
    presenter = Presenter(outbox, service, app.bot.username if app.bot.bot is not None else None)
    desk = Desk(service, presenter, outbox, app.job_queue, sweep_every=settings.sweep_every_s)
    app.bot_data.update(service=service, uow=uow, engine=engine, outbox=outbox, computers=computers)
    app.bot_data[DESK] = desk
    await set_commands(app)
    await desk.start()
    _settle_collector()


def _settle_collector() -> None:
    """Keep the garbage collector's pauses short and rare on a busy loop."""
    # What start-up loaded (modules, PTB, SQLAlchemy, the compiled statements) lives as long as the process;
    # kept out of the collector, a full collection walks only what the games allocate since. Each full
    # collection is a pause of the loop (bench_load, 1,000 tables: 160-200 ms every few seconds before,
    # 40-110 ms after, growing with the live matches; ~45 ms with the matches kept pickled, table/load.py).
    gc.freeze()
    # An update allocates many short-lived objects (PTB's, SQLAlchemy's, the engine's); at the default
    # threshold (700) young collections caught many of them alive and promoted them, and promotions are
    # what trigger full collections.
    # bench_load --tables 1000 --think 15: p99 114 ms and 1.63 ms CPU per action at 700, 81-85 ms and
    # 1.42-1.48 ms at 10,000, 64 ms and 1.35 ms at 50,000 (peak memory +8 MB).
    gc.set_threshold(50_000, 20, 10)


async def _post_shutdown(app: GoujiApplication) -> None:
    desk: Desk | None = app.bot_data.get(DESK)
    if desk is not None:
        await desk.flush(app.bot_data["settings"].shutdown_wait_s)
        await desk.close()
        await desk.outbox.close()
    if app.bot_data.pop("taken", False):
        await app.bot_data[SHARED].give_back()


async def start_application(app: Application[Any, Any, Any, Any, Any, Any], *, poll: bool = True) -> None:
    """Start the bot inside a running event loop (tests, the playground), as run_polling would."""
    await app.initialize()
    if app.post_init is not None:
        await app.post_init(app)
    await app.start()
    if poll and app.updater is not None:
        await app.updater.start_polling(poll_interval=0.0, timeout=5, allowed_updates=Update.ALL_TYPES)


async def stop_application(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    if app.updater is not None and app.updater.running:
        await app.updater.stop()
    if app.running:
        await app.stop()
    if app.post_shutdown is not None:
        await app.post_shutdown(app)
    await app.shutdown()


def run(settings: Settings) -> None:
    tokens = settings.tokens()
    if len(tokens) > 1:
        if settings.webhook_url:
            raise ValueError(
                "BOT_TOKEN lists several tokens: one process serves several bots by long polling; "
                "for webhooks run one process per token (README, Capacity)"
            )
        asyncio.run(run_fleet(settings, tokens))
        return
    app = build_application(settings)
    if settings.webhook_url:
        app.run_webhook(
            listen=settings.webhook_listen,
            port=settings.webhook_port,
            url_path="telegram",
            webhook_url=settings.webhook_url.rstrip("/") + "/telegram",
            secret_token=settings.webhook_secret,
            allowed_updates=Update.ALL_TYPES,
        )
    else:
        app.run_polling(allowed_updates=Update.ALL_TYPES)


async def run_fleet(settings: Settings, tokens: list[str]) -> None:
    """Several bots in this process, each polling for its own updates, until SIGINT or SIGTERM: what
    run_polling does for one, done for each (PTB's run_polling owns the event loop, so it runs only one)."""
    shared = Shared(settings)
    apps = [build_application(settings, token, shared=shared) for token in tokens]
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    started: list[GoujiApplication] = []
    try:
        for app in apps:
            await start_application(app, poll=False)
            started.append(app)
            assert app.updater is not None
            await app.updater.start_polling(allowed_updates=Update.ALL_TYPES)
        log.info("serving %d bots: %s", len(started), ", ".join(f"@{a.bot.username}" for a in started))
        await stop.wait()
    finally:
        # Each stops as run_polling stops one: its updates taken in, its queued messages sent (for a while).
        for app in reversed(started):
            try:
                await stop_application(app)
            except Exception:  # one bot's trouble stopping must not keep the others from stopping
                log.exception("stopping @%s failed", app.bot.username)
