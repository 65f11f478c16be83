"""Who is in a group, as Telegram tells a bot: anonymous admins, the bot removed, kicked, restricted and added
back, a member who leaves."""

from __future__ import annotations

import pytest
from telegram import Bot, ChatMemberAdministrator, ChatMemberLeft, ChatMemberMember, Update
from telegram.constants import ChatMemberStatus, MessageEntityType
from telegram.error import BadRequest, Forbidden

from emulator import ANONYMOUS_ADMIN_ID, EmulatorError, TelegramEmulator

pytestmark = pytest.mark.unit


def member_updates(updates: tuple[Update, ...]) -> list[tuple[str, str, str]]:
    """(kind, old status, new status) of every my_chat_member and chat_member update."""
    found = []
    for u in updates:
        change, kind = (u.my_chat_member, "my") if u.my_chat_member else (u.chat_member, "chat")
        if change is not None:
            found.append((kind, change.old_chat_member.status, change.new_chat_member.status))
    return found


async def test_an_anonymous_admin_writes_as_the_group(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice, bob = emulator.create_user("Alice"), emulator.create_user("Bob")
    group = emulator.create_group("Table", [alice, bob], admins=[bob], supergroup=True, announce=False)

    emulator.anonymous_admin_sends(bob, group, "/settings")

    (update,) = await emulated_bot.get_updates()
    message = update.message
    assert message is not None and message.from_user is not None and message.sender_chat is not None
    assert (message.from_user.id, message.from_user.username) == (ANONYMOUS_ADMIN_ID, "GroupAnonymousBot")
    assert message.from_user.is_bot and message.sender_chat.id == group.id
    assert message.parse_entities([MessageEntityType.BOT_COMMAND]).popitem()[1] == "/settings"
    # Who wrote it stays hidden; what getChatMember says about Bob stays true, and anonymous.
    bob_member = await emulated_bot.get_chat_member(group.id, bob.id)
    assert isinstance(bob_member, ChatMemberAdministrator) and bob_member.is_anonymous
    assert isinstance(await emulated_bot.get_chat_member(group.id, ANONYMOUS_ADMIN_ID), ChatMemberLeft)
    # A bot that may not manage the group does not see anonymous admins among the administrators.
    assert [a.user.first_name for a in await emulated_bot.get_chat_administrators(group.id)] == ["Alice"]


async def test_an_admin_bot_sees_anonymous_admins(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice, bob = emulator.create_user("Alice"), emulator.create_user("Bob")
    group = emulator.create_group("Table", [alice, bob], admins=[bob], supergroup=True, bot_is_admin=True)
    emulator.anonymous_admin_sends(bob, group, "who am I?")

    admins = await emulated_bot.get_chat_administrators(group.id)

    assert sorted((a.user.first_name, a.is_anonymous) for a in admins) == [  # type: ignore[attr-defined]
        ("Alice", False),
        ("Bob", True),
        ("Gouji Test Bot", False),
    ]
    carol = emulator.create_user("Carol")
    emulator.add_member(group, carol)
    with pytest.raises(EmulatorError, match="not an administrator"):
        emulator.anonymous_admin_sends(carol, group, "hi")
    basic = emulator.create_group("Basic", [alice])
    with pytest.raises(EmulatorError, match="only a supergroup"):
        emulator.anonymous_admin_sends(alice, basic, "hi")


async def test_the_bot_removed_and_added_back(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], announce=False)

    emulator.remove_bot(group, by=alice)
    with pytest.raises(Forbidden) as refused:
        await emulated_bot.send_message(group.id, "still here?")
    assert refused.value.message == "Forbidden: bot is not a member of the group chat"
    emulator.user_sends(alice, group, "/new")  # the bot no longer receives the group's messages
    emulator.add_bot(group, by=alice)
    assert (await emulated_bot.send_message(group.id, "back")).text == "back"

    updates = await emulated_bot.get_updates()
    assert member_updates(updates) == [("my", "member", "left"), ("my", "left", "member")]
    service = [u.message for u in updates if u.message]
    assert [bool(m.new_chat_members) for m in service] == [True]  # not the /new written while it was out


async def test_the_bot_kicked_and_added_back(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], supergroup=True, announce=False)
    sent = await emulated_bot.send_message(group.id, "Lobby")

    emulator.kick_bot(group, by=alice)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await emulated_bot.send_message(group.id, "hello?")
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await emulated_bot.edit_message_text("edited", group.id, sent.message_id)
    emulator.add_bot(group, by=alice, admin=True)

    assert emulator.bot_status(group) == "administrator"
    updates = await emulated_bot.get_updates()
    assert member_updates(updates) == [("my", "member", "kicked"), ("my", "kicked", "administrator")]


