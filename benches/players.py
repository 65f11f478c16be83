"""The scripted humans of ``benches.load``: people at six-seat tables, acting in their private chats with the
bot as they would in Telegram. They run in the emulator's process and read what the bot sent there.

A human acts only on his **current turn message** (the newest message of his private chat with game buttons;
a turn is that message at one table version, which is in every button's data): when one arrives he thinks
(the think time times a uniform 0.5–1.5), then plays his turn in one of the ways below. After every tap he
waits for what a person waits for: a composer tap for the keyboard to be redrawn, a move for its tap to be
answered, a typed play for the turn message to lose its buttons or for the bot's reply. While the bot has
not answered he does not tap again (he has nothing new to tap on), so a slow bot slows the game down: the
players' side is a closed loop, as at a real table.

What he does on a turn (shares of turns; the share of *actions* is printed by the bench, since a composed
play is several taps):

- when following a play (Pass is offered; R4.3 passes for him when he cannot beat it, so such a turn always
  has a play): 40 % compose a play from the rank buttons (one tap per card, each after the redrawn keyboard
  came, 0.3–0.9 s apart, then Play or 烧), 22 % tap a one-tap play (▶ 777), 20 % tap Pass, 10 % type the
  play (``7777``, a third of them ``/p 7777``), 5 % type ``pass`` or ``过``, 3 % tap 让牌 (Pass where there
  is no 让牌);
- when leading (no Pass): 55 % compose a same-rank group of his hand (all of a rank, or part of it), 30 % a
  one-tap play, 15 % type a one-tap play;
- before either, 8 % tap Hint, read the answer (1–2 s) and, four times in five, do what it says (pass, or
  the cards: composed, or one-tapped when a one-tap button shows them);
- 15 % of the composed plays while following are one card off (a card more than a legal play): the bot
  refuses them with an alert, and the human then falls back to a one-tap play, else Pass; any other refusal
  (a typed play, a tap the bot found out of date) falls back the same way;
- 3 % of turns start with a **stale tap**: the button he tapped on his previous turn message, tapped again
  on that message (Telegram delivers it while the client still shows the old keyboard; here it is sent as
  the emulator's forge_tap, since the bot has removed the keyboard by then). The bot must refuse it.
- the other decisions: 还贡 (the lowest cards, one composer tap each, then Give back), 革命 25 %, 要头 50 %,
  宣点 25 % (the rest the other button); the table's first human taps "Next round" under a round's summary
  (after a think time); a notice in his chat that tells him to send ``/back`` (the clock played his turn,
  or his seat) makes him send it.

Why these shares: the one-tap buttons show only the four smallest plays, so a player who wants anything else
(a bigger play, 2s or jokers attached, a burn) composes it, and about half of the plays are taken to be
composed; players who know the buttons use the one-tap ones for the small plays (a quarter); passing is
common in Gouji once the table has a strong play; some players type, most of them the short forms. A hint
now and then, a mistake now and then, a tap on an old message now and then: enough of each for its cost to
show in the figures, not enough to dominate them. They are guesses about people, stated so they can be
changed (:class:`Mix`), not measurements.

Every tap and every typed message is one human action, a composer tap included (it costs the bot an update,
an answer and an edit, as any other tap).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot import codec
from emulator import EmulatedBot, TelegramEmulator
from emulator.state import Chat, EmulatorError, StoredMessage, User
from engine.actions import BURN, PASS, PLAY, YIELD
from engine.cards import NRANKS, RANKS, Counts, format_cards
from engine.match import DECLARE, NO_DECLARE, NO_REVOLT, RETURN, REVOLT, WUTOU, YAOTOU

EMPTY: Counts = (0,) * NRANKS
PATIENCE = 300.0  # seconds a human waits for any sign of the bot before he re-reads his chat and acts again
TIMED_OUT = ("Time is up", "Time ran out")  # what the bot says when the clock played a turn (its texts, en)
TRY_AGAIN = (
    "try again"  # in the bot's answer when its handler failed ("Something went wrong; please try again.")
)
TURN_SCAN = 12  # how many of the newest messages of a private chat are looked at for the turn message
_GIVE_BACK_N = re.compile(r"(\d+)")


@dataclass(frozen=True)
class Mix:
    """The shares of the module docstring (of turns, not of actions)."""

    hint: float = 0.08
    follow_hint: float = 0.8
    stale: float = 0.03
    # Following a play: compose, one-tap, pass tap, typed play, typed pass, 让牌 (in this order; the rest
    # of 1.0 after the first five is the pass tap's share if it is listed last).
    follow_compose: float = 0.40
    follow_one_tap: float = 0.22
    follow_pass: float = 0.20
    follow_typed: float = 0.10
    follow_typed_pass: float = 0.05
    follow_yield: float = 0.03
    lead_compose: float = 0.55
    lead_one_tap: float = 0.30
    lead_typed: float = 0.15
    mistake: float = 0.15
    revolt: float = 0.25
    yaotou: float = 0.5
    declare: float = 0.25
    compose_gap: tuple[float, float] = (0.3, 0.9)
    read_gap: tuple[float, float] = (1.0, 2.0)  # reading a hint or a refusal
    stale_gap: tuple[float, float] = (0.5, 1.5)  # noticing that the old button did nothing


@dataclass
class Stats:
    """What the players saw while ``measuring``; times in seconds (time.perf_counter)."""

    measuring: bool = False
    actions: Counter[str] = field(default_factory=Counter)
    # The time humans spent thinking or between taps before the actions counted: at a table one human acts
    # at a time, so actions / human_time is a table's pace if the bot answered at once (benches.load).
    human_time: float = 0.0
    answer_wait: list[float] = field(default_factory=list)  # a tap until its answer
    redraw_wait: list[float] = field(default_factory=list)  # a composer tap until the keyboard is redrawn
    # A human's move (a final tap, a typed play, Next round) until a turn message for a new turn reaches a
    # human of the table (the same one or the other), when the emulator takes the bot's sendMessage or edit.
    handover: list[float] = field(default_factory=list)
    turns: Counter[str] = field(default_factory=Counter)  # the turns played: lead, follow, decision…
    refused: Counter[str] = field(default_factory=Counter)
    refusal_texts: Counter[str] = field(default_factory=Counter)  # what the bot said (an alert, a reply)
    timeouts: int = 0  # messages saying the clock played a human's turn (TIMED_OUT)
    reminders: int = 0
    rounds: int = 0  # round summaries shown
    lost_patience: int = 0  # PATIENCE ran out with no answer
    errors: Counter[str] = field(default_factory=Counter)  # taps the emulator refused (the button went)

    def action(self, kind: str, waited: float) -> None:
        if self.measuring:
            self.actions[kind] += 1
            self.human_time += waited

    def count(self, into: Counter[str], key: str) -> None:
        if self.measuring:
            into[key] += 1

    def sample(self, into: list[float], seconds: float) -> None:
        if self.measuring:
            into.append(seconds)


def _data(button: dict[str, Any]) -> str:
    return str(button.get("callback_data", ""))


def _decoded(msg: StoredMessage) -> list[tuple[str, str, codec.Button]]:
    """(label, data, decoded) of every button of the bot's that the codec reads."""
    out = []
    for row in msg.buttons:
        for b in row:
            data = _data(b)
            if not data:
                continue
            try:
                out.append((str(b.get("text", "")), data, codec.decode(data)))
            except codec.BadButton:
                continue
    return out


