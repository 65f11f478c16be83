"""The control API for groups as Telegram makes them: groups and supergroups, forums and their topics, members
who join and leave, admins who post anonymously, the bot added, removed, kicked, restricted, promoted and
added back. Each change queues what Telegram sends for it: the service message, ``my_chat_member`` to the
bot whose status changed, ``chat_member`` to the group's administrator bots.
"""

from __future__ import annotations

from collections.abc import Iterable

from .control import ChatRef, Controls, MessageRef, UserRef
from .state import Chat, EmulatorError, StoredMessage, Topic, User

DEFAULT_TOPIC_COLOR = 0x6FB9F0  # one of the six colours Telegram offers for a topic's icon


class GroupControls(Controls):
    def _group(self, chat: ChatRef) -> Chat:
        group = self._chat(chat)
        if not group.is_group:
            raise EmulatorError(f"chat {group.id} is not a group")
        if group.migrated_to is not None:
            raise EmulatorError(f"group {group.id} became supergroup {group.migrated_to}")
        return group

    def _admin(self, group: Chat, by: UserRef | None) -> User:
        """Who acts as an administrator of the group (its creator unless ``by`` says)."""
        if by is None:
            return self.network.users[group.admin_ids()[0]]
        person = self._user(by)
        if person.id not in group.admin_ids():
            raise EmulatorError(f"{person.first_name} is not an administrator of chat {group.id}")
        return person

    # --- groups, forums and topics --------------------------------------------------------------------

    def create_group(
        self,
        title: str,
        members: Iterable[UserRef],
        *,
        admins: Iterable[UserRef] = (),
        creator: UserRef | None = None,
        bot_is_admin: bool = False,
        supergroup: bool = False,
        forum: bool = False,
        announce: bool = True,
    ) -> Chat:
        """A group with these users in it and this bot added by its creator (the first member by default); a
        ``forum`` is a supergroup with topics.

        With ``announce`` the bot receives what Telegram sends when it is added: a my_chat_member update and
        the service message.
        """
        people = [self._user(m) for m in members]
        owner = self._user(creator) if creator is not None else (people[0] if people else None)
        if owner is None:
            raise EmulatorError("a group needs at least one member")
        chat = self.network.add_group(title, supergroup=supergroup, forum=forum)
        if forum:
            chat.allocate_message_id()  # 1 is the General topic's id, never a message's
        chat.members[owner.id] = "creator"
        for user in people:
            chat.members.setdefault(user.id, "member")
        for admin in admins:
            user = self._user(admin)
            if chat.members.get(user.id) != "creator":
                chat.members[user.id] = "administrator"
        status = "administrator" if bot_is_admin else "member"
        self.journal.add("group_created", chat_id=chat.id, title=title, forum=forum)
        if not announce:
            chat.bots[self.world.bot.id] = status
            return chat
        self.set_bot_status(chat, status, by=owner)
        bot = self.world.bot.to_api()
        service = (
            {"group_chat_created": True}
            if chat.type == "group"
            else {"new_chat_members": [bot], "new_chat_member": bot, "new_chat_participant": bot}
        )
        self.store_service(chat, owner, service)
        return chat

    def create_forum(
        self,
        title: str,
        members: Iterable[UserRef],
        *,
        admins: Iterable[UserRef] = (),
        creator: UserRef | None = None,
        bot_is_admin: bool = False,
        announce: bool = True,
    ) -> Chat:
        """A forum supergroup (topics on), with its General topic; topics come from ``create_topic``."""
        return self.create_group(
            title,
            members,
            admins=admins,
            creator=creator,
            bot_is_admin=bot_is_admin,
            forum=True,
            announce=announce,
        )

    def create_topic(
        self, chat: ChatRef, name: str, *, by: UserRef | None = None, icon_color: int = DEFAULT_TOPIC_COLOR
    ) -> int:
        """A member (the creator by default) opens a topic in a forum; returns its message_thread_id, the id
        of the forum_topic_created service message, as in Telegram."""
        group = self._group(chat)
        if not group.is_forum:
            raise EmulatorError(f"chat {group.id} is not a forum (create_forum)")
        if not 1 <= len(name) <= 128:
            raise EmulatorError("a topic's name is 1-128 characters")
        person = self._admin(group, None) if by is None else self._user(by)
        self._check_user_can_write(person, group)
        created = self.store_service(
            group, person, {"forum_topic_created": {"name": name, "icon_color": icon_color}}, opens_topic=True
        )
        group.topics[created.message_id] = Topic(created.message_id, name, icon_color, person.id)
        self.journal.add("topic_created", chat_id=group.id, message_thread_id=created.message_id, name=name)
        return created.message_id

    def add_member(self, chat: ChatRef, user: UserRef) -> StoredMessage:
        """A user joins the group: the bots get the ``new_chat_members`` service message, its admin bots a
        chat_member update."""
        group, person = self._group(chat), self._user(user)
        old = group.members.get(person.id, "left")
        group.members[person.id] = "member"
        message = self.store_service(group, person, {"new_chat_members": [person.to_api()]})
        self.push_member_change(group, person, old, "member", person)
        return message

    def remove_member(self, chat: ChatRef, user: UserRef) -> StoredMessage:
        """A member leaves the group: the ``left_chat_member`` service message, and chat_member (member to
        left) for the group's administrator bots that asked for chat_member updates."""
        group, person = self._group(chat), self._user(user)
        old = group.members.get(person.id, "left")
        group.members[person.id] = "left"
        group.anonymous_admins.discard(person.id)
        message = self.store_service(group, person, {"left_chat_member": person.to_api()})
        self.push_member_change(group, person, old, "left", person)
        return message

    def migrate_to_supergroup(self, chat: ChatRef) -> Chat:
        """Upgrade a group: the old id is refused from now on with ``migrate_to_chat_id``."""
        old = self._group(chat)
        if old.type != "group":
            raise EmulatorError(f"chat {old.id} is already a supergroup")
        new = Chat(id=self.network.new_supergroup_id(), type="supergroup", title=old.title)
        new.members, new.bots, new.migrated_from = dict(old.members), dict(old.bots), old.id
        self.network.groups[new.id] = new
        owner = self.network.users[next(uid for uid, s in old.members.items() if s == "creator")]
        self.store_service(old, owner, {"migrate_to_chat_id": new.id})
        old.migrated_to = new.id
        self.store_service(new, owner, {"migrate_from_chat_id": old.id})
        self.journal.add("migrated", chat_id=old.id, new_chat_id=new.id)
        return new

    # --- this bot in a group --------------------------------------------------------------------------

    def add_bot(self, chat: ChatRef, *, by: UserRef | None = None, admin: bool = False) -> StoredMessage:
        """A member (the creator by default) adds this bot to the group, or adds it back after it left or was
        kicked: my_chat_member, then the new_chat_members service message."""
        group = self._group(chat)
        if self.world.status_in(group) in ("member", "administrator", "restricted"):
            raise EmulatorError(f"the bot is already in chat {group.id}")
        person = self._admin(group, None) if by is None else self._user(by)
        self._check_user_can_write(person, group)
        self.set_bot_status(group, "administrator" if admin else "member", by=person)
        bot = self.world.bot.to_api()
        return self.store_service(group, person, {"new_chat_members": [bot]})

    def remove_bot(self, chat: ChatRef, *, by: UserRef | None = None) -> StoredMessage:
        """An administrator removes this bot from the group (it may be added back): status "left"."""
        return self._put_out(chat, "left", by)

    def kick_bot(self, chat: ChatRef, by: UserRef | None = None) -> StoredMessage:
        """An administrator bans this bot from the group: status "kicked"."""
        return self._put_out(chat, "kicked", by)

    def _put_out(self, chat: ChatRef, status: str, by: UserRef | None) -> StoredMessage:
        group = self._group(chat)
        remover = self._admin(group, by)
        self.set_bot_status(group, status, by=remover)
        return self.store_service(group, remover, {"left_chat_member": self.world.bot.to_api()})

    def restrict_bot(self, chat: ChatRef, *, by: UserRef | None = None) -> None:
        """An administrator of a supergroup takes from this bot the right to send messages."""
        group = self._group(chat)
        if group.type != "supergroup":
            raise EmulatorError("only a supergroup restricts one member (migrate_to_supergroup first)")
        self._change_status(group, "restricted", by, expected=("member", "administrator"))

    def unrestrict_bot(self, chat: ChatRef, *, by: UserRef | None = None) -> None:
        """The bot may send messages again."""
        self._change_status(self._group(chat), "member", by, expected=("restricted",))

    def promote_bot(self, chat: ChatRef, *, by: UserRef | None = None) -> None:
        """The bot becomes an administrator: it sees every message and receives chat_member updates."""
        self._change_status(self._group(chat), "administrator", by, expected=("member", "restricted"))

    def demote_bot(self, chat: ChatRef, *, by: UserRef | None = None) -> None:
        self._change_status(self._group(chat), "member", by, expected=("administrator",))

    def _change_status(
        self, group: Chat, status: str, by: UserRef | None, *, expected: tuple[str, ...]
    ) -> None:
        now = self.world.status_in(group)
        if now not in expected:
            raise EmulatorError(f"the bot is {now} in chat {group.id}, not {' or '.join(expected)}")
        self.set_bot_status(group, status, by=self._admin(group, by))

    # --- anonymous admins --------------------------------------------------------------------------

    def anonymous_admin_sends(
        self,
        admin: UserRef,
        chat: ChatRef,
        text: str,
        *,
        reply_to: MessageRef | int | None = None,
        topic: int | None = None,
    ) -> StoredMessage:
        """An administrator who chose "Remain anonymous" writes (a command, too): the bots see it from
        GroupAnonymousBot (id 1087968824) with sender_chat the group itself, and never learn who wrote it.
        From now on getChatMember and getChatAdministrators show him with is_anonymous true."""
        group, person = self._group(chat), self._user(admin)
        if group.type != "supergroup":
            raise EmulatorError("only a supergroup has anonymous admins (migrate_to_supergroup first)")
        if person.id not in group.admin_ids():
            raise EmulatorError(f"{person.first_name} is not an administrator of chat {group.id}")
        group.anonymous_admins.add(person.id)
        return self._post(
            self.network.anonymous_admin, group, text, reply_to=reply_to, topic=topic, sender_chat=group
        )
