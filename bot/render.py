"""What players read: the group table, the lobby, the private turn and hand messages, announcements, the
ends of a round and of a match, rules and settings in players' words.

Pure functions of the table (:class:`table.Table`), the match's views and the table's public story
(``Marks.recent``): the group texts read only the public view (``Match.public_view``: cards left under 报户,
the top play, places); a hand appears only in the private texts, from the seat's own view. No I/O; the time
is passed in. The keyboards are in :mod:`bot.keyboards`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from engine import Action, Event, Rules
from engine.actions import BURN, PASS, PLAY, YIELD
from engine.cards import ACE, RANKS, SMALL, TWO, Counts, format_cards
from engine.cards import BIG as BIG_JOKER
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
from engine.refusals import Refusal
from engine.round import GOUJI, GOUSI, NORMAL, PLACE_NAMES, opposite
from engine.rules import PRESETS
from storage.records import Standing, Stats
from table import Entry, Group, Table
from table.policy import COMPUTER_LEVELS

from .i18n import DEFAULT_LANGUAGE, normalise, t

MAX_MESSAGE = 4096
SINCE_MAX = 14  # entries of "since you last looked": a whole trick and its moments fit
TRICK_MAX = 8  # moves of the trick the group table shows


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
    return ("1st (头科)", "2nd (二科)", "3rd (三科)", "4th (四科)", "5th (二落)", "6th (大落)")[place]


def cards_text(cards: Counts | Sequence[int]) -> str:
    """Cards grouped by rank, low to high: ``33 444 T 2 R``."""
    groups = [RANKS[r] * c for r, c in enumerate(cards) if c]
    return " ".join(groups) if groups else "—"


def level_text(lang: str, level: int) -> str:
    return {
        "easy": t(lang, "easy"),
        "heuristic": t(lang, "normal"),
        "strong": t(lang, "strong"),
    }[COMPUTER_LEVELS.get(level, "heuristic")]


# ----------------------------------------------------------------------------- time


def duration_text(lang: str, seconds: int) -> str:
    if seconds % 3600 == 0:
        return t(lang, "{n} h", n=seconds // 3600)
    if seconds % 60 == 0:
        return t(lang, "{n} min", n=seconds // 60)
    return t(lang, "{n} s", n=seconds)


def relative_text(lang: str, seconds: float) -> str:
    """How long from now, as people say it: in 40 s, in 5 min, in 2 h."""
    s = max(0, round(seconds))
    if s < 60:
        return t(lang, "in {n} s", n=s)
    if s < 3600:
        return t(lang, "in {n} min", n=round(s / 60))
    hours = s / 3600
    shown = round(hours) if hours >= 10 or hours.is_integer() else round(hours, 1)
    return t(lang, "in {n} h", n=shown)


def when_text(lang: str, due: datetime, now: datetime, zone: str) -> str:
    """A deadline in the group's time zone and from now: ``21:40 CST (in 2 h)``."""
    local = due.astimezone(ZoneInfo(zone))
    clock = local.strftime("%H:%M")
    if (local.date() - now.astimezone(ZoneInfo(zone)).date()).days >= 1:
        clock = local.strftime("%m-%d %H:%M")
    return t(
        lang,
        "until {time} {zone} ({relative})",
        time=clock,
        zone=local.tzname() or zone,
        relative=relative_text(lang, (due - now).total_seconds()),
    )


# ----------------------------------------------------------------------------- words for people


def rule_name(lang: str, key: str) -> str:
    """A house rule as players call it."""
    return {
        "two_big_kill_one": t(lang, "二杀一"),
        "tie_two": t(lang, "贴钱"),
        "single_two_gouji": t(lang, "单2够级"),
        "dian_si": t(lang, "点四 (开点发4)"),
        "dian_gong": t(lang, "点贡"),
        "xuan_dian": t(lang, "宣点"),
        "burn_requires_open": t(lang, "开点才能烧"),
        "burn_feasibility": t(lang, "烧得完才能烧"),
        "bie_san": t(lang, "憋三 and 买三"),
        "kang_gong": t(lang, "抗贡"),
        "return_tribute": t(lang, "还贡"),
        "zhangqiu": t(lang, "章丘玩法"),
    }.get(key, key)


