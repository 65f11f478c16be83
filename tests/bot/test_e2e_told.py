"""Issue 13, end to end through the emulator: every player, with only his private chat and the group, knows
what happened, what is asked of him and what it cost — over a game that may last days."""

from __future__ import annotations

import random
import re

import pytest
from players import Table, buttons, lobby_button, move_buttons, round_summaries, turn_message
from telegram.ext import Application

from bot import codec
from emulator import TelegramEmulator
from emulator.state import StoredMessage

CARDS_LEFT = re.compile(r"\d+ cards? left")  # the end of a move's line: "31 cards left", "1 card left"


def texts(emu: TelegramEmulator, chat_id: int) -> list[str]:
    """Every text the bot ever showed in this chat, each revision of each message."""
    return [rev.text or "" for m in emu.bot_messages(chat_id, include_deleted=True) for rev in m.history]


def live_buttons(emu: TelegramEmulator, chat_id: int) -> list[StoredMessage]:
    """Messages with buttons that move (the one that shows his cards may stay)."""
    return [m for m in emu.bot_messages(chat_id) if move_buttons(m)]


async def open_settings(emu: TelegramEmulator, table: Table) -> StoredMessage:
    said = emu.user_sends(table.humans[0], table.group.id, "/settings")
    return await emu.wait_for_bot_message(table.group.id, after=said)


def tap_setting(emu: TelegramEmulator, table: Table, settings: StoredMessage, suffix: str) -> None:
    """The table's creator taps the settings button whose data ends with ``suffix`` (":l:en", ":v:3" …)."""
    data = next(b["callback_data"] for b in buttons(settings) if b["callback_data"].endswith(suffix))
    emu.tap(table.humans[0], settings, data)


def settings_show(emu: TelegramEmulator, table: Table, settings: StoredMessage, text: str) -> bool:
    return text in (emu.world.chat(table.group.id).messages[settings.message_id].text or "")


async def english_group(emu: TelegramEmulator, table: Table) -> None:
    """The group's language set to English through /settings (its creator may)."""
    settings = await open_settings(emu, table)
    tap_setting(emu, table, settings, ":l:en")
    await emu.wait_for(lambda: settings_show(emu, table, settings, "Language: English"))


