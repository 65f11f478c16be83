"""Issue 24, end to end through the emulator, which models groups as Telegram makes them: a table opened in a
forum topic lives in it (a second table in another topic at once); an admin who posts anonymously is an admin;
the bot removed mid-round holds the table, tells each player why, and goes on when added back; a seated member
who leaves the group leaves the match."""

from __future__ import annotations

import random

from players import Table, buttons, lobby_button, round_summaries, turn_message
from telegram.ext import Application

from emulator import TelegramEmulator
from emulator.state import GENERAL_TOPIC, Chat, StoredMessage, User


async def _lobby_in(emu: TelegramEmulator, group: Chat, opener: User, topic: int | None) -> StoredMessage:
    said = emu.user_sends(opener, group, "/new", topic=topic)
    return await emu.wait_for_bot_message(group.id, after=said, topic=topic)


async def _seated(emu: TelegramEmulator, group: Chat, humans: list[User], topic: int | None) -> Table:
    table = Table(emu, group, humans)
    table.lobby = await _lobby_in(emu, group, humans[0], topic)
    for user in humans:
        await table.tap_lobby(
            user, "join", until=lambda u=user: u.first_name in (table.lobby_now().text or "")
        )
    await table.tap_lobby(humans[0], "bots", until=lambda: "（空）" not in (table.lobby_now().text or ""))
    return table


def _people(emu: TelegramEmulator, *names: str) -> list[User]:
    people = [emu.create_user(name, language_code="en") for name in names]
    for person in people:
        emu.start_bot(person)
    return people


async def test_a_table_opened_in_a_topic_lives_in_it_and_another_topic_has_its_own(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    ann, ben, cai = _people(emu, "Ann", "Ben", "Cai")
    forum = emu.create_forum("Friends", [ann, ben, cai], admins=[ann])
    weekend = emu.create_topic(forum, "周末局")
    evening = emu.create_topic(forum, "晚上")
    table = await _seated(emu, forum, [ann, ben], weekend)
    other = await _lobby_in(emu, forum, cai, evening)  # a second table, in another topic, at once
    assert other.message_id != table.lobby_now().message_id
    await table.begin()
    await table.play_until(table.round_over, random.Random(3))
    mine = emu.bot_messages(forum, include_deleted=True, topic=weekend)
    assert round_summaries(emu, forum.id) and all(m in mine for m in round_summaries(emu, forum.id))
    assert emu.bot_messages(forum, include_deleted=True, topic=GENERAL_TOPIC) == [], "nothing in General"
    # His private messages name the topic's table.
    assert any("[Friends · 周末局]" in (m.text or "") for m in emu.bot_messages(ann.id))
    said = emu.user_sends(ben, forum, "/table", topic=weekend)
    again = await emu.wait_for_bot_message(forum.id, after=said, topic=weekend)
    assert "round 1" in (again.text or "") or "第 1 局" in (again.text or "")


async def test_an_anonymous_admin_changes_settings_and_stops_the_table(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    ann, ben, boss = _people(emu, "Ann", "Ben", "Boss")
    group = emu.create_forum("Friends", [ann, ben, boss], admins=[boss])
    table = await _seated(emu, group, [ann, ben], None)
    said = emu.anonymous_admin_sends(boss, group, "/settings")
    panel = await emu.wait_for_bot_message(group.id, after=said)
    assert buttons(panel), "the settings panel, not a refusal"
    said = emu.anonymous_admin_sends(boss, group, "/stop")
    ask = await emu.wait_for_bot_message(group.id, after=said)
    await emu.wait_for_answer(emu.tap(boss, ask, lobby_button(ask, "stopok")))  # an admin not seated confirms
    await emu.wait_for(
        lambda: any("closed" in (m.text or "") or "结束" in (m.text or "") for m in emu.bot_messages(group)),
        timeout=10,
        description="the final standings",
    )
    assert table.lobby is not None


async def test_the_bot_removed_mid_round_holds_the_table_and_goes_on_when_back(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    ann, ben = _people(emu, "Ann", "Ben")
    group = emu.create_group("Friends", [ann, ben], admins=[ann])
    table = await _seated(emu, group, [ann, ben], None)
    await table.begin()
    rng = random.Random(5)
    await table.play_until(lambda: len([u for u in table.humans if turn_message(emu, u.id)]) == 1, rng)
    sent_before = len(emu.bot_messages(group, include_deleted=True))
    emu.remove_bot(group, by=ann)
    for user in (ann, ben):
        await emu.wait_for(
            lambda u=user: any("removed from the group" in (m.text or "") for m in emu.bot_messages(u.id)),
            timeout=10,
            description=f"{user.first_name} told why the table waits",
        )
    waiting = next(u for u in table.humans if turn_message(emu, u.id))
    msg = turn_message(emu, waiting.id)
    assert msg is not None
    query = emu.tap(
        waiting, msg, next(b["callback_data"] for b in buttons(msg) if b["callback_data"].startswith("a:"))
    )
    await emu.wait_for_answer(query)
    assert len(emu.bot_messages(group, include_deleted=True)) == sent_before, "nothing more to the group"
    emu.add_bot(group, by=ann)
    await emu.wait_for(
        lambda: any("我回来了" in (m.text or "") for m in emu.bot_messages(group)),  # the group reads Chinese
        timeout=10,
        description="the group told the table goes on",
    )
    await table.play_until(table.round_over, rng)


async def test_a_seated_member_who_leaves_the_group_leaves_the_match(
    bot_app: Application, emulator: TelegramEmulator
) -> None:
    emu = emulator
    ann, ben = _people(emu, "Ann", "Ben")
    group = emu.create_group(
        "Friends", [ann, ben], admins=[ann], bot_is_admin=True
    )  # chat_member reaches admins
    table = await _seated(emu, group, [ann, ben], None)
    await table.begin()
    emu.remove_member(group, ben)
    await emu.wait_for(
        lambda: any(
            "Ben 离开了比赛" in (m.text or "") for m in emu.bot_messages(group)
        ),  # the group reads Chinese
        timeout=10,
        description="the group told Ben left",
    )
    await table.play_until(table.round_over, random.Random(7))
