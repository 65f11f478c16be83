"""The answers to /help, /rules, /settings and /stats, in whichever chat they were asked: what the game is
and how to play it here, the house rules and the group's settings in players' words, a player's record and
the group's leaderboard."""

from __future__ import annotations

from collections.abc import Sequence

from engine import Rules
from storage.records import Standing, Stats
from table import Group, Table
from table.settings import Applies

from ..i18n import t, tn
from .words import (
    GLOSSARY_TERMS,
    debt_word,
    duration_text,
    glossary_lines,
    level_text,
    place_name,
    preset_text,
    rule_description,
    rule_name,
)


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


def rules_text(lang: str, rules: Rules, *, this_table: bool = True) -> str:
    """The house rules, each in players' words: of the table in play (/rules), or as /settings keeps them."""
    if this_table:
        lines = [t(lang, "House rules of this table — {preset}:", preset=preset_text(lang, rules))]
    else:
        lines = [t(lang, "House rules — {preset}:", preset=preset_text(lang, rules))]
    for key in Rules.key_names():
        if key == "tribute_order":
            continue
        on = getattr(rules, key)
        lines.append(f"{'✅' if on else '▫️'} {rule_name(lang, key)} — {rule_description(lang, key)}")
    order = " > ".join(debt_word(lang, k) for k in rules.tribute_order)
    lines.append(t(lang, "Tribute is paid in this order: {order}", order=order))
    return "\n".join(lines)


def settings_text(group: Group, table: Table | None = None) -> str:
    """The group's settings; where the table in play keeps other rules until its round ends, it says so."""
    lang = group.language
    playing: list[str] = []
    if table is not None and table.playing and Rules.from_dict(table.rules) != group.rules:
        playing.append(
            t(
                lang,
                "This round keeps the rules it was dealt with, {preset}; the rules below hold from the next round.",
                preset=preset_text(lang, Rules.from_dict(table.rules)),
            )
        )
    return "\n".join(
        [
            t(lang, "Settings of this group's tables:"),
            *playing,
            rules_text(lang, group.rules, this_table=False),
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


def saved_text(lang: str, applies: Applies) -> str:
    """The answer to a settings tap: saved, and from when it holds."""
    return {
        "now": t(lang, "Saved."),
        "next_turn": t(lang, "Saved: from the next turn."),
        "next_round": t(lang, "Saved: from the next round (this round keeps its rules)."),
        "next_table": t(lang, "Saved: for the next table."),
    }[applies]


def stats_text(
    lang: str, name: str, stats: Stats | None, board: Sequence[Standing], group_rounds: int | None
) -> str:
    """A player's record (rounds, places, points, how often his team won) and, in a group, its leaderboard."""
    lines: list[str] = []
    if stats is None or stats.rounds_played == 0:
        lines.append(t(lang, "{name} has not finished a round here yet.", name=name))
    else:
        n = stats.rounds_played
        places = " · ".join(
            t(lang, "{place} {n}×", place=place_name(lang, i), n=k) for i, k in enumerate(stats.places) if k
        )
        lines.append(
            t(
                lang,
                "{name}: {rounds}, {points} ({avg:+.1f} a round); team won {wins} ({rate:.0f}%).",
                name=name,
                rounds=tn(lang, "{n} round", "{n} rounds", n),
                # A point or points by its size: "-1 point", "+2 points".
                points=tn(
                    lang, "{points:+d} point", "{points:+d} points", abs(stats.points), points=stats.points
                ),
                avg=stats.points / n,
                wins=stats.team_wins,
                rate=100 * stats.team_wins / n,
            )
        )
        lines.append(places)
    if board:
        lines.append("")
        lines.append(
            tn(
                lang,
                "Leaderboard ({n} round in this group):",
                "Leaderboard ({n} rounds in this group):",
                group_rounds or 0,
            )
        )
        for i, row in enumerate(board, start=1):
            st = row.stats
            lines.append(
                tn(
                    lang,
                    "{i}. {name} {points:+d} in {n} round, 头科 {first}×",
                    "{i}. {name} {points:+d} in {n} rounds, 头科 {first}×",
                    st.rounds_played,
                    i=i,
                    name=row.name,
                    points=st.points,
                    first=st.places[0],
                )
            )
    return "\n".join(lines)
