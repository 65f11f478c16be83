"""The inline keyboards: the lobby, the hand composer, a round's end and the stop that asks first, the group's
settings. Every button's data is written by :mod:`bot.codec`."""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import Action, Rules
from engine.actions import BURN, PASS, PLAY, YIELD, ActionKind
from engine.cards import NRANKS, RANKS, Counts, format_cards
from engine.match import (
    DECLARE,
    NO_DECLARE,
    NO_REVOLT,
    P_DECLARE,
    P_HEAD,
    P_RETURN,
    P_REVOLT,
    RETURN,
    REVOLT,
    WUTOU,
    YAOTOU,
    Match,
)
from engine.rules import PRESETS
from table import TIME_ZONES, TURN_TIMES, Group, SettingChange, SettingKind, Table
from table.policy import COMPUTER_LEVELS

from . import codec
from .i18n import t
from .texts.words import duration_text, level_text, preset_text, rule_name

MAX_SUGGESTIONS = 4
EMPTY: Counts = (0,) * NRANKS
# The house rules /settings toggles (the tribute order is a preset matter).
TOGGLES = tuple(k for k in Rules.key_names() if k != "tribute_order")


def lobby_keyboard(lang: str, table: Table) -> InlineKeyboardMarkup:
    def button(label: str, what: str, seat: int | None = None) -> InlineKeyboardButton:
        return InlineKeyboardButton(
            label, callback_data=codec.lobby_data(table.id, table.version, what, seat)
        )

    free = table.free_seats
    rows = [[button(t(lang, "Join"), "join"), button(t(lang, "Leave"), "leave")]]
    if free:
        rows.append([button(t(lang, "Seat {n}", n=s + 1), "join", s) for s in free])
        rows.append([button(t(lang, "Add computer players"), "bots")])
    rows.append([button(t(lang, "Start"), "begin")])
    return InlineKeyboardMarkup(rows)


def back_to_table_keyboard(lang: str, table: Table) -> InlineKeyboardMarkup:
    """Under a group message that pushed the table up, where the bot may not pin it: one tap brings it back."""
    data = codec.lobby_data(table.id, 0, "table")
    return InlineKeyboardMarkup([[InlineKeyboardButton(t(lang, "⬇ The table"), callback_data=data)]])


def summary_keyboard(lang: str, table: Table) -> InlineKeyboardMarkup:
    """Under a round's summary: deal the next round, or stop (which asks first); drawn for this version only."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, "Next round"), callback_data=codec.lobby_data(table.id, table.version, "next")
                ),
                InlineKeyboardButton(
                    t(lang, "Stop the match"), callback_data=codec.lobby_data(table.id, table.version, "stop")
                ),
            ]
        ]
    )


def stop_keyboard(lang: str, table: Table) -> InlineKeyboardMarkup:
    """Are you sure? Stopping closes the table for everyone; drawn for this version only."""
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(
                    t(lang, "Yes, stop the match"),
                    callback_data=codec.lobby_data(table.id, table.version, "stopok"),
                ),
                InlineKeyboardButton(
                    t(lang, "No, play on"), callback_data=codec.lobby_data(table.id, table.version, "keep")
                ),
            ]
        ]
    )


def cards_keyboard(lang: str, table: Table) -> InlineKeyboardMarkup:
    """One button under a message that is not his turn (his deal, a move of his once made): his cards as they
    are now, whenever he wants to plan."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton("🃏 " + t(lang, "My cards"), callback_data=codec.cards_data(table.id))]]
    )


def yield_comes_straight_back(match: Match) -> bool:
    """R4.4: a 让牌 that nobody after him could answer returns at once; offering it would only waste a tap.
    Asked of a copy: the engine says who is asked next."""
    seat = match.current_player
    copy = match.copy()
    copy.apply(Action(YIELD))
    return copy.current_player == seat


