"""An in-memory unit of work with the repositories of table/ports.py: the use cases run on it without SQL or
Telegram, in milliseconds. It keeps the semantics the table layer relies on: nothing is visible before
commit, a save names the version it read (VersionConflict otherwise), one open table per group, deadlines
claimed once, an update id recorded once. Records come back as storage's frozen records, as from SQL."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self, Unpack

from engine import Match
from storage.errors import TableAlreadyOpen, VersionConflict
from storage.records import (
    ChatLimits,
    DeadlineRecord,
    GroupRecord,
    GroupSettings,
    LoggedAction,
    PlayerRecord,
    RoundInfo,
    SeatChanges,
    SeatRecord,
    Standing,
    Stats,
    TableChanges,
    TableRecord,
    TableScene,
    UserRecord,
)

if TYPE_CHECKING:
    from table.ports import UnitOfWorkFactory

NO_STATS = Stats(0, 0, (0, 0, 0, 0, 0, 0))


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class _Data:
    groups: dict[int, GroupRecord] = field(default_factory=dict)
    users: dict[int, UserRecord] = field(default_factory=dict)
    members: dict[tuple[int, int], Stats] = field(default_factory=dict)
    tables: dict[int, dict[str, Any]] = field(default_factory=dict)  # the row, the match as JSON
    seats: dict[tuple[int, int], SeatRecord] = field(default_factory=dict)
    rounds: dict[tuple[int, int], RoundInfo] = field(default_factory=dict)
    actions: list[LoggedAction] = field(default_factory=list)
    deadlines: dict[int, DeadlineRecord] = field(default_factory=dict)
    updates: set[tuple[int, int]] = field(default_factory=set)  # (bot, update id)
    retry_until: dict[tuple[int, int], datetime] = field(default_factory=dict)  # (bot, chat)
    blocked: set[tuple[int, int]] = field(default_factory=set)  # (bot, chat)


class FakeStore:
    """What the database holds, shared by every unit of work made by :meth:`uow`."""

    def __init__(self) -> None:
        self.data = _Data()
        self.commits = 0
        self._ids = itertools.count(1)

    def uow(self) -> FakeUnitOfWork:
        return FakeUnitOfWork(self)

    def next_id(self) -> int:
        return next(self._ids)


class _Repo:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self.uow = uow

    @property
    def d(self) -> _Data:
        assert self.uow.data is not None, "used outside `async with`"
        return self.uow.data


def _add_stats(stats: Stats, place: int | None, points: int, won: bool) -> Stats:
    places = list(stats.places)
    if place is not None:
        places[place - 1] += 1
    return Stats(stats.rounds_played + 1, stats.points + points, tuple(places), stats.team_wins + won)  # type: ignore[arg-type]


class FakeGroups(_Repo):
    async def get(self, group_id: int) -> GroupRecord | None:
        return self.d.groups.get(group_id)

    async def ensure(self, group_id: int, title: str | None = None) -> None:
        known = self.d.groups.get(group_id)
        if known is None:
            self.d.groups[group_id] = GroupRecord(group_id, title, "zh", 120, None, 0)
        elif title is not None and known.title != title:
            self.d.groups[group_id] = replace(known, title=title)

    async def update_settings(self, group_id: int, **changes: Unpack[GroupSettings]) -> None:
        values = {name: value for name, value in changes.items() if value is not None}  # as storage does
        self.d.groups[group_id] = replace(self.d.groups[group_id], **values)

    async def move(self, old_id: int, new_id: int) -> bool:
        old = self.d.groups.pop(old_id, None)
        if old is None:
            return False
        self.d.groups.setdefault(new_id, replace(old, id=new_id))
        for row in self.d.tables.values():
            if row["group_id"] == old_id:
                row["group_id"] = new_id
        return True

    async def count_finished_round(self, group_id: int) -> None:
        g = self.d.groups[group_id]
        self.d.groups[group_id] = replace(g, rounds_played=g.rounds_played + 1)


class FakeUsers(_Repo):
    async def get(self, user_id: int) -> UserRecord | None:
        return self.d.users.get(user_id)

    async def ensure(self, user_id: int, name: str, language: str | None = None) -> None:
        known = self.d.users.get(user_id)
        self.d.users[user_id] = UserRecord(
            user_id, name, language, known.stats if known else NO_STATS, known.time_zone if known else None
        )

    async def set_time_zone(self, user_id: int, zone: str | None) -> None:
        self.d.users[user_id] = replace(self.d.users[user_id], time_zone=zone)

    async def record_result(
        self, user_id: int, group_id: int, place: int | None, points: int, won: bool = False
    ) -> None:
        user = self.d.users[user_id]
        self.d.users[user_id] = replace(user, stats=_add_stats(user.stats, place, points, won))
        key = (group_id, user_id)
        self.d.members[key] = _add_stats(self.d.members.get(key, NO_STATS), place, points, won)

    async def leaderboard(self, group_id: int, limit: int = 10) -> list[Standing]:
        rows = [
            Standing(u, self.d.users[u].name, st)
            for (g, u), st in self.d.members.items()
            if g == group_id and st.rounds_played
        ]
        return sorted(rows, key=lambda r: (-r.stats.points, r.stats.rounds_played, r.user_id))[:limit]

    async def stats_in_group(self, group_id: int, user_id: int) -> Stats | None:
        return self.d.members.get((group_id, user_id))


def _record(row: dict[str, Any], with_state: bool = True) -> TableRecord:
    state = row["state"] if with_state else None
    return TableRecord(
        id=row["id"],
        group_id=row["group_id"],
        status=row["status"],
        rules=row["rules"],
        match=None if state is None else Match.from_json(state),
        version=row["version"],
        round_no=row["round_no"],
        last_seq=row["last_seq"],
        created_by=row["created_by"],
        table_message_id=row["table_message_id"],
        marks=row["marks"],
        summary_message_id=row.get("summary_message_id"),
        thread_id=row.get("thread_id", 0),
        topic=row.get("topic"),
        bot_id=row.get("bot_id", 0),
    )


class FakeTables(_Repo):
    async def scene(self, table_id: int) -> TableScene | None:
        row = self.d.tables.get(table_id)
        if row is None:
            return None
        seats = sorted((s for (t, _), s in self.d.seats.items() if t == table_id), key=lambda s: s.seat)
        users = {
            s.user_id: PlayerRecord(u.id, u.name, u.language, u.time_zone)
            for s in seats
            if s.user_id is not None and (u := self.d.users.get(s.user_id)) is not None
        }
        group = self.d.groups.get(row["group_id"])
        if group is not None:
            # Whether the table's bot may write in its group, as storage joins it from chat_limits.
            group = replace(group, reachable=(row["bot_id"], row["group_id"]) not in self.d.blocked)
        return TableScene(_record(row, with_state=False), group, seats, users)

    async def get(self, table_id: int, *, with_state: bool = True) -> TableRecord | None:
        row = self.d.tables.get(table_id)
        return None if row is None else _record(row, with_state)

    async def open_in_group(self, group_id: int, thread_id: int = 0) -> TableRecord | None:
        return next(
            (
                _record(r)
                for r in self.d.tables.values()
                if r["group_id"] == group_id
                and r.get("thread_id", 0) == thread_id
                and r["status"] != "closed"
            ),
            None,
        )

    async def all_open(self, bot_id: int = 0) -> list[TableRecord]:
        return [
            _record(r)
            for _, r in sorted(self.d.tables.items())
            if r["status"] != "closed" and r["bot_id"] == bot_id
        ]

    async def waiting_without_deadline(self, bot_id: int = 0) -> list[int]:
        armed = {(d.table_id, d.version) for d in self.d.deadlines.values()}
        return sorted(
            t
            for t, r in self.d.tables.items()
            if r["status"] == "playing" and r["bot_id"] == bot_id and (t, r["version"]) not in armed
        )

    async def adopt(self, bot_id: int) -> int:
        legacy = [r for r in self.d.tables.values() if r["bot_id"] == 0]
        for row in legacy:
            row["bot_id"] = bot_id
        return len(legacy)

    async def all(self) -> list[TableRecord]:
        return [_record(r) for _, r in sorted(self.d.tables.items())]

    async def add(
        self,
        group_id: int,
        rules: dict[str, Any],
        *,
        created_by: int | None = None,
        thread_id: int = 0,
        topic: str | None = None,
        bot_id: int = 0,
    ) -> TableRecord:
        if await self.open_in_group(group_id, thread_id) is not None:
            raise TableAlreadyOpen(group_id)
        table_id = self.uow.store.next_id()
        self.d.tables[table_id] = {
            "id": table_id,
            "group_id": group_id,
            "thread_id": thread_id,
            "topic": topic,
            "bot_id": bot_id,
            "status": "lobby",
            "rules": rules,
            "state": None,
            "version": 0,
            "round_no": 0,
            "last_seq": 0,
            "created_by": created_by,
            "table_message_id": None,
            "marks": None,
            "closed_at": None,
        }
        return _record(self.d.tables[table_id])

    async def save(self, table_id: int, expected_version: int, **changes: Unpack[TableChanges]) -> int:
        row = self.d.tables.get(table_id)
        if row is None or row["version"] != expected_version:
            raise VersionConflict(table_id, expected_version)
        columns: dict[str, Any] = dict(changes)
        if "match" in columns:
            match = columns.pop("match")
            columns["state"] = None if match is None else match.to_json()
        row.update(columns, version=expected_version + 1)
        self.uow.saved[table_id] = expected_version
        return expected_version + 1

    async def set_table_message(self, table_id: int, message_id: int | None) -> None:
        self.d.tables[table_id]["table_message_id"] = message_id

    async def set_summary_message(self, table_id: int, message_id: int | None) -> None:
        self.d.tables[table_id]["summary_message_id"] = message_id

    async def set_marks(self, table_id: int, version: int, marks: dict[str, Any]) -> bool:
        row = self.d.tables[table_id]
        if row["version"] != version:
            return False
        row["marks"] = marks
        return True


class FakeSeats(_Repo):
    async def of_table(self, table_id: int) -> list[SeatRecord]:
        return sorted((s for (t, _), s in self.d.seats.items() if t == table_id), key=lambda s: s.seat)

    async def put(
        self, table_id: int, seat: int, *, user_id: int | None = None, computer_level: int | None = None
    ) -> None:
        if (table_id, seat) in self.d.seats:
            raise RuntimeError("seat taken (the primary key)")
        self.d.seats[(table_id, seat)] = SeatRecord(table_id, seat, user_id, computer_level, False, 0, None)

    async def remove(self, table_id: int, seat: int) -> bool:
        return self.d.seats.pop((table_id, seat), None) is not None

    async def update(self, table_id: int, seat: int, **changes: Unpack[SeatChanges]) -> None:
        self.d.seats[(table_id, seat)] = replace(self.d.seats[(table_id, seat)], **changes)

    async def claim_hand_message(
        self, table_id: int, seat: int, message_id: int, version: int, *, turn: bool = False
    ) -> bool:
        record = self.d.seats[(table_id, seat)]
        if self.d.tables[table_id]["version"] == version:
            self.d.seats[(table_id, seat)] = replace(
                record, hand_message_id=message_id, prompted_version=version if turn else None
            )
            return True
        return record.hand_message_id == message_id

    async def tables_of_user(self, user_id: int, bot_id: int = 0) -> list[int]:
        return sorted(
            t
            for (t, _), s in self.d.seats.items()
            if s.user_id == user_id
            and self.d.tables[t]["status"] != "closed"
            and self.d.tables[t]["bot_id"] == bot_id
        )


class FakeRounds(_Repo):
    async def add(self, table_id: int, round_no: int, seed: int, rules: dict[str, Any]) -> None:
        self.d.rounds[(table_id, round_no)] = RoundInfo(
            table_id, round_no, seed, rules, _now(), None, None, None
        )

    async def get(self, table_id: int, round_no: int) -> RoundInfo | None:
        return self.d.rounds.get((table_id, round_no))

    async def of_table(self, table_id: int) -> list[RoundInfo]:
        return [r for (t, _), r in sorted(self.d.rounds.items()) if t == table_id]

    async def finish(
        self, table_id: int, round_no: int, places: Sequence[int | None], scores: Sequence[int] | None
    ) -> bool:
        info = self.d.rounds[(table_id, round_no)]
        if info.finished_at is not None:
            return False
        self.d.rounds[(table_id, round_no)] = replace(
            info, finished_at=_now(), places=list(places), scores=None if scores is None else list(scores)
        )
        return True


class FakeActions(_Repo):
    async def append_many(
        self, table_id: int, round_no: int, moves: Sequence[tuple[int, int | None, str]]
    ) -> None:
        for seq, seat, action in moves:
            if any(a.table_id == table_id and a.seq == seq for a in self.d.actions):
                raise RuntimeError("duplicate seq (the primary key)")
            self.d.actions.append(LoggedAction(table_id, seq, round_no, seat, action, _now()))

    async def of_table(self, table_id: int) -> list[LoggedAction]:
        return sorted((a for a in self.d.actions if a.table_id == table_id), key=lambda a: a.seq)

    async def of_round(self, table_id: int, round_no: int) -> list[LoggedAction]:
        return [a for a in await self.of_table(table_id) if a.round_no == round_no]


class FakeDeadlines(_Repo):
    LEASE = timedelta(minutes=5)

    async def arm(self, table_id: int, version: int, kind: str, due_at: datetime) -> None:
        if any(
            (d.table_id, d.version, d.kind) == (table_id, version, kind) for d in self.d.deadlines.values()
        ):
            return
        n = self.uow.store.next_id()
        self.d.deadlines[n] = DeadlineRecord(n, table_id, version, kind, due_at, None, None)

    async def rearm(
        self, table_id: int, version: int, planned: Sequence[tuple[str, datetime]], *, others: bool = True
    ) -> None:
        for kind, due_at in planned:
            mine = [n for n, d in self.d.deadlines.items() if (d.table_id, d.kind) == (table_id, kind)]
            for n in mine:
                self.d.deadlines[n] = replace(
                    self.d.deadlines[n], version=version, due_at=due_at, claimed_by=None, claimed_at=None
                )
            if not mine:
                await self.arm(table_id, version, kind, due_at)
        if others:
            await self.drop_outdated(table_id, version)

    async def drop_outdated(self, table_id: int, version: int) -> None:
        for n, d in list(self.d.deadlines.items()):
            if d.table_id == table_id and d.version < version:
                del self.d.deadlines[n]

    async def of_table(self, table_id: int) -> list[DeadlineRecord]:
        return [d for _, d in sorted(self.d.deadlines.items()) if d.table_id == table_id]

    def _hosted(self, d: DeadlineRecord, bot_id: int) -> bool:
        return bool(self.d.tables[d.table_id]["bot_id"] == bot_id)

    async def pending(self, bot_id: int = 0) -> list[DeadlineRecord]:
        mine = (d for d in self.d.deadlines.values() if self._hosted(d, bot_id))
        return sorted(mine, key=lambda d: (d.due_at, d.id))

    async def claim_due(
        self, worker: str, *, bot_id: int = 0, now: datetime | None = None, lease: timedelta = LEASE
    ) -> list[DeadlineRecord]:
        now = now or _now()
        claimed = []
        for n, d in sorted(self.d.deadlines.items(), key=lambda kv: (kv[1].due_at, kv[0])):
            if not self._hosted(d, bot_id):
                continue
            if d.due_at <= now and (
                d.claimed_by is None or d.claimed_at is None or d.claimed_at < now - lease
            ):
                self.d.deadlines[n] = replace(d, claimed_by=worker, claimed_at=now)
                claimed.append(self.d.deadlines[n])
        return claimed

    async def release(self, deadline: DeadlineRecord) -> bool:
        d = self.d.deadlines.get(deadline.id)
        if d is None or (d.table_id, d.version, d.kind, d.claimed_by) != (
            deadline.table_id,
            deadline.version,
            deadline.kind,
            deadline.claimed_by,
        ):
            return False
        self.d.deadlines[deadline.id] = replace(d, claimed_by=None, claimed_at=None)
        return True

    async def done(self, deadline: DeadlineRecord) -> None:
        d = self.d.deadlines.get(deadline.id)
        if d is not None and (d.table_id, d.version, d.kind) == (
            deadline.table_id,
            deadline.version,
            deadline.kind,
        ):
            del self.d.deadlines[deadline.id]


class FakeChats(_Repo):
    async def read(self, bot_id: int = 0) -> ChatLimits:
        retry = {chat: until for (bot, chat), until in self.d.retry_until.items() if bot == bot_id}
        return ChatLimits(retry, frozenset(chat for bot, chat in self.d.blocked if bot == bot_id))

    async def retry_until(self, chat_id: int, until: datetime, bot_id: int = 0) -> None:
        self.d.retry_until[(bot_id, chat_id)] = until

    async def blocked(self, chat_id: int, blocked: bool, bot_id: int = 0) -> None:
        if blocked:
            self.d.blocked.add((bot_id, chat_id))
        else:
            self.d.blocked.discard((bot_id, chat_id))

    async def is_blocked(self, chat_id: int, bot_id: int = 0) -> bool:
        return (bot_id, chat_id) in self.d.blocked

    async def adopt(self, bot_id: int) -> int:
        known = {chat for bot, chat in (*self.d.blocked, *self.d.retry_until) if bot == bot_id}
        legacy = {chat for bot, chat in (*self.d.blocked, *self.d.retry_until) if bot == 0} - known
        for chat in legacy:
            if (0, chat) in self.d.blocked:
                self.d.blocked.discard((0, chat))
                self.d.blocked.add((bot_id, chat))
            if (0, chat) in self.d.retry_until:
                self.d.retry_until[(bot_id, chat)] = self.d.retry_until.pop((0, chat))
        return len(legacy)


class FakeUpdates(_Repo):
    async def record(self, update_id: int, bot_id: int = 0) -> bool:
        if (bot_id, update_id) in self.d.updates:
            return False
        self.d.updates.add((bot_id, update_id))
        return True

    async def seen(self, update_id: int, bot_id: int = 0) -> bool:
        return (bot_id, update_id) in self.d.updates

    async def adopt(self, bot_id: int) -> int:
        legacy = {u for b, u in self.d.updates if b == 0} - {u for b, u in self.d.updates if b == bot_id}
        self.d.updates -= {(0, u) for u in legacy}
        self.d.updates |= {(bot_id, u) for u in legacy}
        return len(legacy)


class FakeUnitOfWork:
    """A copy of the store's data taken on entry, written back on commit; dropped otherwise (a rollback)."""

    def __init__(self, store: FakeStore) -> None:
        self.store = store
        self.data: _Data | None = None
        self.saved: dict[int, int] = {}  # table id -> the version this unit of work read and saved over
        self.groups = FakeGroups(self)
        self.users = FakeUsers(self)
        self.tables = FakeTables(self)
        self.seats = FakeSeats(self)
        self.rounds = FakeRounds(self)
        self.actions = FakeActions(self)
        self.deadlines = FakeDeadlines(self)
        self.updates = FakeUpdates(self)
        self.chats = FakeChats(self)

    async def __aenter__(self) -> Self:
        self.data = copy.deepcopy(self.store.data)
        self.saved = {}
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.data = None

    async def commit(self) -> None:
        assert self.data is not None, "commit() outside `async with`"
        # The database's WHERE version = … decides at the write; here, at the commit: a save over a version
        # another unit of work committed meanwhile loses.
        for table_id, expected in self.saved.items():
            if self.store.data.tables[table_id]["version"] != expected:
                raise VersionConflict(table_id, expected)
        self.store.data = self.data
        self.store.commits += 1
        self.data = copy.deepcopy(self.data)
        self.saved = {}


class Clock:
    """A clock the test moves: deadlines are armed from it."""

    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


if TYPE_CHECKING:
    # The fake is checked against the port, as the real unit of work is (bot/app.py hands one to the table).
    _port: UnitOfWorkFactory = FakeStore().uow