async def test_round_one_deals_every_seated_player_his_cards_at_once(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defect 2: in round 1 the deal reached nobody until his first turn."""
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben", "Cai"], bots=True)
    await table.begin()
    for user in table.humans:
        await emu.wait_for(
            lambda u=user: any("Your cards (36)" in tx for tx in texts(emu, u.id)),
            timeout=10,
            description=f"{user.first_name}'s hand at the deal",
        )


async def test_a_turn_says_what_happened_since_and_why_and_until_when_in_the_groups_zone(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Ann"])
    await table.begin()
    rng = random.Random(5)
    # A few turns in, her turn message tells the plays since her last move, why it is hers, and until when.
    ann = table.humans[0]

    def third_turn() -> bool:
        # Her turns: new messages, or (when a turn comes straight back to her) the one she acted in, redrawn.
        turns = [
            rev for m in emu.bot_messages(ann.id) for rev in m.history if "· your turn" in (rev.text or "")
        ]
        return (len(turns) >= 3 and table.turn_to_act_on(ann.id) is not None) or table.round_over()

    await table.play_until(third_turn, rng)
    msg = turn_message(emu, table.humans[0].id)
    if msg is None:
        pytest.skip("the round ended first")  # pragma: no cover
    text = msg.text or ""
    assert "Since your last move:" in text
    assert any(why in text for why in ("or pass", "lead", "对头", "burn", "让"))
    assert "CST (in " in text, "the deadline in Beijing time, and how long from now"
    # The group table shows the current trick's plays, not only the top one.
    assert any("本轮：" in tx for tx in texts(emu, table.group.id))


async def test_the_private_chat_stays_tidy_one_live_turn_and_short_old_ones(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben"])
    await table.begin()
    await table.play_until(table.round_over, random.Random(8))
    await bot_app.bot_data["desk"].flush()
    for user in table.humans:
        mine = emu.bot_messages(user.id)
        assert not live_buttons(emu, user.id), "no keyboard left behind once the round is over"
        acted = [m for m in mine if m.history and "· your turn" in (m.history[0].text or "")]
        assert acted, "he had turns"
        for m in acted:
            assert " left" in (m.text or "") or "Time ran out" in (
                m.text or ""
            )  # "31 cards left", "1 card left"
            assert "Your cards" not in (m.text or ""), "an old turn message is shortened to what he did"


async def test_the_round_and_the_match_end_in_private_too_and_stop_asks_first(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defects 1 and 3, and the end of a match: final standings in the group."""
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben"])
    await table.begin()
    await table.play_until(table.round_over, random.Random(9))
    for user in table.humans:
        await emu.wait_for(
            lambda u=user: any(
                "Round 1 is over" in tx and "You:" in tx and " point" in tx for tx in texts(emu, u.id)
            ),
            timeout=10,
            description="the round's end in private",
        )
    summary = round_summaries(emu, table.group.id)[0]
    # Stop asks first; the question's No keeps the match.
    emu.tap(table.humans[0], summary, lobby_button(summary, "stop"))
    question = await emu.wait_for(
        lambda: next(
            (
                m
                for m in emu.bot_messages(table.group.id)
                if any(b["callback_data"].endswith(":stopok") for b in buttons(m))
            ),
            None,
        ),
        timeout=10,
        description="the question",
    )
    emu.tap(table.humans[1], question, lobby_button(question, "keep"))
    await emu.wait_for(
        lambda: emu.world.chat(table.group.id).messages[question.message_id].deleted, timeout=10
    )
    assert (await bot_app.bot_data["service"].reads.load(1)).playing
    # Next round: the old summary loses its buttons; its Stop can no longer end the live match.
    emu.tap(table.humans[0], summary, lobby_button(summary, "next"))
    await emu.wait_for(
        lambda: not emu.world.chat(table.group.id).messages[summary.message_id].buttons,
        timeout=10,
        description="the old summary's buttons gone",
    )
    old_stop = emu.forge_tap(table.humans[0], summary, lobby_button(question, "stopok"))
    answered = await emu.wait_for_answer(old_stop)
    assert "已过期" in (answered.answer_text or ""), "out of date (in the group's Chinese)"
    assert (await bot_app.bot_data["service"].reads.load(1)).playing
    # /stop asks, Yes closes: final standings in the group, the end in each private chat, no live buttons.
    said = emu.user_sends(table.humans[0], table.group.id, "/stop")
    ask = await emu.wait_for_bot_message(table.group.id, after=said, contains="确定结束比赛")
    emu.tap(table.humans[0], ask, lobby_button(ask, "stopok"))
    await emu.wait_for_bot_message(table.group.id, contains="牌桌结束。最终成绩", timeout=10)
    await bot_app.bot_data["desk"].flush()
    for user in table.humans:
        assert any("The table is closed. Your total" in tx for tx in texts(emu, user.id)), texts(
            emu, user.id
        )[-3:]
        assert not live_buttons(emu, user.id), "after a stop nothing live-looking stays"


async def test_a_new_round_and_table_repost_the_table_at_the_bottom_and_the_old_copy_goes(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defect 4."""
    emu = emulator
    table = await Table.seated(emu, ["Ann"])
    await table.begin()
    first = table.lobby_now()
    said = emu.user_sends(table.humans[0], table.group.id, "/table")
    posted = await emu.wait_for_bot_message(table.group.id, after=said, contains="第 1 局")
    await emu.wait_for(
        lambda: emu.world.chat(table.group.id).messages[first.message_id].deleted,
        timeout=10,
        description="the old copy deleted",
    )
    await table.play_until(lambda: table.round_over(), random.Random(4))
    summary = round_summaries(emu, table.group.id)[0]
    emu.tap(table.humans[0], summary, lobby_button(summary, "next"))
    again = await emu.wait_for_bot_message(table.group.id, after=summary, contains="第 2 局", timeout=10)
    assert again.message_id > summary.message_id > posted.message_id, "round 2's table is at the bottom"


async def test_two_time_outs_say_different_things(bot_app: Application, emulator: TelegramEmulator) -> None:
    """Defect 7: the player can tell when 托管 began."""
    emu = emulator
    table = await Table.seated(emu, ["Alice"])
    async with bot_app.bot_data["uow"]() as u:
        await u.groups.update_settings(table.group.id, turn_timeout_seconds=1)
        await u.commit()
    await table.begin()
    alice = table.humans[0]
    # She never plays: her first turn times out, then her second (托管 begins), long before the round ends.
    await emu.wait_for(
        lambda: any("Time ran out again" in tx for tx in texts(emu, alice.id)),
        timeout=30,
        description="the second time-out",
    )
    first = [tx for tx in texts(emu, alice.id) if "Time ran out:" in tx]
    second = [tx for tx in texts(emu, alice.id) if "Time ran out again" in tx]
    assert first and second and first[0] != second[0]
    assert "Miss the next turn too" in first[0]
    assert any("托管" in tx for tx in texts(emu, table.group.id)), "the group is told the seat went to 托管"


async def test_group_commands_in_private_are_answered(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defect 8."""
    emu = emulator
    alice = emu.create_user("Alice", language_code="en")
    started = emu.start_bot(alice)
    await emu.wait_for_bot_message(alice.id, after=started, contains="Welcome")
    for command, expect in (
        ("/stats", "/stats in a group"),
        ("/rules", "贴钱"),
        ("/table", "works in your group"),
        ("/new", "works in your group"),
    ):
        said = emu.user_sends(alice, alice.id, command)
        reply = await emu.wait_for_bot_message(alice.id, after=said, timeout=10)
        assert expect in (reply.text or ""), (command, reply.text)


async def test_rules_and_settings_speak_players_words_and_lobby_takes_a_new_turn_time(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defect 9: no code keys, no rule ids, the tribute order in words; a turn time chosen while a lobby is
    open reaches it; English explains 对头 and the like."""
    emu = emulator
    table = await Table.seated(emu, ["Ann"], bots=False)
    said = emu.user_sends(table.humans[0], table.group.id, "/rules")
    rules = (await emu.wait_for_bot_message(table.group.id, after=said)).text or ""
    assert "two_big_kill_one" not in rules and "R2.5" not in rules and "quan" not in rules
    assert "二杀一" in rules and "圈贡 > 点贡" in rules
    settings = await open_settings(emu, table)
    assert "burn_feasibility" not in (settings.text or "") and all(
        "_" not in b["text"] for b in buttons(settings)
    )
    tap_setting(emu, table, settings, ":t:300")
    await emu.wait_for(
        lambda: "5 分钟" in (table.lobby_now().text or ""),
        timeout=10,
        description="the lobby shows the new turn time",
    )
    await english_group(emu, table)
    said = emu.user_sends(table.humans[0], table.group.id, "/help")
    help_text = (await emu.wait_for_bot_message(table.group.id, after=said)).text or ""
    assert "对头 = the player opposite you" in help_text and "宣点 =" in help_text and "圈贡 =" in help_text


async def test_begin_after_a_round_and_a_stranger_at_the_lobby_get_clear_answers(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defects 9 and 10: /begin between rounds says to tap Next; a member who is not seated cannot fill the
    lobby with computers, and a refused Start is answered."""
    emu = emulator
    table = await Table.seated(emu, ["Ann"], bots=False)
    mallory = emu.create_user("Mallory", language_code="en")
    emu.add_member(table.group, mallory)
    emu.start_bot(mallory)
    lobby = table.lobby_now()
    q = emu.tap(mallory, lobby, lobby_button(lobby, "bots"))
    assert "请先入座" in ((await emu.wait_for_answer(q)).answer_text or ""), "the group speaks Chinese"
    assert "（空）" in (table.lobby_now().text or ""), "the stranger filled nothing"
    q = emu.tap(mallory, lobby, lobby_button(lobby, "begin"))
    assert "只有入座的玩家" in ((await emu.wait_for_answer(q)).answer_text or "")
    await table.tap_lobby(
        table.humans[0], "bots", until=lambda: "（空）" not in (table.lobby_now().text or "")
    )
    await table.begin()
    await table.play_until(table.round_over, random.Random(6))
    said = emu.user_sends(table.humans[0], table.group.id, "/begin")
    reply = await emu.wait_for_bot_message(table.group.id, after=said)
    assert "下一局" in (reply.text or ""), "between rounds /begin points at Next round"


async def test_card_memory_and_the_time_zone_follow_the_groups_settings(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Ann"])
    settings = await open_settings(emu, table)
    for suffix, shown in ((":m:on", "记牌：开"), (":z:Europe/London", "Europe/London")):
        tap_setting(emu, table, settings, suffix)
        await emu.wait_for(
            lambda w=shown: settings_show(emu, table, settings, w),
            timeout=10,
            description=shown,
        )
    await table.begin()
    await table.play_until(
        lambda: turn_message(emu, table.humans[0].id) is not None or table.round_over(), random.Random(2)
    )
    msg = turn_message(emu, table.humans[0].id)
    assert msg is not None
    # An English player: the jokers as his hand writes them (B, R), not 小王 and 大王.
    assert "记牌 still out: A " in (msg.text or "") and " · R " in (msg.text or "")
    assert "GMT (in" in (msg.text or "") or "BST (in" in (msg.text or ""), msg.text


async def test_nudge_reminds_the_player_to_act_once_per_turn(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben"])
    await table.begin()
    ann, ben = table.humans
    await emu.wait_for(lambda: turn_message(emu, ann.id) or turn_message(emu, ben.id), timeout=10)
    waiting, other = (ann, ben) if turn_message(emu, ann.id) else (ben, ann)
    said = emu.user_sends(other, table.group.id, "/nudge")
    await emu.wait_for_bot_message(table.group.id, after=said, contains="催一下")
    await emu.wait_for_bot_message(waiting.id, contains="asks you to play", timeout=10)
    said = emu.user_sends(other, table.group.id, "/nudge")
    again = await emu.wait_for_bot_message(table.group.id, after=said)
    assert "催过了" in (again.text or ""), again.text
    assert sum("asks you to play" in tx for tx in texts(emu, waiting.id)) == 1


async def test_stats_show_a_players_record_and_the_groups_leaderboard(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben"])
    await table.begin()
    await table.play_until(table.round_over, random.Random(12))
    await bot_app.bot_data["desk"].flush()
    said = emu.user_sends(table.humans[1], table.group.id, "/stats")
    reply = (await emu.wait_for_bot_message(table.group.id, after=said)).text or ""
    assert "Ben" in reply and "1 局" in reply and "排行榜" in reply and "Ann" in reply


async def test_big_moments_reach_the_group_as_messages(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defect 5: 开点 was only a mark; going out, 闷 and burns are messages of their own."""
    emu = emulator
    table = await Table.seated(emu, ["Ann"])
    await table.begin()
    await table.play_until(table.round_over, random.Random(21))
    shown = "\n".join(m.text or "" for m in emu.bot_messages(table.group.id))
    assert " 开点" in shown or "自然点" in shown
    assert "🏁" in shown


async def test_strong_computers_chosen_in_settings_play_from_a_process_pool(
    start_bot,
    bot_settings,
    emulator: TelegramEmulator,
) -> None:
    """Issue 16: the level is chosen per table in /settings and shown by the lobby; a strong computer thinks
    in a process pool (here 20 ms a decision), and 托管 plays at the table's level."""
    import dataclasses

    app = await start_bot(dataclasses.replace(bot_settings, strong_budget_ms=20.0))
    emu = emulator
    table = await Table.seated(emu, ["Ann"], bots=False)
    tap_setting(emu, table, await open_settings(emu, table), ":v:3")
    await emu.wait_for(
        lambda: "电脑：强" in (table.lobby_now().text or ""), timeout=10, description="the lobby shows strong"
    )
    await table.tap_lobby(
        table.humans[0], "bots", until=lambda: "（空）" not in (table.lobby_now().text or "")
    )
    await table.begin()
    await table.play_until(table.round_over, random.Random(13))
    assert app.bot_data["computers"]._pool is not None, "the strong level thought in the process pool"
    service = app.bot_data["service"]
    assert all(s.computer_level == 3 for s in (await service.reads.load(1)).seats if not s.human)


async def test_burns_broken_and_counter_burned_and_thrown_fours_are_told_to_the_group(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defect 5: the group read "A 烧 B" and never learned that C broke it (解烧) or burned it back (反烧), nor
    whose 4s were thrown away at 四户乱缠. Computers play (Ann leaves her seat to them, and as the table's
    creator still deals each next round) round after round until each has happened."""
    emu = emulator
    table = await Table.seated(emu, ["Ann"])
    await table.begin()
    said = emu.user_sends(table.humans[0], table.group.id, "/leave")
    await emu.wait_for_bot_message(table.group.id, after=said, contains="托管")
    wanted = {"解烧": False, "反烧": False, "作废": False}  # 作废: "{a} 没开点，{n} 张 4 作废"
    for rounds in range(1, 61):
        await emu.wait_for(lambda n=rounds: len(round_summaries(emu, table.group.id)) >= n, timeout=30)
        shown = "\n".join(tx for tx in texts(emu, table.group.id))
        for word in wanted:
            wanted[word] = wanted[word] or word in shown
        if all(wanted.values()):
            break
        last = round_summaries(emu, table.group.id)[-1]
        emu.tap(table.humans[0], last, lobby_button(last, "next"))
    assert wanted["解烧"] or wanted["反烧"], wanted
    assert wanted["作废"], wanted


async def test_a_refused_composed_play_is_told_what_would_do(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Defect 6: "7777 does not beat 666" did not say that the play must have 3 cards."""
    emu = emulator
    table = await Table.seated(emu, ["Ann"])
    ann = table.humans[0]
    await table.begin()
    rng = random.Random(31)

    def following_two_or_more() -> StoredMessage | None:
        msg = table.turn_to_act_on(ann.id)
        text = msg.text if msg is not None else ""
        for line in (text or "").splitlines():
            if line.startswith("On the table: "):
                cards = line.removeprefix("On the table: ").split(" by ")[0]
                if len(cards) >= 2 and any(b["callback_data"].startswith("k:") for b in buttons(msg)):
                    return msg
        return None

    for _ in range(3):
        await table.play_until(lambda: following_two_or_more() is not None or table.round_over(), rng)
        msg = following_two_or_more()
        if msg is not None:
            break
        summary = round_summaries(emu, table.group.id)[-1]
        emu.tap(ann, summary, lobby_button(summary, "next"))
        await emu.wait_for(
            lambda s=summary: not emu.world.chat(table.group.id).messages[s.message_id].buttons
        )
    else:
        pytest.skip("no turn followed a play of two or more cards")  # pragma: no cover
    table.note_acted(ann, msg)
    # One card of a plain rank (not 3s, which 憋三 keeps for last, nor 4s before 开点).
    rank = next(
        b for b in buttons(msg) if b["callback_data"].startswith("k:") and b["text"][0] in "56789TJQKA"
    )
    await emu.wait_for_answer(emu.tap(ann, msg, rank["callback_data"]))
    play = await emu.wait_for(
        lambda: next(
            (
                b
                for b in buttons(emu.world.chat(ann.id).messages[msg.message_id])
                if b["text"].startswith("Play ")
            ),
            None,
        ),
        timeout=10,
        description="the composer's Play button",
    )
    answer = await emu.wait_for_answer(
        emu.tap(ann, emu.world.chat(ann.id).messages[msg.message_id], play["callback_data"])
    )
    assert "the play must have" in (answer.answer_text or ""), answer.answer_text


async def test_an_english_group_is_told_a_term_once_the_first_time_it_appears(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Words for people: in an English group, the first announcement that uses 开点 (or 烧, 闷 …) explains it,
    and the next ones do not repeat the explanation."""
    emu = emulator
    table = await Table.seated(emu, ["Ann"])
    await english_group(emu, table)
    # The announcements of the round, not the settings or rules texts shown before it (they name 烧 too).
    before = max(m.message_id for m in emu.messages(table.group.id))
    await table.begin()
    await table.play_until(table.round_over, random.Random(17))
    await bot_app.bot_data["desk"].flush()
    group = [m.text or "" for m in emu.bot_messages(table.group.id) if m.message_id > before]
    used = [term for term in ("开点", "烧", "闷") if sum(f" {term}" in tx for tx in group) >= 1]
    assert used, "no announcement used a term to explain"
    for term in used:
        explained = sum(f"ℹ️ {term} =" in tx for tx in group)
        assert explained == 1, (term, explained)


async def test_a_players_phone_rings_only_when_something_is_asked_of_him(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Issue 22, defect 7: every new message rang (36-55 a round in each private chat). Through a round and
    the next deal, a private message rings only when it came with buttons (his turn, a question before the
    first lead); the deal, his round's end and the group's news and summary arrive silently."""
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben", "Cai"], bots=True)
    welcomed = {u.id: len(emu.bot_messages(u.id)) for u in table.humans}  # the answers to his /start
    await table.begin()
    await table.play_until(table.round_over, random.Random(12))
    summary = round_summaries(emu, table.group.id)[-1]
    emu.tap(table.humans[0], summary, lobby_button(summary, "next"))
    for user in table.humans:
        await emu.wait_for(
            lambda u=user: any("round 2" in tx for tx in texts(emu, u.id)),
            timeout=10,
            description=f"{user.first_name}'s hand of round 2",
        )
    for user in table.humans:
        sent = emu.bot_messages(user.id, include_deleted=True)[welcomed[user.id] - 1 :]
        rang = [m for m in sent if not m.silent]
        assert rang and len(rang) < len(sent), user.first_name
        for m in sent:
            first = m.history[0].reply_markup or {}
            asked = any(
                codec.moves(b.get("callback_data", ""))
                for row in first.get("inline_keyboard", [])
                for b in row
            )
            assert m.silent != asked, (user.first_name, m.history[0].text)
    in_group = emu.bot_messages(table.group.id, include_deleted=True)
    assert [m for m in in_group if not m.silent] == in_group[:1]  # the lobby, an invitation to sit down


async def test_a_player_who_is_not_to_act_sees_his_hand_now_from_his_private_chat(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    """Issue 22, defect 1: between turns his hand was out of reach (his turn message shrinks to one line once
    he moved, and the first to act had no deal message at all). /hand, and the 🃏 button under his deal and his
    moves, show his cards as they are now."""
    emu = emulator
    table = await Table.seated(emu, ["Ann", "Ben", "Cai"], bots=True)
    await table.begin()
    for user in table.humans:
        await emu.wait_for(
            lambda u=user: any("Your cards (36)" in tx for tx in texts(emu, u.id)),
            timeout=10,
            description=f"{user.first_name}'s deal, a message of its own",
        )
    rng = random.Random(3)
    await table.play_until(
        lambda: any(
            CARDS_LEFT.search(m.text or "") and turn_message(emu, u.id) is None
            for u in table.humans
            for m in emu.bot_messages(u.id)
        ),
        rng,
    )
    user = next(
        u
        for u in table.humans
        if turn_message(emu, u.id) is None
        and any(CARDS_LEFT.search(m.text or "") for m in emu.bot_messages(u.id))
    )
    line = [m for m in emu.bot_messages(user.id) if CARDS_LEFT.search(m.text or "")][-1]
    left = int((line.text or "").rsplit(" · ", 1)[1].split()[0])  # "… · 31 cards left"
    said = emu.user_sends(user, user.id, "/hand")
    # His turn may come meanwhile, as a turn message of its own: the answer to /hand is the one without buttons.
    shown = await emu.wait_for(
        lambda: next(
            (m for m in emu.bot_messages(user.id) if m.message_id > said.message_id and not buttons(m)), None
        ),
        description="the answer to /hand",
    )
    text = shown.text or ""
    assert f"Your cards ({left}):" in text
    assert "Turn: " in text or "It is your turn" in text
    cards = text.split("\n")[2]
    assert len(cards.replace(" ", "")) == left, "the cards listed are as many as he holds"
    assert not shown.buttons, "it never acts: his turn message is where he does"
    (button,) = buttons(line)
    query = emu.tap(user, line, button["callback_data"])
    await emu.wait_for_answer(query)
    answered = next(q for q in emu.callback_answers if q.id == query.id)
    assert answered.show_alert and f"Your cards ({left}):" in (answered.answer_text or "")
    assert not any("Your cards" in tx for tx in texts(emu, table.group.id)), "no hand reaches the group"
