"""Commands in the group: open a table, sit down, start, show the table and the rules, nudge, stop. Each
decodes the command, calls one use case and shows its outcome; what the use case refuses gets a short answer
(worded by :mod:`bot.handlers.refusals`; the lobby's buttons answer the tap with the same words). Sent in private, the
commands about the group's table say where they work; /rules, /stats and /table answer there too.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.helpers import create_deep_linked_url

from engine import Rules
from table import NotAllowed, Nudged, Outcome, Table, TableAlreadyOpen, TableError, TableNotFound

from ..i18n import t
from ..keyboards import stop_keyboard
from ..texts.answers import help_text, rules_text, stats_text
from ..texts.words import seat_infos
from .common import (
    Handler,
    anonymous_admin,
    hosted_elsewhere,
    in_private,
    is_admin,
    reply,
    this_group,
    thread_of,
    topic_of,
)
from .context import CustomContext
from .refusals import refusal

Markup = InlineKeyboardMarkup | None


def in_the_group(command: Handler) -> Handler:
    """A command about the group's table: sent in private, the user is told where it works."""

    @functools.wraps(command)
    async def handler(update: Update, context: CustomContext) -> None:
        if in_private(update):
            name = command.__name__.removeprefix("cmd_")
            await reply(
                context,
                update,
                t(
                    context.language,
                    "/{command} works in your group's chat, where the table is.",
                    command=name,
                ),
            )
            return
        await command(update, context)

    return handler


async def cmd_help(update: Update, context: CustomContext) -> None:
    lang = context.language if in_private(update) else (await this_group(context, update)).language
    await reply(context, update, help_text(lang))


@in_the_group
async def cmd_new(update: Update, context: CustomContext) -> None:
    group = await this_group(context, update)
    user = update.effective_user
    assert user is not None
    try:
        # In a forum the table lives in the topic it was opened in (one open table per topic).
        outcome = await context.desk.service.lobby.open(
            group.id, user.id, thread_id=thread_of(update), topic=topic_of(update)
        )
    except TableAlreadyOpen as e:
        # Another bot of the fleet may host it: the topic's one table is that bot's, and the user is told so.
        told = await hosted_elsewhere(context, group, e.host)
        await reply(context, update, told or refusal(group.language, e, "open"))
        return
    except TableError as e:
        await reply(context, update, refusal(group.language, e, "open"))
        return
    await context.desk.after(outcome)


TableCommand = Callable[[Update, CustomContext, Table], Awaitable[None]]


def with_open_table(command: TableCommand) -> Handler:
    """A group command about the group's open table; without one the group is told how to open it."""

    @in_the_group
    @functools.wraps(command)
    async def handler(update: Update, context: CustomContext) -> None:
        group = await this_group(context, update)
        reads = context.desk.service.reads
        table = await reads.table_in_group(group.id, thread_of(update))
        if table is None:
            told = await hosted_elsewhere(context, group, await reads.host(group.id, thread_of(update)))
            await reply(context, update, told or t(group.language, "No table is open: /new opens one."))
            return
        await command(update, context, table)

    return handler


async def answered(context: CustomContext, update: Update, refused: str | None) -> None:
    if refused is not None:
        await reply(context, update, refused)


@with_open_table
async def cmd_join(update: Update, context: CustomContext, table: Table) -> None:
    refused = await seat_user(context, update, table.id, None)
    if refused is not None:
        await reply(context, update, *refused)