def hand_keyboard(lang: str, table: Table, seat: int, selection: Counts = EMPTY) -> InlineKeyboardMarkup:
    """The composer: ranks with counts (tap to add one), clear, play / pass / 让牌 / 烧, one-tap suggestions."""
    match = table.match
    assert match is not None
    table_id, version = table.id, table.version

    def act(label: str, action: Action) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=codec.act_data(table_id, version, action))

    def compose(label: str, sel: Counts) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=codec.compose_data(table_id, version, sel))

    question = match.question(seat)
    phase = question.kind if question is not None else match.phase
    rows: list[list[InlineKeyboardButton]] = []
    if phase in (P_REVOLT, P_HEAD, P_DECLARE):
        choices: dict[str, list[tuple[str, ActionKind]]] = {
            P_REVOLT: [(t(lang, "革命"), REVOLT), (t(lang, "No 革命"), NO_REVOLT)],
            P_HEAD: [(t(lang, "要头"), YAOTOU), (t(lang, "无头"), WUTOU)],
            P_DECLARE: [(t(lang, "宣点"), DECLARE), (t(lang, "No 宣点"), NO_DECLARE)],
        }
        words = choices[phase]
        return InlineKeyboardMarkup([[act(label, Action(word)) for label, word in words]])

    hand = match.hand(seat)
    rank_buttons = []
    for r in range(NRANKS):
        left = hand[r] - selection[r]
        if hand[r]:
            if left > 0:
                more = list(selection)
                more[r] += 1
                rank_buttons.append(compose(f"{RANKS[r]}×{left}", tuple(more)))
            else:
                rank_buttons.append(compose(f"{RANKS[r]}✓", selection))
    for i in range(0, len(rank_buttons), 5):
        rows.append(rank_buttons[i : i + 5])
    chosen = sum(selection) > 0
    control: list[InlineKeyboardButton] = []
    if chosen:
        control.append(compose(t(lang, "Clear"), EMPTY))
    if phase == P_RETURN:
        if chosen:
            control.append(
                act(t(lang, "Give back {cards}", cards=format_cards(selection)), Action(RETURN, selection))
            )
        rows.append(control)
        return InlineKeyboardMarkup([r for r in rows if r])
    legal = match.legal_actions(seat)
    kinds = {a.kind for a in legal}
    if chosen:
        control.append(act(t(lang, "Play {cards}", cards=format_cards(selection)), Action(PLAY, selection)))
        if BURN in kinds:
            control.append(act(t(lang, "烧 {cards}", cards=format_cards(selection)), Action(BURN, selection)))
    if control:
        rows.append(control)
    moves: list[InlineKeyboardButton] = []
    if PASS in kinds:
        moves.append(act(t(lang, "Pass"), Action(PASS)))
    if YIELD in kinds and not yield_comes_straight_back(match):
        moves.append(act(t(lang, "让牌"), Action(YIELD)))
    moves.append(InlineKeyboardButton(t(lang, "Hint"), callback_data=codec.hint_data(table_id, version)))
    rows.append(moves)
    suggestions = smallest_plays(legal)
    if suggestions:
        rows.append(
            [act(("🔥 " if a.kind == BURN else "▶ ") + format_cards(a.cards or ()), a) for a in suggestions]
        )
    return InlineKeyboardMarkup(rows)


def smallest_plays(legal: Sequence[Action]) -> list[Action]:
    """The one-tap buttons: the smallest plays (fewest 2s and jokers, lowest rank) among the legal ones."""
    plays = [a for a in legal if a.kind in (PLAY, BURN) and a.cards is not None]

    def cost(a: Action) -> tuple[int, int, int, int]:
        c = a.cards or ()
        specials = c[12] + c[13] * 2 + c[14] * 3
        base = next((r for r in range(12) if c[r]), 12)
        return (specials, a.kind == BURN, base, sum(c))

    return sorted(plays, key=cost)[:MAX_SUGGESTIONS]


def settings_keyboard(group: Group) -> InlineKeyboardMarkup:
    lang = group.language
    rules = group.rules

    def b(label: str, what: SettingKind, value: str | int) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=codec.setting_data(SettingChange(what, value)))

    def mark(on: bool) -> str:
        return "• " if on else ""

    rows = [
        [b(mark(Rules.preset(p) == rules) + preset_text(lang, Rules.preset(p)), "preset", p) for p in PRESETS]
    ]
    toggles = [b(("✅ " if getattr(rules, k) else "▫️ ") + rule_name(lang, k), "rule", k) for k in TOGGLES]
    rows += [toggles[i : i + 3] for i in range(0, len(toggles), 3)]
    times = [b(mark(group.turn_seconds == s) + duration_text(lang, s), "turn_seconds", s) for s in TURN_TIMES]
    rows += [times[:4], times[4:]]
    rows.append(
        [
            b(mark(group.computer_level == n) + level_text(lang, n), "level", n)
            for n in sorted(COMPUTER_LEVELS)
        ]
    )
    zones = [
        b(mark(group.time_zone == z) + z.split("/")[-1].replace("_", " "), "time_zone", z) for z in TIME_ZONES
    ]
    rows += [zones[:4], zones[4:]]
    rows.append(
        [
            b(mark(group.card_memory) + t(lang, "记牌 on"), "card_memory", "on"),
            b(mark(not group.card_memory) + t(lang, "记牌 off"), "card_memory", "off"),
        ]
    )
    rows.append(
        [
            b(mark(lang == code) + label, "language", code)
            for code, label in (("zh", "中文"), ("en", "English"))
        ]
    )
    return InlineKeyboardMarkup(rows)


def zone_keyboard(lang: str, zone: str | None) -> InlineKeyboardMarkup:
    """/zone in private: his own time zone for his deadlines, or each group's."""

    def b(label: str, value: str | None) -> InlineKeyboardButton:
        return InlineKeyboardButton(
            ("• " if value == zone else "") + label, callback_data=codec.zone_data(value)
        )

    zones = [b(z.split("/")[-1].replace("_", " "), z) for z in TIME_ZONES]
    return InlineKeyboardMarkup([zones[:4], zones[4:], [b(t(lang, "Each group's"), None)]])
