"""What players see: the group table, the lobby, the private hand message and its keyboard, announcements.

Pure functions of the engine's state and the seating: no I/O. The group texts are built from public facts
only (cards left under 报户, the top play, places); a hand appears only in ``hand_text``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from engine import Action, Event
from engine.actions import BURN, PASS, PLAY, YIELD
from engine.cards import NRANKS, RANKS, Counts, format_cards
from engine.match import (
    DECLARE,
    NO_DECLARE,
    NO_REVOLT,
    P_DECLARE,
    P_HEAD,
    P_OVER,
    P_PLAY,
    P_RETURN,
    P_REVOLT,
    RETURN,
    REVOLT,
    WUTOU,
    YAOTOU,
    Match,
)
from engine.round import PLACE_NAMES

from .callbacks import ACT, COMPOSE, LOBBY, Callback, pack_cards
from .i18n import t

SHANDONG = timezone(timedelta(hours=8))  # the players' home time, whatever city they live in now
MAX_SUGGESTIONS = 4


@dataclass(frozen=True)
class SeatInfo:
    """A seat as the bot shows it: who sits there and how."""

    seat: int
    name: str
    computer: bool = False
    autoplay: bool = False  # 托管
    user_id: int | None = None


def team_name(lang: str, seat: int) -> str:
    return t(lang, "Team A") if seat % 2 == 0 else t(lang, "Team B")


def place_name(lang: str, place: int) -> str:
    if lang == "zh":
        return PLACE_NAMES[place]
    return ("1st", "2nd", "3rd", "4th", "5th", "6th")[place]


def cards_text(cards: Counts | Sequence[int]) -> str:
    """Cards grouped by rank, low to high: ``33 444 T 2 R``."""
    groups = [RANKS[r] * c for r, c in enumerate(cards) if c]
    return " ".join(groups) if groups else "—"


def top_line(lang: str, owner: int, cards: Counts, seats: dict[int, SeatInfo]) -> str:
    info = seats.get(owner)
    return t(
        lang, "On the table: {cards} by {name}", cards=format_cards(cards), name=info.name if info else "?"
    )


def _when(due: datetime | None) -> str:
    return "" if due is None else due.astimezone(SHANDONG).strftime("%H:%M")


# ----------------------------------------------------------------------------- lobby


def lobby_text(lang: str, seats: dict[int, SeatInfo], rules_name: str, timeout_s: int) -> str:
    lines = [t(lang, "够级 table — waiting for players"), t(lang, "Rules: {rules}", rules=rules_name)]
    lines.append(t(lang, "Turn time: {time}", time=duration_text(lang, timeout_s)))
    lines.append("")
    for s in range(6):
        info = seats.get(s)
        who = t(lang, "(empty)") if info is None else info.name
        lines.append(f"{s + 1}. {who} · {team_name(lang, s)}")
    lines.append("")
    lines.append(t(lang, "Join, pick a seat, fill empty seats with computer players, then start."))
    return "\n".join(lines)


def lobby_keyboard(
    lang: str, table_id: int, version: int, seats: dict[int, SeatInfo]
) -> InlineKeyboardMarkup:
    def button(label: str, arg: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=Callback(LOBBY, table_id, version, arg).encode())

    free = [s for s in range(6) if s not in seats]
    rows = [[button(t(lang, "Join"), "join"), button(t(lang, "Leave"), "leave")]]
    if free:
        rows.append([button(t(lang, "Seat {n}", n=s + 1), f"seat{s}") for s in free])
        rows.append([button(t(lang, "Add computer players"), "bots")])
    rows.append([button(t(lang, "Start"), "begin")])
    return InlineKeyboardMarkup(rows)


def duration_text(lang: str, seconds: int) -> str:
    if seconds % 3600 == 0:
        return t(lang, "{n} h", n=seconds // 3600)
    if seconds % 60 == 0:
        return t(lang, "{n} min", n=seconds // 60)
    return t(lang, "{n} s", n=seconds)


# ----------------------------------------------------------------------------- the group table


def table_text(
    lang: str,
    match: Match,
    seats: dict[int, SeatInfo],
    *,
    auto_passed: set[int] | frozenset[int] = frozenset(),
    due: datetime | None = None,
    title: str | None = None,
) -> str:
    """The public table. Every number here is one a player at the table could see (报户: counts ≤ 10)."""
    rnd = match.round
    lines = [t(lang, "够级 · round {n}", n=match.round_no)]
    if rnd is not None and rnd.free:
        lines[0] += " · " + t(lang, "四户乱缠")
    lines.append("")
    current = match.current_player
    places = rnd.places if rnd is not None else [None] * 6
    for s in range(6):
        info = seats.get(s)
        name = info.name if info else "?"
        marks: list[str] = []
        if rnd is not None:
            left = sum(rnd.hands[s])
            if s in places:
                marks.append(place_name(lang, places.index(s)))
            elif left <= 10:
                marks.append(t(lang, "{n} left", n=left))
            if rnd.opened[s]:
                marks.append(t(lang, "自然点") if rnd.natural[s] else t(lang, "开点"))
            if any(d == s for d, how in rnd.dead if how == "men"):
                marks.append(t(lang, "闷"))
            if any(d == s for d, how in rnd.dead if how == "hu"):
                marks.append(t(lang, "烧糊"))
            if rnd.top is not None and rnd.bound[s] and s not in rnd.out:
                marks.append(t(lang, "要不起") if s in auto_passed else t(lang, "passed"))
            if rnd.burner == s:
                marks.append(t(lang, "burning"))
        if match.revolted == s:
            marks.append(t(lang, "革命"))
        if info and info.autoplay:
            marks.append(t(lang, "托管"))
        if info and info.computer:
            marks.append(t(lang, "computer"))
        pointer = "▶ " if s == current else "   "
        lines.append(f"{pointer}{s + 1}. {name} ({team_name(lang, s)}) {' · '.join(marks)}".rstrip())
    lines.append("")
    if rnd is not None and rnd.top is not None:
        lines.append(top_line(lang, rnd.top.owner, rnd.top.cards, seats))
    if current is not None:
        who = seats.get(current)
        phase = _phase_text(lang, match)
        until = " · " + t(lang, "until {time}", time=_when(due)) if due else ""
        lines.append(t(lang, "Turn: {name}", name=who.name if who else "?") + f" ({phase}){until}")
    a, b = match.team_totals
    lines.append(t(lang, "Match: Team A {a:+d} · Team B {b:+d}", a=a, b=b))
    if rnd is not None and rnd.over:
        scores = rnd.scores() or [0] * 6
        ra, rb = sum(scores[0::2]), sum(scores[1::2])
        lines.append(t(lang, "This round: Team A {a:+d} · Team B {b:+d}", a=ra, b=rb))
    return "\n".join(lines)


def _phase_text(lang: str, match: Match) -> str:
    return {
        P_RETURN: t(lang, "还贡"),
        P_REVOLT: t(lang, "革命?"),
        P_HEAD: t(lang, "要头 or 无头"),
        P_DECLARE: t(lang, "宣点?"),
        P_PLAY: t(lang, "play"),
        P_OVER: t(lang, "round over"),
    }[match.phase]


# ----------------------------------------------------------------------------- announcements


def announcements(lang: str, events: Sequence[Event], seats: dict[int, SeatInfo]) -> list[str]:
    """The big moments that deserve a message of their own in the group (the rest is table edits)."""

    def name(s: int | None) -> str:
        info = seats.get(s) if s is not None else None
        return info.name if info else "?"

    out: list[str] = []
    for e in events:
        k = e.kind
        if k == "burned":
            out.append(
                t(
                    lang,
                    "🔥 {a} burns {b}: {cards}",
                    a=name(e.seat),
                    b=name(e.other),
                    cards=format_cards(e.cards or ()),
                )
            )
        elif k == "burn_won":
            out.append(
                t(lang, "🔥 {a}'s burn succeeds: {b} owes {n} 烧贡", a=name(e.seat), b=name(e.other), n=e.n)
            )
        elif k == "burn_failed":
            out.append(t(lang, "💥 {a} cannot finish the burn: 烧糊", a=name(e.seat)))
        elif k == "out" and e.n is not None:
            out.append(t(lang, "🏁 {a} is out: {place}", a=name(e.seat), place=place_name(lang, e.n)))
        elif k == "men":
            out.append(t(lang, "🔒 {a} is 闷 by {b}", a=name(e.seat), b=name(e.other)))
        elif k == "free_for_all":
            out.append(t(lang, "四户乱缠: passes no longer bind, gouji rules are off"))
        elif k == "revolt":
            out.append(t(lang, "✊ {a} declares 革命", a=name(e.seat)))
        elif k == "laid_down":
            out.append(t(lang, "{a} lays down: {cards}", a=name(e.seat), cards=cards_text(e.cards or ())))
        elif k == "redeal":
            out.append(t(lang, "Two revolutions: the deal is void, dealing again"))
        elif k in ("yaotou", "wutou"):
            out.append(
                t(lang, "{a} chooses {choice}", a=name(e.seat), choice="要头" if k == "yaotou" else "无头")
            )
        elif k == "declared":
            out.append(
                t(
                    lang,
                    "{a} declares 宣点 against {b}",
                    a=name(e.seat),
                    b=name((e.seat or 0) + 3 if e.seat is not None else None),
                )
            )
        elif k.startswith("tribute_") and e.cards is not None:
            kind = k.removeprefix("tribute_")
            out.append(
                t(
                    lang,
                    "{a} pays {b} {kind}贡: {cards}",
                    a=name(e.seat),
                    b=name(e.other),
                    kind=_debt_word(kind),
                    cards=cards_text(e.cards),
                )
            )
        elif k == "returned" and e.cards is not None:
            out.append(
                t(
                    lang,
                    "{a} gives back to {b} (还贡): {cards}",
                    a=name(e.seat),
                    b=name(e.other),
                    cards=cards_text(e.cards),
                )
            )
        elif k in ("bought_three", "bought_four"):
            what = "3" if k == "bought_three" else "4"
            paid = cards_text(e.cards) if e.cards else t(lang, "free")
            out.append(
                t(
                    lang,
                    "{a} gets a {what} from {b} ({paid})",
                    a=name(e.seat),
                    b=name(e.other),
                    what=what,
                    paid=paid,
                )
            )
        elif k == "kang_gong" and e.cards is not None:
            out.append(t(lang, "{a} shows {cards}: 抗贡", a=name(e.seat), cards=cards_text(e.cards)))
        elif k == "natural":
            out.append(t(lang, "{a}: 自然点", a=name(e.seat)))
    return out


MAX_MESSAGE = 4096


def join_messages(parts: Sequence[str]) -> str:
    """Several announcements as one message, within Telegram's 4096 characters (the newest kept)."""
    text = "\n\n".join(parts) if any("\n" in p for p in parts) else "\n".join(parts)
    if len(text) > MAX_MESSAGE:
        text = "…\n" + text[-(MAX_MESSAGE - 2) :]
    return text


