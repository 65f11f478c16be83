"""Telegram updates in, table actions out. Each handler identifies the table and the seat, and leaves every
rule to the engine; what goes wrong gets a short answer and changes nothing."""

from __future__ import annotations

import contextlib
import functools
import logging
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)
from telegram.helpers import create_deep_linked_url

from engine import IllegalAction, Rules
from engine.ai import computer_action, make_player
from engine.cards import EMPTY, CardError, format_cards
from storage import (
    AlreadyProcessed,
    NoRoundInPlay,
    NotYourTurn,
    RoundInProgress,
    SeatTaken,
    TableAlreadyOpen,
    TableNotFound,
    UnitOfWorkFactory,
    VersionConflict,
)
from storage import service as store
from storage.records import GroupRecord

from . import render
from .callbacks import ACT, COMPOSE, LOBBY, SETTINGS, BadCallback, Callback, unpack_cards
from .i18n import LANGUAGES, normalise, t
from .tables import DEFAULT_COMPUTER, Snapshot, Tables

log = logging.getLogger(__name__)

TIMEOUTS = (30, 60, 120, 300, 1800, 7200, 86400)  # 30 s … 24 h
MAX_TEXT = 200  # a typed play is short; anything longer is not one
PRESETS = ("qingdao", "classic", "zhangqiu")
TOGGLES = tuple(k for k in Rules.key_names() if k not in ("tribute_order",))
_ACTION_WORDS = {
    "x": "pass",
    "y": "yield",
    "revolt": "revolt",
    "no_revolt": "no_revolt",
    "yaotou": "yaotou",
    "wutou": "wutou",
    "declare": "declare",
    "no_declare": "no_declare",
}


@dataclass
class Services:
    uow: UnitOfWorkFactory
    tables: Tables
    # The name and language last written for each user: nearly every update repeats them, and a unit
    # of work to find that out was one of the few per tap. Losing it costs one write per user.
    known_users: dict[int, tuple[str, str | None]] = field(default_factory=dict)


KNOWN_USERS_MAX = 100_000


def services(context: ContextTypes.DEFAULT_TYPE) -> Services:
    return context.application.bot_data["services"]


# ---------------------------------------------------------------------------------------------- helpers


async def _user_lang(svc: Services, update: Update) -> str:
    user = update.effective_user
    if user is None:
        return "zh"
    said = (user.full_name[:255], user.language_code)
    if svc.known_users.get(user.id) != said:
        async with svc.uow() as uow:
            await uow.users.ensure(user.id, *said)
            await uow.commit()
        if len(svc.known_users) >= KNOWN_USERS_MAX:
            svc.known_users.clear()
        svc.known_users[user.id] = said
    return normalise(user.language_code)


async def _group(svc: Services, update: Update) -> GroupRecord | None:
    chat = update.effective_chat
    assert chat is not None
    async with svc.uow() as uow:
        await uow.groups.ensure(chat.id, (chat.title or "")[:255] or None)
        await uow.commit()
        return await uow.groups.get(chat.id)


