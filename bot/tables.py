"""The tables: each action through one unit of work, then the computer seats and automatic passes (R4.3),
then what every player sees. The engine decides every rule; storage keeps every move; this module only
moves between them and the outbox.
"""

from __future__ import annotations

import asyncio
import logging
import pickle
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup

from engine import Action, Event, IllegalAction, Rules
from engine.actions import PASS
from engine.ai import computer_action, make_player
from engine.cards import EMPTY, Counts
from engine.match import P_PLAY, Match
from storage import (
    NoRoundInPlay,
    NotYourTurn,
    TableNotFound,
    UnitOfWorkFactory,
    VersionConflict,
)
from storage import service as store
from storage.aggregates import kind_named
from storage.models import utcnow
from storage.records import GroupRecord, SeatRecord, TableRecord

from . import render
from .callbacks import LOBBY, Callback
from .i18n import DEFAULT_LANGUAGE, normalise, t
from .outbox import Outbox

log = logging.getLogger(__name__)

COMPUTER_LEVELS = {1: "baseline", 2: "heuristic"}
DEFAULT_COMPUTER = 2
REMIND_FROM_S = 600  # a reminder at half time when the turn time is this long or longer


@dataclass
class Snapshot:
    table: TableRecord
    group: GroupRecord | None
    seats: list[SeatRecord]
    state: Match | None
    infos: dict[int, render.SeatInfo]
    user_langs: dict[int, str]
    hand_writes: int = 0  # the table's _Memory.hand_writes when this was read

    @property
    def lang(self) -> str:
        return self.group.language if self.group else DEFAULT_LANGUAGE

    @property
    def title(self) -> str:
        return (self.group.title if self.group else None) or str(self.table.group_id)

    def seat_of(self, user_id: int) -> SeatRecord | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def seat(self, n: int) -> SeatRecord | None:
        return next((s for s in self.seats if s.seat == n), None)


@dataclass
class _Memory:
    """What the process remembers about a table between actions; all of it can be lost safely."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    auto_passed: set[int] = field(default_factory=set)  # shown as 要不起 until the trick ends
    due: datetime | None = None
    # The state last committed, pickled, and the version it belongs to. Parsing a match from JSON on every
    # read was most of a move's cost; unpickling is a fifth of that. Kept as bytes, not as a Match, because
    # the live matches of a thousand tables were half of what every full garbage collection walked, each
    # a pause of the loop (bench_load, 1,000 tables: a full collection took 60-110 ms, now about 45 ms).
    frozen: bytes | None = None
    version: int | None = None
    # Hand message ids this process has written: a snapshot read before one of them holds an old id.
    hand_writes: int = 0

    def remember(self, version: int, state: Any) -> None:
        if isinstance(state, Match):
            self.frozen, self.version = pickle.dumps(state, pickle.HIGHEST_PROTOCOL), version
        else:
            self.forget()

    def forget(self) -> None:
        self.frozen, self.version = None, None

    def thaw(self) -> Match | None:
        """A copy of the state remembered, the caller's own."""
        return None if self.frozen is None else pickle.loads(self.frozen)

    def armed(self, planned: Sequence[tuple[str, datetime]], on_armed: Any) -> datetime | None:
        """Note the deadlines armed for the version shown; the turn's is the one the table displays."""
        self.due = next((at for kind, at in planned if kind == "timeout"), None)
        if on_armed is not None:
            for _kind, at in planned:
                on_armed(at)
        return self.due