def _debt_word(kind: str) -> str:
    return {"quan": "圈", "dian": "点", "shao": "烧", "men": "闷", "luo": "落"}.get(kind, kind)


def summary_text(lang: str, match: Match, seats: dict[int, SeatInfo]) -> str:
    rnd = match.round
    assert rnd is not None and rnd.over
    places = rnd.places
    scores = rnd.scores() or [0] * 6
    lines = [t(lang, "Round {n} is over", n=match.round_no)]
    if rnd.circled():
        lines.append(t(lang, "串三户! Scores are doubled."))
    for place, s in enumerate(places):
        if s is None:
            continue
        info = seats.get(s)
        lines.append(
            f"{place_name(lang, place)}: {info.name if info else '?'} ({team_name(lang, s)}) {scores[s]:+d}"
        )
    debts = rnd.debts()
    if debts:
        lines.append("")
        lines.append(t(lang, "Tribute owed before the next round:"))
        for d in debts:
            payer, receiver = seats.get(d.payer), seats.get(d.receiver)
            lines.append(
                f"  {payer.name if payer else '?'} → {receiver.name if receiver else '?'}: {d.n} {_debt_word(d.kind)}贡"
            )
    a, b = match.team_totals
    lines.append("")
    lines.append(t(lang, "Match: Team A {a:+d} · Team B {b:+d}", a=a, b=b))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the private hand


