"""The database a storage test runs on; playing rounds through the service layer, and checking stored
rounds against their logs. (Not in conftest.py: tests/bot has a conftest too, and only one module can be
imported as `conftest`.)"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from engine import Round, Rules
from storage import make_engine, service
from storage.aggregates import kind_named
from storage.uow import UnitOfWorkFactory


@dataclass
class Database:
    backend: str
    url: str
    engine_kwargs: dict[str, Any]
    engine: AsyncEngine
    uow: UnitOfWorkFactory
    path: Path | None  # the SQLite file

    def new_engine(self) -> AsyncEngine:
        """Another engine on the same database, as a restarted bot or a second worker would have."""
        return make_engine(self.url, **self.engine_kwargs)


HUMANS = (101, 102)  # users seated at 0 and 1 in `seated_table`; the other seats are computer players


@dataclass
class Seated:
    table_id: int
    group_id: int
    version: int


async def seated_table(uow: UnitOfWorkFactory, group_id: int, humans: tuple[int, ...] = HUMANS) -> Seated:
    """A table in `group_id` with `humans` in the first seats and computer players in the rest."""
    async with uow() as u:
        await u.groups.ensure(group_id, title=f"group {group_id}")
        for user_id in humans:
            await u.users.ensure(user_id, name=f"player {user_id}", language="en")
        await u.commit()
    table = await service.open_table(uow, group_id, rules=Rules.preset("qingdao").to_dict())
    version = table.version
    for seat in range(6):
        if seat < len(humans):
            version = await service.take_seat(uow, table.id, version, seat, user_id=humans[seat])
        else:
            version = await service.take_seat(uow, table.id, version, seat, computer_level=1)
    return Seated(table.id, group_id, version)


def pick(state: Round, rng: random.Random) -> str:
    return str(rng.choice(state.legal_actions()))


def ends_round(state: Round, action: str) -> bool:
    """Would this action end the round? Asked of a copy, so the engine decides, not the test."""
    from engine import Action

    copy = Round.from_json(state.to_json())
    copy.apply(Action.parse(action))
    return copy.is_over


async def play_until(
    uow: UnitOfWorkFactory,
    table_id: int,
    version: int,
    state: Round,
    rng: random.Random,
    *,
    stop_before_end: bool,
) -> tuple[int, Round, service.Applied | None]:
    """Play random legal actions; stop at the end of the round, or just before its last action."""
    last = None
    while not state.is_over:
        action = pick(state, rng)
        if stop_before_end and ends_round(state, action):
            return version, state, last
        last = await service.apply_action(uow, table_id, version, action)
        assert last.version == version + 1
        version, state = last.version, last.state
    return version, state, last


async def play_round(
    uow: UnitOfWorkFactory, table_id: int, version: int, rng: random.Random, seed: int | None = None
) -> tuple[int, service.Applied]:
    dealt = await service.start_round(
        uow, table_id, version, seed=seed if seed is not None else rng.randrange(2**62)
    )
    version, _, last = await play_until(uow, table_id, dealt.version, dealt.state, rng, stop_before_end=False)
    assert last is not None and last.round_over
    return version, last


async def assert_every_round_rebuilds(uow: UnitOfWorkFactory) -> None:
    """Every stored round replays from its seed and log: to the saved state, or to its recorded result."""
    async with uow() as u:
        for table in await u.tables.all():
            entries = await u.actions.of_table(table.id)
            assert [e.seq for e in entries] == list(range(1, table.last_seq + 1)), (
                "log has a gap or duplicate"
            )
            for info in await u.rounds.list(table.id):
                rebuilt = await service.rebuild_round(u, table.id, info.round_no)
                if info.round_no == table.round_no:
                    assert table.state is not None
                    assert rebuilt == kind_named(table.kind).load(table.state)
                if info.finished_at is not None:
                    assert rebuilt.is_over
                    assert list(rebuilt.places) == info.places
                    assert rebuilt.scores() == info.scores
                else:
                    assert not rebuilt.is_over
