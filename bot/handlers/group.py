"""Commands in the group: open a table, sit down, start, show the table and the rules, nudge, stop. Each
decodes the command, calls one use case and shows its outcome; what the use case refuses gets a short answer
(the lobby's buttons answer the tap with the same words: :mod:`bot.handlers.buttons`). Sent in private, the
commands about the group's table say where they work; /rules, /stats and /table answer there too.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes
from telegram.helpers import create_deep_linked_url

from engine import Rules
from table import (
    AlreadyBegun,
    AlreadySeated,
    NoRoundInPlay,
    NotAllowed,
    NothingToDo,
    NotInLobby,
    NotSeated,
    Outcome,
    SeatTaken,
    StaleVersion,
    Table,
    TableAlreadyOpen,
    TableNotFound,
)

from .. import render
from ..i18n import t
from ..keyboards import stop_keyboard
from .common import desk, in_private, is_admin, reply, this_group, user_language

Markup = InlineKeyboardMarkup | None
Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Awaitable[None]]


def in_the_group(command: Handler) -> Handler:
    """A command about the group's table: sent in private, the user is told where it works."""

    @functools.wraps(command)
    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if in_private(update):
            lang = await user_language(context, update)
            name = command.__name__.removeprefix("cmd_")
            await reply(
                context,
                update,
                t(lang, "/{command} works in your group's chat, where the table is.", command=name),
            )
            return
        await command(update, context)

    return handler


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if in_private(update):
        lang = await user_language(context, update)
    else:
        lang = (await this_group(context, update)).language
    await reply(context, update, render.help_text(lang))


@in_the_group
async def cmd_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    group = await this_group(context, update)
    await user_language(context, update)
    user = update.effective_user
    assert user is not None
    try:
        outcome = await desk(context).service.open(group.id, user.id)
    except TableAlreadyOpen:
        await reply(
            context,
            update,
            t(group.language, "A table is already open here: /table shows it, /stop ends it."),
        )
        return
    await desk(context).after(outcome)


TableCommand = Callable[[Update, ContextTypes.DEFAULT_TYPE, Table], Awaitable[None]]


def with_open_table(command: TableCommand) -> Handler:
    """A group command about the group's open table; without one the group is told how to open it."""

    @in_the_group
    @functools.wraps(command)
    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        group = await this_group(context, update)
        await user_language(context, update)
        table = await desk(context).service.table_in_group(group.id)
        if table is None:
            await reply(context, update, t(group.language, "No table is open: /new opens one."))
            return
        await command(update, context, table)

    return handler


async def answered(context: ContextTypes.DEFAULT_TYPE, update: Update, refused: str | None) -> None:
    if refused is not None:
        await reply(context, update, refused)


