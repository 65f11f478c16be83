"""The words the group's texts and a player's share: who sits where and in which team, places, cards, the
computers' level, durations and deadlines in the group's time zone, house rules and tribute as players call
them, the glossary of an English reader, one line of the table's public story and the play on the table.

Pure functions; the time is passed in. Only public things are worded here: a hand is worded only by
:mod:`bot.texts.player`, from the seat's own view.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from engine import Event, Rules
from engine.cards import RANKS, Counts, format_cards
from engine.match import P_DECLARE, P_HEAD, P_OVER, P_PLAY, P_RETURN, P_REVOLT, PublicView
from engine.round import GOUJI, GOUSI, PLACE_NAMES
from table import Entry, Table
from table.policy import COMPUTER_LEVELS

from ..i18n import DEFAULT_LANGUAGE, normalise, t, tn

MAX_MESSAGE = 4096


def sentences(lang: str, *parts: str) -> str:
    """Sentences (or the parts of a line) one after another: a space between them in English, none in Chinese
    (full-width punctuation carries its own space)."""
    return ("" if lang == "zh" else " ").join(p for p in parts if p)


# ----------------------------------------------------------------------------- seats, teams, places, cards


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


def reader_zone(table: Table, seat: int | None) -> str:
    """The time zone a reader's deadlines are shown in: a player's own (/zone) in his private chat, else the
    group's."""
    s = table.seat(seat) if seat is not None else None
    return s.time_zone if s is not None and s.time_zone else table.group.time_zone


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


def _hours(lang: str, n: int) -> str:
    return tn(lang, "{n} h", "{n} h", n)


def _minutes(lang: str, n: int) -> str:
    return tn(lang, "{n} min", "{n} min", n)


def _seconds(lang: str, n: int) -> str:
    return tn(lang, "{n} s", "{n} s", n)