def _is_game(msg: StoredMessage) -> bool:
    return any(_data(b)[:2] in ("a:", "k:") for row in msg.buttons for b in row)


def turn_key(msg: StoredMessage) -> tuple[int, int] | None:
    """(message id, table version) of a turn message: every game button carries the version it was drawn for."""
    for row in msg.buttons:
        for b in row:
            parts = _data(b).split(":", 3)
            if len(parts) == 4 and parts[0] in ("a", "k") and parts[2].isdigit():
                return msg.message_id, int(parts[2])
    return None


def cards_of(text: str) -> Counts | None:
    """Cards in RULES.md notation (``KKK2``), as counts; None if anything else is in the text."""
    counts = [0] * NRANKS
    for ch in text:
        if ch.isspace():
            continue
        r = RANKS.find(ch)
        if r < 0:
            return None
        counts[r] += 1
    return tuple(counts) if sum(counts) else None


def _plus(cards: Counts, rank: int) -> Counts:
    more = list(cards)
    more[rank] += 1
    return tuple(more)


@dataclass
class Plan:
    """One way to act on the current turn: tap a button, compose cards then tap the final button, or type."""

    kind: str  # the action's name in the figures: one-tap, pass, yield, decision, compose, typed, typed-pass…
    data: str | None = None  # tap: the callback data
    cards: Counts | None = None  # compose: the cards; typed: unused
    final: str | None = None  # compose: PLAY, BURN or RETURN
    text: str | None = None  # typed