def hand_text(
    lang: str,
    match: Match,
    seat: int,
    seats: dict[int, SeatInfo],
    *,
    group_title: str,
    selection: Counts | None = None,
    your_turn: bool = False,
) -> str:
    hand = match.hand(seat)
    rnd = match.round
    lines = [f"[{group_title}] " + t(lang, "round {n}", n=match.round_no)]
    lines.append(t(lang, "Your cards ({n}):", n=sum(hand)))
    lines.append(cards_text(hand))
    if rnd is not None and rnd.top is not None:
        lines.append(top_line(lang, rnd.top.owner, rnd.top.cards, seats))
    if your_turn:
        lines.append("")
        lines.append(_prompt(lang, match, seat, seats))
        if selection is not None and sum(selection):
            lines.append(t(lang, "Selected: {cards}", cards=format_cards(selection)))
    return "\n".join(lines)


def _prompt(lang: str, match: Match, seat: int, seats: dict[int, SeatInfo]) -> str:
    if match.phase == P_RETURN:
        n = match.returns[0].n
        to = seats.get(match.returns[0].payer)
        return t(
            lang,
            "还贡: choose {n} cards to give back to {name}, then tap Give back.",
            n=n,
            name=to.name if to else "?",
        )
    if match.phase == P_REVOLT:
        return t(lang, "You hold no jokers and no 2s: declare 革命?")
    if match.phase == P_HEAD:
        return t(lang, "Your 对头 revolted: 要头 (three 够死级) or 无头?")
    if match.phase == P_DECLARE:
        return t(lang, "宣点 against your 对头?")
    rnd = match.round
    if rnd is not None and rnd.top is None:
        return t(lang, "Your lead: tap ranks to compose a play, then Play. Or type it (TTTT2).")
    return t(lang, "Your turn: beat it, or pass. Tap ranks, then Play, or type it (TTTT2, pass).")


