"""One action is one transaction: all of it is stored, or none of it, and one writer per version wins."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from storage_helpers import Database, play_until, seated_table

from engine import Action, IllegalAction, Round
from storage import NotYourTurn, TableAlreadyOpen, VersionConflict, service
from storage.uow import UnitOfWork, UnitOfWorkFactory, uow_factory


async def _snapshot(db: Database, table_id: int) -> tuple[int, dict, list[tuple[int, int | None, str]]]:
    async with db.uow() as u:
        table = await u.tables.get(table_id)
        assert table is not None and table.state is not None
        log = [(e.seq, e.seat, e.action) for e in await u.actions.of_table(table_id)]
    return table.version, table.state, log


async def test_round_survives_a_restart(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-1001)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    version, state, _ = await play_until(
        db.uow, seated.table_id, dealt.version, dealt.state, rng, stop_before_end=True
    )

    # The bot process goes away; a new one starts on the same database.
    await db.engine.dispose()
    restarted = db.new_engine()
    try:
        view = await service.load_table(uow_factory(restarted), seated.table_id)
    finally:
        await restarted.dispose()
    assert view.table.version == version
    assert view.state == state
    assert view.table.status == "playing"
    assert [(s.seat, s.user_id, s.computer_level) for s in view.seats] == [
        (0, 101, None),
        (1, 102, None),
        (2, None, 1),
        (3, None, 1),
        (4, None, 1),
        (5, None, 1),
    ]


async def test_concurrent_writers_on_one_version_exactly_one_wins(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-1002)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    version, state = dealt.version, dealt.state
    for _ in range(8):  # several contended turns in a row
        choices = [str(rng.choice(state.legal_actions())) for _ in range(6)]
        outcomes = await asyncio.gather(
            *(service.apply_action(db.uow, seated.table_id, version, c) for c in choices),
            return_exceptions=True,
        )
        winners = [o for o in outcomes if isinstance(o, service.Applied)]
        losers = [o for o in outcomes if not isinstance(o, service.Applied)]
        assert len(winners) == 1, outcomes
        assert all(isinstance(o, VersionConflict) for o in losers), losers
        version, state = winners[0].version, winners[0].state
        if state.is_over:
            break

    stored_version, stored_state, log = await _snapshot(db, seated.table_id)
    assert stored_version == version
    assert Round.from_json(stored_state) == state
    assert [seq for seq, _, _ in log] == list(range(1, len(log) + 1))  # no gap, no duplicate
    assert len(log) == version - dealt.version


class _CrashBeforeCommit(UnitOfWork):
    async def commit(self) -> None:
        raise RuntimeError("power cut before commit")


async def test_exception_before_commit_leaves_table_log_and_version_as_before(
    db: Database, rng: random.Random
) -> None:
    seated = await seated_table(db.uow, group_id=-1003)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    version, state, _ = await play_until(
        db.uow, seated.table_id, dealt.version, dealt.state, rng, stop_before_end=True
    )
    before = await _snapshot(db, seated.table_id)

    crashing: UnitOfWorkFactory = lambda: _CrashBeforeCommit(db.engine)  # noqa: E731
    last_action = str(rng.choice(state.legal_actions()))  # this one would end the round
    with pytest.raises(RuntimeError, match="power cut"):
        await service.apply_action(crashing, seated.table_id, version, last_action)

    assert await _snapshot(db, seated.table_id) == before
    async with db.uow() as u:
        user = await u.users.get(101)
        assert user is not None and user.stats.rounds_played == 0  # the round did not end in the database
        info = await u.rounds.get(seated.table_id, 1)
        assert info is not None and info.finished_at is None
    # The same button works again: the lost attempt left no trace.
    applied = await service.apply_action(db.uow, seated.table_id, version, last_action)
    assert applied.version == version + 1 and applied.seq == len(before[2]) + 1


CRASHING_WORKER = textwrap.dedent(
    """
    import asyncio, os, sys
    from storage import make_engine, service
    from storage.uow import UnitOfWork

    class KilledBeforeCommit(UnitOfWork):
        async def commit(self):
            os._exit(9)  # the process dies with the transaction open: no rollback, no cleanup

    async def main():
        url, search_path, table_id, version, action = sys.argv[1:]
        kwargs = {"connect_args": {"server_settings": {"search_path": search_path}}} if search_path else {}
        engine = make_engine(url, **kwargs)
        await service.apply_action(lambda: KilledBeforeCommit(engine), int(table_id), int(version), action)

    asyncio.run(main())
    """
)


async def test_process_killed_inside_unit_of_work_loses_nothing_committed(
    db: Database, rng: random.Random, tmp_path: Path
) -> None:
    seated = await seated_table(db.uow, group_id=-1004)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    version, state, _ = await play_until(
        db.uow, seated.table_id, dealt.version, dealt.state, rng, stop_before_end=True
    )
    before = await _snapshot(db, seated.table_id)

    search_path = db.engine_kwargs.get("connect_args", {}).get("server_settings", {}).get("search_path", "")
    action = str(rng.choice(state.legal_actions()))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = await asyncio.to_thread(
        subprocess.run,
        [
            sys.executable,
            "-c",
            CRASHING_WORKER,
            db.url,
            search_path,
            str(seated.table_id),
            str(version),
            action,
        ],
        env=env,
        cwd=tmp_path,  # imports resolve through PYTHONPATH, as in this test process
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 9, proc.stderr

    # A new engine, as after a restart, sees the table exactly as before the killed attempt...
    restarted = db.new_engine()
    try:
        after_uow = uow_factory(restarted)
        async with after_uow() as u:
            table = await u.tables.get(seated.table_id)
            assert table is not None
            assert (table.version, table.state) == before[:2]
            assert [(e.seq, e.seat, e.action) for e in await u.actions.of_table(seated.table_id)] == before[2]
        # ...and the move can be made again.
        applied = await service.apply_action(after_uow, seated.table_id, version, action)
        assert applied.seq == len(before[2]) + 1
    finally:
        await restarted.dispose()


async def test_stale_version_is_refused_and_changes_nothing(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-1005)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    first = str(rng.choice(dealt.state.legal_actions()))
    applied = await service.apply_action(db.uow, seated.table_id, dealt.version, first)
    before = await _snapshot(db, seated.table_id)

    # The same button tapped again (it carries the version it was drawn for).
    with pytest.raises(VersionConflict) as conflict:
        await service.apply_action(db.uow, seated.table_id, dealt.version, first)
    assert (conflict.value.expected, conflict.value.actual) == (dealt.version, applied.version)
    assert await _snapshot(db, seated.table_id) == before


async def test_illegal_action_and_wrong_seat_change_nothing(db: Database, rng: random.Random) -> None:
    seated = await seated_table(db.uow, group_id=-1006)
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    before = await _snapshot(db, seated.table_id)
    state = dealt.state
    legal = {str(a) for a in state.legal_actions()}
    illegal = next(
        text
        for text in ("pass", "play 3", "play R", "play RRRR", "play 33333333")
        if text not in legal and _parses(text)
    )
    with pytest.raises(IllegalAction):
        await service.apply_action(db.uow, seated.table_id, dealt.version, illegal)
    mover = state.current_player
    assert mover is not None
    with pytest.raises(NotYourTurn):
        await service.apply_action(
            db.uow, seated.table_id, dealt.version, sorted(legal)[0], seat=(mover + 1) % 6
        )
    assert await _snapshot(db, seated.table_id) == before


def _parses(text: str) -> bool:
    try:
        Action.parse(text)
    except Exception:
        return False
    return True


async def test_one_open_table_per_group(db: Database) -> None:
    seated = await seated_table(db.uow, group_id=-1007)
    with pytest.raises(TableAlreadyOpen):
        await service.open_table(db.uow, -1007, rules={"any": "rules"})
    await service.close_table(db.uow, seated.table_id, seated.version)
    reopened = await service.open_table(db.uow, -1007, rules={"any": "rules"})
    assert reopened.id != seated.table_id
    async with db.uow() as u:
        open_table = await u.tables.open_in_group(-1007)
        assert open_table is not None and open_table.id == reopened.id


async def test_two_missed_turns_put_a_player_on_autoplay_until_he_acts(
    db: Database, rng: random.Random
) -> None:
    seated = await seated_table(db.uow, group_id=-1008, humans=(201, 202, 203, 204, 205, 206))
    dealt = await service.start_round(db.uow, seated.table_id, seated.version, seed=rng.randrange(2**62))
    state, version = dealt.state, dealt.version

    async def seat_of(seat: int) -> tuple[bool, int]:
        async with db.uow() as u:
            record = next(s for s in await u.seats.list(seated.table_id) if s.seat == seat)
        return record.autoplay, record.consecutive_timeouts

    async def act(actor: str) -> int:
        nonlocal state, version
        mover = state.current_player
        assert mover is not None
        applied = await service.apply_action(
            db.uow,
            seated.table_id,
            version,
            str(rng.choice(state.legal_actions())),
            actor=actor,  # type: ignore[arg-type]
        )
        state, version = applied.state, applied.version
        return mover

    timed_out = await act("timeout")
    assert await seat_of(timed_out) == (False, 1)
    while state.current_player != timed_out:  # the others play until his turn comes round again
        await act("player")
    assert await act("timeout") == timed_out
    assert await seat_of(timed_out) == (True, 2)
    while state.current_player != timed_out:
        await act("player")
    assert await act("computer") == timed_out  # the computer plays for him while he is on 托管
    assert await seat_of(timed_out) == (True, 2)
    while state.current_player != timed_out:
        await act("player")
    assert await act("player") == timed_out  # he taps again: back in his own hands
    assert await seat_of(timed_out) == (False, 0)
