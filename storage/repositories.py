"""Repositories: every SQL statement storage issues, one class per kind of row, all on one connection, in one transaction.

They never commit; the unit of work does (storage/uow.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from datetime import datetime, timedelta
from typing import Any, Unpack

from sqlalchemy import Table, and_, bindparam, delete, func, literal_column, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from engine import Match
from storage.errors import TableAlreadyOpen, VersionConflict
from storage.models import (
    ActionRecord,
    Base,
    ChatLimit,
    Deadline,
    GameTable,
    Group,
    GroupMember,
    ProcessedUpdate,
    RoundRecord,
    Seat,
    User,
    utcnow,
)
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


def _table_of(model: type[Base]) -> Table:
    # Declarative types __table__ as any FromClause (a model may be mapped to a join or a select); every
    # model of storage.models is declared with __tablename__, so each holds a Table.
    table = model.__table__
    assert isinstance(table, Table)
    return table


groups_t = _table_of(Group)
users_t = _table_of(User)
members_t = _table_of(GroupMember)
tables_t = _table_of(GameTable)
seats_t = _table_of(Seat)
rounds_t = _table_of(RoundRecord)
actions_t = _table_of(ActionRecord)
deadlines_t = _table_of(Deadline)
updates_t = _table_of(ProcessedUpdate)
chat_limits_t = _table_of(ChatLimit)


class _Repository:
    def __init__(self, connection: AsyncConnection, dialect: str) -> None:
        self.connection = connection
        self.dialect = dialect

    def _insert(self, table: Any) -> Any:
        # INSERT ... ON CONFLICT exists on both backends but is spelt by each dialect's own construct.
        return (postgresql.insert if self.dialect == "postgresql" else sqlite.insert)(table)

    def _prebuilt(self, key: Hashable, build: Callable[[], Any]) -> Any:
        """A statement built once per dialect and shape: building one on every call (coercions, cache
        key) cost more than running it, on the statements every move runs."""
        stmt = _PREBUILT.get((self.dialect, key))
        if stmt is None:
            stmt = _PREBUILT[(self.dialect, key)] = build()
        return stmt


_PREBUILT: dict[tuple[str, Hashable], Any] = {}


def _hosted_open(bot_id: int) -> Any:
    """The open tables of one bot (a fleet's bots share the database; each shows and moves its own)."""
    # Spelt as the partial index ix_tables_open_bot's condition, a literal and not a parameter: SQLite uses a
    # partial index only for a query whose WHERE holds its condition as written.
    return and_(tables_t.c.status != literal_column("'closed'"), tables_t.c.bot_id == bot_id)


def _of_host(bot_id: int) -> Any:
    """Deadlines of the tables one bot hosts: a correlated EXISTS, one statement with the claim, the table
    looked up by its key for each due deadline."""
    return (
        select(tables_t.c.id)
        .where(tables_t.c.id == deadlines_t.c.table_id, tables_t.c.bot_id == bot_id)
        .exists()
    )


async def _adopt(connection: AsyncConnection, table: Table, key: str, bot_id: int) -> int:
    """The rows of ``table`` kept before bots were told apart (bot 0) become ``bot_id``'s, but for a ``key``
    it has a row of its own for since; how many."""
    mine = table.alias("mine")
    known = select(mine.c[key]).where(mine.c.bot_id == bot_id, mine.c[key] == table.c[key]).exists()
    result = await connection.execute(update(table).where(table.c.bot_id == 0, ~known).values(bot_id=bot_id))
    return int(result.rowcount)


def _stats(row: Any) -> Stats:
    places = (row.place_1, row.place_2, row.place_3, row.place_4, row.place_5, row.place_6)  # 头科 first
    return Stats(rounds_played=row.rounds_played, points=row.points, places=places, team_wins=row.team_wins)


def _stat_increments(table: Any, place: int | None, points: int, won: bool) -> dict[str, Any]:
    # Increments in SQL, never read-modify-write: two tables of one player may finish at the same moment.
    values: dict[str, Any] = {
        "rounds_played": table.c.rounds_played + 1,
        "points": table.c.points + points,
        "team_wins": table.c.team_wins + int(won),
    }
    if place is not None:
        column = f"place_{place}"
        values[column] = table.c[column] + 1
    return values


def _group(row: Any) -> GroupRecord:
    return GroupRecord(
        id=row.id,
        title=row.title,
        language=row.language,
        turn_timeout_seconds=row.turn_timeout_seconds,
        house_rules=row.house_rules,
        rounds_played=row.rounds_played,
        time_zone=row.time_zone,
        card_memory=bool(row.card_memory),
        computer_level=row.computer_level,
        settings_message_id=row.settings_message_id,
        pinning=None if row.pinning is None else bool(row.pinning),
        # Only a table's scene reads it (for the bot that hosts the table): a group alone is no bot's.
        reachable=bool(getattr(row, "reachable", True)),
    )


# The statements of every tap, built once: building a statement cost about as much as running it.
_GROUP = select(groups_t).where(groups_t.c.id == bindparam("group_id"))


class GroupRepository(_Repository):
    async def get(self, group_id: int) -> GroupRecord | None:
        row = (await self.connection.execute(_GROUP, {"group_id": group_id})).first()
        return None if row is None else _group(row)

    async def ensure(self, group_id: int, title: str | None = None) -> None:
        """Create the group with default settings if it is new; keep its title current."""
        # As for users: no write when the group is known under this title (or no title is given).
        known = (
            await self.connection.execute(select(groups_t.c.title).where(groups_t.c.id == group_id))
        ).first()
        if known is not None and (title is None or known.title == title):
            return
        stmt = self._insert(groups_t).values(id=group_id, title=title, created_at=utcnow())
        if title is None:
            stmt = stmt.on_conflict_do_nothing(index_elements=[groups_t.c.id])
        else:
            stmt = stmt.on_conflict_do_update(index_elements=[groups_t.c.id], set_={"title": title})
        await self.connection.execute(stmt)

    async def update_settings(self, group_id: int, **changes: Unpack[GroupSettings]) -> None:
        """Write the settings given."""
        # A None never overwrites a setting, as when these were keywords that defaulted to None.
        values = {name: value for name, value in changes.items() if value is not None}
        if values:
            await self.connection.execute(update(groups_t).where(groups_t.c.id == group_id).values(**values))

    async def move(self, old_id: int, new_id: int) -> bool:
        """Carry a group over to its new chat id (a group that became a supergroup); False if it was moved."""
        old = (await self.connection.execute(select(groups_t).where(groups_t.c.id == old_id))).first()
        if old is None:
            return False
        values = {c.name: getattr(old, c.name) for c in groups_t.c if c.name != "id"}
        await self.connection.execute(
            self._insert(groups_t)
            .values(id=new_id, **values)
            .on_conflict_do_nothing(index_elements=[groups_t.c.id])
        )
        await self.connection.execute(
            update(tables_t).where(tables_t.c.group_id == old_id).values(group_id=new_id)
        )
        await self.connection.execute(
            update(members_t).where(members_t.c.group_id == old_id).values(group_id=new_id)
        )
        await self.connection.execute(delete(groups_t).where(groups_t.c.id == old_id))
        return True

    async def count_finished_round(self, group_id: int) -> None:
        await self.connection.execute(
            update(groups_t)
            .where(groups_t.c.id == group_id)
            .values(rounds_played=groups_t.c.rounds_played + 1)
        )


def _user(row: Any) -> UserRecord:
    return UserRecord(
        id=row.id, name=row.name, language=row.language, stats=_stats(row), time_zone=row.time_zone
    )


_USER = select(users_t).where(users_t.c.id == bindparam("user_id"))


class UserRepository(_Repository):
    async def get(self, user_id: int) -> UserRecord | None:
        row = (await self.connection.execute(_USER, {"user_id": user_id})).first()
        return None if row is None else _user(row)

    async def ensure(self, user_id: int, name: str, language: str | None = None) -> None:
        """Create the user if new; keep his Telegram name and language current."""
        # Called for nearly every update: reading first spares a write (SQLite's single write lock) when
        # nothing changed, which is almost always.
        known = (
            await self.connection.execute(
                select(users_t.c.name, users_t.c.language).where(users_t.c.id == user_id)
            )
        ).first()
        if known is not None and known.name == name and known.language == language:
            return
        stmt = self._insert(users_t).values(id=user_id, name=name, language=language, created_at=utcnow())
        await self.connection.execute(
            stmt.on_conflict_do_update(
                index_elements=[users_t.c.id],
                set_={"name": stmt.excluded.name, "language": stmt.excluded.language},
            )
        )

    async def set_time_zone(self, user_id: int, zone: str | None) -> None:
        await self.connection.execute(update(users_t).where(users_t.c.id == user_id).values(time_zone=zone))

    async def stats_in_group(self, group_id: int, user_id: int) -> Stats | None:
        row = (
            await self.connection.execute(
                select(members_t).where(members_t.c.group_id == group_id, members_t.c.user_id == user_id)
            )
        ).first()
        return None if row is None else _stats(row)

    async def record_result(
        self, user_id: int, group_id: int, place: int | None, points: int, won: bool = False
    ) -> None:
        """Count one finished round for the user, overall and in the group (``won``: his team's score > 0)."""
        await self.connection.execute(
            update(users_t)
            .where(users_t.c.id == user_id)
            .values(**_stat_increments(users_t, place, points, won))
        )
        first = {
            "group_id": group_id,
            "user_id": user_id,
            "rounds_played": 1,
            "points": points,
            "team_wins": int(won),
        }
        if place is not None:
            first[f"place_{place}"] = 1
        stmt = self._insert(members_t).values(**first)
        await self.connection.execute(
            stmt.on_conflict_do_update(
                index_elements=[members_t.c.group_id, members_t.c.user_id],
                set_=_stat_increments(members_t, place, points, won),
            )
        )

    async def leaderboard(self, group_id: int, limit: int = 10) -> list[Standing]:
        """The group's players by points, then by rounds played (fewest first)."""
        rows = await self.connection.execute(
            select(members_t, users_t.c.name)
            .join(users_t, users_t.c.id == members_t.c.user_id)
            .where(members_t.c.group_id == group_id, members_t.c.rounds_played > 0)
            .order_by(members_t.c.points.desc(), members_t.c.rounds_played, members_t.c.user_id)
            .limit(limit)
        )
        return [Standing(row.user_id, row.name, _stats(row)) for row in rows]


def _table(row: Any) -> TableRecord:
    state = getattr(row, "state", None)
    return TableRecord(
        id=row.id,
        group_id=row.group_id,
        status=row.status,
        rules=row.rules,
        match=None if state is None else Match.from_json(state),
        version=row.version,
        round_no=row.round_no,
        last_seq=row.last_seq,
        created_by=row.created_by,
        table_message_id=row.table_message_id,
        marks=row.marks,
        summary_message_id=row.summary_message_id,
        thread_id=row.thread_id,
        topic=row.topic,
        bot_id=row.bot_id,
    )


def _prefixed(table: Any, prefix: str) -> list[Any]:
    return [c.label(prefix + c.name) for c in table.c]


class _Unprefixed:
    """A joined row's columns of one table, under their own names."""

    __slots__ = ("_row", "_prefix")

    def __init__(self, row: Any, prefix: str) -> None:
        self._row, self._prefix = row, prefix

    def __getattr__(self, name: str) -> Any:
        return getattr(self._row, self._prefix + name)


_TABLE_HEAD = [c for c in tables_t.c if c.name != "state"]
_TABLE = select(tables_t).where(tables_t.c.id == bindparam("table_id"))
_TABLE_WITHOUT_STATE = select(*_TABLE_HEAD).where(tables_t.c.id == bindparam("table_id"))
# A table, its group (and whether the table's bot may write there), its seats and their players in one
# statement: what the bot reads before each move.
_SCENE = (
    select(
        *_TABLE_HEAD,
        *_prefixed(groups_t, "g_"),
        chat_limits_t.c.blocked_at.is_(None).label("g_reachable"),
        *_prefixed(seats_t, "s_"),
        users_t.c.id.label("u_id"),
        users_t.c.name.label("u_name"),
        users_t.c.language.label("u_language"),
        users_t.c.time_zone.label("u_time_zone"),
    )
    .select_from(
        tables_t.outerjoin(groups_t, groups_t.c.id == tables_t.c.group_id)
        .outerjoin(
            chat_limits_t,
            and_(chat_limits_t.c.bot_id == tables_t.c.bot_id, chat_limits_t.c.chat_id == tables_t.c.group_id),
        )
        .outerjoin(seats_t, seats_t.c.table_id == tables_t.c.id)
        .outerjoin(users_t, users_t.c.id == seats_t.c.user_id)
    )
    .where(tables_t.c.id == bindparam("table_id"))
    .order_by(seats_t.c.seat)
)


class TableRepository(_Repository):
    async def scene(self, table_id: int) -> TableScene | None:
        """The table (its state unread), its group, its seats in order and their players."""
        rows = (await self.connection.execute(_SCENE, {"table_id": table_id})).all()
        if not rows:
            return None
        first = rows[0]
        seats = [_seat(_Unprefixed(r, "s_")) for r in rows if r.s_seat is not None]
        users = {
            r.u_id: PlayerRecord(r.u_id, r.u_name, r.u_language, r.u_time_zone)
            for r in rows
            if r.u_id is not None
        }
        group = _group(_Unprefixed(first, "g_")) if first.g_id is not None else None
        return TableScene(table=_table(first), group=group, seats=seats, users=users)

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
        """A new table (a lobby) in the group's topic, hosted by ``bot_id``; TableAlreadyOpen if the topic has
        one open.

        The unique index on open tables decides, so two /new at once open one table. On PostgreSQL the
        failed INSERT spoils the transaction: a caller that gets TableAlreadyOpen leaves the unit of work."""
        now = utcnow()
        try:
            result = await self.connection.execute(
                tables_t.insert()
                .values(
                    group_id=group_id,
                    thread_id=thread_id,
                    topic=topic,
                    bot_id=bot_id,
                    kind="match",
                    status="lobby",
                    rules=rules,
                    version=0,
                    round_no=0,
                    last_seq=0,
                    created_by=created_by,
                    created_at=now,
                    updated_at=now,
                )
                .returning(*tables_t.c)
            )
        except IntegrityError:
            raise TableAlreadyOpen(group_id) from None
        return _table(result.one())

    async def get(self, table_id: int, *, with_state: bool = True) -> TableRecord | None:
        """The table; with_state=False leaves its state unread (None) for a caller that holds it already."""
        stmt = _TABLE if with_state else _TABLE_WITHOUT_STATE
        row = (await self.connection.execute(stmt, {"table_id": table_id})).first()
        return None if row is None else _table(row)

    async def open_in_group(self, group_id: int, thread_id: int = 0) -> TableRecord | None:
        """The open table of the group's topic (0: no topic, or General)."""
        row = (
            await self.connection.execute(
                select(tables_t).where(
                    tables_t.c.group_id == group_id,
                    tables_t.c.thread_id == thread_id,
                    tables_t.c.status != "closed",
                )
            )
        ).first()
        return None if row is None else _table(row)

    async def all_open(self, bot_id: int = 0) -> list[TableRecord]:
        """Every table the bot hosts that is still open: what it re-renders and re-arms at start-up."""
        rows = await self.connection.execute(
            select(tables_t).where(_hosted_open(bot_id)).order_by(tables_t.c.id)
        )
        return [_table(row) for row in rows]

    async def waiting_without_deadline(self, bot_id: int = 0) -> list[int]:
        """Tables the bot hosts in play that have no deadline armed for their current version: what its sweep
        looks at (the table layer decides whether they wait on somebody)."""
        armed = (
            select(deadlines_t.c.id)
            .where(deadlines_t.c.table_id == tables_t.c.id, deadlines_t.c.version == tables_t.c.version)
            .exists()
        )
        rows = await self.connection.execute(
            select(tables_t.c.id)
            .where(_hosted_open(bot_id), tables_t.c.status == "playing", ~armed)
            .order_by(tables_t.c.id)
        )
        return list(rows.scalars())

    async def adopt(self, bot_id: int) -> int:
        """The tables opened before bots were told apart (bot 0, migration 0005) are ``bot_id``'s from now on;
        how many there were."""
        result = await self.connection.execute(
            update(tables_t).where(tables_t.c.bot_id == 0).values(bot_id=bot_id)
        )
        return int(result.rowcount)

    async def all(self) -> list[TableRecord]:
        rows = await self.connection.execute(select(tables_t).order_by(tables_t.c.id))
        return [_table(row) for row in rows]

    async def set_table_message(self, table_id: int, message_id: int | None) -> None:
        """Which group message shows the table. Not a change of the game: the version (and so every button
        drawn for it) stays valid."""
        await self.connection.execute(
            update(tables_t).where(tables_t.c.id == table_id).values(table_message_id=message_id)
        )

    async def set_summary_message(self, table_id: int, message_id: int | None) -> None:
        """Which group message is the last round's summary (its buttons go when the next round is dealt)."""
        await self.connection.execute(
            update(tables_t).where(tables_t.c.id == table_id).values(summary_message_id=message_id)
        )

    async def set_marks(self, table_id: int, version: int, marks: dict[str, Any]) -> bool:
        """The table's marks, while it is at ``version`` (a /nudge: no new version, its buttons stay good);
        whether they were written."""
        result = await self.connection.execute(
            update(tables_t)
            .where(tables_t.c.id == table_id, tables_t.c.version == version)
            .values(marks=marks)
        )
        return result.rowcount == 1

    async def save(self, table_id: int, expected_version: int, **changes: Unpack[TableChanges]) -> int:
        """Write `changes` and bump the version, only if nobody else did since `expected_version` was read.
        ``match`` is written as the match's JSON (the ``state`` column).

        The WHERE clause is the whole concurrency control: of two writers holding the same version, the
        database lets exactly one match; the other sees rowcount 0 and gets VersionConflict.
        """
        columns: dict[str, Any] = dict(changes)
        if "match" in columns:
            match = columns.pop("match")
            columns["state"] = None if match is None else match.to_json()
        new_version = expected_version + 1
        names = tuple(sorted(columns))
        stmt = self._prebuilt(
            ("save", names),
            lambda: (
                update(tables_t)
                .where(tables_t.c.id == bindparam("w_id"), tables_t.c.version == bindparam("w_version"))
                .values(
                    version=bindparam("s_version"),
                    updated_at=bindparam("s_updated_at"),
                    **{name: bindparam(f"s_{name}") for name in names},
                )
            ),
        )
        params = {f"s_{name}": value for name, value in columns.items()}
        params.update(w_id=table_id, w_version=expected_version, s_version=new_version, s_updated_at=utcnow())
        result = await self.connection.execute(stmt, params)
        if result.rowcount != 1:
            raise VersionConflict(table_id, expected_version)
        return new_version


def _seat(row: Any) -> SeatRecord:
    return SeatRecord(
        table_id=row.table_id,
        seat=row.seat,
        user_id=row.user_id,
        computer_level=row.computer_level,
        autoplay=row.autoplay,
        consecutive_timeouts=row.consecutive_timeouts,
        hand_message_id=row.hand_message_id,
        prompted_version=row.prompted_version,
        leaving=bool(row.leaving),
    )


_SEATS = select(seats_t).where(seats_t.c.table_id == bindparam("table_id")).order_by(seats_t.c.seat)
_HAND_MESSAGE = (
    update(seats_t)
    .where(seats_t.c.table_id == bindparam("t"), seats_t.c.seat == bindparam("s"))
    .values(hand_message_id=bindparam("m"), prompted_version=bindparam("p"))
)

_HAND_MESSAGE_OF = select(seats_t.c.hand_message_id).where(
    seats_t.c.table_id == bindparam("t"), seats_t.c.seat == bindparam("s")
)
_HAND_MESSAGE_AT_VERSION = _HAND_MESSAGE.where(
    select(tables_t.c.id)
    .where(tables_t.c.id == bindparam("t"), tables_t.c.version == bindparam("v"))
    .with_for_update(read=True)
    .exists()
)


class SeatRepository(_Repository):
    async def of_table(self, table_id: int) -> list[SeatRecord]:
        rows = await self.connection.execute(_SEATS, {"table_id": table_id})
        return [_seat(row) for row in rows]

    async def tables_of_user(self, user_id: int, bot_id: int = 0) -> list[int]:
        """Open tables of the bot where the user sits (a player may play in several groups at once, and at
        other bots' tables, which are theirs to show him)."""
        rows = await self.connection.execute(
            select(seats_t.c.table_id)
            .join(tables_t, tables_t.c.id == seats_t.c.table_id)
            .where(seats_t.c.user_id == user_id, _hosted_open(bot_id))
            .order_by(seats_t.c.table_id)
        )
        return list(rows.scalars())

    async def put(
        self, table_id: int, seat: int, *, user_id: int | None = None, computer_level: int | None = None
    ) -> None:
        await self.connection.execute(
            seats_t.insert().values(
                table_id=table_id,
                seat=seat,
                user_id=user_id,
                computer_level=computer_level,
                autoplay=False,
                consecutive_timeouts=0,
            )
        )

    async def remove(self, table_id: int, seat: int) -> bool:
        result = await self.connection.execute(
            delete(seats_t).where(seats_t.c.table_id == table_id, seats_t.c.seat == seat)
        )
        return bool(result.rowcount)

    async def update(self, table_id: int, seat: int, **changes: Unpack[SeatChanges]) -> None:
        """Write the seat's changed fields (autoplay, consecutive_timeouts, hand_message_id …): decided by
        the table layer, written in the unit of work that saves the table's new version."""
        names = tuple(sorted(changes))
        stmt = self._prebuilt(
            ("seat", names),
            lambda: (
                update(seats_t)
                .where(seats_t.c.table_id == bindparam("w_t"), seats_t.c.seat == bindparam("w_s"))
                .values(**{name: bindparam(f"s_{name}") for name in names})
            ),
        )
        params = {f"s_{name}": value for name, value in changes.items()}
        params.update(w_t=table_id, w_s=seat)
        await self.connection.execute(stmt, params)

    async def claim_hand_message(
        self, table_id: int, seat: int, message_id: int, version: int, *, turn: bool = False
    ) -> bool:
        """Make `message_id` the seat's hand message if the table is still at `version`; whether it is his
        hand message now (a move since may have named it already, or left it behind).

        The table row is held (shared) while deciding, so a move committing the next version comes wholly
        before or after: a message sent for an old version never replaces the newer one.
        """
        params = {"t": table_id, "s": seat, "m": message_id, "v": version, "p": version if turn else None}
        result = await self.connection.execute(_HAND_MESSAGE_AT_VERSION, params)
        if result.rowcount == 1:
            return True
        current = await self.connection.execute(_HAND_MESSAGE_OF, {"t": table_id, "s": seat})
        return current.scalar_one_or_none() == message_id


def _round(row: Any) -> RoundInfo:
    return RoundInfo(
        table_id=row.table_id,
        round_no=row.round_no,
        seed=row.seed,
        rules=row.rules,
        started_at=row.started_at,
        finished_at=row.finished_at,
        places=row.places,
        scores=row.scores,
    )


class RoundRepository(_Repository):
    async def add(self, table_id: int, round_no: int, seed: int, rules: dict[str, Any]) -> None:
        await self.connection.execute(
            rounds_t.insert().values(
                table_id=table_id,
                round_no=round_no,
                kind="match",
                seed=seed,
                rules=rules,
                started_at=utcnow(),
            )
        )

    async def get(self, table_id: int, round_no: int) -> RoundInfo | None:
        row = (
            await self.connection.execute(
                select(rounds_t).where(rounds_t.c.table_id == table_id, rounds_t.c.round_no == round_no)
            )
        ).first()
        return None if row is None else _round(row)

    async def of_table(self, table_id: int) -> list[RoundInfo]:
        rows = await self.connection.execute(
            select(rounds_t).where(rounds_t.c.table_id == table_id).order_by(rounds_t.c.round_no)
        )
        return [_round(row) for row in rows]

    async def finish(
        self, table_id: int, round_no: int, places: Sequence[int | None], scores: Sequence[int] | None
    ) -> bool:
        """Mark the round finished; False if it already was (so its statistics are never counted twice)."""
        result = await self.connection.execute(
            update(rounds_t)
            .where(
                rounds_t.c.table_id == table_id,
                rounds_t.c.round_no == round_no,
                rounds_t.c.finished_at.is_(None),
            )
            .values(
                finished_at=utcnow(), places=list(places), scores=None if scores is None else list(scores)
            )
        )
        return result.rowcount == 1


class ActionLog(_Repository):
    async def append(self, table_id: int, seq: int, round_no: int, seat: int | None, action: str) -> None:
        await self.connection.execute(
            actions_t.insert().values(
                table_id=table_id, seq=seq, round_no=round_no, seat=seat, action=action, created_at=utcnow()
            )
        )

    async def append_many(
        self, table_id: int, round_no: int, moves: Sequence[tuple[int, int | None, str]]
    ) -> None:
        """Several moves of one round, as (seq, seat, action), in one statement."""
        now = utcnow()
        await self.connection.execute(
            actions_t.insert(),
            [
                {
                    "table_id": table_id,
                    "seq": seq,
                    "round_no": round_no,
                    "seat": seat,
                    "action": action,
                    "created_at": now,
                }
                for seq, seat, action in moves
            ],
        )

    async def of_round(self, table_id: int, round_no: int) -> list[LoggedAction]:
        rows = await self.connection.execute(
            select(actions_t)
            .where(actions_t.c.table_id == table_id, actions_t.c.round_no == round_no)
            .order_by(actions_t.c.seq)
        )
        return [LoggedAction(**row._mapping) for row in rows]

    async def of_table(self, table_id: int) -> list[LoggedAction]:
        rows = await self.connection.execute(
            select(actions_t).where(actions_t.c.table_id == table_id).order_by(actions_t.c.seq)
        )
        return [LoggedAction(**row._mapping) for row in rows]


def _deadline(row: Any) -> DeadlineRecord:
    return DeadlineRecord(**row._mapping)


_DROP_OUTDATED = delete(deadlines_t).where(
    deadlines_t.c.table_id == bindparam("t"), deadlines_t.c.version < bindparam("v")
)


class DeadlineRepository(_Repository):
    async def arm(self, table_id: int, version: int, kind: str, due_at: datetime) -> None:
        """The table's deadline of this kind is now this one (a table has at most one of each kind): armed
        anew, or moved to this version and time with its claim cleared, in one statement."""
        stmt = self._prebuilt(
            "arm",
            lambda: (
                lambda insert: insert.on_conflict_do_update(
                    index_elements=[deadlines_t.c.table_id, deadlines_t.c.kind],
                    set_={
                        "version": insert.excluded.version,
                        "due_at": insert.excluded.due_at,
                        "claimed_by": None,
                        "claimed_at": None,
                    },
                )
            )(self._insert(deadlines_t)),
        )
        await self.connection.execute(
            stmt, {"table_id": table_id, "version": version, "kind": kind, "due_at": due_at}
        )

    async def rearm(
        self, table_id: int, version: int, planned: Sequence[tuple[str, datetime]], *, others: bool = True
    ) -> None:
        """The table's deadlines are now ``planned`` (kind, due), armed for ``version``; with ``others``, every
        deadline of an older version left is dropped (a move whose caller knows there is none costs one
        statement here, not two)."""
        for kind, due_at in planned:
            await self.arm(table_id, version, kind, due_at)
        if others:
            await self.drop_outdated(table_id, version)

    async def pending(self, bot_id: int = 0) -> list[DeadlineRecord]:
        """The deadlines of the bot's tables not yet done, soonest first: what its scheduler re-arms at
        start-up."""
        rows = await self.connection.execute(
            select(deadlines_t).where(_of_host(bot_id)).order_by(deadlines_t.c.due_at, deadlines_t.c.id)
        )
        return [_deadline(row) for row in rows]

    async def of_table(self, table_id: int) -> list[DeadlineRecord]:
        rows = await self.connection.execute(
            select(deadlines_t).where(deadlines_t.c.table_id == table_id).order_by(deadlines_t.c.id)
        )
        return [_deadline(row) for row in rows]

    async def drop_outdated(self, table_id: int, version: int) -> None:
        """A deadline armed for an older version is moot once the table has moved on."""
        await self.connection.execute(_DROP_OUTDATED, {"t": table_id, "v": version})

    async def done(self, deadline: DeadlineRecord) -> None:
        """Forget a deadline that was handled. Matched on what it was armed for, not on its id alone: SQLite
        hands a deleted row's id to the next row, which may be the deadline armed while this one was handled."""
        await self.connection.execute(
            delete(deadlines_t).where(
                deadlines_t.c.id == deadline.id,
                deadlines_t.c.table_id == deadline.table_id,
                deadlines_t.c.version == deadline.version,
                deadlines_t.c.kind == deadline.kind,
            )
        )

    async def release(self, deadline: DeadlineRecord) -> bool:
        """Give up a claim (its worker is gone): the deadline is anybody's again. Only while the row is still
        the one claimed: same version, same worker. Whether it was released."""
        result = await self.connection.execute(
            update(deadlines_t)
            .where(
                deadlines_t.c.id == deadline.id,
                deadlines_t.c.table_id == deadline.table_id,
                deadlines_t.c.version == deadline.version,
                deadlines_t.c.kind == deadline.kind,
                deadlines_t.c.claimed_by == deadline.claimed_by,
            )
            .values(claimed_by=None, claimed_at=None)
        )
        return result.rowcount == 1

    def _claimable(self, now: datetime, lease: timedelta) -> Any:
        # A claim older than the lease belongs to a worker that died before finishing; take it over.
        return or_(deadlines_t.c.claimed_by.is_(None), deadlines_t.c.claimed_at < now - lease)

    async def claim(
        self,
        deadline_id: int,
        worker: str,
        *,
        now: datetime | None = None,
        lease: timedelta = timedelta(minutes=5),
    ) -> DeadlineRecord | None:
        """Claim one deadline for `worker`; None if another worker holds it or it is gone."""
        now = now or utcnow()
        result = await self.connection.execute(
            update(deadlines_t)
            .where(deadlines_t.c.id == deadline_id, self._claimable(now, lease))
            .values(claimed_by=worker, claimed_at=now)
            .returning(*deadlines_t.c)
        )
        row = result.first()
        return None if row is None else _deadline(row)

    async def claim_due(
        self,
        worker: str,
        *,
        bot_id: int = 0,
        now: datetime | None = None,
        limit: int = 100,
        lease: timedelta = timedelta(minutes=5),
    ) -> list[DeadlineRecord]:
        """Claim up to `limit` due deadlines of the tables ``bot_id`` hosts (what a deadline does is said with
        its bot's token); concurrent workers never get the same one."""
        now = now or utcnow()
        due = (
            select(deadlines_t.c.id)
            .where(deadlines_t.c.due_at <= now, self._claimable(now, lease), _of_host(bot_id))
            .order_by(deadlines_t.c.due_at, deadlines_t.c.id)
            .limit(limit)
        )
        if self.dialect == "postgresql":
            # Rows another worker is claiming are skipped instead of waited for; the deadline rows only are
            # locked (OF), never the table rows the host's check reads, which moves are saving.
            due = due.with_for_update(skip_locked=True, of=deadlines_t)
        elif (await self.connection.execute(due)).first() is None:
            return []  # nothing due: no write transaction, so no wait for SQLite's one writer
        # On SQLite the single writer serialises claims; the repeated condition keeps the UPDATE honest.
        result = await self.connection.execute(
            update(deadlines_t)
            .where(and_(deadlines_t.c.id.in_(due.scalar_subquery()), self._claimable(now, lease)))
            .values(claimed_by=worker, claimed_at=now)
            .returning(*deadlines_t.c)
        )
        return sorted((_deadline(row) for row in result), key=lambda d: (d.due_at, d.id))


class ChatLimitRepository(_Repository):
    """What Telegram said to one bot about each chat (each bot of a fleet hears its own)."""

    async def read(self, bot_id: int = 0) -> ChatLimits:
        rows = await self.connection.execute(select(chat_limits_t).where(chat_limits_t.c.bot_id == bot_id))
        retry, blocked = {}, set()
        for row in rows:
            if row.retry_until is not None:
                retry[row.chat_id] = row.retry_until
            if row.blocked_at is not None:
                blocked.add(row.chat_id)
        return ChatLimits(retry, frozenset(blocked))

    async def _set(self, bot_id: int, chat_id: int, **values: Any) -> None:
        stmt = self._insert(chat_limits_t).values(bot_id=bot_id, chat_id=chat_id, **values)
        await self.connection.execute(
            stmt.on_conflict_do_update(
                index_elements=[chat_limits_t.c.bot_id, chat_limits_t.c.chat_id], set_=values
            )
        )

    async def retry_until(self, chat_id: int, until: datetime, bot_id: int = 0) -> None:
        await self._set(bot_id, chat_id, retry_until=until)

    async def blocked(self, chat_id: int, blocked: bool, bot_id: int = 0) -> None:
        await self._set(bot_id, chat_id, blocked_at=utcnow() if blocked else None)

    async def is_blocked(self, chat_id: int, bot_id: int = 0) -> bool:
        """Whether the chat refuses the bot (a group: the bot is out of it, or may not write there)."""
        row = (
            await self.connection.execute(
                select(chat_limits_t.c.blocked_at).where(
                    chat_limits_t.c.bot_id == bot_id, chat_limits_t.c.chat_id == chat_id
                )
            )
        ).first()
        return row is not None and row.blocked_at is not None

    async def adopt(self, bot_id: int) -> int:
        """What Telegram said before bots were told apart (bot 0) was said to ``bot_id``; a chat it has heard
        of itself since keeps what it heard."""
        return await _adopt(self.connection, chat_limits_t, "chat_id", bot_id)


class UpdateRepository(_Repository):
    async def record(self, update_id: int, bot_id: int = 0) -> bool:
        """Record a Telegram update id of a bot (each bot numbers its own); False if it was recorded before
        (a redelivery to skip)."""
        stmt = self._prebuilt(
            "record",
            lambda: self._insert(updates_t).on_conflict_do_nothing(
                index_elements=[updates_t.c.bot_id, updates_t.c.update_id]
            ),
        )
        params = {"bot_id": bot_id, "update_id": update_id, "processed_at": utcnow()}
        result = await self.connection.execute(stmt, params)
        return result.rowcount == 1

    async def seen(self, update_id: int, bot_id: int = 0) -> bool:
        """Whether the bot's update id was recorded (by a unit of work that committed)."""
        row = (
            await self.connection.execute(
                select(updates_t.c.update_id).where(
                    updates_t.c.bot_id == bot_id, updates_t.c.update_id == update_id
                )
            )
        ).first()
        return row is not None

    async def adopt(self, bot_id: int) -> int:
        """The ids recorded before bots were told apart (bot 0) are ``bot_id``'s: an update delivered again
        after the upgrade is still known. An id it has recorded itself since is left as it is."""
        return await _adopt(self.connection, updates_t, "update_id", bot_id)

    async def forget_before(self, moment: datetime) -> int:
        """Drop old ids: Telegram stops redelivering an update after 24 hours."""
        result = await self.connection.execute(delete(updates_t).where(updates_t.c.processed_at < moment))
        return int(result.rowcount)

    async def count(self) -> int:
        return int((await self.connection.execute(select(func.count()).select_from(updates_t))).scalar_one())