async def _reply(update: Update, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    msg = update.effective_message
    if msg is not None:
        try:
            await msg.reply_text(text, reply_markup=markup, do_quote=False)
        except TelegramError as e:  # the chat may be gone or closed to us; nothing else to do
            log.info("could not reply: %s", type(e).__name__)


async def _is_admin(
    update: Update, context: ContextTypes.DEFAULT_TYPE, created_by: int | None = None
) -> bool:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return False
    if created_by is not None and user.id == created_by:
        return True
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


# ---------------------------------------------------------------------------------------------- group


def help_text(lang: str) -> str:
    return "\n".join(
        [
            t(lang, "够级 for six, in two teams of three (seats 1·3·5 against 2·4·6)."),
            t(
                lang,
                "In the group: /new opens a table, /join or the buttons seat you, /addbot fills empty seats with computer players, /begin starts.",
            ),
            t(
                lang,
                "Your cards come to your private chat with me: tap ranks to compose a play and press Play, or type it: TTTT2, 888B, /p 99, pass or 过, 让.",
            ),
            t(
                lang,
                "If you miss your turn the computer plays it; miss two and it keeps playing (托管) until you tap anything or send /back.",
            ),
            t(
                lang,
                "/rules shows the house rules, /settings changes them, /stats your results, /table shows the table again, /stop closes it.",
            ),
        ]
    )


async def cmd_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    chat = update.effective_chat
    if chat is not None and chat.type != ChatType.PRIVATE:
        group = await _group(svc, update)
        lang = group.language if group else "zh"
    else:
        lang = await _user_lang(svc, update)
    await _reply(update, help_text(lang))


async def cmd_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    group = await _group(svc, update)
    await _user_lang(svc, update)
    assert group is not None and update.effective_user is not None
    try:
        table = await store.open_table(svc.uow, group.id, created_by=update.effective_user.id, kind="match")
    except TableAlreadyOpen:
        await _reply(
            update, t(group.language, "A table is already open here: /table shows it, /stop ends it.")
        )
        return
    await svc.tables.show_lobby(table.id, new_message=True)


async def _open_table(svc: Services, update: Update) -> tuple[GroupRecord, int | None]:
    group = await _group(svc, update)
    assert group is not None
    table = await svc.tables.open_table_of(group.id)
    return group, None if table is None else table.id


TableCommand = Callable[[Update, ContextTypes.DEFAULT_TYPE, Services, int], Awaitable[None]]


def with_open_table(command: TableCommand) -> Callable[[Update, ContextTypes.DEFAULT_TYPE], Awaitable[None]]:
    """A group command about the group's open table; without one the group is told how to open it."""

    @functools.wraps(command)
    async def handler(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        svc = services(context)
        group, table_id = await _open_table(svc, update)
        if table_id is None:
            await _reply(update, t(group.language, "No table is open: /new opens one."))
            return
        await command(update, context, svc, table_id)

    return handler


@with_open_table
async def cmd_join(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services, table_id: int) -> None:
    text = await _seat_user(context, svc, update, table_id, None)
    if text:
        await _reply(update, text[0], text[1])


async def _seat_user(
    context: ContextTypes.DEFAULT_TYPE, svc: Services, update: Update, table_id: int, seat: int | None
) -> tuple[str, InlineKeyboardMarkup | None] | None:
    """Seat the user who sent the update; a message for the group when that cannot be done."""
    user = update.effective_user
    assert user is not None
    ulang = await _user_lang(svc, update)
    snap = await svc.tables.snapshot(table_id)
    lang = snap.lang
    if snap.seat_of(user.id) is not None:
        return t(lang, "{name}, you are already seated.", name=user.first_name), None
    if snap.table.status != "lobby":
        return t(lang, "The round has started; wait for the next table."), None
    free = [s for s in range(6) if snap.seat(s) is None]
    if seat is None:
        seat = free[0] if free else None
    if seat is None or seat not in free:
        return t(lang, "That seat is taken."), None
    try:
        await context.bot.send_message(
            user.id,
            t(
                ulang,
                "You sit at seat {n} of the table in {group}. Your cards will come here.",
                n=seat + 1,
                group=snap.title,
            ),
        )
    except Forbidden:
        url = create_deep_linked_url(context.bot.username, f"j{table_id}s{seat}")
        button = InlineKeyboardMarkup(
            [[InlineKeyboardButton(t(lang, "Open a private chat with me"), url=url)]]
        )
        return t(
            lang,
            "{name}: I can only deal you cards in a private chat. Tap the button, press Start, and you are seated.",
            name=user.first_name,
        ), button
    try:
        await store.take_seat(svc.uow, table_id, snap.table.version, seat, user_id=user.id)
    except (SeatTaken, VersionConflict):
        return t(lang, "That seat was just taken; try again."), None
    await svc.tables.show_lobby(table_id)
    return None


@with_open_table
async def cmd_leave(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services, table_id: int) -> None:
    assert update.effective_user is not None
    await _leave(svc, table_id, update.effective_user.id, update)


async def _leave(svc: Services, table_id: int, user_id: int, update: Update) -> None:
    snap = await svc.tables.snapshot(table_id)
    seat = snap.seat_of(user_id)
    if seat is None:
        await _reply(update, t(snap.lang, "You are not seated at this table."))
        return
    if snap.table.status == "lobby":
        try:
            await store.leave_seat(svc.uow, table_id, snap.table.version, seat.seat)
        except VersionConflict:
            await _reply(update, t(snap.lang, "The table changed; try again."))
            return
        await svc.tables.show_lobby(table_id)
    else:
        await svc.tables.set_autoplay(table_id, seat.seat, True)
        await _reply(
            update,
            t(
                snap.lang,
                "{name} leaves the round: the computer plays the seat (托管). /back in private to return.",
                name=snap.infos[seat.seat].name,
            ),
        )
        await svc.tables.settle(table_id, [])


@with_open_table
async def cmd_addbot(
    update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services, table_id: int
) -> None:
    await _add_bots(svc, table_id, update)


async def _add_bots(svc: Services, table_id: int, update: Update) -> None:
    snap = await svc.tables.snapshot(table_id)
    if snap.table.status != "lobby":
        await _reply(update, t(snap.lang, "The round has started; wait for the next table."))
        return
    version = snap.table.version
    for s in range(6):
        if snap.seat(s) is None:
            try:
                version = await store.take_seat(
                    svc.uow, table_id, version, s, computer_level=DEFAULT_COMPUTER
                )
            except (SeatTaken, VersionConflict):
                break
    await svc.tables.show_lobby(table_id)


@with_open_table
async def cmd_begin(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services, table_id: int) -> None:
    await _begin(svc, table_id, update)


async def _begin(svc: Services, table_id: int, update: Update, version: int | None = None) -> None:
    snap = await svc.tables.snapshot(table_id)
    user = update.effective_user
    if snap.table.status != "lobby":
        await _reply(update, t(snap.lang, "The round has already started."))
        return
    if user is None or snap.seat_of(user.id) is None:
        await _reply(update, t(snap.lang, "Only a seated player can start the table."))
        return
    try:
        await svc.tables.begin(table_id, snap.table.version if version is None else version)
    except VersionConflict:
        await _reply(update, t(snap.lang, "The table changed; try again."))


@with_open_table
async def cmd_table(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services, table_id: int) -> None:
    await repost_table(svc, table_id)


async def repost_table(svc: Services, table_id: int, *, old_message_gone: bool = False) -> None:
    """The table (or its lobby) as a new message at the bottom of the group; it is edited from then on."""
    snap = await svc.tables.snapshot(table_id)
    if snap.state is None:
        await svc.tables.show_lobby(table_id, new_message=True, old_message_gone=old_message_gone)
        return
    mem = svc.tables.memory(table_id)
    text = render.table_text(snap.lang, snap.state, snap.infos, auto_passed=mem.auto_passed, due=mem.due)
    await svc.tables.show_group(snap, text, None, new_message=True, old_message_gone=old_message_gone)


async def cmd_rules(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    group, table_id = await _open_table(svc, update)
    if table_id is not None:
        rules = Rules.from_dict((await svc.tables.snapshot(table_id)).table.rules)
    elif group.house_rules is not None:
        rules = Rules.from_dict(group.house_rules)
    else:
        rules = Rules.preset("qingdao")
    await _reply(update, rules_text(group.language, rules))


def rule_description(lang: str, key: str) -> str:
    return {
        "two_big_kill_one": t(lang, "二杀一: two 大王 beat one (R2.5)"),
        "tie_two": t(lang, "贴钱: 2s may be attached to a rank (R2.6)"),
        "single_two_gouji": t(lang, "a single 2 is gouji (R3.1)"),
        "dian_si": t(lang, "开点发4: 4s only after opening (R5.4)"),
        "dian_gong": t(lang, "点贡: who did not open pays his 对头 (R5.5)"),
        "xuan_dian": t(lang, "宣点 before the first lead (R5.6)"),
        "burn_requires_open": t(lang, "only opened players may burn (R6.1)"),
        "burn_feasibility": t(lang, "a burn is allowed only if it can finish (R6.3)"),
        "bie_san": t(lang, "憋三: 3s only as the last play; 买三 (R8)"),
        "kang_gong": t(lang, "抗贡: four jokers of a kind exempt from tribute (R10.5)"),
        "return_tribute": t(lang, "还贡 for 落贡 (R10.6)"),
        "zhangqiu": t(lang, "章丘: 196 cards, 33/32, 五户乱缠, 买四 (R1.5)"),
    }.get(key, key)


def rules_text(lang: str, rules: Rules) -> str:
    lines = [t(lang, "House rules of this table:")]
    for key in TOGGLES:
        on = getattr(rules, key)
        lines.append(f"{'✅' if on else '▫️'} {key} — {rule_description(lang, key)}")
    lines.append(t(lang, "Tribute order: {order}", order=" > ".join(rules.tribute_order)))
    return "\n".join(lines)


async def cmd_stats(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    group = await _group(svc, update)
    user = update.effective_user
    assert group is not None and user is not None
    async with svc.uow() as uow:
        stats = await uow.users.stats_in_group(group.id, user.id)
    lang = group.language
    if stats is None or stats.rounds_played == 0:
        await _reply(
            update, t(lang, "{name} has not finished a round in this group yet.", name=user.first_name)
        )
        return
    places = " · ".join(f"{render.place_name(lang, i)} {n}" for i, n in enumerate(stats.places))
    await _reply(
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
async def cmd_stop(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services, table_id: int) -> None:
    await _stop(context, svc, table_id, update)


async def _stop(context: ContextTypes.DEFAULT_TYPE, svc: Services, table_id: int, update: Update) -> None:
    snap = await svc.tables.snapshot(table_id)
    user = update.effective_user
    allowed = user is not None and (
        snap.seat_of(user.id) is not None or await _is_admin(update, context, snap.table.created_by)
    )
    if not allowed:
        await _reply(
            update, t(snap.lang, "Only a seated player, the table's creator or an admin can stop the table.")
        )
        return
    try:
        await store.close_table(svc.uow, table_id, snap.table.version)
    except VersionConflict:
        await _reply(update, t(snap.lang, "The table changed; try again."))
        return
    if snap.table.table_message_id is not None:
        svc.tables.outbox.drop_keyboard(snap.table.group_id, snap.table.table_message_id)
    await _reply(update, t(snap.lang, "The table is closed. /new opens another."))


async def cmd_settings(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    group = await _group(svc, update)
    assert group is not None
    table = await svc.tables.open_table_of(group.id)
    if not await _is_admin(update, context, table.created_by if table else None):
        await _reply(
            update, t(group.language, "Only the table's creator or a group admin can change the settings.")
        )
        return
    await _reply(update, settings_text(group), settings_keyboard(group))


def _group_rules(group: GroupRecord) -> Rules:
    return Rules.from_dict(group.house_rules) if group.house_rules else Rules.preset("qingdao")


def settings_text(group: GroupRecord) -> str:
    lang = group.language
    return "\n".join(
        [
            t(lang, "Settings for new tables in this group:"),
            rules_text(lang, _group_rules(group)),
            t(lang, "Turn time: {time}", time=render.duration_text(lang, group.turn_timeout_seconds)),
            t(lang, "Language: {language}", language=lang),
        ]
    )


def settings_keyboard(group: GroupRecord) -> InlineKeyboardMarkup:
    lang = group.language
    rules = _group_rules(group)

    def b(label: str, arg: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=Callback(SETTINGS, 0, 0, arg).encode())

    rows = [[b(("• " if Rules.preset(p) == rules else "") + p, f"p:{p}") for p in PRESETS]]
    toggles = [b(("✅ " if getattr(rules, k) else "▫️ ") + k, f"k:{k}") for k in TOGGLES]
    rows += [toggles[i : i + 2] for i in range(0, len(toggles), 2)]
    rows.append(
        [
            b(("• " if group.turn_timeout_seconds == s else "") + render.duration_text(lang, s), f"t:{s}")
            for s in TIMEOUTS
        ]
    )
    rows.append(
        [
            b(("• " if lang == code else "") + label, f"l:{code}")
            for code, label in (("zh", "中文"), ("en", "English"))
        ]
    )
    return InlineKeyboardMarkup(rows)


async def on_settings(update: Update, context: ContextTypes.DEFAULT_TYPE, cb: Callback) -> None:
    svc = services(context)
    query = update.callback_query
    assert query is not None
    group = await _group(svc, update)
    assert group is not None
    table = await svc.tables.open_table_of(group.id)
    if not await _is_admin(update, context, table.created_by if table else None):
        await query.answer(
            t(group.language, "Only the table's creator or a group admin can change the settings."),
            show_alert=True,
        )
        return
    what, _, value = cb.arg.partition(":")
    rules = _group_rules(group)
    changes: dict[str, object] = {}
    if what == "p" and value in PRESETS:
        changes["house_rules"] = Rules.preset(value).to_dict()
    elif what == "k" and value in TOGGLES:
        changes["house_rules"] = rules.set_key(value, not getattr(rules, value)).to_dict()
    elif what == "t" and value.isdigit() and int(value) in TIMEOUTS:
        changes["turn_timeout_seconds"] = int(value)
    elif what == "l" and value in LANGUAGES:
        changes["language"] = value
    else:
        await query.answer(t(group.language, "That button is out of date."))
        return
    async with svc.uow() as uow:
        await uow.groups.update_settings(group.id, **changes)  # type: ignore[arg-type]
        await uow.commit()
        group = await uow.groups.get(group.id)
    assert group is not None
    if table is not None and table.status == "lobby" and "house_rules" in changes:
        async with svc.uow() as uow:
            await uow.tables.save(table.id, table.version, rules=changes["house_rules"])
            await uow.commit()
        await svc.tables.show_lobby(table.id)
    await query.answer(t(group.language, "Saved."))
    with contextlib.suppress(TelegramError):
        await query.edit_message_text(settings_text(group), reply_markup=settings_keyboard(group))


# ---------------------------------------------------------------------------------------------- private


async def cmd_start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    lang = await _user_lang(svc, update)
    chat = update.effective_chat
    if chat is None or chat.type != ChatType.PRIVATE:
        await cmd_help(update, context)
        return
    payload = context.args[0] if context.args else ""
    m = re.fullmatch(r"j(\d{1,12})s([0-5])", payload)
    if m:
        table_id, seat = int(m.group(1)), int(m.group(2))
        try:
            result = await _seat_user(context, svc, update, table_id, seat)
            if result is not None and update.effective_user is not None:
                snap = await svc.tables.snapshot(table_id)
                if snap.table.status == "lobby" and snap.seat_of(update.effective_user.id) is None:
                    result = await _seat_user(
                        context, svc, update, table_id, None
                    )  # that seat went: any other
        except TableNotFound:
            result = (t(lang, "That table is closed."), None)
        if result is not None:
            await _reply(update, result[0])
        return
    await _reply(
        update,
        t(
            lang,
            "Welcome! Add me to your group and send /new there to open a 够级 table. Your cards will come to this chat.",
        )
        + "\n\n"
        + help_text(lang),
    )


async def cmd_back(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    lang = await _user_lang(svc, update)
    user = update.effective_user
    assert user is not None
    async with svc.uow() as uow:
        table_ids = await uow.seats.tables_of_user(user.id)
    back = 0
    for table_id in table_ids:
        snap = await svc.tables.snapshot(table_id)
        seat = snap.seat_of(user.id)
        if seat is not None and seat.autoplay:
            await svc.tables.set_autoplay(table_id, seat.seat, False)
            back += 1
            await svc.tables.settle(table_id, [])
    await _reply(
        update,
        t(lang, "Welcome back: you play your own cards again.")
        if back
        else t(lang, "You are not on 托管 anywhere."),
    )


def _typed_action(text: str) -> str | None:
    """A typed play in the notation of RULES.md: ``TTTT2``, ``/p 888B``, ``pass``/``过``, ``让``, ``烧 KKK``."""
    text = text.strip()
    if not text or len(text) > MAX_TEXT:
        return None
    if text.startswith("/p"):
        text = text[2:].split("@", 1)[-1] if text[2:3] == "@" else text[2:]
    words = text.strip()
    low = words.lower()
    if low in ("pass", "过", "p", "过牌", "要不起"):
        return "pass"
    if low in ("yield", "让", "让牌"):
        return "yield"
    for prefix, verb in (("烧", "burn"), ("burn", "burn"), ("play", "play")):
        if low.startswith(prefix):
            rest = words[len(prefix) :].strip()
            return f"{verb} {format_cards(_cards(rest))}" if rest and _cards(rest) else None
    cards = _cards(words)
    return f"play {format_cards(cards)}" if cards else None


def _cards(text: str) -> tuple[int, ...] | None:
    from engine.cards import parse_cards

    try:
        c = parse_cards(text)
    except CardError:
        return None
    return c if sum(c) else None


async def on_private_text(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    lang = await _user_lang(svc, update)
    msg, user = update.effective_message, update.effective_user
    assert msg is not None and user is not None
    action = _typed_action(msg.text or "")
    if action is None:
        await _reply(
            update,
            t(
                lang,
                "I did not understand that. Type a play like TTTT2 or 888B, or pass / 过. /help explains.",
            ),
        )
        return
    async with svc.uow() as uow:
        table_ids = await uow.seats.tables_of_user(user.id)
    mine: list[Snapshot] = []
    for table_id in table_ids:
        snap = await svc.tables.snapshot(table_id)
        seat = snap.seat_of(user.id)
        if snap.state is not None and seat is not None and snap.state.current_player == seat.seat:
            mine.append(snap)
    if len(mine) > 1 and msg.reply_to_message is not None:
        replied = msg.reply_to_message.message_id
        mine = [s for s in mine if (seat := s.seat_of(user.id)) and seat.hand_message_id == replied] or mine
    if not mine:
        await _reply(update, t(lang, "It is not your turn at any table."))
        return
    if len(mine) > 1:
        names = ", ".join(s.title for s in mine)
        await _reply(
            update,
            t(
                lang,
                "It is your turn at several tables ({names}): reply to the hand message of the table you mean.",
                names=names,
            ),
        )
        return
    snap = mine[0]
    seat = snap.seat_of(user.id)
    assert seat is not None
    await _act(svc, update, snap, seat.seat, action, snap.table.version, lang)


async def _act(
    svc: Services, update: Update, snap: Snapshot, seat: int, action: str, version: int, lang: str
) -> str | None:
    """Apply one player action; the text to show when it was refused (None when it was applied)."""
    query = update.callback_query
    tapped = query.message.message_id if query is not None and query.message is not None else None
    try:
        await svc.tables.act(
            snap.table.id,
            seat,
            action,
            version=version,
            update_id=update.update_id,
            seen=snap,
            from_message=tapped,
        )
        return None
    except IllegalAction as e:
        text = t(lang, "Not allowed: {reason}", reason=e.reason)
    except (VersionConflict, NoRoundInPlay, RoundInProgress):
        text = t(lang, "That button is out of date.")
    except NotYourTurn:
        text = t(lang, "It is not your turn.")
    except AlreadyProcessed:
        return None
    except ValueError:
        text = t(
            lang, "I did not understand that. Type a play like TTTT2 or 888B, or pass / 过. /help explains."
        )
    if query is not None:
        await query.answer(text, show_alert=True)
    else:
        await _reply(update, text)
    return text


# ---------------------------------------------------------------------------------------------- buttons


async def on_callback(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    svc = services(context)
    query = update.callback_query
    assert query is not None
    lang = await _user_lang(svc, update)
    try:
        cb = Callback.decode(query.data)
    except BadCallback:
        await query.answer(t(lang, "That button is out of date."))
        return
    if cb.kind == SETTINGS:
        await on_settings(update, context, cb)
        return
    try:
        snap = await svc.tables.snapshot(cb.table_id)
    except TableNotFound:
        await query.answer(t(lang, "That table is closed."))
        return
    chat = update.effective_chat
    if cb.kind == LOBBY:
        if chat is None or chat.id != snap.table.group_id:
            await query.answer(t(lang, "That button is out of date."))
            return
        await on_lobby(update, context, svc, snap, cb)
        return
    user = update.effective_user
    assert user is not None
    seat = snap.seat_of(user.id)
    if seat is None or chat is None or chat.id != user.id:
        await query.answer(t(lang, "You are not seated at this table."), show_alert=True)
        return
    if seat.autoplay:
        await svc.tables.set_autoplay(snap.table.id, seat.seat, False)
        await query.answer(t(lang, "Welcome back: you play your own cards again."))
        await svc.tables.settle(snap.table.id, [])
        return
    match = snap.state
    if match is None or snap.table.version != cb.version or match.current_player != seat.seat:
        await query.answer(t(lang, "That button is out of date."))
        if query.message is not None:
            with contextlib.suppress(TelegramError):
                await query.edit_message_reply_markup(None)
        return
    if cb.kind == COMPOSE:
        try:
            selection = unpack_cards(cb.arg) if cb.arg else EMPTY
        except BadCallback:
            await query.answer(t(lang, "That button is out of date."))
            return
        hand = match.hand(seat.seat)
        if any(s > h for s, h in zip(selection, hand, strict=True)):
            await query.answer(t(lang, "That button is out of date."))
            return
        await query.answer()
        text = render.hand_text(
            lang, match, seat.seat, snap.infos, group_title=snap.title, selection=selection, your_turn=True
        )
        markup = render.hand_keyboard(
            lang, match, seat.seat, snap.table.id, snap.table.version, selection, match.legal_actions()
        )
        with contextlib.suppress(TelegramError):
            await query.edit_message_text(text, reply_markup=markup)
        return
    if cb.kind != ACT:
        await query.answer(t(lang, "That button is out of date."))
        return
    if cb.arg == "h":
        hint = computer_action(match, make_player("heuristic"), random.Random(cb.version))
        await query.answer(t(lang, "Hint: {action}", action=render.action_label(lang, hint)), show_alert=True)
        return
    action = _button_action(cb.arg)
    if action is None:
        await query.answer(t(lang, "That button is out of date."))
        return
    refused = await _act(svc, update, snap, seat.seat, action, cb.version, lang)
    if refused is None:
        # A redelivered update may have been answered already by the delivery that applied it.
        with contextlib.suppress(TelegramError):
            await query.answer()


def _button_action(arg: str) -> str | None:
    if arg in _ACTION_WORDS:
        return _ACTION_WORDS[arg]
    kinds = {"p": "play", "b": "burn", "r": "return"}
    if arg[:1] in kinds and len(arg) > 1:
        try:
            cards = unpack_cards(arg[1:])
        except BadCallback:
            return None
        return f"{kinds[arg[0]]} {format_cards(cards)}"
    return None


async def on_lobby(
    update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services, snap: Snapshot, cb: Callback
) -> None:
    query = update.callback_query
    user = update.effective_user
    assert query is not None and user is not None
    lang = snap.lang
    arg = cb.arg
    if arg in ("next", "stop"):
        if snap.seat_of(user.id) is None:
            await query.answer(t(lang, "You are not seated at this table."), show_alert=True)
            return
        if arg == "stop":
            await query.answer()
            await _stop(context, svc, snap.table.id, update)
            return
        if snap.table.version != cb.version or snap.state is None or not snap.state.round_over:
            await query.answer(t(lang, "That button is out of date."))
            return
        await query.answer()
        with contextlib.suppress(VersionConflict, RoundInProgress):
            await svc.tables.next_round(snap.table.id, cb.version)
        return
    if snap.table.status != "lobby":
        await query.answer(t(lang, "That button is out of date."))
        return
    if snap.table.table_message_id is None and query.message is not None:
        # Tapped before the bot had stored the lobby's id (Telegram's answer with it was still on its way):
        # this is the lobby message, to be edited, not posted a second time.
        await svc.tables.remember_table_message(snap.table.id, query.message.message_id)
    if arg == "join" or arg.startswith("seat"):
        seat = int(arg[4:]) if arg.startswith("seat") and arg[4:].isdigit() else None
        result = await _seat_user(context, svc, update, snap.table.id, seat)
        if result is None:
            await query.answer(t(lang, "You are seated."))
        else:
            await query.answer()
            await _reply(update, result[0], result[1])
        return
    await query.answer()
    if arg == "leave":
        await _leave(svc, snap.table.id, user.id, update)
    elif arg == "bots":
        await _add_bots(svc, snap.table.id, update)
    elif arg == "begin":
        await _begin(svc, snap.table.id, update)


# ---------------------------------------------------------------------------------------------- wiring


async def on_migrated(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    msg = update.effective_message
    if msg is None or msg.migrate_to_chat_id is None:
        return
    svc = services(context)
    await migrate_group(svc, msg.chat_id, msg.migrate_to_chat_id)


async def migrate_group(svc: Services, old_id: int, new_id: int) -> None:
    """A group that became a supergroup keeps its settings and table under its new id."""
    if not await store.move_group(svc.uow, old_id, new_id):
        return  # moved already (Telegram tells twice: the service message, and a ChatMigrated reply)
    table = await svc.tables.open_table_of(new_id)
    if table is not None:
        # The table message stayed behind in the old chat: post it again in the supergroup.
        await repost_table(svc, table.id, old_message_gone=True)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    # Log the kind of failure only: texts and hands stay out of the logs. No traceback reaches a user.
    err = context.error
    if isinstance(err, BadRequest) and "query is too old" in str(err).lower():
        # An answer to a tap came after Telegram stopped waiting for it (a slow moment, or the same update
        # delivered to a second worker): the tap itself was handled; the player only missed the little
        # confirmation. (PTB capitalises Telegram's message, hence lower().)
        log.info("a tap was answered too late")
        return
    log.error(
        "error handling an update: %s",
        type(err).__name__,
        exc_info=err if log.isEnabledFor(logging.DEBUG) else None,
    )
    if isinstance(update, Update):
        lang = normalise(update.effective_user.language_code if update.effective_user else None)
        try:
            if update.callback_query is not None:
                await update.callback_query.answer(t(lang, "Something went wrong; please try again."))
            elif update.effective_message is not None and update.effective_chat is not None:
                await update.effective_message.reply_text(
                    t(lang, "Something went wrong; please try again."), do_quote=False
                )
        except TelegramError:
            pass


GROUP_COMMANDS = (
    "new",
    "join",
    "leave",
    "addbot",
    "begin",
    "table",
    "rules",
    "settings",
    "stop",
    "stats",
    "help",
)


def register(app: Application) -> None:
    group = filters.ChatType.GROUPS
    private = filters.ChatType.PRIVATE
    handlers = {
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
    }
    for name, fn in handlers.items():
        app.add_handler(CommandHandler(name, fn, filters=group))
    app.add_handler(CommandHandler("help", cmd_help))
    app.add_handler(CommandHandler("start", cmd_start))
    app.add_handler(CommandHandler("back", cmd_back, filters=private))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, on_migrated))
    app.add_handler(
        MessageHandler(private & filters.TEXT & filters.Regex(r"^/p(@\w+)?(\s|$)"), on_private_text)
    )
    app.add_handler(MessageHandler(private & filters.TEXT & ~filters.COMMAND, on_private_text))
    app.add_handler(CallbackQueryHandler(on_callback))
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
        "settings": t(lang, "house rules, turn time, language"),
        "stop": t(lang, "close the table"),
        "stats": t(lang, "your results in this group"),
        "help": t(lang, "how to play here"),
    }
    group = [BotCommand(c, about[c]) for c in GROUP_COMMANDS]
    private = [
        BotCommand("p", t(lang, "play cards, e.g. /p 888B")),
        BotCommand("back", t(lang, "take your seat back from 托管")),
        BotCommand("help", about["help"]),
    ]
    return group, private


async def set_commands(app: Application) -> None:
    for lang in LANGUAGES:
        group, private = command_lists(lang)
        code = None if lang == "zh" else lang
        await app.bot.set_my_commands(group, scope=BotCommandScopeAllGroupChats(), language_code=code)
        await app.bot.set_my_commands(private, scope=BotCommandScopeAllPrivateChats(), language_code=code)
