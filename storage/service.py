"""The operations the bot performs, each one unit of work: all of it is committed, or none of it.

Every change to a table names the version the caller saw (the one its button was drawn for); a stale
version raises VersionConflict and changes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy.exc import IntegrityError

from storage.aggregates import Aggregate, default_rules, kind_named
from storage.errors import (
    AlreadyProcessed,
    NoRoundInPlay,
    NotYourTurn,
    RoundInProgress,
    SeatTaken,
    TableAlreadyOpen,
    TableNotFound,
    VersionConflict,
)
from storage.models import utcnow
from storage.records import SeatRecord, TableRecord
from storage.uow import UnitOfWork, UnitOfWorkFactory

# Who made the move: the player himself, the computer because his time ran out, or the computer for a
# computer seat or a seat already on 托管.
Actor = Literal["player", "timeout", "computer"]

# DESIGN.md: a player who misses two turns in a row stays 托管 until he taps anything again.
AUTOPLAY_AFTER_TIMEOUTS = 2

# Deadlines to arm for the new version, decided from the new state: (kind, due time) pairs.
DeadlinePlan = Callable[[Aggregate], Iterable[tuple[str, datetime]]]


@dataclass(frozen=True)
class Applied:
    """An accepted action, as committed."""

    table_id: int
    version: int  # the table's new version
    round_no: int
    seq: int  # its place in the table's log
    seat: int | None  # who acted
    action: str  # canonical text, as logged
    events: Sequence[Any]  # what the engine reported, for rendering
    state: Aggregate
    round_over: bool
    places: list[int | None] | None  # seats by place (头科 first), as the engine gives them; None mid-round
    scores: list[int] | None  # per seat


@dataclass(frozen=True)
class Dealt:
    table_id: int
    version: int
    round_no: int
    seed: int
    state: Aggregate


@dataclass(frozen=True)
class TableView:
    """A table as stored: what the bot re-renders after a restart."""

    table: TableRecord
    seats: list[SeatRecord]
    state: Aggregate | None


async def _versioned_table(
    uow: UnitOfWork, table_id: int, expected_version: int, *, with_state: bool = True
) -> TableRecord:
    table = await uow.tables.get(table_id, with_state=with_state)
    if table is None:
        raise TableNotFound(table_id)
    if table.version != expected_version:
        raise VersionConflict(table_id, expected_version, table.version)
    return table


async def _arm(
    uow: UnitOfWork, table_id: int, version: int, plan: DeadlinePlan | None, state: Aggregate
) -> None:
    await uow.deadlines.drop_outdated(table_id, version)
    if plan is not None:
        for kind, due_at in plan(state):
            await uow.deadlines.arm(table_id, version, kind, due_at)


# What plays on after an action without anyone tapping (a computer seat, a seat on 托管, an automatic
# pass): given the state after the last move, the next move as (action text, actor), or None to stop.
FollowUp = Callable[[Aggregate], "tuple[str, Actor] | None"]

MAX_FOLLOW_UPS = 2000  # a whole round of computer moves stays far below this


async def apply_action(
    uow_factory: UnitOfWorkFactory,
    table_id: int,
    expected_version: int,
    action_text: str,
    *,
    seat: int | None = None,
    actor: Actor = "player",
    update_id: int | None = None,
    deadlines: DeadlinePlan | None = None,
) -> Applied:
    """Apply one action to a table's round: load, let the engine apply it, save state and version, log it.

    `seat`, when given, must be the seat whose turn it is (NotYourTurn otherwise). The engine's
    IllegalAction and the action parser's errors propagate unchanged, with nothing written.
    """
    applied = await apply_actions(
        uow_factory,
        table_id,
        expected_version,
        action_text,
        seat=seat,
        actor=actor,
        update_id=update_id,
        deadlines=deadlines,
    )
    return applied[0]


async def apply_actions(
    uow_factory: UnitOfWorkFactory,
    table_id: int,
    expected_version: int,
    action_text: str,
    *,
    seat: int | None = None,
    actor: Actor = "player",
    update_id: int | None = None,
    deadlines: DeadlinePlan | None = None,
    follow: FollowUp | None = None,
    state: Aggregate | None = None,
    hand_message_id: int | None = None,
) -> list[Applied]:
    """Apply an action and the moves `follow` names after it, all in one unit of work: one version step,
    one write of the state, every move in the log. Checks and errors as for apply_action (on the first
    action); a follow-up the engine refuses rolls everything back.

    `state`, when given, is the caller's copy of the stored state at `expected_version` (it is read from
    the database otherwise); it is changed in place, and is worthless if this raises. Every Applied
    returned carries the table's version and state after the whole stretch.

    `hand_message_id`: the message the player acted from, written as his hand message with the move
    (the id the bot stored may be an older one while the message tapped was still being recorded).
    """
    async with uow_factory() as uow:
        try:
            table = await _versioned_table(uow, table_id, expected_version, with_state=state is None)
        except VersionConflict:
            # A redelivered update whose first delivery moved the table on is not a stale button.
            if update_id is not None and await uow.updates.seen(update_id):
                raise AlreadyProcessed(update_id) from None
            raise
        if table.status != "playing" or (state is None and table.state is None):
            raise NoRoundInPlay(table_id)
        kind = kind_named(table.kind)
        if state is None:
            assert table.state is not None
            state = kind.load(table.state)
        if state.is_over:
            raise NoRoundInPlay(table_id)
        mover = state.current_player
        if seat is not None and seat != mover:
            raise NotYourTurn(seat, mover)
        moves: list[tuple[int | None, str, Sequence[Any]]] = []
        next_move: tuple[str, Actor] | None = (action_text, actor)
        while next_move is not None and len(moves) <= MAX_FOLLOW_UPS:
            mover = state.current_player
            action = kind.parse_action(next_move[0])
            moves.append((mover, str(action), state.apply(action)))
            next_move = None if follow is None or state.is_over else follow(state)

        # The writes come last, with nothing slow between them: on SQLite they hold the database's one
        # write lock from the first to the commit.
        if update_id is not None and not await uow.updates.record(update_id):
            raise AlreadyProcessed(update_id)
        seq = table.last_seq + len(moves)
        # The conditional UPDATE is the gate that lets one writer of this version through.
        version = await uow.tables.save(table_id, expected_version, state=state.to_json(), last_seq=seq)
        await uow.actions.append_many(
            table_id, table.round_no, [(table.last_seq + 1 + i, m[0], m[1]) for i, m in enumerate(moves)]
        )
        first_mover = moves[0][0]
        if first_mover is not None:
            if actor == "timeout":
                await uow.seats.count_timeout(table_id, first_mover, AUTOPLAY_AFTER_TIMEOUTS)
            elif actor == "player":
                await uow.seats.player_is_back(table_id, first_mover)
                if hand_message_id is not None:
                    await uow.seats.set_hand_message(table_id, first_mover, hand_message_id)

        places = scores = None
        if state.is_over:
            places, scores = list(state.places), state.scores()
            await _count_finished_round(uow, table, places, scores)
        await _arm(uow, table_id, version, deadlines, state)
        await uow.commit()
    last = len(moves) - 1
    return [
        Applied(
            table_id=table_id,
            version=version,
            round_no=table.round_no,
            seq=table.last_seq + 1 + i,
            seat=mover,
            action=text,
            events=events,
            state=state,
            round_over=state.is_over and i == last,
            places=places if i == last else None,
            scores=scores if i == last else None,
        )
        for i, (mover, text, events) in enumerate(moves)
    ]


async def _count_finished_round(
    uow: UnitOfWork, table: TableRecord, places: list[int | None], scores: list[int] | None
) -> None:
    if not await uow.rounds.finish(table.id, table.round_no, places, scores):
        return
    await uow.groups.count_finished_round(table.group_id)
    # The engine lists seats by place: places[0] is 头科's seat, places[5] 大落's.
    place_of = {seat: place for place, seat in enumerate(places, start=1) if seat is not None}
    # Users in id order: two tables ending at once then lock shared players' rows in the same order
    # (PostgreSQL would otherwise abort one of them as a deadlock).
    seats = sorted(
        (s for s in await uow.seats.list(table.id) if s.user_id is not None), key=lambda s: s.user_id or 0
    )
    for seat in seats:
        assert seat.user_id is not None
        place = place_of.get(seat.seat)
        points = scores[seat.seat] if scores is not None else 0
        await uow.users.record_result(seat.user_id, table.group_id, place, points)


async def start_round(
    uow_factory: UnitOfWorkFactory,
    table_id: int,
    expected_version: int,
    *,
    seed: int | None = None,
    deadlines: DeadlinePlan | None = None,
) -> Dealt:
    """Deal a new round at the table from `seed` (a fresh random one by default), which is stored."""
    async with uow_factory() as uow:
        table = await _versioned_table(uow, table_id, expected_version)
        if table.status == "closed":
            raise TableNotFound(table_id)
        kind = kind_named(table.kind)
        if table.state is not None and not kind.load(table.state).is_over:
            raise RoundInProgress(table_id)
        if seed is None:
            seed = secrets.randbits(63)  # fits a signed BIGINT
        state = kind.deal(table.rules, seed)
        round_no = table.round_no + 1
        version = await uow.tables.save(
            table_id, expected_version, state=state.to_json(), round_no=round_no, status="playing"
        )
        await uow.rounds.add(table_id, round_no, table.kind, seed, table.rules)
        await _arm(uow, table_id, version, deadlines, state)
        await uow.commit()
    return Dealt(table_id=table_id, version=version, round_no=round_no, seed=seed, state=state)


async def open_table(
    uow_factory: UnitOfWorkFactory,
    group_id: int,
    *,
    created_by: int | None = None,
    rules: dict[str, Any] | None = None,
    kind: str = "round",
) -> TableRecord:
    """Open the group's table (a lobby), with the group's house rules unless `rules` is given."""
    async with uow_factory() as uow:
        await uow.groups.ensure(group_id)
        if rules is None:
            group = await uow.groups.get(group_id)
            rules = (
                group.house_rules if group is not None and group.house_rules is not None else default_rules()
            )
        try:
            table = await uow.tables.add(group_id, rules, kind=kind, created_by=created_by)
        except IntegrityError:
            raise TableAlreadyOpen(group_id) from None
        await uow.commit()
    return table


async def take_seat(
    uow_factory: UnitOfWorkFactory,
    table_id: int,
    expected_version: int,
    seat: int,
    *,
    user_id: int | None = None,
    computer_level: int | None = None,
) -> int:
    """Seat a user (who must exist, see UserRepository.ensure) or a computer player; returns the new version."""
    if (user_id is None) == (computer_level is None):
        raise ValueError("a seat holds either a user or a computer level")
    async with uow_factory() as uow:
        table = await _versioned_table(uow, table_id, expected_version)
        if any(
            s.seat == seat or (user_id is not None and s.user_id == user_id)
            for s in await uow.seats.list(table_id)
        ):
            raise SeatTaken(table_id, seat)
        version = await uow.tables.save(table_id, table.version)
        await uow.seats.put(table_id, seat, user_id=user_id, computer_level=computer_level)
        await uow.commit()
    return version


async def leave_seat(uow_factory: UnitOfWorkFactory, table_id: int, expected_version: int, seat: int) -> int:
    async with uow_factory() as uow:
        table = await _versioned_table(uow, table_id, expected_version)
        version = await uow.tables.save(table_id, table.version)
        await uow.seats.remove(table_id, seat)
        await uow.commit()
    return version


async def close_table(uow_factory: UnitOfWorkFactory, table_id: int, expected_version: int) -> int:
    """Close the table (its record and log stay); the group may open a new one."""
    async with uow_factory() as uow:
        table = await _versioned_table(uow, table_id, expected_version)
        version = await uow.tables.save(table_id, table.version, status="closed", closed_at=utcnow())
        await uow.deadlines.drop_outdated(table_id, version + 1)
        await uow.commit()
    return version


async def load_table(uow_factory: UnitOfWorkFactory, table_id: int) -> TableView:
    async with uow_factory() as uow:
        table = await uow.tables.get(table_id)
        if table is None:
            raise TableNotFound(table_id)
        seats = await uow.seats.list(table_id)
    state = None if table.state is None else kind_named(table.kind).load(table.state)
    return TableView(table=table, seats=seats, state=state)


NEXT_ROUND = "next"  # the log entry of a chained kind's next deal (Match.replay reads the same word)


async def next_round(
    uow_factory: UnitOfWorkFactory,
    table_id: int,
    expected_version: int,
    *,
    deadlines: DeadlinePlan | None = None,
) -> Applied:
    """Deal the next round of a chained aggregate (a match): its debts are paid, its new seed is its own."""
    async with uow_factory() as uow:
        table = await _versioned_table(uow, table_id, expected_version)
        if table.state is None or table.status != "playing":
            raise NoRoundInPlay(table_id)
        kind = kind_named(table.kind)
        state = kind.load(table.state)
        if not kind.chained:
            raise RoundInProgress(table_id)
        if not state.is_over:
            raise RoundInProgress(table_id)
        events = state.next_round()  # type: ignore[attr-defined]
        seq = table.last_seq + 1
        round_no = table.round_no + 1
        version = await uow.tables.save(
            table_id, expected_version, state=state.to_json(), last_seq=seq, round_no=round_no
        )
        first = await uow.rounds.get(table_id, 1)
        await uow.rounds.add(table_id, round_no, table.kind, first.seed if first else 0, table.rules)
        await uow.actions.append(table_id, seq, round_no, None, NEXT_ROUND)
        await _arm(uow, table_id, version, deadlines, state)
        await uow.commit()
    return Applied(
        table_id=table_id,
        version=version,
        round_no=round_no,
        seq=seq,
        seat=None,
        action=NEXT_ROUND,
        events=events,
        state=state,
        round_over=False,
        places=None,
        scores=None,
    )


async def move_group(uow_factory: UnitOfWorkFactory, old_id: int, new_id: int) -> bool:
    """A group became a supergroup (Telegram's ChatMigrated): its settings, tables and statistics follow.
    False when there was nothing (left) to move."""
    async with uow_factory() as uow:
        moved = await uow.groups.move(old_id, new_id)
        await uow.commit()
    return moved


async def rebuild_round(uow: UnitOfWork, table_id: int, round_no: int) -> Aggregate:
    """Replay a round from its stored seed, rules and log: the same state the table saved."""
    info = await uow.rounds.get(table_id, round_no)
    if info is None:
        raise NoRoundInPlay(table_id)
    kind = kind_named(info.kind)
    if kind.chained:
        first = await uow.rounds.get(table_id, 1)
        assert first is not None
        state = kind.deal(first.rules, first.seed)
        for entry in await uow.actions.of_table(table_id):
            if entry.round_no > round_no:
                break
            if entry.action == NEXT_ROUND:
                state.next_round()  # type: ignore[attr-defined]
            else:
                state.apply(kind.parse_action(entry.action))
        return state
    state = kind.deal(info.rules, info.seed)
    for entry in await uow.actions.of_round(table_id, round_no):
        state.apply(kind.parse_action(entry.action))
    return state