class Tables:
    def __init__(self, bot: Bot, uow: UnitOfWorkFactory, outbox: Outbox) -> None:
        self.bot = bot
        self.uow = uow
        self.outbox = outbox
        self._memory: dict[int, _Memory] = {}
        self.on_deadline_armed: Any = None  # set by the scheduler: callable(due_at)

    def memory(self, table_id: int) -> _Memory:
        return self._memory.setdefault(table_id, _Memory())

    # ------------------------------------------------------------------ reading

    async def snapshot(self, table_id: int) -> Snapshot:
        # One unit of work for the table, its seats, group and players: a connection from the pool is what
        # a busy bot waits for. The state is read and parsed only when the version is not the one in memory.
        mem = self.memory(table_id)
        hand_writes = mem.hand_writes
        async with self.uow() as uow:
            scene = await uow.tables.scene(table_id)
            if scene is None:
                raise TableNotFound(table_id)
            table, group, seats, users = scene.table, scene.group, scene.seats, scene.users
            if table.version == mem.version:
                state = mem.thaw()
            else:
                stored = await uow.tables.get(table_id)
                if stored is None:
                    raise TableNotFound(table_id)
                # Read again with its state: the version may have moved on in between.
                table = stored
                state = None if table.state is None else kind_named(table.kind).load(table.state)
                mem.remember(table.version, state)
        infos: dict[int, render.SeatInfo] = {}
        langs: dict[int, str] = {}
        lang = group.language if group else DEFAULT_LANGUAGE
        for s in seats:
            if s.user_id is not None:
                user = users.get(s.user_id)
                name = user.name if user else str(s.user_id)
                langs[s.seat] = normalise(user.language if user else None)
                infos[s.seat] = render.SeatInfo(s.seat, name, autoplay=s.autoplay, user_id=s.user_id)
            else:
                infos[s.seat] = render.SeatInfo(s.seat, t(lang, "Computer {n}", n=s.seat + 1), computer=True)
        return Snapshot(
            table, group, seats, state if isinstance(state, Match) else None, infos, langs, hand_writes
        )

    async def open_table_of(self, group_id: int) -> TableRecord | None:
        async with self.uow() as uow:
            return await uow.tables.open_in_group(group_id)

    # ------------------------------------------------------------------ the lobby

    async def show_lobby(
        self, table_id: int, *, new_message: bool = False, old_message_gone: bool = False
    ) -> None:
        snap = await self.snapshot(table_id)
        rules = snap.table.rules
        text = render.lobby_text(snap.lang, snap.infos, _rules_name(rules), _timeout(snap.group))
        markup = render.lobby_keyboard(snap.lang, table_id, snap.table.version, snap.infos)
        await self.show_group(snap, text, markup, new_message=new_message, old_message_gone=old_message_gone)

    async def show_group(
        self,
        snap: Snapshot,
        text: str,
        markup: InlineKeyboardMarkup | None,
        *,
        new_message: bool = False,
        old_message_gone: bool = False,
    ) -> None:
        group_id, mid = snap.table.group_id, snap.table.table_message_id
        if mid is not None and not new_message:
            self.outbox.edit(group_id, mid, text, markup)
            return
        if mid is not None and not old_message_gone:
            self.outbox.drop_keyboard(group_id, mid)
        message_id = await self.outbox.send(group_id, text, markup)
        if message_id is not None:
            await self.remember_table_message(snap.table.id, message_id)

    async def remember_table_message(self, table_id: int, message_id: int) -> None:
        async with self.uow() as uow:
            await uow.tables.set_table_message(table_id, message_id)
            await uow.commit()

    # ------------------------------------------------------------------ starting

    async def begin(self, table_id: int, version: int) -> None:
        """Fill the empty seats with computer players and deal the match's first round."""
        snap = await self.snapshot(table_id)
        if snap.table.version != version:
            raise VersionConflict(table_id, version, snap.table.version)
        taken = {s.seat for s in snap.seats}
        for seat in range(6):
            if seat not in taken:
                version = await store.take_seat(
                    self.uow, table_id, version, seat, computer_level=DEFAULT_COMPUTER
                )
        await store.start_round(self.uow, table_id, version)
        await self.settle(table_id, [])

    async def next_round(self, table_id: int, version: int) -> None:
        applied = await store.next_round(self.uow, table_id, version)
        await self.settle(table_id, list(applied.events))

    # ------------------------------------------------------------------ acting

    async def act(
        self,
        table_id: int,
        seat: int,
        action_text: str,
        *,
        version: int | None = None,
        actor: str = "player",
        update_id: int | None = None,
        seen: Snapshot | None = None,
        from_message: int | None = None,
    ) -> store.Applied:
        """One action of a seat, the computers and automatic passes that follow it, and the views.

        A player's own move and what follows it up to the next player's decision are one unit of work;
        a time-out's move goes alone (it may put the seat on 托管, which the moves after it must see).
        `seen`: the snapshot the caller just read, used when it is still the version in memory (the
        version check in the unit of work catches anything that moved since). `from_message`: the
        private message the player tapped in, his hand message from now on.
        """
        mem = self.memory(table_id)
        async with mem.lock:
            if actor == "player":
                fresh = (
                    seen is not None
                    and seen.table.version == mem.version
                    and seen.hand_writes == mem.hand_writes
                )
                snap = seen if fresh and seen is not None else await self.snapshot(table_id)
                stretch = await self._play(
                    snap, mem, version, action_text, seat, actor, update_id, from_message
                )
                await self._render(stretch.snap, stretch.events, stretch.acted, stretch.due)
                return stretch.first
            applied = await store.apply_action(
                self.uow,
                table_id,
                version if version is not None else (await self.snapshot(table_id)).table.version,
                action_text,
                seat=seat,
                actor=actor,  # type: ignore[arg-type]
                update_id=update_id,
            )
            mem.remember(applied.version, applied.state)
            self._note_passes(mem, applied.events, auto=False)
        await self.settle(table_id, list(applied.events), acted={seat})
        return applied

    def _note_passes(self, mem: _Memory, events: Sequence[Event], *, auto: bool) -> None:
        for e in events:
            if e.kind == "trick_won":
                mem.auto_passed.clear()
            elif e.kind == "passed" and auto and e.seat is not None:
                mem.auto_passed.add(e.seat)

    async def settle(self, table_id: int, events: list[Event], *, acted: set[int] | None = None) -> None:
        """Play the computer seats, the seats on 托管 and the automatic passes, then render and arm the timer."""
        mem = self.memory(table_id)
        async with mem.lock:
            snap = await self.snapshot(table_id)
            match = snap.state
            action = None
            if match is not None and snap.table.status == "playing" and match.current_player is not None:
                action, actor = self._automatic(match, snap.seat(match.current_player), snap, 0)
            if action is None:
                await self._render(snap, events, set(acted or ()), await self._arm(snap, mem))
                return
            stretch = await self._play(snap, mem, snap.table.version, str(action), None, actor, None, None)
            stretch.events[:0] = events
            stretch.acted.update(acted or ())
            await self._render(stretch.snap, stretch.events, stretch.acted, stretch.due)

    async def _play(
        self,
        snap: Snapshot,
        mem: _Memory,
        version: int | None,
        action_text: str,
        seat: int | None,
        actor: str,
        update_id: int | None,
        from_message: int | None,
    ) -> _Stretch:
        """An action and every automatic move after it, committed together; the snapshot to show after.

        The stretch plays on `snap.state` itself (each snapshot holds its own copy): `snap` is spent.
        """
        if snap.state is None:
            raise NoRoundInPlay(snap.table.id)
        if version is None:
            version = snap.table.version
        tapped_in = None
        if actor == "player" and seat is not None:
            old = snap.seat(seat)
            if from_message is not None and old is not None and old.hand_message_id != from_message:
                # The message tapped came after the id this snapshot holds (its id was still on its way
                # to the database, perhaps in another process): it is the one to edit from now on.
                tapped_in = from_message
            snap = _back(snap, seat, tapped_in)  # what the unit of work writes for the seat
        planned: list[tuple[str, datetime]] = []

        def plan(state: Any) -> list[tuple[str, datetime]]:
            planned[:] = self._deadlines(snap, state)
            return planned

        decided = 0

        def follow(state: Any) -> tuple[str, str] | None:
            nonlocal decided
            cur = state.current_player
            if not isinstance(state, Match) or cur is None:
                return None
            decided += 1
            action, by = self._automatic(state, snap.seat(cur), snap, decided)
            return None if action is None else (str(action), by)

        try:
            applied = await store.apply_actions(
                self.uow,
                snap.table.id,
                version,
                action_text,
                seat=seat,
                actor=actor,  # type: ignore[arg-type]
                update_id=update_id,
                deadlines=plan,
                follow=follow,
                # The snapshot's own copy (every snapshot thaws its own), changed in place by the stretch;
                # a snapshot is not used again after it was played from.
                state=snap.state,
                hand_message_id=tapped_in,
            )
        except VersionConflict:
            if version == snap.table.version:
                mem.forget()  # another writer moved the table on: read it afresh next time
            raise
        last = applied[-1]
        mem.remember(last.version, last.state)
        events: list[Event] = []
        acted: set[int] = set()
        for i, a in enumerate(applied):
            s = snap.seat(a.seat) if a.seat is not None else None
            if s is None or s.user_id is None:
                self._note_passes(mem, a.events, auto=False)
            else:
                # 要不起 is shown for a player's pass that nobody tapped (not for 托管's passes).
                automatic = i > 0 or actor != "player"
                self._note_passes(mem, a.events, auto=automatic and not s.autoplay and a.action == _PASS)
                acted.add(s.seat)
            events.extend(a.events)
        after = replace(
            snap, table=replace(snap.table, version=last.version, last_seq=last.seq), state=last.state
        )
        due = mem.armed(planned, self.on_deadline_armed)
        return _Stretch(after, events, acted, due, applied[0])

    def _automatic(
        self, match: Match, seat: SeatRecord | None, snap: Snapshot, nth: int
    ) -> tuple[Action | None, str]:
        """The move nobody has to tap for (the nth of a stretch), with who made it; (None, "player") to wait."""
        cur = match.current_player
        assert cur is not None
        if seat is None or seat.user_id is None or seat.autoplay:
            level = (
                COMPUTER_LEVELS.get(seat.computer_level or DEFAULT_COMPUTER, "heuristic")
                if seat
                else "heuristic"
            )
            # Seeded by where the table is, so the same position gets the same move.
            rng = random.Random((snap.table.id * 1_000_003 + snap.table.version) * 4_099 + nth)
            return computer_action(match, make_player(level), rng), "computer"
        if match.phase == P_PLAY and match.round is not None and match.round.only_pass():
            return Action(PASS), "computer"  # R4.3: 要不起
        return None, "player"

    async def timeout(self, table_id: int, version: int) -> bool:
        """The seat to act ran out of time: the computer plays his turn (托管)."""
        snap = await self.snapshot(table_id)
        match = snap.state
        if snap.table.version != version or match is None or match.current_player is None:
            log.debug("time-out of table %s v%s is moot (now v%s)", table_id, version, snap.table.version)
            return False
        cur = match.current_player
        rng = random.Random(table_id * 7919 + version)
        action = computer_action(match, make_player("heuristic"), rng)
        try:
            await self.act(table_id, cur, str(action), version=version, actor="timeout")
        except (VersionConflict, NotYourTurn, NoRoundInPlay, IllegalAction):
            return False
        seat = snap.seat(cur)
        if seat is not None and seat.user_id is not None:
            lang = snap.user_langs.get(cur, DEFAULT_LANGUAGE)
            self.outbox.send(
                seat.user_id,
                t(
                    lang,
                    "[{group}] Time is up: the computer played for you ({action}). Tap anything or send /back to play again.",
                    group=snap.title,
                    action=render.action_label(lang, action),
                ),
            )
        return True

    async def remind(self, table_id: int, version: int) -> None:
        snap = await self.snapshot(table_id)
        match = snap.state
        if snap.table.version != version or match is None or match.current_player is None:
            return
        seat = snap.seat(match.current_player)
        if seat is not None and seat.user_id is not None and not seat.autoplay:
            lang = snap.user_langs.get(seat.seat, DEFAULT_LANGUAGE)
            self.outbox.send(
                seat.user_id,
                t(lang, "[{group}] Reminder: it is your turn; half of your time is gone.", group=snap.title),
            )

    async def set_autoplay(self, table_id: int, seat: int, on: bool) -> None:
        async with self.uow() as uow:
            await uow.seats.set_autoplay(table_id, seat, on)
            if not on:
                await uow.seats.player_is_back(table_id, seat)
            await uow.commit()

    # ------------------------------------------------------------------ rendering

    async def _render(
        self, snap: Snapshot, events: list[Event], acted: set[int], due: datetime | None
    ) -> None:
        match = snap.state
        if match is None:
            return
        mem = self.memory(snap.table.id)
        lang = snap.lang
        cur = match.current_player
        text = render.table_text(lang, match, snap.infos, auto_passed=mem.auto_passed, due=due)
        await self.show_group(snap, text, None)
        # The big moments of this stretch of play go out as one message: a group may get only 20 a minute.
        news = render.announcements(lang, events, snap.infos)
        markup = None
        if any(e.kind == "round_over" for e in events):
            news.append(render.summary_text(lang, match, snap.infos))
            markup = InlineKeyboardMarkup(
                [
                    [
                        InlineKeyboardButton(
                            t(lang, "Next round"),
                            callback_data=Callback(LOBBY, snap.table.id, snap.table.version, "next").encode(),
                        ),
                        InlineKeyboardButton(
                            t(lang, "Stop"),
                            callback_data=Callback(LOBBY, snap.table.id, snap.table.version, "stop").encode(),
                        ),
                    ]
                ]
            )
        if news:
            self.outbox.send(snap.table.group_id, render.join_messages(news), markup)
        # Private views: those who acted see their new hand; the seat to act gets a new message with buttons.
        for seat in snap.seats:
            if seat.user_id is None:
                continue
            plang = snap.user_langs.get(seat.seat, DEFAULT_LANGUAGE)
            turn = seat.seat == cur and not seat.autoplay
            if turn:
                await self.send_turn(snap, seat, EMPTY)
            elif seat.seat in acted or (events and any(e.kind == "dealt" for e in events)):
                text = render.hand_text(plang, match, seat.seat, snap.infos, group_title=snap.title)
                if seat.hand_message_id is not None:
                    self.outbox.edit(seat.user_id, seat.hand_message_id, text, None)
                else:
                    await self._new_hand_message(snap, seat, text, None)

    async def send_turn(self, snap: Snapshot, seat: SeatRecord, selection: Counts) -> None:
        match = snap.state
        assert match is not None and seat.user_id is not None
        plang = snap.user_langs.get(seat.seat, DEFAULT_LANGUAGE)
        text = render.hand_text(
            plang, match, seat.seat, snap.infos, group_title=snap.title, selection=selection, your_turn=True
        )
        markup = render.hand_keyboard(
            plang, match, seat.seat, snap.table.id, snap.table.version, selection, match.legal_actions()
        )
        # What a turn message says once the turn is past: the hand as it was, without buttons.
        past = render.hand_text(plang, match, seat.seat, snap.infos, group_title=snap.title)
        if seat.hand_message_id is not None:
            self.outbox.edit(seat.user_id, seat.hand_message_id, past, None)
        await self._new_hand_message(snap, seat, text, markup, past=past)

    async def _new_hand_message(
        self,
        snap: Snapshot,
        seat: SeatRecord,
        text: str,
        markup: InlineKeyboardMarkup | None,
        *,
        past: str | None = None,
    ) -> None:
        assert seat.user_id is not None
        message_id = await self.outbox.send(seat.user_id, text, markup)
        if message_id is None:
            return
        mem = self.memory(snap.table.id)
        async with self.uow() as uow:
            mine = await uow.seats.claim_hand_message(
                snap.table.id, seat.seat, message_id, snap.table.version
            )
            await uow.commit()
        mem.hand_writes += 1
        if not mine and past is not None:
            # The table moved on while this message was on its way (a move typed at once, or made in
            # another process), and the views of that move went to the older message: no buttons of a
            # turn that is over may stay behind.
            self.outbox.edit(seat.user_id, message_id, past, None)

    def _deadlines(self, snap: Snapshot, state: Any) -> list[tuple[str, datetime]]:
        """The deadlines to arm when `state` is reached: a turn time (and a reminder) for a player to act."""
        cur = state.current_player if isinstance(state, Match) else None
        seat = snap.seat(cur) if cur is not None else None
        if seat is None or seat.user_id is None or seat.autoplay:
            return []
        timeout = _timeout(snap.group)
        now = utcnow()
        planned = [("timeout", now + timedelta(seconds=timeout))]
        if timeout >= REMIND_FROM_S:
            planned.append(("reminder", now + timedelta(seconds=timeout / 2)))
        return planned

    async def _arm(self, snap: Snapshot, mem: _Memory) -> datetime | None:
        """Arm the deadlines of the version shown, unless they are armed already (a re-render keeps them)."""
        planned = self._deadlines(snap, snap.state)
        if not planned:
            return None
        async with self.uow() as uow:
            await uow.deadlines.drop_outdated(snap.table.id, snap.table.version)
            for kind, at in planned:
                await uow.deadlines.arm(snap.table.id, snap.table.version, kind, at)
            await uow.commit()
            armed = [
                d for d in await uow.deadlines.of_table(snap.table.id) if d.version == snap.table.version
            ]
        return mem.armed([(d.kind, d.due_at) for d in armed], self.on_deadline_armed)

    async def on_blocked(self, user_id: int) -> None:
        """A 403 from a player's private chat: his seats go on 托管 and each group is told how to fix it."""
        async with self.uow() as uow:
            table_ids = await uow.seats.tables_of_user(user_id)
        for table_id in table_ids:
            snap = await self.snapshot(table_id)
            seat = snap.seat_of(user_id)
            if seat is None or seat.autoplay:
                continue
            await self.set_autoplay(table_id, seat.seat, True)
            name = snap.infos[seat.seat].name
            me = await self.bot.get_me()
            self.outbox.send(
                snap.table.group_id,
                t(
                    snap.lang,
                    "{name} cannot get private messages from me (blocked, or never started me): the seat is on 托管. {name}: open @{bot}, send /start, then /back.",
                    name=name,
                    bot=me.username,
                ),
            )
            await self.settle(table_id, [])


