"""A local, in-process emulator of the Telegram Bot API for end-to-end tests and the playground.

    async with TelegramEmulator() as emu:             # 127.0.0.1, a free port
        app = (Application.builder().token(emu.token)
               .base_url(emu.api_base_url).base_file_url(emu.file_base_url).build())
        ...                                            # start the app polling, or with a webhook
        alice = emu.create_user("Alice", language_code="zh")
        said = emu.start_bot(alice, payload="table-7")  # /start table-7 in her private chat
        reply = await emu.wait_for_bot_message(alice, after=said)
        emu.tap(alice, reply, "join:7")                 # callback_query for that button

Every call is first held against the published Bot API 10.1 (``botapi/api.min.json``): an unknown method,
an unknown parameter, a missing one, a value of the wrong type (inside keyboards too), a text too long after
entities parsing, callback data over 64 bytes, a button of no kind or two, malformed HTML or MarkdownV2 get
Telegram's 400 (``check_calls=False`` turns this off, for the emulator's own tests only). The pytest fixture
fails a test whose bot made such a call, or to which the emulator sent anything that is not of a published
type. Telegram's rules a bot depends on hold: no message deleted after 48 hours (``age_message``,
``advance_clock``), no tap answered after ``callback_answer_window`` seconds (15), no private chat opened by
the bot, no message of another bot edited.

Groups as Telegram makes them: ``create_forum`` and ``create_topic`` (a topic's message_thread_id is the id
of its first message; ``user_sends(..., topic=)``, ``messages(chat, topic=)``, ``GENERAL_TOPIC``),
``anonymous_admin_sends`` (from GroupAnonymousBot, sender_chat the group), ``remove_bot``, ``kick_bot``,
``restrict_bot``, ``unrestrict_bot``, ``promote_bot``, ``demote_bot``, ``add_bot`` (my_chat_member each
time), ``add_member``, ``remove_member`` (chat_member to admin bots). Several bots: ``create_bot`` returns
another bot's handle (its own token, id, update ids, queue, private chats, groups), with every control method
seen from that bot; the emulator itself is its first bot's handle.

Modules: ``server`` (HTTP, life cycle, more bots), ``bots`` (one bot: token, queue, flood limits, the Bot
API as it answers it), ``methods`` (Bot API methods), ``schema`` (the published API as data) and
``schema_check`` (a call held against it), ``control`` (what users do, reading back, waiting, the clock),
``groups`` (groups, forums, members, the bot's status), ``delivery`` (which bot receives what),
``control_http`` (the same over /_emu/), ``world`` (what the bots share, what one bot sees), ``state`` (users,
chats, topics, messages), ``updates`` (getUpdates and webhook delivery), ``entities`` (parse_mode parsing),
``flood`` (429s), ``journal`` (event log), ``pytest_fixtures``; ``python -m emulator`` serves it standalone
and ``python -m emulator.bench`` measures it.
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
