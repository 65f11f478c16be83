"""What the group reads: the lobby, the public table, the big moments of a stretch of play, a round's
summary and the match's final standings.

Pure functions of the table (:class:`table.Table`), the match's public view (``Match.public_view``: cards
left under 报户, the top play, places) and the table's public story (``Marks.recent``): nothing here reads a
hand. The time is passed in; the keyboards are in :mod:`bot.keyboards`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engine import Event, Rules
from engine.match import P_OVER, P_PLAY
from table import Entry, Table

from ..i18n import t, tn
from .words import (
    MAX_MESSAGE,
    SeatInfo,
    cards_text,
    debt_waived_text,
    debt_word,
    duration_text,
    entry_text,
    glossary_lines,
    level_text,
    place_name,
    preset_text,
    seat_infos,
    sentences,
    story_line,
    team_name,
    top_line,
    turn_line,
    waived_text,
)

TRICK_MAX = 30  # moves of a trick the group table shows before folding the older ones into a count


# ----------------------------------------------------------------------------- the big moments


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
        elif k in ("tribute_short", "tribute_exempt"):
            out.append(waived_text(lang, e, name(e.seat), name(e.other)))
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
            # 买三 (R8.2): paid with a 2 (or a joker) to an opponent, or given free by a teammate.
            what = "3" if k == "bought_three" else "4"
            if e.cards:
                out.append(
                    t(
                        lang,
                        "{a} buys a {what} from {b} for one {paid}",
                        a=name(e.seat),
                        b=name(e.other),
                        what=what,
                        paid=cards_text(e.cards),
                    )
                )
            else:
                out.append(
                    t(
                        lang,
                        "{a} gets a {what} free from his teammate {b}",
                        a=name(e.seat),
                        b=name(e.other),
                        what=what,
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
                marks.append(
                    t(lang, "cannot beat (要不起)") if s in table.marks.auto_passed else t(lang, "passed")
                )
            if view.burner == s:
                marks.append(t(lang, "burning"))
        if view.revolted == s:
            marks.append(t(lang, "革命"))
        if info and info.autoplay:
            marks.append(t(lang, "托管"))
        if info and info.computer:
            marks.append(t(lang, "computer"))
        # Before the first lead every seat still to answer is pointed at: they answer at once.
        pointer = "▶ " if s == current or any(q.seat == s for q in view.asked) else "   "
        who = t(lang, "{n}. {name} ({team})", n=s + 1, name=name, team=team_name(lang, s))
        lines.append(pointer + sentences(lang, who, " · ".join(marks)))
    lines.append("")
    trick = table.marks.this_trick()
    if trick and view.top is not None:
        lines.append(t(lang, "This trick: {plays}", plays=story_line(lang, trick, seats, None, TRICK_MAX)))
    elif view.top is None and view.phase == P_PLAY and (last := table.marks.last_trick()):
        # A new lead is awaited: the trick that just ended, often within the same stretch (a play everybody
        # was passed on), or the group never sees it.
        lines.append(t(lang, "Last trick: {plays}", plays=story_line(lang, last, seats, None, TRICK_MAX)))
    if view.top is not None:
        lines.append(top_line(lang, view, seats))
    if current is not None:
        lines.append(turn_line(lang, table, view, seats, now))
    a, b = view.team_totals
    lines.append(t(lang, "Match: Team A {a:+d} · Team B {b:+d}", a=a, b=b))
    if view.result is not None:
        scores = view.result.scores
        ra, rb = sum(scores[0::2]), sum(scores[1::2])
        lines.append(t(lang, "This round: Team A {a:+d} · Team B {b:+d}", a=ra, b=rb))
    return "\n".join(lines)


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
            t(
                lang,
                "{place}: {name} ({team}) {points:+d}",
                place=place_name(lang, place),
                name=info.name if info else "?",
                team=team_name(lang, s),
                points=result.scores[s],
            )
        )
    if result.debts:
        lines.append("")
        lines.append(t(lang, "Tribute owed before the next round:"))
        for d in result.debts:
            payer, receiver = seats.get(d.payer), seats.get(d.receiver)
            lines.append(
                "  "
                + tn(
                    lang,
                    "{payer} → {receiver}: {n} card of {kind}",
                    "{payer} → {receiver}: {n} cards of {kind}",
                    d.n,
                    payer=payer.name if payer else "?",
                    receiver=receiver.name if receiver else "?",
                    kind=debt_word(lang, d.kind),
                )
            )
    if result.waived:
        lines.append(t(lang, "Waived:"))
        for w in result.waived:
            payer, receiver = seats.get(w.debt.payer), seats.get(w.debt.receiver)
            lines.append(
                "  "
                + t(
                    lang,
                    "{payer} → {receiver}: {what}",
                    payer=payer.name if payer else "?",
                    receiver=receiver.name if receiver else "?",
                    what=debt_waived_text(lang, w.debt.n, debt_word(lang, w.debt.kind), w.why),
                )
            )
    a, b = view.team_totals
    lines.append("")
    lines.append(t(lang, "Match: Team A {a:+d} · Team B {b:+d}", a=a, b=b))
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
        lines.append(
            tn(
                lang,
                "{n} round played. Team A {a:+d} · Team B {b:+d}",
                "{n} rounds played. Team A {a:+d} · Team B {b:+d}",
                played,
                a=a,
                b=b,
            )
        )
        if a != b:
            lines.append(t(lang, "🏆 {team} wins", team=team_name(lang, 0 if a > b else 1)))
        for s in sorted(range(6), key=lambda s: (-view.totals[s], s)):
            info = seats.get(s)
            lines.append(
                "  "
                + t(
                    lang,
                    "{name} ({team}) {points:+d}",
                    name=info.name if info else "?",
                    team=team_name(lang, s),
                    points=view.totals[s],
                )
            )
    lines.append(t(lang, "/new opens another table; /stats shows the group's record."))
    return "\n".join(lines)