def hand_keyboard(
    lang: str,
    match: Match,
    seat: int,
    table_id: int,
    version: int,
    selection: Counts,
    legal: Sequence[Action],
) -> InlineKeyboardMarkup:
    """The composer: ranks with counts (tap to add one), clear, play / pass / 让牌 / 烧, one-tap suggestions."""

    def act(label: str, arg: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=Callback(ACT, table_id, version, arg).encode())

    def compose(label: str, sel: Counts) -> InlineKeyboardButton:
        return InlineKeyboardButton(
            label, callback_data=Callback(COMPOSE, table_id, version, pack_cards(sel)).encode()
        )

    phase = match.phase
    rows: list[list[InlineKeyboardButton]] = []
    if phase in (P_REVOLT, P_HEAD, P_DECLARE):
        words = {
            P_REVOLT: [(t(lang, "革命"), REVOLT), (t(lang, "No 革命"), NO_REVOLT)],
            P_HEAD: [(t(lang, "要头"), YAOTOU), (t(lang, "无头"), WUTOU)],
            P_DECLARE: [(t(lang, "宣点"), DECLARE), (t(lang, "No 宣点"), NO_DECLARE)],
        }[phase]
        return InlineKeyboardMarkup([[act(label, word) for label, word in words]])

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
                rank_buttons.append(
                    InlineKeyboardButton(
                        f"{RANKS[r]}✓",
                        callback_data=Callback(COMPOSE, table_id, version, pack_cards(selection)).encode(),
                    )
                )
    for i in range(0, len(rank_buttons), 5):
        rows.append(rank_buttons[i : i + 5])
    chosen = sum(selection) > 0
    control: list[InlineKeyboardButton] = []
    if chosen:
        control.append(compose(t(lang, "Clear"), (0,) * NRANKS))
    if phase == P_RETURN:
        if chosen:
            control.append(
                act(t(lang, "Give back {cards}", cards=format_cards(selection)), "r" + pack_cards(selection))
            )
        rows.append(control)
        return InlineKeyboardMarkup([r for r in rows if r])
    kinds = {a.kind for a in legal}
    if chosen:
        control.append(
            act(t(lang, "Play {cards}", cards=format_cards(selection)), "p" + pack_cards(selection))
        )
        if BURN in kinds:
            control.append(
                act(t(lang, "烧 {cards}", cards=format_cards(selection)), "b" + pack_cards(selection))
            )
    if control:
        rows.append(control)
    moves: list[InlineKeyboardButton] = []
    if PASS in kinds:
        moves.append(act(t(lang, "Pass"), "x"))
    if YIELD in kinds:
        moves.append(act(t(lang, "让牌"), "y"))
    moves.append(act(t(lang, "Hint"), "h"))
    rows.append(moves)
    suggestions = smallest_plays(legal)
    if suggestions:
        rows.append(
            [
                act(
                    ("🔥 " if a.kind == BURN else "▶ ") + format_cards(a.cards or ()),
                    ("b" if a.kind == BURN else "p") + pack_cards(a.cards or ()),
                )
                for a in suggestions
            ]
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


def action_label(lang: str, action: Action) -> str:
    if action.kind == PASS:
        return t(lang, "pass")
    if action.kind == YIELD:
        return t(lang, "让牌")
    if action.kind == RETURN:
        return t(lang, "give back {cards}", cards=format_cards(action.cards or ()))
    if action.cards is not None:
        return ("烧 " if action.kind == BURN else "") + format_cards(action.cards)
    return {
        REVOLT: "革命",
        NO_REVOLT: t(lang, "no 革命"),
        YAOTOU: "要头",
        WUTOU: "无头",
        DECLARE: "宣点",
        NO_DECLARE: t(lang, "no 宣点"),
    }.get(action.kind, action.kind)