async def test_the_bot_restricted_and_allowed_again(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice = emulator.create_user("Alice")
    group = emulator.create_group("Table", [alice], supergroup=True, announce=False)
    sent = await emulated_bot.send_message(group.id, "Lobby")

    emulator.restrict_bot(group)
    with pytest.raises(BadRequest, match="Not enough rights to send text messages to the chat"):
        await emulated_bot.send_message(group.id, "hello?")
    # It still reads the group and may edit what it wrote.
    emulator.user_sends(alice, group, "/new")
    await emulated_bot.edit_message_text("Lobby (closed)", group.id, sent.message_id)
    emulator.unrestrict_bot(group)
    assert (await emulated_bot.send_message(group.id, "open")).text == "open"

    updates = await emulated_bot.get_updates()
    assert member_updates(updates) == [("my", "member", "restricted"), ("my", "restricted", "member")]
    restricted = next(u.my_chat_member for u in updates if u.my_chat_member)
    assert restricted is not None and restricted.new_chat_member.can_send_messages is False  # type: ignore[attr-defined]
    assert any(u.message and u.message.text == "/new" for u in updates)
    with pytest.raises(EmulatorError, match="only a supergroup"):
        emulator.restrict_bot(emulator.create_group("Basic", [alice]))


async def test_a_member_who_leaves(emulated_bot: Bot, emulator: TelegramEmulator) -> None:
    alice, bob = emulator.create_user("Alice"), emulator.create_user("Bob")
    group = emulator.create_group("Table", [alice, bob], bot_is_admin=True, announce=False)
    await emulated_bot.get_updates(allowed_updates=["message", "chat_member", "my_chat_member"])

    emulator.remove_member(group, bob)

    updates = await emulated_bot.get_updates()
    assert member_updates(updates) == [("chat", ChatMemberStatus.MEMBER, ChatMemberStatus.LEFT)]
    left = next(u.chat_member for u in updates if u.chat_member)
    assert left is not None and left.new_chat_member.user.id == bob.id
    service = next(u.message for u in updates if u.message)
    assert service is not None and service.left_chat_member is not None
    assert service.left_chat_member.id == bob.id
    assert isinstance(await emulated_bot.get_chat_member(group.id, bob.id), ChatMemberLeft)
    assert await emulated_bot.get_chat_member_count(group.id) == 2  # Alice and the bot


async def test_chat_member_reaches_only_admin_bots_that_ask(
    emulated_bot: Bot, emulator: TelegramEmulator
) -> None:
    alice, bob = emulator.create_user("Alice"), emulator.create_user("Bob")
    plain = emulator.create_group("Plain", [alice, bob], announce=False)
    admin = emulator.create_group("Admin", [alice, bob], bot_is_admin=True, announce=False)

    emulator.remove_member(plain, bob)
    emulator.remove_member(admin, bob)
    # Not asked for (Telegram leaves chat_member out unless allowed_updates names it).
    default = await emulated_bot.get_updates()
    assert member_updates(default) == []
    assert [u.message.chat.id for u in default if u.message] == [plain.id, admin.id]

    emulator.add_member(admin, bob)
    emulator.add_member(plain, bob)
    asked = await emulated_bot.get_updates(
        offset=default[-1].update_id + 1, allowed_updates=["message", "chat_member"]
    )
    assert [
        (u.chat_member.chat.id, u.chat_member.new_chat_member.status) for u in asked if u.chat_member
    ] == [(admin.id, ChatMemberStatus.MEMBER)]
    assert isinstance(await emulated_bot.get_chat_member(admin.id, bob.id), ChatMemberMember)
