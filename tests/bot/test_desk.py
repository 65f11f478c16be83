"""The desk against the real table service on the in-memory store, a presenter and an outbox on the recording
bot, on the test's own time: deadlines fired by a sweep once due and only once, the reminder at half a long
turn time, what each firing shows to whom, the invariant the sweep keeps (a table in play waits with its
deadline), the claims of a worker that is gone given up, and a player Telegram will not deliver to put on 托管
with the group told (DESIGN.md: "403 … puts his seat on 托管 and tells the group how to fix it")."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, cast

import pytest
from desk_stage import GROUP, NAMES, TITLE, DeskStage, staged
from recording_bot import blocked
from unit_support import smallest_single

from bot.desk import Desk
from bot.i18n import t
from table import TURN_TIMES, Table
from table.clock import CLAIM_LEASE
from table.policy import REMIND_FROM_S, REMINDER, TIMEOUT, Deadline

pytestmark = pytest.mark.unit


@pytest.fixture
async def stage() -> AsyncIterator[DeskStage]:
    async with staged() as s:
        yield s


async def deadlines(stage: DeskStage, table: Table) -> dict[str, datetime]:
    return {d.kind: d.due_at for d in await stage.service.clock.pending_deadlines() if d.table_id == table.id}


def until(stage: DeskStage, moment: datetime) -> None:
    """Move the table layer's and the desk's time to ``moment``."""
    stage.when.advance((moment - stage.when.now).total_seconds())


def calls(stage: DeskStage) -> list[tuple[str, int | None]]:
    return sorted((c.method, c.chat_id) for c in stage.bot.calls)


async def test_a_time_out_is_fired_by_the_sweep_once_due_and_not_before(stage: DeskStage) -> None:
    table = await stage.playing()
    late = table.to_act
    assert late is not None and late.user_id is not None
    due = (await deadlines(stage, table))[TIMEOUT]

    until(stage, due - timedelta(seconds=1))
    assert await stage.desk.sweep() == 0
    await stage.settle()
    assert stage.bot.calls == []
    assert (await stage.load(table.id)).version == table.version

    until(stage, due)
    assert await stage.desk.sweep() == 1
    await stage.settle()
    after = await stage.load(table.id)
    assert after.version > table.version
    assert after.seat(late.n).timeouts == 1 and not after.seat(late.n).autoplay  # one miss: not yet 托管
    nxt = after.to_act
    assert nxt is not None and nxt.user_id not in (None, late.user_id)
    # Who is told what: the late player's turn message says what the computer did for him, the next player
    # gets his turn (a new message: his phone rings), the group's table is edited; nobody else hears of it.
    assert calls(stage) == sorted(
        [("editMessageText", late.user_id), ("sendMessage", nxt.user_id), ("editMessageText", GROUP)]
    )
    told = next(c for c in stage.bot.calls if c.chat_id == late.user_id)
    assert told.message_id == late.hand_message_id and "⏰" in str(told.text) and not told.buttons
    turn = next(c for c in stage.bot.calls if c.chat_id == nxt.user_id)
    assert turn.buttons, "the next player's turn comes with its keyboard"


async def test_a_deadline_swept_twice_at_once_and_again_is_fired_once(stage: DeskStage) -> None:
    table = await stage.playing()
    late = table.to_act
    assert late is not None
    logged = len(stage.store.data.actions)
    until(stage, (await deadlines(stage, table))[TIMEOUT])
    # A second process sweeping the same store at the same moment (each claims in the database).
    other = Desk(stage.service, stage.presenter, stage.outbox, None, clock=stage.when)
    other.worker = "elsewhere:1"
    fired = await asyncio.gather(stage.desk.sweep(), other.sweep())
    assert sorted(fired) == [0, 1]
    assert await stage.desk.sweep() == 0
    await stage.settle()
    after = await stage.load(table.id)
    assert after.seat(late.n).timeouts == 1
    timed_out = [c for c in stage.bot.calls if c.chat_id == late.user_id]
    assert len(timed_out) == 1, "the late player is told once"
    moves = stage.store.data.actions[logged:]
    assert [a.seat for a in moves][:1] == [late.n] and [a.seat for a in moves].count(late.n) == 1, (
        "one move made for him, not two"
    )


async def test_a_turn_time_too_short_for_a_reminder_arms_none(stage: DeskStage) -> None:
    longest_short = max(s for s in TURN_TIMES if s < REMIND_FROM_S)
    table = await stage.playing(turn_seconds=longest_short)
    due = await deadlines(stage, table)
    assert set(due) == {TIMEOUT}
    until(stage, due[TIMEOUT] - timedelta(seconds=longest_short / 2))
    assert await stage.desk.sweep() == 0
    await stage.settle()
    assert stage.bot.calls == []


async def test_the_reminder_comes_at_half_a_long_turn_time_and_changes_nothing(stage: DeskStage) -> None:
    table = await stage.playing(turn_seconds=1800)
    waiting = table.to_act
    assert waiting is not None and waiting.user_id is not None
    due = await deadlines(stage, table)
    assert due[REMINDER] == due[TIMEOUT] - timedelta(seconds=900)

    until(stage, due[REMINDER] - timedelta(seconds=1))
    assert await stage.desk.sweep() == 0
    until(stage, due[REMINDER])
    assert await stage.desk.sweep() == 1
    await stage.settle()
    reminded = [c for c in stage.bot.calls if c.chat_id == waiting.user_id]
    assert [c.method for c in reminded] == ["sendMessage"]
    assert t("en", "Reminder: it is your turn; half of your time is gone.") in str(reminded[0].text)
    assert reminded[0].text is not None and reminded[0].text.startswith(f"[{TITLE}]")
    others = {c.chat_id for c in stage.bot.calls} - {waiting.user_id, GROUP}
    assert others == set(), "only the player to act is reminded"
    after = await stage.load(table.id)
    assert (after.version, after.to_act) == (table.version, waiting)
    assert set(await deadlines(stage, table)) == {TIMEOUT}, "his time-out still stands"


async def test_a_table_found_waiting_without_its_deadline_is_given_it_back_and_times_out(
    stage: DeskStage,
) -> None:
    table = await stage.playing()
    stage.store.data.deadlines.clear()  # a process died between its commit and its deadline
    assert await stage.service.clock.waiting_without_deadline() == [table.id]

    assert await stage.desk.keep_invariant() == 1
    assert stage.desk.rearmed == 1
    due = await deadlines(stage, table)
    assert set(due) == {TIMEOUT} and due[TIMEOUT] == stage.when.now + timedelta(seconds=120)
    assert await stage.desk.keep_invariant() == 0, "kept: nothing more to do"
    await stage.settle()
    assert stage.bot.calls == [], "the player had his turn message already: not a second one"

    until(stage, due[TIMEOUT])
    assert await stage.desk.sweep() == 1
    assert (await stage.load(table.id)).version > table.version


def dead_pid() -> int:
    """The id of a process of this host that has ended."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