class Turn:
    """The turn message's keyboard as a player reads it."""

    def __init__(self, msg: StoredMessage) -> None:
        self.msg = msg
        self.buttons = _decoded(msg)
        self.acts = [(label, data, b.action) for label, data, b in self.buttons if isinstance(b, codec.Act)]
        self.composers = [(label, data, b) for label, data, b in self.buttons if isinstance(b, codec.Compose)]
        self.hint = next((data for _, data, b in self.buttons if isinstance(b, codec.Hint)), None)
        kinds = {a.kind for _, _, a in self.acts}
        self.decision = next(
            (k for k in (REVOLT, NO_REVOLT, YAOTOU, WUTOU, DECLARE, NO_DECLARE) if k in kinds), None
        )
        self.returning = bool(self.composers) and not (kinds - {RETURN})
        self.one_taps = [(data, a) for label, data, a in self.acts if label.startswith(("▶ ", "🔥 "))]
        self.pass_data = next((data for _, data, a in self.acts if a.kind == PASS), None)
        self.yield_data = next((data for _, data, a in self.acts if a.kind == YIELD), None)

    def act(self, kind: str) -> str | None:
        return next((data for _, data, a in self.acts if a.kind == kind), None)

    def hand(self) -> Counts:
        """His cards as the rank buttons show them (``K×5``: five kings not selected yet)."""
        counts = [0] * NRANKS
        for label, _, _b in self.composers:
            rank, sep, left = label.partition("×")
            if sep and len(rank) == 1 and rank in RANKS and left.isdigit():
                counts[RANKS.index(rank)] = int(left)
        return tuple(counts)

    def selection(self) -> Counts:
        """What is selected now: a rank button's data is the selection with one more card of its rank."""
        for label, _, b in self.composers:
            rank = label.partition("×")[0]
            if "×" in label and len(rank) == 1 and rank in RANKS:
                sel = list(b.selection)
                sel[RANKS.index(rank)] -= 1
                return tuple(sel)
        return EMPTY

    def clear(self) -> str | None:
        """The Clear button (its data is the empty selection), when something is selected."""
        return next(
            (data for label, data, b in self.composers if "×" not in label and b.selection == EMPTY), None
        )

    def composer_for(self, selection: Counts) -> str | None:
        """The rank button whose tap makes the selection ``selection``."""
        return next((data for _, data, b in self.composers if b.selection == selection), None)

    def final_for(self, kind: str, cards: Counts) -> str | None:
        return next((data for _, data, a in self.acts if a.kind == kind and a.cards == cards), None)


