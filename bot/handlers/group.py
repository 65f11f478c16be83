"""Commands in the group: open a table, sit down, start, show the table and the rules, stop. Each decodes the
command, calls one use case and shows its outcome; what the use case refuses gets a short answer."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import Forbidden
from telegram.ext import ContextTypes
from telegram.helpers import create_deep_linked_url

from engine import Rules
from table import (
    AlreadySeated,
    NotAllowed,
    NothingToDo,
    NotInLobby,
    NotSeated,
    Outcome,
    RoundInProgress,
    SeatTaken,
    StaleVersion,
    Table,
    TableAlreadyOpen,
    TableNotFound,
)

from .. import render
from ..i18n import t
from .common import desk, in_private, is_admin, reply, this_group, user_language

Markup = InlineKeyboardMarkup | None


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    if in_private(update):
        lang = await user_language(context, update)
    else:
        lang = (await this_group(context, update)).language
    await reply(update, render.help_text(lang))


async def cmd_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    group = await this_group(context, update)
    await user_language(context, update)
    user = update.effective_user
    assert user is not None
    try:
        outcome = await desk(context).service.open(group.id, user.id)
    except TableAlreadyOpen:
        await reply(
            update, t(group.language, "A table is already open here: /table shows it, /stop ends it.")
        )
        return
    await desk(context).after(outcome)


TableCommand = Callable[[Update, ContextTypes.DEFAULT_TYPE, Table], Awaitable[None]]


def with_open_table(command: TableCommand) -> Callable[[Update, ContextTypes.DEFAULT_TYPE], Awaitable[None]]:
    """A group command about the group's open table; without one the group is told how to open it."""

    @functools.wraps(command)
    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        group = await this_group(context, update)
        table = await desk(context).service.table_in_group(group.id)
        if table is None:
            await reply(update, t(group.language, "No table is open: /new opens one."))
            return
        await command(update, context, table)

    return handler


@with_open_table
async def cmd_join(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    refused = await seat_user(context, update, table.id, None)
    if refused is not None:
        await reply(update, *refused)


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
    try:
        await context.bot.send_message(
            user.id,
            t(
                ulang,
                "You sit at seat {n} of the table in {group}. Your cards will come here.",
                n=n + 1,
                group=table.title,
            ),
        )
    except Forbidden:
        url = create_deep_linked_url(context.bot.username, f"j{table_id}s{n}")
        button = InlineKeyboardMarkup(
            [[InlineKeyboardButton(t(lang, "Open a private chat with me"), url=url)]]
        )
        return t(
            lang,
            "{name}: I can only deal you cards in a private chat. Tap the button, press Start, and you are seated.",
            name=user.first_name,
        ), button
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
        return t(lang, "The round has started; wait for the next table.")
    return t(lang, "That seat is taken.")


@with_open_table
async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    await leave(context, update, table)


async def leave(context: ContextTypes.DEFAULT_TYPE, update: Update, table: Table) -> None:
    user = update.effective_user
    assert user is not None
    lang = table.group.language
    try:
        outcome = await desk(context).service.leave(table.id, user.id)
    except NotSeated:
        await reply(update, t(lang, "You are not seated at this table."))
        return
    except NothingToDo:
        await reply(
            update, t(lang, "The computer plays your seat already (托管): /back in private to return.")
        )
        return
    except StaleVersion:
        await reply(update, t(lang, "The table changed; try again."))
        return
    await desk(context).after(outcome)


@with_open_table
async def cmd_addbot(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    await add_computers(context, update, table)


async def add_computers(context: ContextTypes.DEFAULT_TYPE, update: Update, table: Table) -> None:
    user = update.effective_user
    try:
        outcome = await desk(context).service.add_computers(table.id, user.id if user else None)
    except NotInLobby:
        await reply(update, t(table.group.language, "The round has started; wait for the next table."))
        return
    except StaleVersion:
        await reply(update, t(table.group.language, "The table changed; try again."))
        return
    await desk(context).after(outcome)


@with_open_table
async def cmd_begin(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    await begin(context, update, table)


async def begin(
    context: ContextTypes.DEFAULT_TYPE, update: Update, table: Table, version: int | None = None
) -> None:
    user = update.effective_user
    lang = table.group.language
    try:
        outcome = await desk(context).service.begin(table.id, user.id if user else None, version)
    except RoundInProgress:
        await reply(update, t(lang, "The round has already started."))
        return
    except NotSeated:
        await reply(update, t(lang, "Only a seated player can start the table."))
        return
    except StaleVersion:
        await reply(update, t(lang, "The table changed; try again."))
        return
    await desk(context).after(outcome)


@with_open_table
async def cmd_table(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    """The table (or its lobby) as a new message at the bottom of the group; it is edited from then on."""
    fresh = await desk(context).service.load(table.id, with_due=True)
    await desk(context).after(Outcome(table=fresh, repost=True))


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:

    group = await this_group(context, update)
    table = await desk(context).service.table_in_group(group.id)
    rules = Rules.from_dict(table.rules) if table is not None else group.rules
    await reply(update, render.rules_text(group.language, rules))


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    group, stats = await desk(context).service.stats(chat.id, user.id)
    lang = group.language
    if stats is None or stats.rounds_played == 0:
        await reply(
            update, t(lang, "{name} has not finished a round in this group yet.", name=user.first_name)
        )
        return
    places = " · ".join(f"{render.place_name(lang, i)} {n}" for i, n in enumerate(stats.places))
    await reply(
        update,
        t(
            lang,
            "{name}: {rounds} rounds, {points:+d} points. {places}. Group: {total} rounds.",
            name=user.first_name,
            rounds=stats.rounds_played,
            points=stats.points,
            places=places,
            total=group.rounds_played,
        ),
    )


@with_open_table
async def cmd_stop(update: Update, context: ContextTypes.DEFAULT_TYPE, table: Table) -> None:
    await stop(context, update, table)


async def stop(
    context: ContextTypes.DEFAULT_TYPE, update: Update, table: Table, version: int | None = None
) -> bool:
    """Close the table; whether it was closed (a refusal has been answered)."""
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
        await reply(
            update, t(lang, "Only a seated player, the table's creator or an admin can stop the table.")
        )
        return False
    except (StaleVersion, TableNotFound):
        await reply(update, t(lang, "The table changed; try again."))
        return False
    await desk(context).after(outcome)
    return True


async def on_migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A group that became a supergroup keeps its settings and table under its new id."""
    msg = update.effective_message
    if msg is None or msg.migrate_to_chat_id is None:
        return
    await desk(context).after(await desk(context).service.migrate_group(msg.chat_id, msg.migrate_to_chat_id))