async def claimed(stage: DeskStage, table: Table, by: str, at: datetime) -> None:
    """The table's time-out, claimed by ``by`` at ``at``, its firing never done (the worker died)."""
    for n, d in stage.store.data.deadlines.items():
        if d.table_id == table.id and d.kind == TIMEOUT:
            stage.store.data.deadlines[n] = replace(d, claimed_by=by, claimed_at=at)


async def test_the_claim_of_this_workers_name_from_before_it_started_is_released(stage: DeskStage) -> None:
    table = await stage.playing()
    due = (await deadlines(stage, table))[TIMEOUT]
    until(stage, due)
    await claimed(stage, table, stage.desk.worker, due)  # the process before a restart, same host and pid
    stage.when.advance(1)
    restarted = Desk(stage.service, stage.presenter, stage.outbox, None, clock=stage.when)
    assert await restarted.sweep() == 0, "claimed, and the claim is fresh"
    assert await restarted.release_claims_of_the_gone() == 1
    assert await restarted.sweep() == 1
    assert (await stage.load(table.id)).version > table.version


async def test_the_claim_of_a_process_of_this_host_that_ended_is_released(stage: DeskStage) -> None:
    table = await stage.playing()
    due = (await deadlines(stage, table))[TIMEOUT]
    until(stage, due)
    await claimed(stage, table, f"{socket.gethostname()}:{dead_pid()}", due)
    assert await stage.desk.sweep() == 0
    assert await stage.desk.release_claims_of_the_gone() == 1
    assert await stage.desk.sweep() == 1


