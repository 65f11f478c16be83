"""Telegram updates in: one module per place they come from (the group's commands, the private chat, the
buttons, the settings). Each handler decodes the update, calls one use case of the table layer and hands
the outcome to the desk to show; it decides no rule and opens no unit of work. What every update needs is
done once, before them (:mod:`bot.handlers.context`); what a use case refuses is worded in one place
(:mod:`bot.handlers.refusals`)."""

from __future__ import annotations

from telegram import BotCommand, BotCommandScopeAllGroupChats, BotCommandScopeAllPrivateChats, Update
from telegram.ext import (
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from ..i18n import LANGUAGES, t
from .buttons import on_callback
from .common import Handler, on_error
from .context import CONTEXT_TYPES, CustomContext, GoujiApplication, keep_user_current
from .group import (
    cmd_addbot,
    cmd_begin,
    cmd_help,
    cmd_join,
    cmd_leave,
    cmd_new,
    cmd_nudge,
    cmd_rules,
    cmd_stats,
    cmd_stop,
    cmd_table,
    on_migrated,
)
from .membership import on_bot_membership, on_membership
from .private import cmd_back, cmd_hand, cmd_start, cmd_zone, on_private_text
from .settings import cmd_settings

GROUP_COMMANDS = (
    "new",
    "join",
    "leave",
    "addbot",
    "begin",
    "table",
    "rules",
    "settings",
    "nudge",
    "stop",
    "stats",
    "help",
)


# The chores of every update run before the handlers (PTB runs one handler per group, groups in order).
CHORES = -1


def register(app: GoujiApplication) -> None:
    """The handlers, the chores before them and the error handler; ``app`` built with :data:`CONTEXT_TYPES`."""
    app.add_handler(TypeHandler(Update, keep_user_current), group=CHORES)
    private = filters.ChatType.PRIVATE
    # Every group command is heard in private too: those about a table say where they work, /rules, /stats
    # and /help answer there.
    handlers: dict[str, Handler] = {
        "new": cmd_new,
        "join": cmd_join,
        "leave": cmd_leave,
        "addbot": cmd_addbot,
        "begin": cmd_begin,
        "table": cmd_table,
        "rules": cmd_rules,
        "settings": cmd_settings,
        "stop": cmd_stop,
        "stats": cmd_stats,
        "nudge": cmd_nudge,
    }
    for name, fn in handlers.items():
        app.add_handler(CommandHandler(name, fn))
    app.add_handler(CommandHandler("help", cmd_help))
    app.add_handler(CommandHandler("start", cmd_start))
    app.add_handler(CommandHandler("back", cmd_back, filters=private))
    app.add_handler(CommandHandler("hand", cmd_hand))
    app.add_handler(CommandHandler("zone", cmd_zone))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrated))
    app.add_handler(
        MessageHandler(private & filters.TEXT & filters.Regex(r"^/p(@\w+)?(\s|$)"), on_private_text)
    )
    app.add_handler(MessageHandler(private & filters.TEXT & ~filters.COMMAND, on_private_text))
    app.add_handler(CallbackQueryHandler(on_callback))
    app.add_handler(ChatMemberHandler(on_bot_membership, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_handler(ChatMemberHandler(on_membership, ChatMemberHandler.CHAT_MEMBER))
    app.add_error_handler(on_error)


def command_lists(lang: str) -> tuple[list[BotCommand], list[BotCommand]]:
    about = {
        "new": t(lang, "open a table in this group"),
        "join": t(lang, "sit down at the table"),
        "leave": t(lang, "leave your seat"),
        "addbot": t(lang, "computer players in the empty seats"),
        "begin": t(lang, "start the round"),
        "table": t(lang, "show the table again at the bottom"),
        "rules": t(lang, "the table's house rules"),
        "settings": t(lang, "house rules, turn time, computers, time zone, language"),
        "nudge": t(lang, "remind the player to act (催一下)"),
        "stop": t(lang, "close the table"),
        "stats": t(lang, "your results in this group"),
        "help": t(lang, "how to play here"),
    }
    group = [BotCommand(c, about[c]) for c in GROUP_COMMANDS]
    private = [
        BotCommand("hand", t(lang, "your cards now, the play on the table, whose turn")),
        BotCommand("p", t(lang, "play cards, e.g. /p 888B")),
        BotCommand("back", t(lang, "take your seat back from 托管")),
        BotCommand("zone", t(lang, "your own time zone for your deadlines")),
        BotCommand("help", about["help"]),
    ]
    return group, private


async def set_commands(app: GoujiApplication) -> None:
    for lang in LANGUAGES:
        group, private = command_lists(lang)
        code = None if lang == "zh" else lang
        await app.bot.set_my_commands(group, scope=BotCommandScopeAllGroupChats(), language_code=code)
        await app.bot.set_my_commands(private, scope=BotCommandScopeAllPrivateChats(), language_code=code)


__all__ = [
    "CONTEXT_TYPES",
    "GROUP_COMMANDS",
    "CustomContext",
    "GoujiApplication",
    "command_lists",
    "register",
    "set_commands",
]
