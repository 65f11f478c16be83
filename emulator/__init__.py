"""A local, in-process emulator of the Telegram Bot API for end-to-end tests and the playground.

    async with TelegramEmulator() as emu:             # 127.0.0.1, a free port
        app = (Application.builder().token(emu.token)
               .base_url(emu.api_base_url).base_file_url(emu.file_base_url).build())
        ...                                            # start the app polling, or with a webhook
        alice = emu.create_user("Alice", language_code="zh")
        said = emu.start_bot(alice, payload="table-7")  # /start table-7 in her private chat
        reply = await emu.wait_for_bot_message(alice, after=said)
        emu.tap(alice, reply, "join:7")                 # callback_query for that button

Modules: ``server`` (HTTP, life cycle), ``methods`` (Bot API methods), ``control`` (what users do,
reading back, waiting), ``control_http`` (the same over /_emu/), ``state`` (users, chats, messages),
``updates`` (getUpdates and webhook delivery), ``entities`` (parse_mode parsing), ``flood`` (429s),
``journal`` (event log), ``pytest_fixtures``; ``python -m emulator`` serves it standalone and
``python -m emulator.bench`` measures it.
"""

from .bots import EmulatedBot
from .errors import ApiError
from .flood import FloodLimits
from .server import DEFAULT_TOKEN, TelegramEmulator
from .state import GENERAL_TOPIC, CallbackQuery, Chat, EmulatorError, Revision, StoredMessage, Topic, User
from .world import ANONYMOUS_ADMIN_ID

__all__ = [
    "ANONYMOUS_ADMIN_ID",
    "DEFAULT_TOKEN",
    "GENERAL_TOPIC",
    "ApiError",
    "CallbackQuery",
    "Chat",
    "EmulatedBot",
    "EmulatorError",
    "FloodLimits",
    "Revision",
    "StoredMessage",
    "TelegramEmulator",
    "Topic",
    "User",
]
