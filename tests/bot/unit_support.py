"""The stage of the bot side's fast tests: the real :class:`table.TableService` on the in-memory unit of work
(tests/table/table_fakes.py), the real outbox on a recording bot and a clock the test moves, and the real
presenter between them. No emulator, no HTTP, no sleeping.

Every call into the table layer the bot side's fast tests make is here, in :class:`Stage`'s methods: the
table layer's names change in one place.
"""

from __future__ import annotations

import asyncio
import random
import sys
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from fake_clock import FakeClock
from recording_bot import BOT_USERNAME, RecordingBot

from bot.outbox import Outbox
from bot.pace import Pace
from bot.present import Presenter
from engine import Action
from engine.actions import PASS, PLAY, ActionKind
from engine.match import NO_DECLARE, NO_REVOLT, P_DECLARE, P_HEAD, P_PLAY, P_REVOLT, WUTOU
from table import Outcome, SettingChange, Table, TableService

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "table"))
from table_fakes import Clock, FakeStore  # tests/table, put on the path just above

GROUP = -100_200
TITLE = "Friends"
NAMES = {101: "Ann", 102: "Bob", 103: "Cai", 104: "Dan", 105: "Eve", 106: "Fay"}
SIX = tuple(NAMES)


@dataclass
class Stage:
    store: FakeStore = field(default_factory=FakeStore)
    when: Clock = field(default_factory=Clock)  # the table layer's and the presenter's time (datetime)
    time: FakeClock = field(default_factory=FakeClock)  # the outbox's (Telegram's pace)
    pace: Pace = field(default_factory=Pace)  # Telegram's limits, as the bot keeps them by default
    deal: int = 5  # the seed of the first round's deal
    # The bot: a fleet's bots are stages sharing one store (and one ``when``), each with its own id and name.
    bot_id: int = 0
    username: str = BOT_USERNAME

    def __post_init__(self) -> None:
        self.service = TableService(self.store.uow, bot_id=self.bot_id, clock=self.when)
        self.bot = RecordingBot(clock=self.time.time, username=self.username)
        self.outbox = Outbox(self.bot.as_bot(), self.pace, clock=self.time)
        self.presenter = Presenter(self.outbox, self.service, self.username, clock=self.when)

    # ------------------------------------------------------------------ showing, and letting it go out

    async def show(self, outcome: Outcome | None, *, tapped: int | None = None) -> None:
        """Show the outcome as the desk does, and let everything it queued reach the recording bot; where the
        computers' moves follow it (a follow-on), made and shown as the desk's clock makes them, at once."""
        if outcome is not None:
            await self.presenter.show(outcome, tapped=tapped)
            while outcome is not None and outcome.pending:
                outcome = await self.service.clock.follow(outcome.table.id, outcome.table.version)
                if outcome is not None:
                    await self.presenter.show(outcome)
        await self.drain()

    async def show_all(self, outcomes: list[Outcome]) -> None:
        for outcome in outcomes:
            await self.presenter.show(outcome)
        await self.drain()

    async def drain(self) -> None:
        """Let Telegram's pace pass until every queued call has been made and its answer taken in."""
        idle = asyncio.ensure_future(self.presenter.idle())
        while not idle.done() or self.outbox.busy():
            await self.time.run()
            await self.time.settle()
        await idle

    # ------------------------------------------------------------------ the table layer

    async def load(self, table_id: int) -> Table:
        return await self.service.reads.load(table_id, with_due=True)

    async def open(self, by: int) -> Outcome:
        await self.service.deliveries.see_group(GROUP, TITLE)
        # An English group, so that what the tests read is the message ids (Chinese is tested elsewhere).
        await self.service.settings.change(GROUP, by, SettingChange("language", "en"), is_admin=True)
        # The classic preset: no 宣点 before the first lead, so a round starts with a play.
        await self.service.settings.change(GROUP, by, SettingChange("preset", "classic"), is_admin=True)
        await self.see(by)
        return await self.service.lobby.open(GROUP, by)

    async def see(self, user_id: int) -> None:
        await self.service.deliveries.see_user(user_id, NAMES.get(user_id, str(user_id)), "en")

    async def join(self, table_id: int, user_id: int, seat: int | None = None) -> Outcome:
        await self.see(user_id)
        return await self.service.lobby.join(table_id, user_id, seat)

    async def add_computers(self, table_id: int, by: int) -> Outcome:
        return await self.service.lobby.add_computers(table_id, by)

    async def begin(self, table_id: int, by: int) -> Outcome:
        """The match begun, on the stage's deal (``deal``): the table layer draws a seed of its own, and a
        test that could pass or fail with the cards would be no test."""
        with _seeded(self.deal):
            return await self.service.lobby.begin(table_id, by)

    async def act(self, table: Table, action: Action) -> Outcome:
        """The seat to act makes this move, by a button drawn for the table's version."""
        seat = table.to_act
        assert seat is not None and seat.user_id is not None, "the table waits on a player"
        return await self.service.play.act(table.id, seat.user_id, action, version=table.version)

    async def time_out(self, table: Table) -> Outcome | None:
        """The seat to act let his time run out (his deadline fired)."""
        return await self.service.clock.time_out(table.id, table.version)

    async def remind(self, table: Table) -> Outcome | None:
        return await self.service.clock.remind(table.id, table.version)

    async def nudge(self, table_id: int, by: int) -> Outcome:
        return await self.service.play.nudge(table_id, by)

    async def back(self, user_id: int, table_id: int) -> list[Outcome]:
        return await self.service.lobby.back(user_id, table_id)

    async def leave(self, table_id: int, user_id: int) -> Outcome:
        return await self.service.lobby.leave(table_id, user_id)

    async def blocked(self, user_id: int) -> list[Outcome]:
        return await self.service.deliveries.blocked(user_id)

    async def stop(self, table_id: int, by: int) -> Outcome:
        return await self.service.lobby.stop(table_id, by)

    async def next_round(self, table: Table, by: int) -> Outcome:
        return await self.service.play.next_round(table.id, by, table.version)

    # ------------------------------------------------------------------ scenes

    async def lobby(self, seats: dict[int, int], *, computers: bool = True) -> int:
        """A lobby with these players (seat -> user), the first of them its creator, each step shown."""
        creator = next(iter(seats.values()))
        opened = await self.open(creator)
        await self.show(opened)
        table_id = opened.table.id
        for n, user_id in seats.items():
            await self.show(await self.join(table_id, user_id, n))
        if computers and len(seats) < 6:
            await self.show(await self.add_computers(table_id, creator))
        return table_id

    async def in_play(self, seats: dict[int, int]) -> Table:
        """A round dealt and shown, past the decisions before the first lead (no 革命): the first lead waits."""
        table_id = await self.lobby(seats)
        await self.show(await self.begin(table_id, next(iter(seats.values()))))
        table = await self.load(table_id)
        while table.match is not None and table.match.phase != P_PLAY:
            phase = table.match.phase
            refusals: dict[str, ActionKind] = {P_REVOLT: NO_REVOLT, P_DECLARE: NO_DECLARE, P_HEAD: WUTOU}
            no = refusals[phase]
            outcome = await self.act(table, Action(no))
            await self.show(outcome, tapped=self.hand_message(outcome.table, table.to_act))
            table = await self.load(table_id)
        return table

    def hand_message(self, table: Table, seat: object) -> int | None:
        n = getattr(seat, "n", None)
        found = table.seat(n) if isinstance(n, int) else None
        return found.hand_message_id if found is not None else None

    async def to_the_last_move(self, table: Table, rng: random.Random) -> tuple[Table, Action]:
        """Random legal moves, each shown, until the seat to act has a move that ends the round: the table
        then, and that move (the table layer's own policy plays the computers, on a copy: the test decides
        no rule)."""
        from table_helpers import ends_round, last_move

        while True:
            assert table.match is not None
            action = rng.choice(table.match.legal_actions())
            if await ends_round(self.service, table, action):
                action, _user = await last_move(self.service, table)
                return table, action
            seat = table.to_act
            outcome = await self.act(table, action)
            await self.show(outcome, tapped=seat.hand_message_id if seat is not None else None)
            table = await self.load(table.id)


def _seeded(seed: int) -> AbstractContextManager[object]:
    """The table layer's next deal drawn from ``seed`` (it draws from ``secrets``)."""
    return mock.patch("table.lobby.secrets", SimpleNamespace(randbits=lambda _bits: seed))


def smallest_single(table: Table) -> Action:
    """The first lead's quietest move: the lowest single card (no gouji, no big moment)."""
    assert table.match is not None
    singles = [
        a for a in table.match.legal_actions() if a.kind == PLAY and a.cards is not None and sum(a.cards) == 1
    ]
    return min(singles, key=lambda a: a.cards.index(1) if a.cards else 0)


def quiet_move(table: Table) -> Action:
    """A move that makes no big moment: a pass where there is a play to beat, else the lowest single."""
    assert table.match is not None
    legal = table.match.legal_actions()
    return next((a for a in legal if a.kind == PASS), None) or smallest_single(table)
