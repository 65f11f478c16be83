"""Seating and playing through the use cases, as the bot would (shared by tests/table and tests/storage)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine import Action
from table import Outcome, Table, TableService

SIX = (101, 102, 103, 104, 105, 106)


@dataclass(frozen=True)
class Seated:
    table_id: int
    group_id: int
    humans: tuple[int, ...]


async def seated_table(
    service: TableService, group_id: int, humans: tuple[int, ...] = SIX, *, computers: bool = True
) -> Seated:
    """A lobby in ``group_id`` with ``humans`` in the first seats and, if asked, computer players in the rest."""
    await service.deliveries.see_group(group_id, f"group {group_id}")
    for user_id in humans:
        await service.deliveries.see_user(user_id, f"player {user_id}", "en")
    opened = await service.lobby.open(group_id, humans[0] if humans else None)
    table_id = opened.table.id
    for seat, user_id in enumerate(humans):
        await service.lobby.join(table_id, user_id, seat)
    if computers and len(humans) < 6:
        await service.lobby.add_computers(table_id, humans[0] if humans else None)
    return Seated(table_id, group_id, humans)


async def begin(service: TableService, seated: Seated) -> Outcome:
    return await service.lobby.begin(seated.table_id, seated.humans[0])


async def followed(service: TableService, outcome: Outcome) -> Outcome:
    """The computers' moves after a player's move stored alone, made as the clock makes them (a follow-on):
    the outcome the table ends in."""
    while outcome.pending:
        follow = await service.clock.follow(outcome.table.id, outcome.table.version)
        if follow is None:
            break
        outcome = follow
    return outcome


async def act(service: TableService, table: Table, user: int, action: Action, **kw: object) -> Outcome:
    """A player's move by button (with the version it was drawn for), and the computers' moves after it."""
    return await followed(
        service, await service.play.act(table.id, user, action, version=table.version, **kw)
    )  # type: ignore[arg-type]


async def past_the_questions(service: TableService, table: Table) -> Table:
    """The questions before the first lead (asked of every seat at once) answered with each seat's first
    choice, by its player: the table at the first lead."""
    while table.match is not None and table.match.step not in ("play", "over"):
        first = table.match.legal_actions()[0]
        table = (await act(service, table, user_to_act(table), first)).table
    return table


def user_to_act(table: Table) -> int:
    seat = table.to_act
    assert seat is not None and seat.user_id is not None, "the table waits on a player"
    return seat.user_id


async def play_one(service: TableService, table: Table, rng: random.Random) -> Outcome:
    """A random legal move of the player to act, by button (with the version it was drawn for)."""
    assert table.match is not None
    action = rng.choice(table.match.legal_actions())
    return await act(service, table, user_to_act(table), action)


async def ends_round(service: TableService, table: Table, action: Action) -> bool:
    """Would this move end the round, with what the table plays after it? Asked of a copy: the engine and the
    table's policy decide (the computers as the service would have them move), not the test."""
    from table import policy
    from table.stretch import computer_move

    assert table.match is not None
    match = table.match.copy()
    match.apply(action)
    salt = 1
    while (found := policy.automatic(table, match)) is not None:
        seat, how = found
        nxt = (
            policy.PASS_ACTION
            if how == "pass"
            else await computer_move(service.context, table, match, seat, salt)
        )
        match.apply(nxt, seat)
        salt += 1
    return match.round_over


async def play_until(
    service: TableService, table_id: int, rng: random.Random, *, stop_before_end: bool
) -> Table:
    """Random legal moves until the round ends, or until the next move would end it."""
    table = await service.reads.load(table_id)
    while table.match is not None and not table.match.round_over:
        action = rng.choice(table.match.legal_actions())
        if stop_before_end and await ends_round(service, table, action):
            return table
        table = (await act(service, table, user_to_act(table), action)).table
    return table


async def last_move(service: TableService, table: Table) -> tuple[Action, int]:
    """A move that ends the round from here, and who makes it."""
    assert table.match is not None
    for action in table.match.legal_actions():
        if await ends_round(service, table, action):
            return action, user_to_act(table)
    raise AssertionError("no move ends the round from here")
