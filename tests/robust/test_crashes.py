"""The bot killed with SIGKILL at random moments of a running match, thirty times, on SQLite and on
PostgreSQL (issue 14): the match ends, nothing is lost or applied twice, every deadline fires once, and
everything the bot sent after each restart matches what it had committed.

The run and its checks are ``benches/crash.py`` (``python -m benches.crash --kills 300`` is the long run):
the bot is a process of its own polling the emulator over HTTP, three people and three strong computers
(thinking in the bot's process pool) play with a turn time of 2 s (the people let a turn run out now and
then, and tap again a tap that went unanswered), and the kills come within 50 ms after a tap, within 5 s
after a start, the moment a deadline is claimed, or at any moment of the first seconds up. No process of a
killed bot (the pool's workers) outlives it.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import asyncpg
import pytest

from benches.crash import Plan, check, drop_pg_database, fresh_pg_database, run

PG_DSN = os.environ.get("GOUJI_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
KILLS = 30


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'gouji.db'}"
        return
    try:
        conn = await asyncpg.connect(PG_DSN, timeout=3)
        await conn.close()
    except Exception as exc:  # any failure means there is no PostgreSQL to run against here
        pytest.skip(f"PostgreSQL not reachable at {PG_DSN}: {type(exc).__name__}: {exc}")
    url = await fresh_pg_database(PG_DSN)
    try:
        yield url
    finally:
        await drop_pg_database(PG_DSN, url)


async def test_killed_thirty_times_the_match_ends_and_every_message_matches_what_was_committed(
    database_url: str, tmp_path: Path
) -> None:
    done = await run(Plan(kills=KILLS, rounds=2), database_url, tmp_path)
    report = await check(done, database_url)
    print("\n".join(report.lines()))
    assert report.problems == []
    assert report.match_ended and report.rounds_finished >= 2
    assert report.kills == KILLS
    assert (
        report.kill_kinds["tap"] >= 9 and report.kill_kinds["start"] >= 7 and report.kill_kinds["follow"] >= 4
    )
    # Killed between a player's move stored and the computers' moves after it: each follow-on made once (the
    # checks above), by the next process too.
    assert report.follow_ons >= 10 and report.follow_ons_across_restart >= 1
    # Deadlines came due while the bot was down, or were claimed by a process killed before its move.
    assert report.deadlines_fired >= 1 and report.fired_across_restart >= 1
    assert report.turn_messages >= report.taps_applied / 2
    # Most processes lived to move a strong computer: their pool workers could have outlived them.
    assert report.pool_workers >= 10 and report.outlived == 0

    # The checks see what they look for: the first process's first turn message, sent again by the last
    # process, is found stale (built before a crash, sent after it); the last process's last turn message,
    # sent a second time, is found twice for one turn.
    def turn_messages(calls: list[dict]) -> list[dict]:
        return [
            call
            for call in calls
            if call["method"] == "sendMessage"
            and re.search(
                r"""["']callback_data["']:\s*["'][ak]:""", str(call["params"].get("reply_markup", ""))
            )
            and int(call["params"]["chat_id"]) > 0  # the emulator's log keeps chat ids as sent: text
        ]

    first = turn_messages(done.api_log[: done.first_calls[1]])[0]
    last = turn_messages(done.api_log[done.first_calls[-1] :])[-1]
    again = await check(replace(done, api_log=[*done.api_log, last, first]), database_url)
    assert (again.stale, again.twice, len(again.problems)) == (1, 1, 2), again.problems