def rule_description(lang: str, key: str) -> str:
    """What the house rule does, in one line."""
    return {
        "two_big_kill_one": t(lang, "a play with one 大王 falls to one with two, the rest higher"),
        "tie_two": t(lang, "2s may be attached to a rank and count as it"),
        "single_two_gouji": t(lang, "a single 2 is a gouji play"),
        "dian_si": t(lang, "no 4s before you open the point; unopened 4s are thrown away at 四户乱缠"),
        "dian_gong": t(lang, "who does not open the point pays his 对头 a card"),
        "xuan_dian": t(lang, "before the first lead you may declare against your 对头 (higher stakes)"),
        "burn_requires_open": t(lang, "only a player who opened the point may burn"),
        "burn_feasibility": t(lang, "a burn is allowed only if the hand can be played out"),
        "bie_san": t(lang, "3s only as your last play; a player dealt none buys one"),
        "kang_gong": t(lang, "four 大王 free the team from tribute, four 小王 the player"),
        "return_tribute": t(lang, "who receives 落贡 gives back as many cards"),
        "zhangqiu": t(lang, "Zhangqiu: 196 cards (no ten 3s and 4s), 五户乱缠, 买四"),
    }.get(key, key)


def debt_word(lang: str, kind: str) -> str:
    return {
        "quan": t(lang, "圈贡"),
        "dian": t(lang, "点贡"),
        "shao": t(lang, "烧贡"),
        "men": t(lang, "闷贡"),
        "luo": t(lang, "落贡"),
    }.get(kind, kind)


def preset_text(lang: str, rules: Rules) -> str:
    name = rules.preset_name()
    return {
        "qingdao": t(lang, "Qingdao (青岛)"),
        "classic": t(lang, "classic (经典)"),
        "zhangqiu": t(lang, "Zhangqiu (章丘)"),
        None: t(lang, "custom"),
    }[name]


# The terms an English reader meets, each explained once (GLOSSARY_TERMS in the order of the game).
GLOSSARY = {
    "对头": "对头 = the player opposite you, seat +3: the one opponent who may answer your gouji",
    "够级": "够级 (gouji) = a strong play (T×5, J×4, Q×3, K/A×2, any 2s or jokers): only the 对头 may answer it",
    "开点": "开点 = opening the point: a pure gouji play that wins its trick; who fails pays 点贡",
    "烧": "烧 = burning: beat another's gouji out of turn, then play out your whole hand, jokers leading",
    "让牌": "让牌 = yield: let the two after you answer your 对头's play first",
    "闷": "闷 = stuck with only 3s when your last other play is beaten: you are out, last",
    "宣点": "宣点 = declaring against your 对头 before the first lead, for higher 点贡 stakes",
    "圈贡": "圈贡 = tribute after one team took the three top places (串三户)",
    "托管": "托管 = the computer plays your seat; tap anything or send /back to return",
    "四户乱缠": "四户乱缠 = the free-for-all once two have gone out: passes do not bind, no gouji rules",
}
GLOSSARY_TERMS = tuple(GLOSSARY)


def glossary_lines(terms: Iterable[str]) -> list[str]:
    return ["ℹ️ " + GLOSSARY[term] for term in GLOSSARY_TERMS if term in set(terms)]


def terms_in(text: str) -> set[str]:
    return {term for term in GLOSSARY_TERMS if term in text}


# ----------------------------------------------------------------------------- the story of the table