def duration_text(lang: str, seconds: int) -> str:
    if seconds % 3600 == 0:
        return _hours(lang, seconds // 3600)
    if seconds % 60 == 0:
        return _minutes(lang, seconds // 60)
    return _seconds(lang, seconds)


def relative_text(lang: str, seconds: float) -> str:
    """How long from now, as people say it: in 40 s, in 5 min, in 2 h 15 min, in 14 h."""
    s = max(0, round(seconds))
    if s < 60:
        time = _seconds(lang, s)
    elif s < 3600:
        time = _minutes(lang, round(s / 60))
    elif s >= 10 * 3600:
        time = _hours(lang, round(s / 3600))
    else:
        hours, minutes = divmod(round(s / 60), 60)
        time = _hours(lang, hours) + (" " + _minutes(lang, minutes) if minutes else "")
    return t(lang, "in {time}", time=time)


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
        "classic": t(lang, "Classic (经典)"),
        "zhangqiu": t(lang, "Zhangqiu (章丘)"),
        None: t(lang, "custom"),
    }[name]


# The terms an English reader meets, each explained once (GLOSSARY_TERMS in the order of the game).
GLOSSARY = {
    "对头": "对头 = the player opposite you, seat +3: the one opponent who may answer your gouji",
    "够级": "够级 (gouji) = a strong play (T×5, J×4, Q×3, K/A×2, any 2s or jokers): only the 对头 may answer it",
    "过": "过 = pass: you let the play stand and sit out the rest of the trick, unless your 对头 plays",
    "要不起": "要不起 = cannot beat: nothing in the hand beats the play, so the player is passed at once",
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
    """One public thing that happened, short: ``Bob 777``, ``Cai passes (过)``, ``🔥 Dan 烧 Eve: RR55555``.
    Told to ``me``, what he did or met reads "you …", a text of its own (the English verb agrees, the Chinese
    你 takes no space)."""

    def name(s: int | None) -> str:
        if s is not None and s == me:
            return t(lang, "you")
        info = seats.get(s) if s is not None else None
        return info.name if info else "?"

    k, who, cards = e.kind, name(e.seat), format_cards(e.cards) if e.cards else ""
    mine = me is not None and e.seat == me
    theirs = me is not None and e.other == me  # done to him
    n = e.n or 0
    # Lazy: only the words of this kind are built (a place is worded only for a player who went out).
    words = {
        "play": lambda: f"{who} {cards}",
        "burn": lambda: (
            t(lang, "🔥 you 烧 {b}: {cards}", b=name(e.other), cards=cards)
            if mine
            else t(lang, "🔥 {a} 烧 you: {cards}", a=who, cards=cards)
            if theirs
            else t(lang, "🔥 {a} 烧 {b}: {cards}", a=who, b=name(e.other), cards=cards)
        ),
        "pass": lambda: t(lang, "you pass (过)") if mine else t(lang, "{a} passes (过)", a=who),
        "auto_pass": lambda: (
            t(lang, "you cannot beat (要不起)") if mine else t(lang, "{a} cannot beat (要不起)", a=who)
        ),
        "yield": lambda: t(lang, "you 让牌") if mine else t(lang, "{a} 让牌", a=who),
        "trick_won": lambda: t(lang, "you take the trick") if mine else t(lang, "{a} takes the trick", a=who),
        "opened": lambda: t(lang, "you 开点") if mine else t(lang, "{a} 开点", a=who),
        "out": lambda: (
            t(lang, "🏁 you go out {place}", place=place_name(lang, n))
            if mine
            else t(lang, "🏁 {a} goes out {place}", a=who, place=place_name(lang, n))
        ),
        "men": lambda: (
            t(lang, "🔒 you 闷 (by {b})", b=name(e.other))
            if mine
            else t(lang, "🔒 {a} 闷 (by you)", a=who)
            if theirs
            else t(lang, "🔒 {a} 闷 (by {b})", a=who, b=name(e.other))
        ),
        "burn_won": lambda: burn_won_text(lang, who, name(e.other), n, mine=mine, theirs=theirs),
        "jie_shao": lambda: (
            t(lang, "🧯 {a} 解烧: your burn is broken", a=who)
            if theirs
            else t(lang, "🧯 {a} 解烧: {b}'s burn is broken", a=who, b=name(e.other))
        ),
        "fan_shao": lambda: t(lang, "🔥 {a} 反烧 {b}: the stake doubles", a=who, b=name(e.other)),
        "burn_failed": lambda: t(lang, "💥 {a} cannot finish the burn: 烧糊", a=who),
        "free_for_all": lambda: t(lang, "四户乱缠"),
        "discarded_fours": lambda: (
            tn(lang, "you throw away a 4 (not opened)", "you throw away {n} 4s (not opened)", n)
            if mine
            else tn(lang, "{a} throws away a 4 (not opened)", "{a} throws away {n} 4s (not opened)", n, a=who)
        ),
        "round_over": lambda: t(lang, "the round is over"),
        "dealt": lambda: t(lang, "round {n} dealt", n=e.n),
        "tuoguan": lambda: t(lang, "{a}: 托管 (the computer plays)", a=who),
        "back": lambda: t(lang, "you play again") if mine else t(lang, "{a} plays again", a=who),
        "answered": lambda: t(lang, "you answered") if mine else t(lang, "{a} answered", a=who),
        "returned": lambda: (
            t(lang, "you 还贡 to {b}: {cards}", b=name(e.other), cards=cards)
            if mine
            else t(lang, "{a} 还贡 to {b}: {cards}", a=who, b=name(e.other), cards=cards)
        ),
        "revolt": lambda: t(lang, "✊ you 革命") if mine else t(lang, "✊ {a} 革命", a=who),
        "no_revolt": lambda: t(lang, "{a}: no 革命", a=who),
        "declare": lambda: t(lang, "you 宣点") if mine else t(lang, "{a} 宣点", a=who),
        "no_declare": lambda: t(lang, "{a}: no 宣点", a=who),
        "yaotou": lambda: t(lang, "you 要头") if mine else t(lang, "{a} 要头", a=who),
        "wutou": lambda: t(lang, "you 无头") if mine else t(lang, "{a} 无头", a=who),
    }.get(k)
    text = words() if words is not None else f"{who} {k}"
    if e.actor == "timeout" and k in ("play", "burn", "pass", "yield"):
        text = t(lang, "{move} (time up)", move=text)
    return text


def burn_won_text(lang: str, burner: str, payer: str, n: int, *, mine: bool, theirs: bool) -> str:
    """A burn that went through: who owes the burner how many cards of 烧贡 (the reader's own verb agrees)."""
    if mine:
        return tn(
            lang,
            "🔥 your burn succeeds: {b} owes {n} card of 烧贡",
            "🔥 your burn succeeds: {b} owes {n} cards of 烧贡",
            n,
            b=payer,
        )
    if theirs:
        return tn(
            lang,
            "🔥 {a}'s burn succeeds: you owe {n} card of 烧贡",
            "🔥 {a}'s burn succeeds: you owe {n} cards of 烧贡",
            n,
            a=burner,
        )
    return tn(
        lang,
        "🔥 {a}'s burn succeeds: {b} owes {n} card of 烧贡",
        "🔥 {a}'s burn succeeds: {b} owes {n} cards of 烧贡",
        n,
        a=burner,
        b=payer,
    )


def story_line(
    lang: str, entries: Sequence[Entry], seats: dict[int, SeatInfo], me: int | None, most: int
) -> str:
    """The entries in a line. Past ``most``, the passes of the older half are left out first and counted (every
    play stays: the plays are what a player plans on), then, if the line would still be longer than a turn
    message can carry with a hand, the oldest entries are folded into a count; neither silently."""
    items = [e for e in entries if e.kind != "trick_won" or e is entries[-1]]
    note: list[str] = []
    if len(items) > most:
        older, newer = items[: -(most // 2)], items[-(most // 2) :]
        passes = [e for e in older if e.kind in _QUIET]
        if passes:
            note.append(tn(lang, "({n} pass left out)", "({n} passes left out)", len(passes)))
        items = [e for e in older if e.kind not in _QUIET] + newer
    texts = [entry_text(lang, e, seats, me) for e in items]
    folded = 0
    while sum(len(x) + 3 for x in texts[folded:]) > STORY_CHARS:
        folded += 1
    if folded:
        note.insert(0, tn(lang, "…{n} earlier move", "…{n} earlier moves", folded))
    return " · ".join([*note, *texts[folded:]])


# The longest a story line may be: a turn message also carries the hand, what is asked and until when, within
# Telegram's 4096 characters.
STORY_CHARS = 2600


# What a long story leaves out first: the moves that put nothing on the table.
_QUIET = frozenset({"pass", "auto_pass", "yield", "answered"})


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


_QUESTION_TEXT = {
    P_RETURN: lambda lang: t(lang, "还贡"),
    P_REVOLT: lambda lang: t(lang, "革命?"),
    P_HEAD: lambda lang: t(lang, "要头 or 无头"),
    P_DECLARE: lambda lang: t(lang, "宣点?"),
}


def phase_text(lang: str, view: PublicView) -> str:
    return {
        P_RETURN: t(lang, "还贡"),
        P_REVOLT: t(lang, "革命?"),
        P_HEAD: t(lang, "要头 or 无头"),
        P_DECLARE: t(lang, "宣点?"),
        P_PLAY: t(lang, "play"),
        P_OVER: t(lang, "round over"),
    }[view.phase]


def turn_line(
    lang: str,
    table: Table,
    view: PublicView,
    seats: dict[int, SeatInfo],
    now: datetime,
    reader: int | None = None,
) -> str:
    """Whose turn it is, for what, and until when (the table's ``due``, read with the table)."""
    if view.asked:
        # Before the first lead every seat concerned answers at once: who is still to answer, and what.
        names = "、".join(seats[q.seat].name if q.seat in seats else "?" for q in view.asked)
        what = " · ".join(dict.fromkeys(_QUESTION_TEXT[q.kind](lang) for q in view.asked))
        line = t(lang, "Waiting for: {names} ({what})", names=names, what=what)
        if table.due is not None:
            line += " · " + when_text(lang, table.due, now, reader_zone(table, reader))
        return line
    who = seats.get(view.current) if view.current is not None else None
    line = t(lang, "Turn: {name} ({phase})", name=who.name if who else "?", phase=phase_text(lang, view))
    if table.due is not None:
        line += " · " + when_text(lang, table.due, now, reader_zone(table, reader))
    return line


# ----------------------------------------------------------------------------- tribute waived, and why


def debt_waived_text(lang: str, n: int, kind: str, why: str) -> str:
    """A debt of the round the rules waived: between teammates (R10.4), or replaced by 圈贡 (R10.2)."""
    if why == "team":
        return tn(
            lang,
            "{n} card of {kind} waived: they are teammates",
            "{n} cards of {kind} waived: they are teammates",
            n,
            kind=kind,
        )
    return tn(
        lang,
        "{n} card of {kind} waived: 圈贡 replaces it",
        "{n} cards of {kind} waived: 圈贡 replaces it",
        n,
        kind=kind,
    )


def waived_text(lang: str, e: Event, payer: str | None, receiver: str) -> str:
    """Tribute owed and not paid, and why: 抗贡 (R10.5), or too few naturally dealt R, B or 2 (R10.3).
    ``payer`` None: the reader himself."""
    if e.kind == "tribute_exempt":
        if payer is None:
            return t(lang, "You owe {b} nothing: 抗贡 ({n} waived)", b=receiver, n=e.n)
        return t(lang, "{a} owes {b} nothing: 抗贡 ({n} waived)", a=payer, b=receiver, n=e.n)
    if payer is None:
        return t(
            lang,
            "You have no more naturally dealt 大王, 小王 or 2: {n} owed to {b} waived",
            b=receiver,
            n=e.n,
        )
    return t(
        lang,
        "{a} has no more naturally dealt 大王, 小王 or 2: {n} owed to {b} waived",
        a=payer,
        b=receiver,
        n=e.n,
    )