@with_open_table
async def cmd_join(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    refused = await seat_user(context, update, table.id, None)
    if refused is not None:
        await reply(context, update, *refused)


async def seat_user(
    context: ContextTypes.DEFAULT_TYPE, update: Update, table_id: int, seat: int | None
) -> tuple[str, Markup] | None:
    """Seat the user who sent the update; what to tell the group when that cannot be done."""
    user = update.effective_user
    assert user is not None
    ulang = await user_language(context, update)
    service = desk(context).service
    try:
        table, n = await service.free_seat(table_id, user.id, seat)
    except TableNotFound:
        return t(ulang, "That table is closed."), None
    except (AlreadySeated, NotInLobby, SeatTaken) as e:
        lang = (await service.load(table_id)).group.language
        return _seat_refusal(lang, e, user.first_name), None
    lang = table.group.language
    # A bot cannot write first: the player's private chat must be open before he sits down (his cards go there).
    # The outbox keeps that chat's pace and Telegram's overall limit: a direct call here was refused with a
    # 429 whenever the bot was busy (bench_load, 100 tables seating at once: 188 joins failed) and the player
    # never sat down. A 403 puts the chat among the blocked ones until he talks to the bot.
    outbox = desk(context).outbox
    said = await outbox.send(
        user.id,
        t(
            ulang,
            "You sit at seat {n} of the table in {group}. Your cards will come here.",
            n=n + 1,
            group=table.title,
        ),
    )
    if said is None and user.id in outbox.blocked:
        url = create_deep_linked_url(context.bot.username, f"j{table_id}s{n}")
        button = InlineKeyboardMarkup(
            [[InlineKeyboardButton(t(lang, "Open a private chat with me"), url=url)]]
        )
        return t(
            lang,
            "{name}: I can only deal you cards in a private chat. Tap the button, press Start, and you are seated.",
            name=user.first_name,
        ), button
    if said is None:
        return t(
            lang, "{name}: Telegram did not take my message to you; try again.", name=user.first_name
        ), None
    try:
        outcome = await service.join(table_id, user.id, n)
    except (SeatTaken, StaleVersion, AlreadySeated, NotInLobby):
        return t(lang, "That seat was just taken; try again."), None
    await desk(context).after(outcome)
    return None


def _seat_refusal(lang: str, e: Exception, name: str) -> str:
    if isinstance(e, AlreadySeated):
        return t(lang, "{name}, you are already seated.", name=name)
    if isinstance(e, NotInLobby):
        return t(lang, "The match has begun; wait for the next table.")
    return t(lang, "That seat is taken.")


@with_open_table
async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    await answered(context, update, await leave(context, update, table))


async def leave(context: ContextTypes.DEFAULT_TYPE, update: Update, table: Table) -> str | None:
    """Leave the seat (in a match: 托管); the refusal to answer with, if any."""
    user = update.effective_user
    assert user is not None
    lang = table.group.language
    try:
        outcome = await desk(context).service.leave(table.id, user.id)
    except NotSeated:
        return t(lang, "You are not seated at this table.")
    except NothingToDo:
        return t(lang, "The computer plays your seat already (托管): /back in private to return.")
    except StaleVersion:
        return t(lang, "The table changed; try again.")
    await desk(context).after(outcome)
    return None


@with_open_table
async def cmd_addbot(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    await answered(context, update, await add_computers(context, update, table))


async def add_computers(context: ContextTypes.DEFAULT_TYPE, update: Update, table: Table) -> str | None:
    user = update.effective_user
    lang = table.group.language
    try:
        outcome = await desk(context).service.add_computers(table.id, user.id if user else None)
    except NotInLobby:
        return t(lang, "The match has begun; wait for the next table.")
    except NotSeated:
        return t(lang, "Sit down first: only a seated player may fill the table with computer players.")
    except StaleVersion:
        return t(lang, "The table changed; try again.")
    await desk(context).after(outcome)
    return None


@with_open_table
async def cmd_begin(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    await answered(context, update, await begin(context, update, table))


async def begin(
    context: ContextTypes.DEFAULT_TYPE, update: Update, table: Table, version: int | None = None
) -> str | None:
    user = update.effective_user
    lang = table.group.language
    try:
        outcome = await desk(context).service.begin(table.id, user.id if user else None, version)
    except AlreadyBegun as e:
        if e.round_over:
            return t(lang, "This round is over: tap Next round under its summary to deal the next one.")
        return t(lang, "The round is being played: /table shows it.")
    except NotSeated:
        return t(lang, "Only a seated player can start the table.")
    except StaleVersion:
        return t(lang, "The table changed; try again.")
    await desk(context).after(outcome)
    return None


@with_open_table
async def cmd_table(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    """The table (or its lobby) as a new message at the bottom of the group; the old copy goes."""
    fresh = await desk(context).service.load(table.id, with_due=True)
    await desk(context).after(Outcome(table=fresh, repost=True))


@with_open_table
async def cmd_nudge(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    """催一下: the player to act gets a reminder (once per turn)."""
    user = update.effective_user
    assert user is not None
    lang = table.group.language
    try:
        outcome = await desk(context).service.nudge(table.id, user.id)
    except NotSeated:
        await reply(context, update, t(lang, "Only a seated player can nudge."))
        return
    except NoRoundInPlay:
        await reply(context, update, t(lang, "Nobody is to act just now."))
        return
    except NotAllowed:
        await reply(
            context, update, t(lang, "It is your own turn: your turn message is in our private chat.")
        )
        return
    except (NothingToDo, StaleVersion):
        await reply(context, update, t(lang, "Already nudged this turn; give them a moment."))
        return
    await desk(context).after(outcome)
    seat = outcome.table.to_act
    name = render.seat_infos(outcome.table, lang)[seat.n].name if seat is not None else "?"
    await reply(context, update, t(lang, "👋 Reminded {name} (催一下).", name=name))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if in_private(update):
        lang = await user_language(context, update)
        user = update.effective_user
        assert user is not None
        tables = await desk(context).service.tables_of(user.id)
        if not tables:
            text = (
                t(lang, "The default rules; /rules in a group shows that group's:")
                + "\n"
                + render.rules_text(lang, Rules.preset())
            )
        else:
            text = "\n\n".join(
                f"[{tb.title}]\n" + render.rules_text(lang, Rules.from_dict(tb.rules)) for tb in tables
            )
        await reply(context, update, text)
        return
    group = await this_group(context, update)
    table = await desk(context).service.table_in_group(group.id)
    rules = Rules.from_dict(table.rules) if table is not None else group.rules
    await reply(context, update, render.rules_text(group.language, rules))


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    if in_private(update):
        lang = await user_language(context, update)
        record = await desk(context).service.player_record(user.id)
        text = render.stats_text(lang, user.first_name, record, [], None)
        await reply(
            context,
            update,
            text + "\n" + t(lang, "/stats in a group shows your record there and its leaderboard."),
        )
        return
    await user_language(context, update)
    group, stats, board = await desk(context).service.stats(chat.id, user.id)
    await reply(
        context, update, render.stats_text(group.language, user.first_name, stats, board, group.rounds_played)
    )


@with_open_table
async def cmd_stop(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    """Stopping closes the table for everyone: it asks first (the question is drawn for this version)."""
    lang = table.group.language
    await reply(
        context,
        update,
        t(lang, "Stop the match and close the table for everyone? The final standings will be posted."),
        stop_keyboard(lang, table),
    )


async def stop(
    context: ContextTypes.DEFAULT_TYPE, update: Update, table: Table, version: int | None = None
) -> str | None:
    """Close the table; the refusal to answer with, if it was not closed."""
    user = update.effective_user
    lang = table.group.language
    service = desk(context).service
    try:
        try:
            outcome = await service.stop(table.id, user.id if user else None, version=version)
        except NotAllowed:
            # Telegram is asked whether he is an admin only when it matters.
            if not await is_admin(update, context):
                raise
            outcome = await service.stop(table.id, user.id if user else None, is_admin=True, version=version)
    except NotAllowed:
        return t(lang, "Only a seated player, the table's creator or an admin can stop the table.")
    except (StaleVersion, TableNotFound):
        return t(lang, "The table changed since; nothing was stopped.")
    await desk(context).after(outcome)
    return None


async def on_migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group that became a supergroup keeps its settings and table under its new id."""
    msg = update.effective_message
    if msg is None or msg.migrate_to_chat_id is None:
        return
    await desk(context).after(await desk(context).service.migrate_group(msg.chat_id, msg.migrate_to_chat_id))