def entry_text(lang: str, e: Entry, seats: dict[int, SeatInfo], me: int | None = None) -> str:
    """One public thing that happened, short: ``Bob 777``, ``Cai 过``, ``🔥 Dan 烧 Eve: RR55555``."""

    def name(s: int | None) -> str:
        if s is not None and s == me:
            return t(lang, "you")
        info = seats.get(s) if s is not None else None
        return info.name if info else "?"

    k, who, cards = e.kind, name(e.seat), format_cards(e.cards) if e.cards else ""
    late = " " + t(lang, "(time up)") if e.actor == "timeout" else ""
    # Lazy: only the words of this kind are built (a place is worded only for a player who went out).
    words = {
        "play": lambda: f"{who} {cards}{late}",
        "burn": lambda: t(lang, "🔥 {a} 烧 {b}: {cards}", a=who, b=name(e.other), cards=cards) + late,
        "pass": lambda: t(lang, "{a} 过", a=who) + late,
        "auto_pass": lambda: t(lang, "{a} 要不起", a=who),
        "yield": lambda: t(lang, "{a} 让牌", a=who) + late,
        "trick_won": lambda: t(lang, "{a} takes the trick", a=who),
        "opened": lambda: t(lang, "{a} 开点", a=who),
        "out": lambda: t(lang, "🏁 {a} {place}", a=who, place=place_name(lang, e.n or 0)),
        "men": lambda: t(lang, "🔒 {a} 闷 (by {b})", a=who, b=name(e.other)),
        "burn_won": lambda: t(
            lang, "🔥 {a}'s burn succeeds: {b} owes {n} 烧贡", a=who, b=name(e.other), n=e.n
        ),
        "jie_shao": lambda: t(lang, "🧯 {a} 解烧: {b}'s burn is broken", a=who, b=name(e.other)),
        "fan_shao": lambda: t(lang, "🔥 {a} 反烧 {b}: the stake doubles", a=who, b=name(e.other)),
        "burn_failed": lambda: t(lang, "💥 {a} cannot finish the burn: 烧糊", a=who),
        "free_for_all": lambda: t(lang, "四户乱缠"),
        "discarded_fours": lambda: t(lang, "{a} throws away {n} 4s (not opened)", a=who, n=e.n),
        "round_over": lambda: t(lang, "the round is over"),
        "dealt": lambda: t(lang, "round {n} dealt", n=e.n),
        "tuoguan": lambda: t(lang, "{a}: 托管 (the computer plays)", a=who),
        "back": lambda: t(lang, "{a} plays again", a=who),
        "revolt": lambda: t(lang, "✊ {a} 革命", a=who),
        "declare": lambda: t(lang, "{a} 宣点", a=who),
        "yaotou": lambda: t(lang, "{a} 要头", a=who),
        "wutou": lambda: t(lang, "{a} 无头", a=who),
    }.get(k)
    text = words() if words is not None else None
    return text if text is not None else f"{who} {k}"


def story_line(
    lang: str, entries: Sequence[Entry], seats: dict[int, SeatInfo], me: int | None, most: int
) -> str:
    shown = [entry_text(lang, e, seats, me) for e in entries if e.kind != "trick_won" or e is entries[-1]]
    if len(shown) > most:
        shown = ["…", *shown[-most:]]
    return " · ".join(shown)


# Entries that are big moments: the group gets a message for them (the rest is the table, edited).
BIG_MOMENTS = frozenset(
    {
        "burn",
        "jie_shao",
        "fan_shao",
        "burn_won",
        "burn_failed",
        "out",
        "men",
        "opened",
        "free_for_all",
        "discarded_fours",
        "tuoguan",
        "back",
    }
)


def announcements(
    lang: str, told: Sequence[Entry], events: Sequence[Event], seats: dict[int, SeatInfo]
) -> list[str]:
    """The big moments of one stretch: the table's story (burns, 解烧/反烧, 开点, going out, 闷, 四户乱缠 and
    its thrown 4s, 托管 and back) and, before the first lead, the deal's (tribute, 买三, 革命, 宣点…)."""
    out = [entry_text(lang, e, seats) for e in told if e.kind in BIG_MOMENTS]
    return _deal_announcements(lang, events, seats) + out


