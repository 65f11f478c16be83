"""Issue 22, words: what a user trying the bot found odd, each on a table built in memory (a set position,
RULES.md's engine judging) or through the presenter: English counts ("1 card", "1 round"), the reader's own
verbs ("you take the trick"), 过 and 要不起 in English and in the glossary, the jokers of 记牌 as the hand
writes them, the presets' names, and Chinese as a Chinese player writes it (a pass is not a play, what 买三
paid, full-width punctuation, no stray spaces), a refused play that says what he holds."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from unit_support import GROUP, SIX, Stage, smallest_single

from bot.texts.answers import rules_text, stats_text
from bot.texts.group import announcements, final_text, summary_text, table_text
from bot.texts.player import (
    card_memory_line,
    closed_text,
    refusal_text,
    reminder_text,
    timed_out_text,
    why_text,
)
from bot.texts.words import entry_text, glossary_lines, preset_text, relative_text, seat_infos, terms_in
from engine import Action, Event, Match, Round, Rules
from engine.actions import PASS, PLAY
from engine.cards import parse_cards
from engine.match import NO_REVOLT
from engine.refusals import IllegalAction
from storage.records import Standing, Stats
from table import Entry, Group, Seat, Table

pytestmark = pytest.mark.unit

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def table_of(rnd: Round | Match) -> Table:
    """A table of six players P1…P6 at this round (or match)."""
    match = rnd if isinstance(rnd, Match) else Match.from_round(rnd)
    return Table(
        id=1,
        group=Group(id=-1, title="Friends"),
        status="playing",
        version=7,
        rules=match.rules.to_dict(),
        match=match,
        seats=tuple(Seat(n=n, user_id=100 + n, name=f"P{n + 1}", language="en") for n in range(6)),
        round_no=1,
    )


def position(hands: list[str], leader: int = 0) -> Round:
    return Round.from_position(Rules.preset("classic"), [parse_cards(h) for h in hands], leader)


def prompt(lang: str, table: Table, seat: int) -> str:
    assert table.match is not None
    return why_text(lang, table, table.match.public_view(), seat, seat_infos(table, lang))


def finished() -> Table:
    """A round played out: P1 first … P6 last, P5 and P6 owing 落贡."""
    rnd = position(["5", "6", "7", "8", "9", "T"])
    for cards in ("5", "6", "7", "8"):
        rnd.apply(Action(PLAY, parse_cards(cards)))
    table = table_of(rnd)
    assert table.match is not None
    table.match.apply(Action(PLAY, parse_cards("9")))
    assert table.match.public_view().result is not None
    return table


def story(lang: str, entry: Entry, me: int | None = None) -> str:
    return entry_text(lang, entry, seat_infos(table_of(position(["5"] * 6)), lang), me)


# ----------------------------------------------------------------------------- English counts


def test_a_single_card_to_beat_is_one_card_and_two_are_two_cards() -> None:
    rnd = position(["5 9", "8 6", "7", "8", "9", "T"])
    rnd.apply(Action(PLAY, parse_cards("5")))
    assert "Beat 5 (1 card) or pass." in prompt("en", table_of(rnd), 1)
    rnd = position(["55 9", "88 6", "7", "8", "9", "T"])
    rnd.apply(Action(PLAY, parse_cards("55")))
    assert "Beat 55 (2 cards) or pass." in prompt("en", table_of(rnd), 1)


def test_stats_count_one_round_and_one_point_in_the_singular() -> None:
    one = Stats(rounds_played=1, points=1, places=(1, 0, 0, 0, 0, 0), team_wins=1)
    text = stats_text("en", "Ann", one, [Standing(101, "Ann", one)], 1)
    assert text.splitlines() == [
        "Ann: 1 round, +1 point (+1.0 a round); team won 1 (100%).",
        "1st (头科) 1×",
        "",
        "Leaderboard (1 round in this group):",
        "1. Ann +1 in 1 round, 头科 1×",
    ]
    two = Stats(rounds_played=2, points=-1, places=(0, 0, 0, 1, 1, 0), team_wins=0)
    assert stats_text("en", "Bob", two, [], None).startswith("Bob: 2 rounds, -1 point (-0.5 a round)")
    assert stats_text("zh", "Bob", two, [], None).startswith("Bob：2 局，-1 分（每局 -0.5）")


def test_a_match_of_one_round_and_its_tribute_count_in_the_singular() -> None:
    table = finished()
    assert "1 round played. Team A +2 · Team B -2" in final_text("en", table)
    assert "  P5 → P2: 1 card of 落贡" in summary_text("en", table).splitlines()
    assert "  P6 → P1: 2 cards of 落贡" in summary_text("en", table).splitlines()


def test_a_refused_play_of_the_wrong_size_counts_its_cards() -> None:
    rnd = position(["5 9", "66 8", "7", "8", "9", "T"])
    rnd.apply(Action(PLAY, parse_cards("5")))
    with pytest.raises(IllegalAction) as refused:
        rnd.apply(Action(PLAY, parse_cards("66")))
    assert refusal_text("en", refused.value.reason) == "66 does not beat 5: the play must have 1 card."


def test_hours_and_minutes_from_now_are_said_whole() -> None:
    assert relative_text("en", 90 * 60) == "in 1 h 30 min"
    assert relative_text("zh", 90 * 60) == "还有 1 小时 30 分钟"
    assert relative_text("en", 60) == "in 1 min"
    assert relative_text("en", 14 * 3600 + 100) == "in 14 h"


# ----------------------------------------------------------------------------- the reader himself


def test_what_the_reader_did_himself_has_its_own_verb() -> None:
    assert story("en", Entry(1, "trick_won", seat=0), me=0) == "you take the trick"
    assert story("en", Entry(1, "trick_won", seat=0), me=1) == "P1 takes the trick"
    assert story("en", Entry(1, "back", seat=0), me=0) == "you play again"
    assert story("en", Entry(1, "pass", seat=0), me=0) == "you pass (过)"
    assert story("en", Entry(1, "discarded_fours", seat=0, n=1), me=0) == "you throw away a 4 (not opened)"
    assert story("en", Entry(1, "burn_won", seat=0, other=1, n=2), me=1) == (
        "🔥 P1's burn succeeds: you owe 2 cards of 烧贡"
    )
    assert story("en", Entry(1, "burn_won", seat=0, other=1, n=1), me=0) == (
        "🔥 your burn succeeds: P2 owes 1 card of 烧贡"
    )
    assert story("en", Entry(1, "jie_shao", seat=0, other=1), me=1) == "🧯 P1 解烧: your burn is broken"
    assert story("en", Entry(1, "out", seat=0, n=0), me=0) == "🏁 you go out 1st (头科)"
    assert story("en", Entry(1, "out", seat=0, n=0)) == "🏁 P1 goes out 1st (头科)"
    # Chinese: 你 as the subject takes no space before a Chinese word.
    assert story("zh", Entry(1, "trick_won", seat=0), me=0) == "你拿下这一轮"
    assert story("zh", Entry(1, "opened", seat=0), me=0) == "你开点"
    assert story("zh", Entry(1, "men", seat=0, other=1), me=0) == "🔒 你被 P2 闷了"
    assert story("zh", Entry(1, "men", seat=0, other=1), me=1) == "🔒 P1 被你闷了"


# ----------------------------------------------------------------------------- 过 and 要不起 in English


def test_a_pass_and_a_cannot_beat_are_worded_in_english_and_kept_as_they_are_in_chinese() -> None:
    assert story("en", Entry(1, "pass", seat=2)) == "P3 passes (过)"
    assert story("en", Entry(1, "auto_pass", seat=2)) == "P3 cannot beat (要不起)"
    assert story("zh", Entry(1, "pass", seat=2)) == "P3 过"
    assert story("zh", Entry(1, "auto_pass", seat=2)) == "P3 要不起"
    assert terms_in("P3 passes (过) · P4 cannot beat (要不起)") == {"过", "要不起"}
    assert [line.split(" = ")[0] for line in glossary_lines({"要不起", "过"})] == ["ℹ️ 过", "ℹ️ 要不起"]


async def test_an_english_group_is_told_what_过_means_the_first_time_the_table_shows_it_and_only_then() -> (
    None
):
    stage = Stage()
    table = await stage.in_play(dict(enumerate(SIX)))
    await stage.show(await stage.act(table, smallest_single(table)))
    table = await stage.load(table.id)
    before = len(stage.bot.calls)
    await stage.show(await stage.act(table, Action(PASS)))
    told = [c.text for c in stage.bot.calls[before:] if c.chat_id == GROUP and c.method == "sendMessage"]
    assert len(told) == 1 and "ℹ️ 过 = pass" in str(told[0])
    [table_shown] = [
        c.text for c in stage.bot.calls[before:] if c.method == "editMessageText" and c.chat_id == GROUP
    ]
    assert "passes (过)" in str(table_shown), "the trick on the table"
    table = await stage.load(table.id)
    before = len(stage.bot.calls)
    await stage.show(await stage.act(table, Action(PASS)))
    told = [c.text for c in stage.bot.calls[before:] if c.chat_id == GROUP and c.method == "sendMessage"]
    assert not any("ℹ️ 过" in str(text) for text in told), "once per table"


# ----------------------------------------------------------------------------- 记牌, presets


def test_card_memory_writes_the_jokers_as_the_hand_does_in_english() -> None:
    table = table_of(position(["RR B 5", "6", "7", "8", "9", "T"]))
    assert table.match is not None
    view, hand = table.match.public_view(), table.match.view(0).hand
    english = card_memory_line("en", view, hand)
    assert " · B " in english and " · R " in english and "王" not in english
    assert "小王" in card_memory_line("zh", view, hand) and "大王" in card_memory_line("zh", view, hand)


def test_every_preset_is_a_name_with_a_capital() -> None:
    names = [preset_text("en", Rules.preset(p)) for p in ("qingdao", "classic", "zhangqiu")]
    assert names == ["Qingdao (青岛)", "Classic (经典)", "Zhangqiu (章丘)"]
    assert (
        rules_text("en", Rules.preset("qingdao")).splitlines()[0]
        == "House rules of this table — Qingdao (青岛):"
    )
    assert rules_text("zh", Rules.preset("qingdao")).splitlines()[0] == "本桌规则（青岛）："


# ----------------------------------------------------------------------------- Chinese


def test_a_pass_the_computer_made_for_a_late_player_is_a_pass_not_a_play() -> None:
    zh = timed_out_text("zh", Action(PASS), autoplay=False)
    assert zh.startswith("⏰ 超时：电脑替你过了。") and "出了" not in zh
    assert timed_out_text("zh", Action(PLAY, parse_cards("77")), autoplay=True).startswith(
        "⏰ 又超时了：电脑替你出了 77。"
    )
    assert timed_out_text("en", Action(PASS), autoplay=False).startswith(
        "⏰ Time ran out: the computer passed for you."
    )
    assert "the computer chose no 革命 for you" in timed_out_text("en", Action(NO_REVOLT), autoplay=False)


def test_a_bought_three_says_what_was_paid_and_a_free_one_who_gave_it() -> None:
    seats = seat_infos(table_of(position(["5"] * 6)), "zh")
    bought = Event("bought_three", seat=0, other=3, cards=parse_cards("2"))
    assert announcements("zh", [], [bought], seats) == ["P1 从 P4 买到一张 3（付出一张 2）"]
    assert announcements("en", [], [bought], seats) == ["P1 buys a 3 from P4 for one 2"]
    given = Event("bought_three", seat=0, other=2)
    assert announcements("zh", [], [given], seats) == ["队友 P3 白送 P1 一张 3"]
    assert announcements("en", [], [given], seats) == ["P1 gets a 3 free from his teammate P3"]


def test_the_chinese_summary_standings_and_table_use_full_width_punctuation() -> None:
    table = finished()
    summary = summary_text("zh", table).splitlines()
    assert "头科：P1（甲队）+4" in summary and "  P6 → P1：2 张落贡" in summary
    assert "  P1（甲队）+4" in final_text("zh", table).splitlines()
    assert "   1. P1（甲队）头科" in table_text("zh", table, NOW).splitlines()
    rnd = position(["5 9", "6 8", "7", "8", "9", "T"])
    rnd.apply(Action(PLAY, parse_cards("5")))
    assert "轮到：P2（出牌）" in table_text("zh", table_of(rnd), NOW).splitlines()
    for text in (summary_text("zh", table), final_text("zh", table), table_text("zh", table, NOW)):
        assert ": " not in text and " (" not in text


def test_tribute_waived_between_teammates_is_counted_and_punctuated_as_the_rest() -> None:
    rnd = position(["5", "6", "7", "8", "9 J", "T"])  # P5 goes out last: 大落 and 头科 are teammates
    for cards in ("5", "6", "7", "8", "9"):
        rnd.apply(Action(PLAY, parse_cards(cards)))
    table = table_of(rnd)
    assert table.match is not None
    table.match.apply(Action(PLAY, parse_cards("T")))
    assert "  P5 → P1：2 张落贡免了：是队友" in summary_text("zh", table).splitlines()
    assert "  P6 → P2: 1 card of 落贡 waived: they are teammates" in summary_text("en", table).splitlines()


def test_chinese_has_no_space_before_a_full_width_bracket_or_after_a_full_stop() -> None:
    late = Entry(1, "play", seat=0, cards=parse_cards("T"), actor="timeout")
    assert story("zh", late) == "P1 T（超时）"
    assert story("en", late) == "P1 T (time up)"
    assert closed_text("zh", finished(), 0) == "[Friends] 牌桌结束。你的总分：+4。最终成绩在群里。"
    rnd = position(["5 9", "6 8", "7", "8", "9", "T"])
    rnd.apply(Action(PLAY, parse_cards("5")))
    assert prompt("zh", table_of(rnd), 1) == "压过 5（1 张）或者过。点牌后点“出牌”，或直接输入（TTTT2、过）。"
    assert (
        reminder_text("zh", "18:32（CST）前，还有 2 分钟")
        == "提醒：轮到你了，时间已过一半。⏳ 18:32（CST）前，还有 2 分钟"
    )


# ----------------------------------------------------------------------------- a refused play


@pytest.mark.parametrize(
    ("typed", "english", "chinese"),
    [
        ("RRRRRRRRR", "you do not hold RRRRRRRRR: you have only RR.", "你没有 RRRRRRRRR，你只有 RR。"),
        ("555R", "you do not hold 555R: you have only 5.", "你没有 555R，你只有 5。"),
        ("52RR", "you do not hold 52RR: you have no 2.", "你没有 52RR，你没有 2。"),
        ("5552RR", "you do not hold 5552RR: you have only 5, no 2.", "你没有 5552RR，你只有 5，没有 2。"),
    ],
)
def test_a_play_of_cards_he_does_not_hold_says_what_he_holds_of_them(
    typed: str, english: str, chinese: str
) -> None:
    rnd = position(["RR 5", "6", "7", "8", "9", "T"])
    with pytest.raises(IllegalAction) as refused:
        rnd.apply(Action(PLAY, parse_cards(typed)))
    assert (refusal_text("en", refused.value.reason), refusal_text("zh", refused.value.reason)) == (
        english,
        chinese,
    )