class Human:
    def __init__(
        self, crowd: Crowd, user: User, table: TableSide, rng: random.Random, emu: EmulatedBot | None = None
    ) -> None:
        self.crowd, self.user, self.table, self.rng = crowd, user, table, rng
        self.emu = emu or crowd.emu  # the bot of his table: his private chat is with it
        self.mix = crowd.mix
        self.changed = asyncio.Event()
        self.done: tuple[int, int] | None = None
        self.last_move: tuple[StoredMessage, str] | None = None  # his last move tap: (message, data)
        self.task: asyncio.Task[None] | None = None
        self.coming_back = False
        self.shown: tuple[int, int] | None = None  # the newest turn the bot showed him (turn_key)

    # ------------------------------------------------------------------ what he reads

    @property
    def chat(self) -> Chat:
        return self.emu.world.chats[self.user.id]

    def turn_message(self) -> StoredMessage | None:
        chat = self.chat
        top = chat.next_message_id - 1
        for mid in range(top, max(0, top - TURN_SCAN), -1):
            msg = chat.messages.get(mid)
            if msg is not None and msg.from_bot and not msg.deleted and msg.reply_markup and _is_game(msg):
                return msg
        return None

    def current(self, key: tuple[int, int]) -> StoredMessage | None:
        """The turn message if it is still the turn ``key``."""
        msg = self.turn_message()
        return msg if msg is not None and turn_key(msg) == key else None

    async def until(self, condition: Callable[[], Any], timeout: float = PATIENCE) -> Any:
        """The first truthy value of ``condition``, rechecked whenever the bot wrote to him; None on timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            found = condition()
            if found:
                return found
            remaining = deadline - loop.time()
            if remaining <= 0:
                self.crowd.stats.lost_patience += self.crowd.stats.measuring
                return None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)

    async def pause(self, low: float, high: float) -> float:
        seconds = self.rng.uniform(low, high)
        await asyncio.sleep(seconds)
        return seconds

    # ------------------------------------------------------------------ his life at the table

    async def live(self) -> None:
        while True:
            msg = await self.until(self._new_turn, timeout=10**9)
            key = turn_key(msg)
            assert key is not None
            try:
                await self.play_turn(key)
            except EmulatorError as e:  # the keyboard changed under his thumb
                self.crowd.stats.count(self.crowd.stats.errors, type(e).__name__)
            self.done = key

    def _new_turn(self) -> StoredMessage | None:
        msg = self.turn_message()
        return msg if msg is not None and turn_key(msg) != self.done else None

    async def play_turn(self, key: tuple[int, int]) -> None:
        waited = await self.pause(0.5 * self.crowd.think, 1.5 * self.crowd.think)
        mix, rng = self.mix, self.rng
        if self.last_move is not None and rng.random() < mix.stale:
            old, data = self.last_move
            self.last_move = None
            await self.tap(old, data, "stale", waited, forged=True)
            waited = await self.pause(*mix.stale_gap)
        msg = self.current(key)
        if msg is None:
            return
        turn = Turn(msg)
        plan = None
        if turn.hint is not None and not turn.decision and not turn.returning and rng.random() < mix.hint:
            query = await self.tap(msg, turn.hint, "hint", waited)
            answered = await self.until(lambda: query.answered or self.current(key) is None)
            waited = await self.pause(*mix.read_gap)
            msg = self.current(key)
            if msg is None:
                return
            turn = Turn(msg)
            if answered and query.answer_text and rng.random() < mix.follow_hint:
                plan = self.from_hint(turn, query.answer_text)
        if plan is None:
            plan = self.decide(turn)
        self.crowd.stats.count(
            self.crowd.stats.turns,
            "decision"
            if turn.decision
            else "give-back"
            if turn.returning
            else "lead"
            if turn.pass_data is None
            else "follow",
        )
        if plan is None:
            return
        outcome = await self.carry_out(key, plan, waited)
        if outcome == "refused":
            self.crowd.stats.count(self.crowd.stats.refused, plan.kind)
            waited = await self.pause(*mix.read_gap)
            msg = self.current(key)
            if msg is None:
                return
            fallback = self.fallback(Turn(msg), plan)
            if fallback is not None:
                outcome = await self.carry_out(key, fallback, waited)
                if outcome == "refused":
                    self.crowd.stats.count(self.crowd.stats.refused, "fallback")

    # ------------------------------------------------------------------ deciding

    def decide(self, turn: Turn) -> Plan | None:
        mix, rng = self.mix, self.rng
        if turn.decision is not None:
            yes, no, share = {
                REVOLT: (REVOLT, NO_REVOLT, mix.revolt),
                NO_REVOLT: (REVOLT, NO_REVOLT, mix.revolt),
                YAOTOU: (YAOTOU, WUTOU, mix.yaotou),
                WUTOU: (YAOTOU, WUTOU, mix.yaotou),
                DECLARE: (DECLARE, NO_DECLARE, mix.declare),
                NO_DECLARE: (DECLARE, NO_DECLARE, mix.declare),
            }[turn.decision]
            data = turn.act(yes if rng.random() < share else no) or turn.act(no) or turn.act(yes)
            return Plan("decision", data=data)
        hand = turn.hand()
        if turn.returning:
            n = self.give_back_count(turn.msg)
            cards, left = [0] * NRANKS, list(hand)
            for _ in range(n):
                r = next((r for r in range(NRANKS) if left[r]), None)
                if r is None:
                    break
                cards[r] += 1
                left[r] -= 1
            return Plan("give-back", cards=tuple(cards), final=RETURN)
        r = rng.random()
        if turn.pass_data is None:  # a lead
            if r < mix.lead_compose:
                # Not the 3s: they may only be a hand's last play (R-bie_san), and players know it.
                ranks = [q for q in range(1, 12) if hand[q]] or [q for q in range(1, NRANKS) if hand[q]]
                if ranks:
                    q = rng.choice(ranks)
                    k = hand[q] if rng.random() < 0.6 else rng.randint(1, hand[q])
                    cards = [0] * NRANKS
                    cards[q] = k
                    return Plan("compose", cards=tuple(cards), final=PLAY)
            if r < mix.lead_compose + mix.lead_one_tap or not self._typeable(turn):
                return self._one_tap(turn)
            return self._typed(turn)
        edges = [
            mix.follow_compose,
            mix.follow_one_tap,
            mix.follow_pass,
            mix.follow_typed,
            mix.follow_typed_pass,
        ]
        cut = [sum(edges[: i + 1]) for i in range(len(edges))]
        if r < cut[0] and turn.one_taps:
            data, action = rng.choice(turn.one_taps)
            cards = action.cards
            assert cards is not None
            kind = "compose"
            if rng.random() < mix.mistake:
                extra = next((q for q in range(NRANKS) if cards[q] and hand[q] > cards[q]), None)
                if extra is not None:
                    cards, kind = _plus(cards, extra), "compose-mistake"
            return Plan(kind, cards=cards, final=action.kind)
        if r < cut[1] and turn.one_taps:
            return self._one_tap(turn)
        if r < cut[2]:
            return Plan("pass", data=turn.pass_data)
        if r < cut[3] and self._typeable(turn):
            return self._typed(turn)
        if r < cut[4]:
            return Plan("typed-pass", text=rng.choice(("pass", "过")))
        if turn.yield_data is not None:
            return Plan("yield", data=turn.yield_data)
        return Plan("pass", data=turn.pass_data)

    def _one_tap(self, turn: Turn) -> Plan | None:
        if turn.one_taps:
            return Plan("one-tap", data=self.rng.choice(turn.one_taps)[0])
        if turn.pass_data is not None:
            return Plan("pass", data=turn.pass_data)
        return None

    @staticmethod
    def _typeable(turn: Turn) -> bool:
        return any(a.kind == PLAY for _, a in turn.one_taps)

    def _typed(self, turn: Turn) -> Plan:
        action = self.rng.choice([a for _, a in turn.one_taps if a.kind == PLAY])
        text = format_cards(action.cards or EMPTY)
        return Plan("typed", text=f"/p {text}" if self.rng.random() < 1 / 3 else text)

    def from_hint(self, turn: Turn, answer: str) -> Plan | None:
        said = answer.split(":", 1)[-1].strip()
        if said.lower() in ("pass", "过") and turn.pass_data is not None:
            return Plan("pass", data=turn.pass_data)
        if said == "让牌" and turn.yield_data is not None:
            return Plan("yield", data=turn.yield_data)
        kind = PLAY
        if said.startswith("烧"):
            kind, said = BURN, said.removeprefix("烧").strip()
        cards = cards_of(said)
        if cards is None:
            return None
        one_tap = next((data for data, a in turn.one_taps if a.kind == kind and a.cards == cards), None)
        if one_tap is not None and self.rng.random() < 0.5:
            return Plan("one-tap", data=one_tap)
        return Plan("compose", cards=cards, final=kind)

    def fallback(self, turn: Turn, failed: Plan) -> Plan | None:
        if turn.returning:
            assert failed.cards is not None
            hand = turn.hand()
            extra = next((r for r in range(NRANKS) if hand[r]), None)
            return (
                None if extra is None else Plan("give-back", cards=_plus(failed.cards, extra), final=RETURN)
            )
        plan = self._one_tap(turn)
        return None if plan is None else Plan("fallback", data=plan.data)

    @staticmethod
    def give_back_count(msg: StoredMessage) -> int:
        for line in (msg.text or "").splitlines():
            if "还贡" in line:
                found = _GIVE_BACK_N.search(line)
                if found:
                    return int(found.group(1))
        return 1

    # ------------------------------------------------------------------ acting

    async def carry_out(self, key: tuple[int, int], plan: Plan, waited: float) -> str:
        """Do the plan on the turn ``key``: "done", "refused" (the bot said no), or "gone" (the turn went)."""
        if plan.text is not None:
            return await self.type(key, plan, waited)
        if plan.cards is not None:
            msg = self.current(key)
            if msg is None:
                return "gone"
            selection = Turn(msg).selection()
            if any(s > c for s, c in zip(selection, plan.cards, strict=True)):
                # Something else is selected (a refused play's cards): Clear first.
                data = Turn(msg).clear()
                if data is None or not await self.compose_tap(key, msg, data, waited):
                    return "refused"
                selection, waited = EMPTY, await self.pause(*self.mix.compose_gap)
            for rank in range(NRANKS):
                while selection[rank] < plan.cards[rank]:
                    msg = self.current(key)
                    if msg is None:
                        return "gone"
                    target = _plus(selection, rank)
                    data = Turn(msg).composer_for(target)
                    if data is None:
                        return "refused"  # he cannot find the card he meant (a mistake): as a refusal
                    if not await self.compose_tap(key, msg, data, waited):
                        return "gone" if self.current(key) is None else "refused"
                    selection = target
                    waited = await self.pause(*self.mix.compose_gap)
            msg = self.current(key)
            if msg is None:
                return "gone"
            assert plan.final is not None
            data = Turn(msg).final_for(plan.final, selection)
            if data is None:
                return "refused"
            return await self.move(msg, data, plan.kind, waited, key)
        assert plan.data is not None
        msg = self.current(key)
        if msg is None:
            return "gone"
        return await self.move(msg, plan.data, plan.kind, waited, key)

    async def compose_tap(self, key: tuple[int, int], msg: StoredMessage, data: str, waited: float) -> bool:
        """One composer tap, then wait for the redrawn keyboard: whether it came."""
        before = msg.history[-1]
        query = await self.tap(msg, data, "compose-tap", waited)
        tapped = time.perf_counter()
        await self.until(
            lambda: (
                msg.history[-1] is not before
                or self.current(key) is None
                or (query.answered and query.answer_text)
            )
        )
        if msg.history[-1] is before or self.current(key) is None:
            return False
        self.crowd.stats.sample(self.crowd.stats.redraw_wait, time.perf_counter() - tapped)
        return True

    async def move(
        self, msg: StoredMessage, data: str, kind: str, waited: float, key: tuple[int, int]
    ) -> str:
        query = await self.tap(msg, data, kind, waited)
        self.last_move = (msg, data)
        self.table.moved()
        await self.until(lambda: query.answered or self.current(key) is None)
        if query.answered and (query.show_alert or TRY_AGAIN in (query.answer_text or "")):
            # Refused (an alert says why), or the bot failed and asks him to try again: either way he tries
            # something else.
            self.crowd.stats.count(self.crowd.stats.refusal_texts, str(query.answer_text)[:60])
            return "refused"
        return "done"

    async def tap(
        self, msg: StoredMessage, data: str, kind: str, waited: float, *, forged: bool = False
    ) -> Any:
        if forged:
            query = self.emu.forge_tap(self.user, msg, data)
        else:
            query = self.emu.tap(self.user, msg, data)
        self.crowd.tapped(query.id, self)
        self.crowd.stats.action(kind, waited)
        return query

    async def type(self, key: tuple[int, int], plan: Plan, waited: float) -> str:
        assert plan.text is not None
        sent = self.emu.user_sends(self.user, self.user.id, plan.text)
        self.crowd.stats.action(plan.kind, waited)
        self.table.moved()
        chat = self.chat

        def reply() -> StoredMessage | None:
            # A reply without game buttons after his message, while his turn is still on: a refusal.
            for mid in range(sent.message_id + 1, chat.next_message_id):
                m = chat.messages.get(mid)
                if m is not None and m.from_bot and not _is_game(m):
                    return m
            return None

        await self.until(lambda: self.current(key) is None or reply())
        if self.current(key) is not None:
            said = reply()
            self.crowd.stats.refusal_texts[(said.text or "")[:60] if said else "?"] += (
                self.crowd.stats.measuring
            )
            return "refused"
        return "done"

    async def back(self) -> None:
        """The clock played his turn: he says he is here (``/back``), as the notice tells him."""
        self.coming_back = True
        try:
            waited = await self.pause(1.0, 3.0)
            with contextlib.suppress(EmulatorError):
                self.emu.user_sends(self.user, self.user.id, "/back")
                self.crowd.stats.action("/back", waited)
        finally:
            self.coming_back = False


class TableSide:
    """A table's humans, and what happens at the table as a whole: moves handed over, rounds ended."""

    def __init__(self, crowd: Crowd, group_id: int) -> None:
        self.crowd, self.group_id = crowd, group_id
        self.humans: list[Human] = []
        self.last_move: float | None = None
        self.summaries: set[tuple[int, int]] = set()

    def moved(self) -> None:
        self.last_move = time.perf_counter()

    def turn_came(self) -> None:
        if self.last_move is not None:
            self.crowd.stats.sample(self.crowd.stats.handover, time.perf_counter() - self.last_move)
            self.last_move = None

    def group_changed(self, msg: StoredMessage) -> None:
        for _label, data, button in _decoded(msg):
            if isinstance(button, codec.Lobby) and button.what == "next":
                stamp = (msg.message_id, button.version)
                if stamp not in self.summaries:
                    self.summaries.add(stamp)
                    self.crowd.stats.rounds += self.crowd.stats.measuring
                    self.crowd.spawn(self.next_round(msg, data))
                return

    async def next_round(self, msg: StoredMessage, data: str) -> None:
        human = self.humans[0]
        waited = await human.pause(0.5 * self.crowd.think, 1.5 * self.crowd.think)
        if msg.button(data=data) is None:
            return  # someone else, or the bot, moved on
        with contextlib.suppress(EmulatorError):
            query = human.emu.tap(human.user, msg, data)
            self.crowd.tapped(query.id, human)
            self.crowd.stats.action("next-round", waited)
            self.moved()