def _deal_announcements(lang: str, events: Sequence[Event], seats: dict[int, SeatInfo]) -> list[str]:
    def name(s: int | None) -> str:
        info = seats.get(s) if s is not None else None
        return info.name if info else "?"

    out: list[str] = []
    for e in events:
        k = e.kind
        if k == "revolt":
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
            b = name((e.seat + 3) % 6 if e.seat is not None else None)
            out.append(t(lang, "{a} declares 宣点 against {b}", a=name(e.seat), b=b))
        elif k.startswith("tribute_") and e.cards is not None:
            kind = debt_word(lang, k.removeprefix("tribute_"))
            out.append(
                t(
                    lang,
                    "{a} pays {b} {kind}: {cards}",
                    a=name(e.seat),
                    b=name(e.other),
                    kind=kind,
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
            out.append(t(lang, "{a}: 自然点 (no pure gouji dealt: counts as opened)", a=name(e.seat)))
    return out


def join_messages(parts: Sequence[str]) -> str:
    """Several announcements as one message, within Telegram's 4096 characters (the newest kept)."""
    text = "\n\n".join(parts) if any("\n" in p for p in parts) else "\n".join(parts)
    if len(text) > MAX_MESSAGE:
        text = "…\n" + text[-(MAX_MESSAGE - 2) :]
    return text


# ----------------------------------------------------------------------------- lobby


def lobby_text(lang: str, table: Table) -> str:
    seats = seat_infos(table, lang)
    group = table.group
    lines = [t(lang, "够级 table — waiting for players")]
    lines.append(t(lang, "Rules: {rules}", rules=preset_text(lang, Rules.from_dict(table.rules))))
    lines.append(
        t(
            lang,
            "Turn time: {time} · computers: {level}",
            time=duration_text(lang, group.turn_seconds),
            level=level_text(lang, group.computer_level),
        )
    )
    lines.append("")
    for s in range(6):
        info = seats.get(s)
        who = t(lang, "(empty)") if info is None else info.name
        lines.append(f"{s + 1}. {who} · {team_name(lang, s)}")
    lines.append("")
    lines.append(t(lang, "Join, pick a seat, fill empty seats with computer players, then start."))
    if lang == "en":
        lines += glossary_lines(("对头", "够级"))
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the group table


def table_text(lang: str, table: Table, now: datetime) -> str:
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
    playing = view.phase in (P_PLAY, P_OVER)
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
    trick = table.marks.this_trick()
    if trick and view.top is not None:
        lines.append(t(lang, "This trick: {plays}", plays=story_line(lang, trick, seats, None, TRICK_MAX)))
    if view.top is not None:
        lines.append(top_line(lang, view, seats))
    if current is not None:
        who = seats.get(current)
        line = t(lang, "Turn: {name}", name=who.name if who else "?") + f" ({_phase_text(lang, view)})"
        if table.due is not None:
            line += " · " + when_text(lang, table.due, now, table.group.time_zone)
        lines.append(line)
    a, b = view.team_totals
    lines.append(t(lang, "Match: Team A {a:+d} · Team B {b:+d}", a=a, b=b))
    if view.result is not None:
        scores = view.result.scores
        ra, rb = sum(scores[0::2]), sum(scores[1::2])
        lines.append(t(lang, "This round: Team A {a:+d} · Team B {b:+d}", a=ra, b=rb))
    return "\n".join(lines)


def top_line(lang: str, view: PublicView, seats: dict[int, SeatInfo]) -> str:
    top = view.top
    assert top is not None
    info = seats.get(top.owner)
    line = t(
        lang,
        "On the table: {cards} by {name}",
        cards=format_cards(top.cards),
        name=info.name if info else "?",
    )
    if top.kind == GOUSI:
        line += " · " + t(lang, "够死级")
    elif top.kind == GOUJI:
        line += " · " + t(lang, "够级")
    return line


def _phase_text(lang: str, view: PublicView) -> str:
    return {
        P_RETURN: t(lang, "还贡"),
        P_REVOLT: t(lang, "革命?"),
        P_HEAD: t(lang, "要头 or 无头"),
        P_DECLARE: t(lang, "宣点?"),
        P_PLAY: t(lang, "play"),
        P_OVER: t(lang, "round over"),
    }[view.phase]


# ----------------------------------------------------------------------------- the end of a round, of a match


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
                f"  {payer.name if payer else '?'} → {receiver.name if receiver else '?'}: {d.n} {debt_word(lang, d.kind)}"
            )
    a, b = view.team_totals
    lines.append("")
    lines.append(t(lang, "Match: Team A {a:+d} · Team B {b:+d}", a=a, b=b))
    return "\n".join(lines)


def round_end_text(lang: str, table: Table, seat: int) -> str:
    """The end of a round in a player's private chat: his place and points, what he owes or gets, the totals."""
    assert table.match is not None
    view = table.match.public_view()
    result = view.result
    assert result is not None
    seats = seat_infos(table, lang)
    place = result.places.index(seat)
    lines = [
        f"[{table.title}] " + t(lang, "Round {n} is over", n=result.round_no),
        t(
            lang,
            "You: {place}, {points:+d} points",
            place=place_name(lang, place),
            points=result.scores[seat],
        ),
    ]
    for d in result.debts:
        if d.payer == seat:
            other = seats.get(d.receiver)
            lines.append(
                t(
                    lang,
                    "You owe {name} {n} {kind} before the next round",
                    name=other.name if other else "?",
                    n=d.n,
                    kind=debt_word(lang, d.kind),
                )
            )
        elif d.receiver == seat:
            other = seats.get(d.payer)
            lines.append(
                t(
                    lang,
                    "{name} owes you {n} {kind}",
                    name=other.name if other else "?",
                    n=d.n,
                    kind=debt_word(lang, d.kind),
                )
            )
    a, b = view.team_totals
    mine = a if seat % 2 == 0 else b
    lines.append(
        t(
            lang,
            "Your team: {round:+d} this round, {total:+d} in the match; you {me:+d}",
            round=sum(result.scores[seat % 2 :: 2]),
            total=mine,
            me=view.totals[seat],
        )
    )
    return "\n".join(lines)


def final_text(lang: str, table: Table) -> str:
    """The match's final standings, when the table closes."""
    lines = [t(lang, "The table is closed. Final standings:")]
    match = table.match
    if match is None or table.round_no == 0:
        lines.append(t(lang, "No round was played."))
    else:
        view = match.public_view()
        seats = seat_infos(table, lang)
        played = table.round_no if view.round_over else table.round_no - 1
        a, b = view.team_totals
        lines.append(t(lang, "{n} rounds played. Team A {a:+d} · Team B {b:+d}", n=played, a=a, b=b))
        if a != b:
            lines.append(t(lang, "🏆 {team} wins", team=team_name(lang, 0 if a > b else 1)))
        for s in sorted(range(6), key=lambda s: (-view.totals[s], s)):
            info = seats.get(s)
            lines.append(f"  {info.name if info else '?'} ({team_name(lang, s)}) {view.totals[s]:+d}")
    lines.append(t(lang, "/new opens another table; /stats shows the group's record."))
    return "\n".join(lines)


def closed_text(lang: str, table: Table, seat: int) -> str:
    totals = table.match.public_view().totals if table.match is not None else (0,) * 6
    return (
        f"[{table.title}] "
        + t(lang, "The table is closed. Your total: {points:+d}.", points=totals[seat])
        + " "
        + t(lang, "Final standings are in the group.")
    )


# ----------------------------------------------------------------------------- the private hand


def card_memory_line(lang: str, view: PublicView, hand: Counts) -> str:
    """记牌: what every player could know from the public plays — the As, 2s and jokers not yet played and not
    in your hand."""

    def out(r: int) -> int:
        return max(0, view.deck[r] - view.pile[r] - view.laid_down[r] - hand[r])

    return t(
        lang,
        "记牌 still out: A {a} · 2 {two} · 小王 {b} · 大王 {r}",
        a=out(ACE),
        two=out(TWO),
        b=out(SMALL),
        r=out(BIG_JOKER),
    )


def hand_lines(lang: str, table: Table, seat: int) -> list[str]:
    assert table.match is not None
    own = table.match.view(seat)
    lines = [t(lang, "Your cards ({n}):", n=sum(own.hand)), cards_text(own.hand)]
    if table.group.card_memory and table.match.phase in (P_PLAY, P_DECLARE, P_REVOLT, P_HEAD, P_RETURN):
        lines.append(card_memory_line(lang, table.match.public_view(), own.hand))
    return lines


def turn_text(lang: str, table: Table, seat: int, now: datetime, selection: Counts | None = None) -> str:
    """His turn message: what happened since he last moved, why it is his turn, his hand, until when."""
    match = table.match
    assert match is not None
    view = match.public_view()
    seats = seat_infos(table, lang)
    lines = [f"[{table.title}] " + t(lang, "round {n} · your turn", n=view.round_no)]
    since = table.marks.since_last_move(seat)
    if since:
        lines.append(
            t(lang, "Since your last move: {story}", story=story_line(lang, since, seats, seat, SINCE_MAX))
        )
    lines.append("")
    lines += hand_lines(lang, table, seat)
    if view.top is not None:
        lines.append(top_line(lang, view, seats))
    lines.append("")
    lines.append(why_text(lang, table, view, seat, seats))
    if table.due is not None:
        lines.append("⏳ " + when_text(lang, table.due, now, table.group.time_zone))
    if selection is not None and sum(selection):
        lines.append(t(lang, "Selected: {cards}", cards=format_cards(selection)))
    return "\n".join(lines)


def why_text(lang: str, table: Table, view: PublicView, seat: int, seats: dict[int, SeatInfo]) -> str:
    """Why it is his turn and what is asked of him."""

    def name(s: int) -> str:
        info = seats.get(s)
        return info.name if info else "?"

    if view.phase == P_RETURN and view.returning is not None:
        _receiver, payer, n = view.returning
        return t(
            lang, "还贡: choose {n} cards to give back to {name}, then tap Give back.", n=n, name=name(payer)
        )
    if view.phase == P_REVOLT:
        return t(lang, "You hold no jokers and no 2s: declare 革命? (you lay your hand down and rank 四科)")
    if view.phase == P_HEAD:
        return t(lang, "Your 对头 revolted: 要头 (your first three gouji are 够死级) or 无头?")
    if view.phase == P_DECLARE:
        return t(lang, "宣点 against your 对头? (higher 点贡 either way)")
    top = view.top
    compose = t(lang, "Tap ranks, then Play, or type it (TTTT2, pass).")
    if top is None:
        if view.burner == seat:
            return (
                t(lang, "Your burn goes on: lead again; every lead but your last must carry a joker.")
                + " "
                + compose
            )
        last = next((e for e in reversed(table.marks.recent) if e.kind in ("trick_won", "dealt")), None)
        if last is not None and last.kind == "trick_won" and last.seat == seat:
            return t(lang, "You took the trick: your lead.") + " " + compose
        if last is not None and last.kind == "trick_won" and last.seat is not None and last.seat in view.out:
            return (
                t(lang, "{name} went out with the last play: you lead (接风).", name=name(last.seat))
                + " "
                + compose
            )
        if last is None or last.kind == "dealt":
            return t(lang, "You lead the first trick.") + " " + compose
        return t(lang, "Your lead.") + " " + compose
    owner = top.owner
    size = sum(top.cards)
    beat = t(lang, "Beat {cards} ({n} cards) or pass.", cards=format_cards(top.cards), n=size)
    if view.free:
        return t(lang, "四户乱缠: anyone may answer.") + " " + beat
    if view.yielder == seat and view.yield_back:
        return t(lang, "Your 让 came back: both after you passed.") + " " + beat
    if view.burner is not None and owner == view.burner:
        if owner == opposite(seat):
            return t(lang, "Your 对头 is burning: beat his play to break the burn (解烧), or pass.")
        return t(
            lang, "{name} is burning: burn his play (反烧, the stake doubles), or pass.", name=name(owner)
        )
    if top.kind == GOUSI:
        return t(lang, "够死级: only a burn can answer it. Burn (烧) or pass.")
    if top.kind == GOUJI:
        if owner == opposite(seat):
            return (
                t(lang, "Only you, as 对头, may answer this gouji; the others may only burn it.") + " " + beat
            )
        if owner % 2 == seat % 2:
            return t(lang, "Your teammate's gouji: you may burn it too (烧), or pass.")
        return t(
            lang, "{name}'s gouji: only his 对头 may answer; you may burn it (烧), or pass.", name=name(owner)
        )
    if view.passed[seat] and owner == opposite(seat):
        return t(lang, "Your 对头 played: you are asked again, though you passed.") + " " + beat
    return beat + " " + compose


def past_text(lang: str, table: Table, seat: int, entry: Entry | None) -> str:
    """A turn message once its turn is over: short, without buttons, saying what was done."""
    assert table.match is not None
    left = sum(table.match.view(seat).hand)
    head = f"[{table.title}] " + t(lang, "round {n}", n=table.match.round_no)
    if entry is None:
        return head + " · " + t(lang, "{n} cards left", n=left)
    seats = seat_infos(table, lang)
    return head + " · " + entry_text(lang, entry, seats, seat) + " · " + t(lang, "{n} cards left", n=left)


def deal_text(lang: str, table: Table, seat: int) -> str:
    """His hand at the deal (the table shows the rest)."""
    assert table.match is not None
    view = table.match.public_view()
    seats = seat_infos(table, lang)
    lines = [f"[{table.title}] " + t(lang, "round {n} is dealt", n=view.round_no)]
    lines += hand_lines(lang, table, seat)
    if view.current is not None and view.current != seat:
        who = seats.get(view.current)
        lines.append(
            t(lang, "{name} is first to act; your turn message will come.", name=who.name if who else "?")
        )
    return "\n".join(lines)


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


def refusal_text(lang: str, reason: str) -> str:
    """Why a move was refused (R-rule reasons), and what would be allowed."""
    code = reason.code if isinstance(reason, Refusal) else ""
    facts = reason.facts if isinstance(reason, Refusal) else {}
    if code == "does_not_beat":
        cards, top = facts["cards"], facts["top"]
        if sum(cards) != facts["size"]:
            return t(
                lang,
                "{cards} does not beat {top}: the play must have {n} cards.",
                cards=format_cards(cards),
                top=format_cards(top),
                n=facts["size"],
            )
        return t(
            lang,
            "{cards} does not beat {top}: every card must be higher.",
            cards=format_cards(cards),
            top=format_cards(top),
        )
    if code == "not_held":
        return t(
            lang,
            "You do not hold {cards}: you have no {missing}.",
            cards=format_cards(facts["cards"]),
            missing=format_cards(facts["missing"]),
        )
    words = {
        "over": t(lang, "the round is over"),
        "nobody": t(lang, "nobody is to act"),
        "lead_something": t(lang, "you lead: play something"),
        "nothing_to_yield": t(lang, "there is nothing to yield to"),
        "no_yield_free": t(lang, "no 让牌 in 四户乱缠"),
        "yield_only_duitou": t(lang, "you may only yield (让牌) to your 对头's play"),
        "no_yield_gouji": t(lang, "never 让牌 against a gouji"),
        "yielded_already": t(lang, "you have yielded already"),
        "not_a_play": t(lang, "not a play: one rank, with 2s and jokers attached"),
        "nothing_to_burn": t(lang, "there is nothing to burn"),
        "no_burn_free": t(lang, "no burning in 四户乱缠"),
        "burn_cannot_finish": t(lang, "that burn cannot finish: every lead after it needs a joker"),
        "burn_needs_joker": t(lang, "while burning, every lead but the last must carry a joker"),
        "burn_rest_unfinishable": t(lang, "the rest of your hand could not finish the burn"),
        "gousi_only_burn": t(lang, "够死级: only a burn may answer it"),
        "only_duitou_answers": t(lang, "only the 对头 may answer a gouji; you may only burn it (烧)"),
        "only_gouji_burned": t(lang, "only a gouji can be burned"),
        "duitou_answers": t(lang, "as 对头 you answer it (出牌), you do not burn"),
        "passed_already": t(lang, "you passed in this trick"),
        "wutou_cannot_burn": t(lang, "无头: you cannot burn"),
        "burn_needs_open": t(lang, "only a player who opened the point may burn"),
        "tie_two_off": t(lang, "2s may not be attached (贴钱 is off)"),
        "three_last": t(lang, "3s only as your last play, all together, with nothing attached (憋三)"),
        "four_after_open": t(lang, "open the point (开点) before you play 4s"),
        "give_back": t(lang, "give back exactly {n} cards (还贡)", n=facts.get("n", "?")),
        "choose": t(lang, "choose one of the buttons"),
        "not_an_action": t(lang, "that is not a move now"),
    }
    return words.get(code, str(reason))


# ----------------------------------------------------------------------------- help, rules, settings, stats


def help_text(lang: str) -> str:
    lines = [
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
            "/rules shows the house rules, /settings changes them, /stats your results, /table shows the table again, /nudge reminds the player to act, /stop closes it.",
        ),
    ]
    if lang == "en":
        lines.append("")
        lines += glossary_lines(GLOSSARY_TERMS)
    return "\n".join(lines)


