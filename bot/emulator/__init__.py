"""A local, in-process emulator of the Telegram Bot API for end-to-end tests and the playground.

async with TelegramEmulator() as emu:
    app = Application.builder().token(emu.token).base_url(emu.api_base_url).build()
    alice = emu.create_user("Alice")
    emu.start_bot(alice)
    reply = await emu.wait_for_bot_message(alice)
"""

from .errors import ApiError
from .flood import FloodLimits
from .server import DEFAULT_TOKEN, TelegramEmulator
from .state import CallbackQuery, Chat, EmulatorError, Revision, StoredMessage, User

__all__ = [
    "DEFAULT_TOKEN",
    "ApiError",
    "CallbackQuery",
    "Chat",
    "EmulatorError",
    "FloodLimits",
    "Revision",
    "StoredMessage",
    "TelegramEmulator",
    "User",
]
