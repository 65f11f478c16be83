"""Who is in the group, as Telegram tells it: the bot removed from a group or no longer allowed to write there
(``my_chat_member``) holds its tables until it is back; a seated member who leaves the group (``chat_member``,
which Telegram sends to a bot that is an admin there) leaves the match: the computer plays his seat (托管) and
the group is told."""

from __future__ import annotations

from telegram import ChatMember, ChatMemberRestricted, Update
from telegram.constants import ChatType

from table import TableError

from .context import CustomContext

PRESENT = (ChatMember.MEMBER, ChatMember.ADMINISTRATOR, ChatMember.OWNER)


def _writes(member: ChatMember) -> bool:
    """Whether this member is in the chat and may send messages there."""
    if isinstance(member, ChatMemberRestricted):
        return bool(member.is_member and member.can_send_messages)
    return member.status in PRESENT


async def on_bot_membership(update: Update, context: CustomContext) -> None:
    change = update.my_chat_member
    if change is None or change.chat.type == ChatType.PRIVATE:
        return  # a private chat stopped or started: the outbox learns it from its next send
    desk = context.desk
    reachable = _writes(change.new_chat_member)
    if reachable == _writes(change.old_chat_member):
        return  # promoted, demoted: it may still write
    if reachable:
        desk.outbox.unblock(change.chat.id)  # a send refused while it was out (403) is not held against it
    await desk.after_all(await desk.service.deliveries.group_reach(change.chat.id, reachable))


async def on_membership(update: Update, context: CustomContext) -> None:
    change = update.chat_member
    if change is None or _writes(change.new_chat_member) or change.new_chat_member.status in PRESENT:
        return
    if change.old_chat_member.status not in (*PRESENT, ChatMember.RESTRICTED):
        return
    desk = context.desk
    user = change.new_chat_member.user
    for table in await desk.service.reads.tables_in_group(change.chat.id):
        if table.seat_of(user.id) is None:
            continue
        try:
            outcome = await desk.service.lobby.leave(table.id, user.id)
        except TableError:
            continue  # left the match already
        await desk.after(outcome)
