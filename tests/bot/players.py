"""Scripted human players: they read their chats in the emulator and tap or type, as a person would."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from bot import codec
from emulator import TelegramEmulator
from emulator.state import Chat, StoredMessage, User

ROUND_OVER = re.compile(r"(Round \d+ is over|第 \d+ 局结束)")


def buttons(msg: StoredMessage) -> list[dict]:
    return [b for row in msg.buttons for b in row]


def move_buttons(msg: StoredMessage) -> list[dict]:
    """The buttons of a turn (a move, the hint, the composer), not the one that shows his cards."""
    return [b for b in buttons(msg) if codec.moves(b.get("callback_data", ""))]


def turn_message(emu: TelegramEmulator, user_id: int) -> StoredMessage | None:
    """The private message that shows buttons to act with (the player's turn), if any."""
    for msg in reversed(emu.bot_messages(user_id)):
        if move_buttons(msg):
            return msg
    return None


def choose_tap(msg: StoredMessage, rng: random.Random) -> str:
    """The callback data a simple player taps: a one-tap play, else pass; else any decision button."""
    all_buttons = buttons(msg)
    give_back = [b for b in all_buttons if b["callback_data"].split(":")[3][:1] == "r"]
    if give_back:
        return give_back[0]["callback_data"]
    if not any(b["callback_data"].startswith("a:") for b in all_buttons):
        # 还贡: compose the cards to give back, one tap per card.
        return next(b["callback_data"] for b in all_buttons if "×" in b["text"])
    one_tap = [b for b in all_buttons if b["text"].startswith("▶ ")]
    passes = [b for b in all_buttons if b["callback_data"].endswith(":x")]
    choices = [
        b
        for b in all_buttons
        if b["callback_data"].startswith("a:") and not b["callback_data"].endswith(":h")
    ]
    if one_tap and (not passes or rng.random() < 0.7):
        return rng.choice(one_tap)["callback_data"]
    if passes:
        return passes[0]["callback_data"]
    return rng.choice(choices)["callback_data"]


def round_summaries(emu: TelegramEmulator, group_id: int) -> list[StoredMessage]:
    return [m for m in emu.bot_messages(group_id) if ROUND_OVER.search(m.text or "")]


def group_texts(emu: TelegramEmulator, group_id: int) -> list[str]:
    """Every text the group ever saw from the bot, edits included."""
    texts = []
    for msg in emu.messages(group_id):
        if msg.from_bot:
            texts += [rev.text or "" for rev in msg.history] or [msg.text or ""]
    return texts


def hands_seen(emu: TelegramEmulator, user_id: int) -> set[str]:
    """The hand lines of a player's private hand messages, every revision (the line after 'Your cards')."""
    found = set()
    for msg in emu.bot_messages(user_id):
        for rev in msg.history or []:
            lines = (rev.text or "").splitlines()
            for i, line in enumerate(lines[:-1]):
                if line.startswith(("Your cards", "你的牌")):
                    found.add(lines[i + 1])
    return found


def lobby_button(lobby: StoredMessage, arg: str) -> str:
    """The callback data of a lobby button by what it does (join, bots, begin…), whatever the language."""
    return next(b["callback_data"] for b in buttons(lobby) if b["callback_data"].endswith(":" + arg))


class Table:
    """A group with a table, driven through the emulator like people in Telegram would."""

    def __init__(self, emu: TelegramEmulator, group: Chat, humans: Sequence[User]) -> None:
        self.emu, self.group, self.humans = emu, group, list(humans)
        self.lobby: StoredMessage | None = None
        self._acted: dict[int, tuple[int, int]] = {}

    @classmethod
    async def seated(
        cls, emu: TelegramEmulator, names: Sequence[str], *, bots: bool = True, lang: str = "en"
    ) -> Table:
        humans = [emu.create_user(name, language_code=lang) for name in names]
        group = emu.create_group("Friends", humans)
        for user in humans:
            emu.start_bot(user)
        table = cls(emu, group, humans)
        said = emu.user_sends(humans[0], group.id, "/new")
        table.lobby = await emu.wait_for_bot_message(group.id, after=said)
        for user in humans:
            await table.tap_lobby(
                user, "join", until=lambda u=user: u.first_name in (table.lobby_now().text or "")
            )
        if bots:
            await table.tap_lobby(
                humans[0], "bots", until=lambda: "（空）" not in (table.lobby_now().text or "")
            )
        return table

    def lobby_now(self) -> StoredMessage:
        assert self.lobby is not None
        return self.emu.world.chat(self.group.id).messages[self.lobby.message_id]

    async def tap_lobby(self, user: User, arg: str, until=None) -> None:
        lobby = self.lobby_now()
        query = self.emu.tap(user, lobby, lobby_button(lobby, arg))
        await self.emu.wait_for_answer(query)
        if until is not None:
            await self.emu.wait_for(until, timeout=10, description=f"lobby after {arg}")

    async def begin(self) -> None:
        await self.tap_lobby(self.humans[0], "begin")

    async def play_until(
        self, done, rng: random.Random, *, type_some: bool = True, max_steps: int = 3000
    ) -> None:
        """Humans act whenever they have a turn message, until ``done()`` holds."""
        for _ in range(max_steps):
            if done():
                return
            if not self.step(rng, type_some=type_some):
                try:
                    await self.emu.wait_for(
                        lambda: done() or self.has_new_turn() or self.next_round_offered() is not None,
                        timeout=20,
                        description="the bot to move on",
                    )
                except TimeoutError:
                    raise AssertionError(self.dump()) from None
        raise AssertionError("the game did not get there")

    def note_acted(self, user: User, msg: StoredMessage) -> None:
        """The user acted on this message as it is now (tapped in it outside ``step``)."""
        self._acted[user.id] = (msg.message_id, len(msg.history))

    def turn_to_act_on(self, user_id: int) -> StoredMessage | None:
        """The user's turn message, unless it is one he acted on already (its answer may still be coming)."""
        msg = turn_message(self.emu, user_id)
        if msg is None or self._acted.get(user_id) == (msg.message_id, len(msg.history)):
            return None
        return msg

    def has_new_turn(self) -> bool:
        for user in self.humans:
            msg = turn_message(self.emu, user.id)
            if msg is not None and self._acted.get(user.id) != (msg.message_id, len(msg.history)):
                return True
        return False

    def next_round_offered(self) -> StoredMessage | None:
        """The round summary in the group, while its Next round button is there and nobody tapped it."""
        for msg in reversed(self.emu.bot_messages(self.group.id)):
            if any(b.get("callback_data", "").endswith(":next") for b in buttons(msg)):
                stamp = (msg.message_id, len(msg.history))
                return None if self._acted.get(self.group.id) == stamp else msg
        return None

    def step(self, rng: random.Random, *, type_some: bool = True) -> bool:
        """Every human with a turn acts once; a round that is over goes on to the next."""
        progressed = False
        summary = self.next_round_offered()
        if summary is not None:
            self._acted[self.group.id] = (summary.message_id, len(summary.history))
            self.emu.tap(self.humans[0], summary, lobby_button(summary, "next"))
            progressed = True
        for user in self.humans:
            msg = turn_message(self.emu, user.id)
            if msg is None:
                continue
            stamp = (msg.message_id, len(msg.history))
            if self._acted.get(user.id) == stamp:
                continue
            self._acted[user.id] = stamp
            data = choose_tap(msg, rng)
            if type_some and data.split(":")[3][:1] == "p" and rng.random() < 0.3:
                label = next(b["text"] for b in buttons(msg) if b["callback_data"] == data)
                self.emu.user_sends(user, user.id, label.removeprefix("▶ "))  # typed, in RULES.md notation
            else:
                self.emu.tap(user, msg, data)
            progressed = True
        return progressed

    def round_over(self, n: int = 1) -> bool:
        return len(round_summaries(self.emu, self.group.id)) >= n

    def dump(self) -> str:
        lines = []
        for chat in [self.group.id] + [u.id for u in self.humans]:
            for m in self.emu.messages(chat)[-4:]:
                lines.append(
                    f"{chat} {'bot' if m.from_bot else 'user'}: {(m.text or '')[-160:]!r} {m.buttons[:1]}"
                )
        return "\n".join(lines)

    def assert_no_hand_in_group(self) -> None:
        texts = group_texts(self.emu, self.group.id)
        for user in self.humans:
            laid_down = (f"{user.first_name} 亮牌", f"{user.first_name} lays down")
            if any(line.startswith(laid_down) for text in texts for line in text.splitlines()):
                continue  # R9.3: a revolutionary lays his hand down for the table to see

            # Hands of four ranks or more cannot turn up in a group text by chance.
            for hand in (h for h in hands_seen(self.emu, user.id) if len(h.split()) >= 4):
                assert not any(hand in text for text in texts), f"{user.first_name}'s hand reached the group"
