"""Reading a table whole: storage's records made into a :class:`~table.model.Table`, and the match of the
version last committed kept by the process, so that a move does not parse the stored JSON again.
"""

from __future__ import annotations

import pickle
from typing import Literal, cast

from engine import Match
from storage.records import GroupRecord, SeatRecord, TableRecord, TableScene

from .errors import TableNotFound
from .model import Group, Marks, Seat, Table
from .ports import UnitOfWork


def group_of(record: GroupRecord | None, group_id: int) -> Group:
    if record is None:
        return Group(id=group_id)
    return Group(
        id=record.id,
        title=record.title,
        language=record.language,
        turn_seconds=record.turn_timeout_seconds,
        house_rules=record.house_rules,
        rounds_played=record.rounds_played,
        time_zone=record.time_zone,
        card_memory=record.card_memory,
        computer_level=record.computer_level,
        settings_message_id=record.settings_message_id,
        pinning=record.pinning,
        reachable=record.reachable,
    )


def seat_of(
    record: SeatRecord, name: str = "", language: str | None = None, time_zone: str | None = None
) -> Seat:
    return Seat(
        n=record.seat,
        user_id=record.user_id,
        name=name,
        language=language,
        computer_level=record.computer_level,
        autoplay=record.autoplay,
        timeouts=record.consecutive_timeouts,
        hand_message_id=record.hand_message_id,
        prompted=record.prompted_version,
        leaving=record.leaving,
        time_zone=time_zone,
    )


def table_of(record: TableRecord, scene: TableScene, match: Match | None) -> Table:
    seats = []
    for s in scene.seats:
        user = scene.users.get(s.user_id) if s.user_id is not None else None
        seats.append(
            seat_of(
                s,
                user.name if user else "",
                user.language if user else None,
                user.time_zone if user else None,
            )
        )
    return Table(
        id=record.id,
        group=group_of(scene.group, record.group_id),
        status=cast(Literal["lobby", "playing", "closed"], record.status),
        version=record.version,
        rules=record.rules,
        match=match,
        seats=tuple(seats),
        round_no=record.round_no,
        last_seq=record.last_seq,
        created_by=record.created_by,
        message_id=record.table_message_id,
        summary_message_id=record.summary_message_id,
        marks=Marks.from_json(record.marks),
        thread_id=record.thread_id,
        topic=record.topic,
        bot_id=record.bot_id,
    )


class MatchCache:
    """The match of each table's last committed version, pickled. Parsing a match from its JSON was most of a
    move's cost; unpickling is a fifth of that. Kept as bytes, not as Match objects: the live matches of a
    thousand tables were half of what every full garbage collection walked, each a pause of the loop
    (bench_load, 1,000 tables: a full collection took 60-110 ms, then about 45 ms). Safe to lose."""

    def __init__(self) -> None:
        self._frozen: dict[int, tuple[int, bytes]] = {}

    def get(self, table_id: int, version: int) -> Match | None:
        """A copy of the remembered match, the caller's own, if it is of this version."""
        hit = self._frozen.get(table_id)
        if hit is None or hit[0] != version:
            return None
        match: Match = pickle.loads(hit[1])
        return match

    def put(self, table_id: int, version: int, match: Match | None) -> None:
        if match is None:
            self._frozen.pop(table_id, None)
        else:
            self._frozen[table_id] = (version, pickle.dumps(match, pickle.HIGHEST_PROTOCOL))

    def forget(self, table_id: int) -> None:
        self._frozen.pop(table_id, None)


async def read_table(uow: UnitOfWork, table_id: int, cache: MatchCache, *, host: int) -> Table:
    """The table with its group, seats, players and match; its match is the caller's own to change. Only a
    table ``host`` hosts: another bot's table is no table for it (TableNotFound), whatever id a forged tap or
    a crafted link names (another bot's messages are not its to edit, nor its players' cards its to deal).

    One statement reads all but the match; the match comes from the cache when it holds this version,
    else with a second statement (and then the seats again if the table moved on in between)."""
    scene = await uow.tables.scene(table_id)
    if scene is None or scene.table.bot_id != host:
        raise TableNotFound(table_id)
    record = scene.table
    match = cache.get(table_id, record.version)
    if match is None and record.version > 0:
        full = await uow.tables.get(table_id)
        if full is None:
            raise TableNotFound(table_id)
        if full.version != record.version:
            scene = await uow.tables.scene(table_id) or scene
        record, match = full, full.match
        cache.put(table_id, record.version, match)
    return table_of(record, scene, match)