async def test_another_machines_claim_is_kept_until_its_lease_runs_out(stage: DeskStage) -> None:
    table = await stage.playing()
    due = (await deadlines(stage, table))[TIMEOUT]
    until(stage, due)
    await claimed(stage, table, "another-machine:1", due)
    assert await stage.desk.release_claims_of_the_gone() == 0, "its process may well run"
    stage.when.advance(CLAIM_LEASE.total_seconds() - 1)
    assert await stage.desk.sweep() == 0
    stage.when.advance(2)
    assert await stage.desk.sweep() == 1, "a claim older than the lease is a worker that died with it"


async def test_a_player_telegram_will_not_deliver_to_goes_tuoguan_and_the_group_is_told(
    stage: DeskStage,
) -> None:
    table = await stage.playing()
    outcome = await stage.act(table, smallest_single(table))
    gone = outcome.table.to_act
    assert gone is not None and gone.user_id is not None
    stage.bot.fail("sendMessage", blocked(), chat_id=gone.user_id)  # he blocked the bot: 403

    await stage.desk.after(outcome, tapped=table.to_act.hand_message_id if table.to_act else None)
    await stage.settle()

    after = await stage.load(table.id)
    assert after.seat(gone.n).autoplay, "his seat is on 托管"
    assert after.to_act is not None and after.to_act.n != gone.n, "the computer played his turn"
    assert gone.user_id in stage.outbox.blocked
    to_him = [c for c in stage.bot.calls if c.chat_id == gone.user_id]
    assert [(c.method, c.ok) for c in to_him] == [("sendMessage", False)], "nothing more is tried"
    told = [text for text in stage.said(GROUP) if NAMES[gone.user_id] in text and "/start" in text]
    assert len(told) == 1, "the group is told, once, how he gets his seat back"


async def test_deadlines_are_armed_on_the_job_queue_one_sweep_per_second_from_the_desks_clock(
    stage: DeskStage,
) -> None:
    jobs = JobsRecorded()
    desk = Desk(stage.service, stage.presenter, stage.outbox, cast(Any, jobs), clock=stage.when)
    table = await stage.playing()
    due = (await deadlines(stage, table))[TIMEOUT]
    desk.schedule(
        [
            Deadline(TIMEOUT, due + timedelta(milliseconds=200)),
            Deadline(REMINDER, due + timedelta(milliseconds=700)),  # the same second: one sweep for both
            Deadline(TIMEOUT, due + timedelta(seconds=5)),
        ]
    )
    # One job per second of due times, each at its second (rounded up), counted on the desk's clock.
    seconds = [due + timedelta(seconds=1), due + timedelta(seconds=5)]
    assert [at for _, at in jobs.once] == seconds
    assert [when for when, _ in jobs.once] == [
        pytest.approx((at - stage.when.now).total_seconds() + 0.05) for at in seconds
    ]


class JobsRecorded:
    """A JobQueue that records what it is asked to run, and runs nothing."""

    def __init__(self) -> None:
        self.once: list[tuple[float, object]] = []

    def run_once(self, callback: object, when: float, name: str | None = None, data: object = None) -> None:
        self.once.append((when, data))