_PASS = str(Action(PASS))


@dataclass
class _Stretch:
    """What a committed stretch of moves leaves to show."""

    snap: Snapshot  # the table as committed
    events: list[Event]
    acted: set[int]  # the players' seats that moved (their hands changed)
    due: datetime | None
    first: store.Applied


def _back(snap: Snapshot, seat: int, hand_message_id: int | None) -> Snapshot:
    """The snapshot with the seat's player acting himself: off 托管, his time-outs forgotten, and the
    message he acted from as his hand message when it is a newer one."""

    def acting(s: SeatRecord) -> SeatRecord:
        s = replace(s, autoplay=False, consecutive_timeouts=0)
        return s if hand_message_id is None else replace(s, hand_message_id=hand_message_id)

    return replace(
        snap,
        seats=[acting(s) if s.seat == seat else s for s in snap.seats],
        infos={n: replace(i, autoplay=False) if n == seat else i for n, i in snap.infos.items()},
    )


def _timeout(group: GroupRecord | None) -> int:
    return group.turn_timeout_seconds if group else 120


def _rules_name(rules: dict[str, Any]) -> str:
    current = Rules.from_dict(rules)
    for preset in ("qingdao", "classic", "zhangqiu"):
        if Rules.preset(preset) == current:
            return preset
    return "custom"


__all__ = ["Tables", "Snapshot"]
