"""The playground: the real bot, with its real handlers, against the embedded Bot API emulator, shown in a
web page on 127.0.0.1 (the group chat and each player's private chat side by side). No Telegram, no token.

``gouji-bot --playground`` (or ``gouji-bot`` with no BOT_TOKEN) runs :func:`serve`. Modules: ``server``
(the emulator, the bot and the page on one port, life cycle), ``api`` (the page's /_pg/ routes; the page
also drives the emulator's /_emu/ control routes), ``static/`` (the page: plain HTML and JavaScript).
"""

from .server import Playground, serve

__all__ = ["Playground", "serve"]