class Crowd:
    """Every scripted human of the run, woken by what the bot writes into their chats."""

    def __init__(self, emu: TelegramEmulator, think: float, seed: int, mix: Mix | None = None) -> None:
        self.emu, self.think, self.mix = emu, think, mix or Mix()
        self.rng = random.Random(seed)
        self.stats = Stats()
        self.humans: dict[int, Human] = {}  # user id -> his human
        self.tables: dict[int, TableSide] = {}  # group id -> table
        self.queries: dict[str, tuple[float, Human]] = {}  # query id -> (tapped at, who), until answered
        self.tasks: set[asyncio.Task[None]] = set()
        self.timed_out: set[tuple[int, int]] = set()  # messages that said the clock played a turn
        journal = emu.journal
        self._add = journal.add
        journal.add = self._event  # type: ignore[method-assign]

    def seat(self, group_id: int, users: list[User], emu: EmulatedBot | None = None) -> TableSide:
        """The humans of one table, hosted by ``emu``'s bot (one of a fleet's; the crowd's first by default)."""
        table = TableSide(self, group_id)
        for user in users:
            human = Human(self, user, table, random.Random(self.rng.random()), emu)
            table.humans.append(human)
            self.humans[user.id] = human
        self.tables[group_id] = table
        return table

    def start(self, table: TableSide) -> None:
        for human in table.humans:
            if human.task is None:
                human.task = asyncio.get_running_loop().create_task(human.live())
                self.tasks.add(human.task)

    def spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def tapped(self, query_id: str, human: Human) -> None:
        self.queries[query_id] = (time.perf_counter(), human)

    def _event(self, kind: str, **data: Any) -> dict[str, Any]:
        event = self._add(kind, **data)
        if kind in ("bot_message", "bot_edit"):
            chat_id = data["chat_id"]
            human = self.humans.get(chat_id)
            if human is not None:
                human.changed.set()
                self._turn_shown(human, data["message_id"])
                text = data.get("text") or ""
                if (
                    any(word in text for word in TIMED_OUT)
                    and (chat_id, data["message_id"]) not in self.timed_out
                ):
                    self.timed_out.add((chat_id, data["message_id"]))
                    self.stats.timeouts += self.stats.measuring
                if kind == "bot_message":
                    if "/back" in text and not human.coming_back:
                        # The notice tells him how to take his seat back (the clock has played it).
                        self.spawn(human.back())
                    elif "Reminder:" in text:
                        self.stats.reminders += self.stats.measuring
            else:
                table = self.tables.get(chat_id)
                if table is not None:
                    chat = self.emu.world.chats.get(chat_id)
                    msg = chat.messages.get(data["message_id"]) if chat is not None else None
                    if msg is not None and msg.reply_markup:
                        table.group_changed(msg)
        elif kind == "callback_answered":
            asked = self.queries.pop(str(data.get("id")), None)
            if asked is not None:
                self.stats.sample(self.stats.answer_wait, time.perf_counter() - asked[0])
                asked[1].changed.set()
        return event

    def _turn_shown(self, human: Human, message_id: int) -> None:
        """A turn message for a new turn reached him (not a keyboard redrawn by a composer tap): the table's
        last move was handed over, as he feels it, now; not when his script gets round to reading it."""
        msg = human.emu.world.chats[human.user.id].messages.get(message_id)
        if msg is None or not msg.reply_markup or not _is_game(msg):
            return
        key = turn_key(msg)
        if key is not None and key != human.shown:
            human.shown = key
            human.table.turn_came()

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