def rules_text(lang: str, rules: Rules) -> str:
    lines = [t(lang, "House rules of this table ({preset}):", preset=preset_text(lang, rules))]
    for key in Rules.key_names():
        if key == "tribute_order":
            continue
        on = getattr(rules, key)
        lines.append(f"{'✅' if on else '▫️'} {rule_name(lang, key)} — {rule_description(lang, key)}")
    order = " > ".join(debt_word(lang, k) for k in rules.tribute_order)
    lines.append(t(lang, "Tribute is paid in this order: {order}", order=order))
    return "\n".join(lines)


def settings_text(group: Group) -> str:
    lang = group.language
    return "\n".join(
        [
            t(lang, "Settings of this group's tables:"),
            rules_text(lang, group.rules),
            t(lang, "Turn time: {time}", time=duration_text(lang, group.turn_seconds)),
            t(lang, "Computer players: {level}", level=level_text(lang, group.computer_level)),
            t(lang, "Time zone: {zone}", zone=group.time_zone),
            t(
                lang,
                "记牌 (card memory) in the hand messages: {on}",
                on=t(lang, "on") if group.card_memory else t(lang, "off"),
            ),
            t(lang, "Language: {language}", language={"zh": "中文", "en": "English"}.get(lang, lang)),
        ]
    )


