"""What players read: the group table, the lobby, the private hand message, announcements, summaries.

Pure functions of the table (:class:`table.Table`) and the match's views: the group texts read only the
public view (``Match.public_view``: cards left under 报户, the top play, places); a hand appears only in
``hand_text``, from the seat's own view. No I/O. The keyboards are in :mod:`bot.keyboards`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from engine import Action, Event, Rules
from engine.actions import BURN, PASS, YIELD
from engine.cards import RANKS, Counts, format_cards
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
    PublicView,
)
from engine.round import PLACE_NAMES
from table import Group, Table

from .i18n import DEFAULT_LANGUAGE, normalise, t

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


def seat_infos(table: Table, lang: str) -> dict[int, SeatInfo]:
    """Who sits where as the table shows them: players by name, computer players numbered by seat."""
    infos: dict[int, SeatInfo] = {}
    for s in table.seats:
        if s.user_id is not None:
            infos[s.n] = SeatInfo(s.n, s.name or str(s.user_id), autoplay=s.autoplay, user_id=s.user_id)
        else:
            infos[s.n] = SeatInfo(s.n, t(lang, "Computer {n}", n=s.n + 1), computer=True)
    return infos


def reader_language(table: Table, seat: int) -> str:
    """The language a seated player reads his private messages in: his Telegram language."""
    s = table.seat(seat)
    return normalise(s.language if s is not None else None, DEFAULT_LANGUAGE)


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


def lobby_text(lang: str, table: Table) -> str:
    seats = seat_infos(table, lang)
    rules_name = Rules.from_dict(table.rules).preset_name() or "custom"
    lines = [t(lang, "够级 table — waiting for players"), t(lang, "Rules: {rules}", rules=rules_name)]
    lines.append(t(lang, "Turn time: {time}", time=duration_text(lang, table.group.turn_seconds)))
    lines.append("")
    for s in range(6):
        info = seats.get(s)
        who = t(lang, "(empty)") if info is None else info.name
        lines.append(f"{s + 1}. {who} · {team_name(lang, s)}")
    lines.append("")
    lines.append(t(lang, "Join, pick a seat, fill empty seats with computer players, then start."))
    return "\n".join(lines)


def duration_text(lang: str, seconds: int) -> str:
    if seconds % 3600 == 0:
        return t(lang, "{n} h", n=seconds // 3600)
    if seconds % 60 == 0:
        return t(lang, "{n} min", n=seconds // 60)
    return t(lang, "{n} s", n=seconds)


# ----------------------------------------------------------------------------- the group table


def table_text(lang: str, table: Table) -> str:
    """The public table. Every number here is one a player at the table could see (报户: counts ≤ 10)."""
    match = table.match
    assert match is not None
    view = match.public_view()
    seats = seat_infos(table, lang)
    lines = [t(lang, "够级 · round {n}", n=view.round_no)]
    if view.free:
        lines[0] += " · " + t(lang, "四户乱缠")
    lines.append("")
    current = view.current
    playing = view.phase in (P_PLAY, P_OVER) and match.round is not None
    for s in range(6):
        info = seats.get(s)
        name = info.name if info else "?"
        marks: list[str] = []
        if playing:
            left = view.counts[s]
            if s in view.places:
                marks.append(place_name(lang, view.places.index(s)))
            elif left is not None:
                marks.append(t(lang, "{n} left", n=left))
            if view.opened[s]:
                marks.append(t(lang, "自然点") if view.natural[s] else t(lang, "开点"))
            if (s, "men") in view.dead:
                marks.append(t(lang, "闷"))
            if (s, "hu") in view.dead:
                marks.append(t(lang, "烧糊"))
            if view.passed[s] and s not in view.out:
                marks.append(t(lang, "要不起") if s in table.marks.auto_passed else t(lang, "passed"))
            if view.burner == s:
                marks.append(t(lang, "burning"))
        if view.revolted == s:
            marks.append(t(lang, "革命"))
        if info and info.autoplay:
            marks.append(t(lang, "托管"))
        if info and info.computer:
            marks.append(t(lang, "computer"))
        pointer = "▶ " if s == current else "   "
        lines.append(f"{pointer}{s + 1}. {name} ({team_name(lang, s)}) {' · '.join(marks)}".rstrip())
    lines.append("")
    if view.top is not None:
        lines.append(top_line(lang, view.top.owner, view.top.cards, seats))
    if current is not None:
        who = seats.get(current)
        phase = _phase_text(lang, view)
        until = " · " + t(lang, "until {time}", time=_when(table.due)) if table.due else ""
        lines.append(t(lang, "Turn: {name}", name=who.name if who else "?") + f" ({phase}){until}")
    a, b = view.team_totals
    lines.append(t(lang, "Match: Team A {a:+d} · Team B {b:+d}", a=a, b=b))
    if view.result is not None:
        scores = view.result.scores
        ra, rb = sum(scores[0::2]), sum(scores[1::2])
        lines.append(t(lang, "This round: Team A {a:+d} · Team B {b:+d}", a=ra, b=rb))
    return "\n".join(lines)


def _phase_text(lang: str, view: PublicView) -> str:
    return {
        P_RETURN: t(lang, "还贡"),
        P_REVOLT: t(lang, "革命?"),
        P_HEAD: t(lang, "要头 or 无头"),
        P_DECLARE: t(lang, "宣点?"),
        P_PLAY: t(lang, "play"),
        P_OVER: t(lang, "round over"),
    }[view.phase]


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


def summary_text(lang: str, table: Table) -> str:
    assert table.match is not None
    view = table.match.public_view()
    result = view.result
    assert result is not None
    seats = seat_infos(table, lang)
    lines = [t(lang, "Round {n} is over", n=result.round_no)]
    if result.circled:
        lines.append(t(lang, "串三户! Scores are doubled."))
    for place, s in enumerate(result.places):
        info = seats.get(s)
        lines.append(
            f"{place_name(lang, place)}: {info.name if info else '?'} ({team_name(lang, s)}) {result.scores[s]:+d}"
        )
    if result.debts:
        lines.append("")
        lines.append(t(lang, "Tribute owed before the next round:"))
        for d in result.debts:
            payer, receiver = seats.get(d.payer), seats.get(d.receiver)
            lines.append(
                f"  {payer.name if payer else '?'} → {receiver.name if receiver else '?'}: {d.n} {_debt_word(d.kind)}贡"
            )
    a, b = view.team_totals
    lines.append("")
    lines.append(t(lang, "Match: Team A {a:+d} · Team B {b:+d}", a=a, b=b))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the private hand


def hand_text(
    lang: str,
    table: Table,
    seat: int,
    *,
    selection: Counts | None = None,
    your_turn: bool = False,
) -> str:
    """The seat's private message: his cards, the top play and, on his turn, what is asked of him."""
    match = table.match
    assert match is not None
    own = match.view(seat)
    view = match.public_view()
    seats = seat_infos(table, lang)
    lines = [f"[{table.title}] " + t(lang, "round {n}", n=view.round_no)]
    lines.append(t(lang, "Your cards ({n}):", n=sum(own.hand)))
    lines.append(cards_text(own.hand))
    if view.top is not None:
        lines.append(top_line(lang, view.top.owner, view.top.cards, seats))
    if your_turn:
        lines.append("")
        lines.append(_prompt(lang, view, seats))
        if selection is not None and sum(selection):
            lines.append(t(lang, "Selected: {cards}", cards=format_cards(selection)))
    return "\n".join(lines)