async def seat_user(
    context: CustomContext, update: Update, table_id: int, seat: int | None
) -> tuple[str, Markup] | None:
    """Seat the user who sent the update; what to tell the group when that cannot be done."""
    user = update.effective_user
    assert user is not None
    service = context.desk.service
    if anonymous_admin(update):
        # Posted as the group: there is nobody to deal cards to.
        return t(
            context.language,
            "Post as yourself, not as the group, to sit down: your cards come to you in private.",
        ), None
    try:
        table, n = await service.lobby.free_seat(table_id, user.id, seat)
    except TableNotFound as e:
        return refusal(context.language, e, "seat"), None  # no group to speak to: the user's language
    except TableError as e:
        lang = (await service.reads.load(table_id)).group.language
        return refusal(lang, e, "seat", name=user.first_name), None
    lang = table.group.language
    # A bot cannot write first: the player's private chat must be open before he sits down (his cards go there).
    # The outbox keeps that chat's pace and Telegram's overall limit: a direct call here was refused with a
    # 429 whenever the bot was busy (bench_load, 100 tables seating at once: 188 joins failed) and the player
    # never sat down. A 403 puts the chat among the blocked ones until he talks to the bot.
    outbox = context.desk.outbox
    said = await outbox.send(
        user.id,
        t(
            context.language,
            "You sit at seat {n} of the table in {group}. Your cards will come here.",
            n=n + 1,
            group=table.title,
        ),
        silent=True,  # he is looking at the group he just sat down in: nothing is asked of him yet
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
        outcome = await service.lobby.join(table_id, user.id, n)
    except TableError as e:
        return refusal(lang, e, "join"), None
    await context.desk.after(outcome)
    return None


@with_open_table
async def cmd_leave(update: Update, context: CustomContext, table: Table) -> None:
    await answered(context, update, await leave(context, update, table))


async def leave(context: CustomContext, update: Update, table: Table) -> str | None:
    """Leave the seat (in a match: 托管); the refusal to answer with, if any."""
    user = update.effective_user
    assert user is not None
    try:
        outcome = await context.desk.service.lobby.leave(table.id, user.id)
    except TableError as e:
        return refusal(table.group.language, e, "leave")
    await context.desk.after(outcome)
    return None


@with_open_table
async def cmd_addbot(update: Update, context: CustomContext, table: Table) -> None:
    await answered(context, update, await add_computers(context, update, table))


async def add_computers(context: CustomContext, update: Update, table: Table) -> str | None:
    user = update.effective_user
    try:
        outcome = await context.desk.service.lobby.add_computers(table.id, user.id if user else None)
    except TableError as e:
        return refusal(table.group.language, e, "add_computers")
    await context.desk.after(outcome)
    return None


@with_open_table
async def cmd_begin(update: Update, context: CustomContext, table: Table) -> None:
    await answered(context, update, await begin(context, update, table))


async def begin(
    context: CustomContext, update: Update, table: Table, version: int | None = None
) -> str | None:
    user = update.effective_user
    try:
        outcome = await context.desk.service.lobby.begin(table.id, user.id if user else None, version)
    except TableError as e:
        return refusal(table.group.language, e, "begin")
    await context.desk.after(outcome)
    return None


@with_open_table
async def cmd_table(update: Update, context: CustomContext, table: Table) -> None:
    """The table (or its lobby) as a new message at the bottom of the group; the old copy goes."""
    fresh = await context.desk.service.reads.load(table.id, with_due=True)
    await context.desk.after(Outcome(table=fresh, repost=True))


@with_open_table
async def cmd_nudge(update: Update, context: CustomContext, table: Table) -> None:
    """催一下: the player to act gets a reminder (once per turn)."""
    user = update.effective_user
    assert user is not None
    lang = table.group.language
    try:
        outcome = await context.desk.service.play.nudge(table.id, user.id)
    except TableError as e:
        await reply(context, update, refusal(lang, e, "nudge"))
        return
    await context.desk.after(outcome)
    infos = seat_infos(outcome.table, lang)
    names = "、".join(
        infos[n.seat].name for n in outcome.notices if isinstance(n, Nudged) and n.seat in infos
    )
    await reply(context, update, t(lang, "👋 Reminded {name} (催一下).", name=names or "?"))


async def cmd_rules(update: Update, context: CustomContext) -> None:
    service = context.desk.service
    if in_private(update):
        lang = context.language
        user = update.effective_user
        assert user is not None
        tables = await service.reads.tables_of(user.id)
        if not tables:
            text = (
                t(lang, "The default rules; /rules in a group shows that group's:")
                + "\n"
                + rules_text(lang, Rules.preset())
            )
        else:
            text = "\n\n".join(
                f"[{tb.title}]\n" + rules_text(lang, Rules.from_dict(tb.rules)) for tb in tables
            )
        await reply(context, update, text)
        return
    group = await this_group(context, update)
    table = await service.reads.table_in_group(group.id, thread_of(update))
    rules = Rules.from_dict(table.rules) if table is not None else group.rules
    await reply(context, update, rules_text(group.language, rules))


async def cmd_stats(update: Update, context: CustomContext) -> None:
    chat, user = update.effective_chat, update.effective_user
    assert chat is not None and user is not None
    reads = context.desk.service.reads
    if in_private(update):
        lang = context.language
        record = await reads.player_record(user.id)
        text = stats_text(lang, user.first_name, record, [], None)
        await reply(
            context,
            update,
            text + "\n" + t(lang, "/stats in a group shows your record there and its leaderboard."),
        )
        return
    group, stats, board = await reads.stats(chat.id, user.id)
    await reply(
        context, update, stats_text(group.language, user.first_name, stats, board, group.rounds_played)
    )


@with_open_table
async def cmd_stop(update: Update, context: CustomContext, table: Table) -> None:
    """Stopping closes the table for everyone: it asks first (the question is drawn for this version), and
    only someone who may answer it."""
    lang = table.group.language
    if not await may_stop(update, context, table):
        await reply(context, update, refusal(lang, NotAllowed(table.id), "stop"))
        return
    await reply(
        context,
        update,
        t(lang, "Stop the match and close the table for everyone? The final standings will be posted."),
        stop_keyboard(lang, table),
    )


async def may_stop(update: Update, context: CustomContext, table: Table) -> bool:
    """Whether the user may stop the table, as the lobby's stop() will judge it: a seated player, the table's
    creator or a group admin (Telegram is asked only when he is neither)."""
    user = update.effective_user
    if user is None:
        return False
    if table.seat_of(user.id) is not None or user.id == table.created_by:
        return True
    return await is_admin(update, context)


async def stop(
    context: CustomContext, update: Update, table: Table, version: int | None = None
) -> str | None:
    """Close the table; the refusal to answer with, if it was not closed."""
    user = update.effective_user
    user_id = user.id if user else None
    lobby = context.desk.service.lobby
    try:
        try:
            outcome = await lobby.stop(table.id, user_id, version=version)
        except NotAllowed:
            # Telegram is asked whether he is an admin only when it matters.
            if not await is_admin(update, context):
                raise
            outcome = await lobby.stop(table.id, user_id, is_admin=True, version=version)
    except TableError as e:
        return refusal(table.group.language, e, "stop")
    await context.desk.after(outcome)
    return None


async def on_migrated(update: Update, context: CustomContext) -> None:
    """A group that became a supergroup keeps its settings and table under its new id."""
    msg = update.effective_message
    if msg is None or msg.migrate_to_chat_id is None:
        return
    desk = context.desk
    await desk.after(await desk.service.deliveries.migrate_group(msg.chat_id, msg.migrate_to_chat_id))
