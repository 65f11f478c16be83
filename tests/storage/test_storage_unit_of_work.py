"""One use case is one transaction: all of it is stored, or none of it, and one writer per version wins."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from storage_helpers import Database
from table_helpers import SIX, begin, last_move, past_the_questions, play_until, seated_table, user_to_act

from engine import Action
from engine.actions import PASS, PLAY
from storage import TableAlreadyOpen, VersionConflict
from storage.uow import UnitOfWork, UnitOfWorkFactory
from table import IllegalMove, NotYourTurn, StaleVersion, TableService
from table import TableAlreadyOpen as TableOpenAlready


async def _snapshot(db: Database, table_id: int) -> tuple[int, dict, list[tuple[int, int | None, str]]]:
    async with db.uow() as u:
        table = await u.tables.get(table_id)
        assert table is not None and table.match is not None
        log = [(e.seq, e.seat, e.action) for e in await u.actions.of_table(table_id)]
    return table.version, table.match.to_json(), log


async def test_a_table_survives_a_restart(db: Database, rng: random.Random) -> None:
    service = db.service()
    seated = await seated_table(service, -1001, humans=(101, 102))
    await begin(service, seated)
    table = await play_until(service, seated.table_id, rng, stop_before_end=True)

    # The bot process goes away; a new one starts on the same database.
    await db.engine.dispose()
    restarted = db.new_engine()
    try:
        again = await db.service(restarted).reads.load(seated.table_id)
    finally:
        await restarted.dispose()
    assert (again.version, again.match, again.status) == (table.version, table.match, "playing")
    assert [(s.n, s.user_id, s.name, s.computer_level is not None) for s in again.seats] == [
        (0, 101, "player 101", False),
        (1, 102, "player 102", False),
        *((n, None, "", True) for n in range(2, 6)),
    ]


async def test_concurrent_writers_on_one_version_exactly_one_wins(db: Database, rng: random.Random) -> None:
    """Two processes (each its own table service, so no lock in common) tap at the same version."""
    engines = [db.new_engine() for _ in range(3)]
    services = [db.service(e) for e in engines]
    seated = await seated_table(services[0], -1002)
    table = (await begin(services[0], seated)).table
    try:
        for _ in range(6):  # several contended turns in a row
            assert table.match is not None
            if table.match.round_over:
                break
            mover = user_to_act(table)
            choices = [rng.choice(table.match.legal_actions()) for _ in services]
            outcomes = await asyncio.gather(
                *(
                    s.play.act(table.id, mover, c, version=table.version)
                    for s, c in zip(services, choices, strict=True)
                ),
                return_exceptions=True,
            )
            winners = [o for o in outcomes if not isinstance(o, BaseException)]
            losers = [o for o in outcomes if isinstance(o, BaseException)]
            assert len(winners) == 1, outcomes
            assert all(isinstance(o, StaleVersion) for o in losers), losers
            table = winners[0].table
        version, state, log = await _snapshot(db, table.id)
        assert (version, state) == (table.version, table.match.to_json())  # type: ignore[union-attr]
        assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))  # no gap, no duplicate
    finally:
        for e in engines:
            await e.dispose()


class _CrashBeforeCommit(UnitOfWork):
    async def commit(self) -> None:
        raise RuntimeError("power cut before commit")


async def test_an_exception_before_commit_leaves_table_log_and_statistics_as_before(
    db: Database, rng: random.Random
) -> None:
    service = db.service()
    seated = await seated_table(service, -1003)
    await begin(service, seated)
    table = await play_until(service, seated.table_id, rng, stop_before_end=True)
    before = await _snapshot(db, table.id)
    action, user = await last_move(service, table)  # this one would end the round

    crashing: UnitOfWorkFactory = lambda: _CrashBeforeCommit(db.engine)  # noqa: E731
    with pytest.raises(RuntimeError, match="power cut"):
        await TableService(crashing).play.act(table.id, user, action, version=table.version)

    assert await _snapshot(db, table.id) == before
    async with db.uow() as u:
        record = await u.users.get(SIX[0])
        assert record is not None and record.stats.rounds_played == 0  # the round did not end in the database
        info = await u.rounds.get(table.id, 1)
        assert info is not None and info.finished_at is None
    # The same button works again: the lost attempt left no trace (not even in this process's memory).
    done = await service.play.act(table.id, user, action, version=table.version)
    assert done.table.version == table.version + 1 and done.table.match.round_over  # type: ignore[union-attr]


CRASHING_WORKER = textwrap.dedent(
    """
    import asyncio, os, sys
    from engine.match import parse_action
    from storage import make_engine
    from storage.uow import UnitOfWork
    from table import TableService

    class KilledBeforeCommit(UnitOfWork):
        async def commit(self):
            os._exit(9)  # the process dies with the transaction open: no rollback, no cleanup

    async def main():
        url, search_path, table_id, user_id, version, action = sys.argv[1:]
        kwargs = {"connect_args": {"server_settings": {"search_path": search_path}}} if search_path else {}
        engine = make_engine(url, **kwargs)
        service = TableService(lambda: KilledBeforeCommit(engine))
        await service.play.act(int(table_id), int(user_id), parse_action(action), version=int(version))

    asyncio.run(main())
    """
)


async def test_a_process_killed_inside_a_unit_of_work_loses_nothing_committed(
    db: Database, rng: random.Random, tmp_path: Path
) -> None:
    service = db.service()
    seated = await seated_table(service, -1004)
    await begin(service, seated)
    table = await play_until(service, seated.table_id, rng, stop_before_end=True)
    before = await _snapshot(db, table.id)
    assert table.match is not None
    action, user = rng.choice(table.match.legal_actions()), user_to_act(table)

    search_path = db.engine_kwargs.get("connect_args", {}).get("server_settings", {}).get("search_path", "")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    argv = [db.url, search_path, str(table.id), str(user), str(table.version), str(action)]
    proc = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-c", CRASHING_WORKER, *argv],
        env=env,
        cwd=tmp_path,  # imports resolve through PYTHONPATH, as in this test process
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 9, proc.stderr

    # A new process sees the table exactly as before the killed attempt, and the move can be made again.
    restarted = db.new_engine()
    try:
        assert await _snapshot(db, table.id) == before
        done = await db.service(restarted).play.act(table.id, user, action, version=table.version)
        assert done.table.last_seq > len(before[2])
    finally:
        await restarted.dispose()


async def test_refused_moves_change_nothing(db: Database, rng: random.Random) -> None:
    service = db.service()
    seated = await seated_table(service, -1005)
    table = await past_the_questions(service, (await begin(service, seated)).table)
    assert table.match is not None
    first = rng.choice(table.match.legal_actions())
    moved = await service.play.act(table.id, user_to_act(table), first, version=table.version)
    before = await _snapshot(db, table.id)
    # The same button tapped again (it carries the version it was drawn for).
    with pytest.raises(StaleVersion):
        await service.play.act(table.id, user_to_act(moved.table), first, version=table.version)
    after = moved.table
    assert after.match is not None
    legal = set(after.match.legal_actions())
    illegal = next(a for a in (Action(PASS), Action(PLAY, (0,) * 14 + (9,))) if a not in legal)
    with pytest.raises(IllegalMove):
        await service.play.act(after.id, user_to_act(after), illegal, version=after.version)
    other = next(u for u in SIX if u != user_to_act(after))
    with pytest.raises(NotYourTurn):
        await service.play.act(after.id, other, next(iter(legal)), version=after.version)
    assert await _snapshot(db, table.id) == before


async def test_one_open_table_per_group(db: Database) -> None:
    service = db.service()
    seated = await seated_table(service, -1007)
    with pytest.raises(TableOpenAlready):
        await service.lobby.open(-1007, SIX[1])
    async with db.uow() as u:  # the database itself refuses a second open table
        with pytest.raises(TableAlreadyOpen):
            await u.tables.add(-1007, {})
    await service.lobby.stop(seated.table_id, SIX[0])
    reopened = await service.lobby.open(-1007, SIX[1])
    assert reopened.table.id != seated.table_id
    assert (await service.reads.table_in_group(-1007)).id == reopened.table.id  # type: ignore[union-attr]


async def test_a_save_over_an_older_version_is_refused(db: Database) -> None:
    service = db.service()
    seated = await seated_table(service, -1008)
    table = await service.reads.load(seated.table_id)
    async with db.uow() as u:
        await u.tables.save(table.id, table.version, last_seq=0)
        with pytest.raises(VersionConflict):
            await u.tables.save(table.id, table.version, last_seq=0)
        await u.commit()