def _prompt(lang: str, view: PublicView, seats: dict[int, SeatInfo]) -> str:
    if view.phase == P_RETURN and view.returning is not None:
        _receiver, payer, n = view.returning
        to = seats.get(payer)
        return t(
            lang,
            "还贡: choose {n} cards to give back to {name}, then tap Give back.",
            n=n,
            name=to.name if to else "?",
        )
    if view.phase == P_REVOLT:
        return t(lang, "You hold no jokers and no 2s: declare 革命?")
    if view.phase == P_HEAD:
        return t(lang, "Your 对头 revolted: 要头 (three 够死级) or 无头?")
    if view.phase == P_DECLARE:
        return t(lang, "宣点 against your 对头?")
    if view.top is None:
        return t(lang, "Your lead: tap ranks to compose a play, then Play. Or type it (TTTT2).")
    return t(lang, "Your turn: beat it, or pass. Tap ranks, then Play, or type it (TTTT2, pass).")


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


# ----------------------------------------------------------------------------- help, rules, settings


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
    for key in Rules.key_names():
        if key == "tribute_order":
            continue
        on = getattr(rules, key)
        lines.append(f"{'✅' if on else '▫️'} {key} — {rule_description(lang, key)}")
    lines.append(t(lang, "Tribute order: {order}", order=" > ".join(rules.tribute_order)))
    return "\n".join(lines)


def settings_text(group: Group) -> str:
    lang = group.language
    return "\n".join(
        [
            t(lang, "Settings for new tables in this group:"),
            rules_text(lang, group.rules),
            t(lang, "Turn time: {time}", time=duration_text(lang, group.turn_seconds)),
            t(lang, "Language: {language}", language=lang),
        ]
    )