def stats_text(
    lang: str, name: str, stats: Stats | None, board: Sequence[Standing], group_rounds: int | None
) -> str:
    """A player's record (rounds, places, points, how often his team won) and, in a group, its leaderboard."""
    lines: list[str] = []
    if stats is None or stats.rounds_played == 0:
        lines.append(t(lang, "{name} has not finished a round here yet.", name=name))
    else:
        n = stats.rounds_played
        places = " · ".join(f"{place_name(lang, i)} {k}" for i, k in enumerate(stats.places) if k)
        lines.append(
            t(
                lang,
                "{name}: {rounds} rounds, {points:+d} points ({avg:+.1f} a round); team won {wins} ({rate:.0f}%).",
                name=name,
                rounds=n,
                points=stats.points,
                avg=stats.points / n,
                wins=stats.team_wins,
                rate=100 * stats.team_wins / n,
            )
        )
        lines.append(places)
    if board:
        lines.append("")
        lines.append(t(lang, "Leaderboard ({n} rounds in this group):", n=group_rounds or 0))
        for i, row in enumerate(board, start=1):
            st = row.stats
            lines.append(
                t(
                    lang,
                    "{i}. {name} {points:+d} in {rounds} rounds, 头科 {first}×",
                    i=i,
                    name=row.name,
                    points=st.points,
                    rounds=st.rounds_played,
                    first=st.places[0],
                )
            )
    return "\n".join(lines)


def presets_line(lang: str) -> str:
    return " · ".join(preset_text(lang, Rules.preset(p)) for p in PRESETS)


__all__ = [
    "BIG_MOMENTS",
    "NORMAL",
    "PLAY",
    "SeatInfo",
    "announcements",
    "closed_text",
    "deal_text",
    "final_text",
    "past_text",
    "round_end_text",
    "summary_text",
    "table_text",
    "turn_text",
]
