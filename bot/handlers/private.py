"""The private chat: /start (and the deep link that seats a player), /back from 托管, /hand, typed plays."""

from __future__ import annotations

import re

from telegram import Update

from engine import Action
from engine.match import parse_typed
from table import LOBBY, AlreadyProcessed, Outcome, Table, TableError, TableNotFound

from .. import codec
from ..i18n import t
from ..keyboards import zone_keyboard
from ..texts.answers import help_text
from ..texts.player import hand_text
from ..texts.words import MAX_MESSAGE, reader_language
from .common import in_private, reply
from .context import CustomContext
from .group import cmd_help, seat_user
from .refusals import refusal

MAX_TEXT = 200  # a typed play is short; anything longer is not one
_DEEP_LINK = re.compile(r"j(\d{1,12})s([0-5])")


async def cmd_start(update: Update, context: CustomContext) -> None:
    if not in_private(update):
        await cmd_help(update, context)
        return
    payload = context.args[0] if context.args else ""
    m = _DEEP_LINK.fullmatch(payload)
    if m:
        table_id, seat = int(m.group(1)), int(m.group(2))
        refused = await seat_user(context, update, table_id, seat)
        if refused is not None and update.effective_user is not None:
            try:
                table = await context.desk.service.reads.load(table_id)
            except TableNotFound:
                table = None
            if (
                table is not None
                and table.status == LOBBY
                and table.seat_of(update.effective_user.id) is None
            ):
                refused = await seat_user(context, update, table_id, None)  # that seat went: any other
        if refused is not None:
            await reply(context, update, refused[0])
        return
    lang = context.language
    await reply(
        context,
        update,
        t(
            lang,
            "Welcome! Add me to your group and send /new there to open a 够级 table. Your cards will come to this chat.",
        )
        + "\n\n"
        + help_text(lang),
    )


async def cmd_back(update: Update, context: CustomContext) -> None:
    user = update.effective_user
    assert user is not None
    outcomes = await context.desk.service.lobby.back(user.id)
    if not outcomes:
        await reply(context, update, t(context.language, "You are not on 托管 anywhere."))
    # Back: one message per table, his hand or his turn (the presenter's, for CameBack).
    await context.desk.after_all(outcomes)


async def cmd_zone(update: Update, context: CustomContext) -> None:
    """/zone in private: the player's own time zone for the deadlines in his private chat (a group keeps its
    own for the table it shows)."""
    user = update.effective_user
    assert user is not None
    lang = context.language
    if not in_private(update):
        await reply(context, update, t(lang, "Send /zone to me in private: it sets your own time zone."))
        return
    record = await context.desk.service.reads.user(user.id)
    zone = record.time_zone if record is not None else None
    await reply(context, update, zone_text(lang, zone), zone_keyboard(lang, zone))


async def on_zone(update: Update, context: CustomContext, button: codec.Zone) -> None:
    query, user = update.callback_query, update.effective_user
    assert query is not None and user is not None
    lang = context.language
    await context.desk.service.deliveries.set_zone(user.id, button.zone)
    await query.answer(t(lang, "Saved."))
    if query.message is not None:
        context.desk.outbox.edit(
            user.id, query.message.message_id, zone_text(lang, button.zone), zone_keyboard(lang, button.zone)
        )


def zone_text(lang: str, zone: str | None) -> str:
    if zone is None:
        return t(lang, "Your deadlines are shown in each group's time zone. Choose your own:")
    return t(lang, "Your deadlines are shown in {zone} time. Choose another:", zone=zone)


async def cmd_hand(update: Update, context: CustomContext) -> None:
    """His cards at every table where a round is dealt to him, whenever he asks (a day-long game is planned
    between turns). A hand is never shown in a group."""
    user = update.effective_user
    assert user is not None
    lang = context.language
    if not in_private(update):
        await reply(context, update, t(lang, "Your cards are shown only in private: send /hand to me there."))
        return
    tables = await context.desk.service.reads.tables_of(user.id, with_due=True)
    hands = [
        hand_text(reader_language(table, seat.n), table, seat.n, context.desk.clock())
        for table in tables
        if table.match is not None and (seat := table.seat_of(user.id)) is not None
    ]
    if not hands:
        text = (
            t(lang, "No round is dealt at your table yet: your cards come here when it is.")
            if tables
            else t(
                lang, "You are not seated at any table. In a group, /new opens one and /join sits you down."
            )
        )
        await reply(context, update, text)
        return
    await reply(context, update, "\n\n".join(hands)[:MAX_MESSAGE])


def typed_action(text: str) -> Action | None:
    """A typed play in the notation of RULES.md: ``TTTT2``, ``/p 888B``, ``pass``/``过``, ``让``, ``烧 KKK``."""
    text = text.strip()
    if not text or len(text) > MAX_TEXT:
        return None
    if text.startswith("/p"):
        rest = text[2:]
        text = rest.split(None, 1)[1] if rest.startswith("@") and len(rest.split(None, 1)) > 1 else rest
    try:
        return parse_typed(text)
    except ValueError:
        return None


async def on_private_text(update: Update, context: CustomContext) -> None:
    lang = context.language
    msg, user = update.effective_message, update.effective_user
    assert msg is not None and user is not None
    action = typed_action(msg.text or "")
    if action is None:
        await reply(
            context,
            update,
            t(
                lang,
                "I did not understand that. Type a play like TTTT2 or 888B, or pass / 过. /help explains.",
            ),
        )
        return
    seated = await context.desk.service.reads.tables_of(user.id)
    if not seated:
        await reply(
            context,
            update,
            t(lang, "You are not seated at any table. In a group, /new opens one and /join sits you down."),
        )
        return
    mine = [
        table
        for table in seated
        if (seat := table.seat_of(user.id)) is not None
        and table.match is not None
        and seat.n in table.match.asked
    ]
    if len(mine) > 1 and msg.reply_to_message is not None:
        replied = msg.reply_to_message.message_id
        mine = [s for s in mine if (seat := s.seat_of(user.id)) and seat.hand_message_id == replied] or mine
    if not mine:
        await reply(context, update, t(lang, "It is not your turn at any table."))
        return
    if len(mine) > 1:
        names = ", ".join(s.title for s in mine)
        await reply(
            context,
            update,
            t(
                lang,
                "It is your turn at several tables ({names}): reply to the hand message of the table you mean.",
                names=names,
            ),
        )
        return
    outcome, refused = await act(context, update, mine[0], action, None)
    if refused is not None:
        await reply(context, update, refused)
    await context.desk.after(outcome)


async def act(
    context: CustomContext,
    update: Update,
    table: Table,
    action: Action,
    version: int | None,
    from_message: int | None = None,
) -> tuple[Outcome | None, str | None]:
    """One move of the user's; the outcome to show, or the text that says why it was refused (neither for a
    redelivered update)."""
    user = update.effective_user
    assert user is not None
    try:
        outcome = await context.desk.service.play.act(
            table.id, user.id, action, version=version, update_id=update.update_id, from_message=from_message
        )
    except AlreadyProcessed:
        return None, None
    except TableError as e:
        return None, refusal(context.language, e, "play")
    return outcome, None
