"""The composition root: the Application with its handlers and job queue, and, inside the event loop, storage, the table service, the outbox, the presenter and the desk, each built once here."""

from __future__ import annotations

import gc
import logging
import os
from typing import Any

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


def build_application(settings: Settings) -> GoujiApplication:
    """The bot's Application. Storage and the outbox are set up in post_init, inside the event loop; the outbox
    keeps Telegram's limits (bot/outbox.py), so no rate limiter sits in PTB's request path."""
    # PTB 22 moves time periods (retry_after…) to timedelta; opt in rather than read deprecated ints.
    os.environ.setdefault("PTB_TIMEDELTA", "true")
    if not settings.bot_token:
        raise ValueError("BOT_TOKEN is not set")
    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = Application.builder().token(
        settings.bot_token
    )
    urls = settings.api_urls()
    if urls is not None:
        builder = builder.base_url(urls[0]).base_file_url(urls[1])
    # 32 calls in flight cover Telegram's 30 messages a second at any round-trip time below one second.
    builder = builder.request(AiohttpRequest(HTTP_CONNECTIONS)).get_updates_request(AiohttpRequest(1))
    app = assemble(builder.post_init(_post_init).post_shutdown(_post_shutdown))
    app.bot_data["settings"] = settings
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
    engine = make_engine(settings.database_url)
    await upgrade_to_head(engine)
    uow = uow_factory(engine)
    computers = Computers(
        settings.strong_budget_ms, settings.strong_workers, floor_ms=settings.strong_floor_ms
    )
    service = TableService(uow, languages=LANGUAGES, decide=computers)
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
    engine = app.bot_data.get("engine")
    if engine is not None:
        await engine.dispose()
    computers = app.bot_data.get("computers")
    if computers is not None:
        computers.close()


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
