"""A fleet on one PostgreSQL database (issue 24): two bots, two tokens of one emulated Telegram, each bot a process
of its own polling for its updates (which each bot numbers from the same first id: they overlap), each with two
groups of its own playing with computers and a turn time of a few seconds; one player of each table taps, the
other never does, so his turns time out. One bot is SIGKILLed mid-round and started again.

What an operator would notice, checked: every tap answered but those the killed process had taken, and at the
bot that was not killed every tap applied (its tapping players never time out: a tap taken for the other bot's
update of the same id would be dropped, and its player's time would run out); every round played to its end, its log replaying to the stored
match; every deadline claimed by a process of the bot that hosts its table (a trigger records each claim with
its worker); each bot's calls only into its own groups and its own players' private chats.
"""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
from players import Table

from benches.crash import BotProcess
from emulator import EmulatedBot, TelegramEmulator
from emulator.state import User
from storage import make_engine, uow_factory, upgrade_to_head
from table.rebuild import rebuild_round

TURN_S = 3
TIME_RAN_OUT = "Time ran out"
# Every claim of a deadline, as PostgreSQL saw it: the table, and the worker (host:pid) that claimed it.
PROBE = [
    "CREATE TABLE probe_claims (table_id bigint, kind text, claimed_by text, at timestamptz)",
    "CREATE FUNCTION probe_claim() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
    " IF NEW.claimed_by IS NOT NULL AND NEW.claimed_by IS DISTINCT FROM OLD.claimed_by THEN"
    " INSERT INTO probe_claims VALUES (NEW.table_id, NEW.kind, NEW.claimed_by, clock_timestamp());"
    " END IF; RETURN NULL; END $$",
    "CREATE TRIGGER probe_claim AFTER UPDATE ON deadlines FOR EACH ROW EXECUTE FUNCTION probe_claim()",
]


def chats_written(bot: EmulatedBot) -> set[int]:
    """Every chat the bot called a method about (sent, edited, deleted, pinned), refused or not."""
    return {int(call["params"]["chat_id"]) for call in bot.api_log if "chat_id" in call["params"]}


def update_ids(bot: EmulatedBot) -> set[int]:
    return {
        update["update_id"]
        for call in bot.api_log
        if call["method"] == "getUpdates" and call["response"].get("ok")
        for update in call["response"]["result"]
    }


def _taps_delivered(api_log: list[dict[str, Any]]) -> set[str]:
    """The callback queries that getUpdates handed over in this stretch of a bot's calls."""
    return {
        update["callback_query"]["id"]
        for call in api_log
        if call["method"] == "getUpdates" and call["response"].get("ok")
        for update in call["response"]["result"]
        if "callback_query" in update
    }


def times_up(bot: EmulatedBot, user_id: int) -> int:
    """How often the bot told this player his time ran out (each revision of each message counted once)."""
    return sum(TIME_RAN_OUT in (rev.text or "") for m in bot.bot_messages(user_id) for rev in m.history)


@dataclass
class Seat:
    table: Table
    ann: User  # taps at once whenever it is her turn
    bob: User  # never taps: his turns time out, fired by the bot that hosts his table


async def _playing(bot: EmulatedBot, tag: str, pg: asyncpg.Connection) -> list[Seat]:
    """Two groups of the bot's own, each with one player who taps and one who never does, and computers."""
    seats = []
    for n in (1, 2):
        table = await Table.seated(bot, [f"Ann{tag}{n}", f"Bob{tag}{n}"])
        await pg.execute("UPDATE groups SET turn_timeout_seconds = $1 WHERE id = $2", TURN_S, table.group.id)
        ann, bob = table.humans
        seats.append(Seat(table, ann, bob))
    return seats


async def _play(
    emu: TelegramEmulator, tables: list[Table], done: Callable[[], bool], rng: random.Random
) -> None:
    """Every tapping player acts on each new turn of his, at every table whose first round is not over."""
    for _ in range(5000):
        if done():
            return
        going = [t for t in tables if not t.round_over(1)]
        if not any([t.step(rng, type_some=False) for t in going]):
            try:
                await emu.wait_for(
                    lambda going=going: done() or any(t.has_new_turn() for t in going),
                    timeout=40,
                    description="a turn",
                )
            except TimeoutError:
                raise AssertionError("\n\n".join(t.dump() for t in going)) from None
    raise AssertionError("the rounds did not end")


async def _rows(dsn: str, sql: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(dsn)
    try:
        return list(await conn.fetch(sql))
    finally:
        await conn.close()


async def test_two_bots_on_one_database_one_killed_mid_round(
    emulator: TelegramEmulator, pg_database: str, tmp_path: Path
) -> None:
    first = emulator  # the bot that is killed
    second = emulator.create_bot("Gouji Two", username="gouji_two_bot")
    url = pg_database.replace("postgresql://", "postgresql+asyncpg://", 1)
    await upgrade_to_head(url)  # once, before either bot starts
    pg = await asyncpg.connect(pg_database)
    for statement in PROBE:
        await pg.execute(statement)
    procs = {
        bot.bot_id: BotProcess(bot, url, tmp_path / f"bot-{bot.bot_id}.log", env={"SWEEP_EVERY_S": "1"})
        for bot in (first, second)
    }
    served: dict[str, int] = {}  # worker (host:pid) -> the bot its process served
    host = socket.gethostname()

    async def start(bot: EmulatedBot) -> None:
        proc = procs[bot.bot_id]
        await proc.start()
        assert proc.pid is not None
        served[f"{host}:{proc.pid}"] = bot.bot_id
        await proc.polling()

    killed_at = 0.0
    try:
        for bot in (first, second):
            await start(bot)
        mine = {first.bot_id: await _playing(first, "A", pg), second.bot_id: await _playing(second, "B", pg)}
        seats = [*mine[first.bot_id], *mine[second.bot_id]]
        tables = [s.table for s in seats]
        for seat in seats:
            await seat.table.begin()
            seat.table.humans = [seat.ann]
        rng = random.Random(24)

        # Killed once each bot has fired a time-out (claimed a deadline) and its players have tapped.
        await _play(
            first,
            tables,
            lambda: all(any(times_up(b, s.bob.id) for s in mine[b.bot_id]) for b in (first, second)),
            rng,
        )
        await procs[first.bot_id].kill()  # SIGKILL, mid-round, whatever it was doing
        killed_at = asyncio.get_running_loop().time()
        # Down for a while: the other bot plays on, the killed bot's players tap what they were shown.
        await _play(first, tables, lambda: asyncio.get_running_loop().time() > killed_at + 2, rng)
        await start(first)
        await _play(first, tables, lambda: all(t.round_over(1) for t in tables), rng)
    finally:
        for proc in procs.values():
            await proc.stop()
        await pg.close()
    assert killed_at, "the bot was killed mid-round"

    # No deadline fired by the wrong bot: every claim by a process of the bot that hosts the table.
    claims = await _rows(
        pg_database,
        "SELECT c.claimed_by, t.bot_id, c.kind FROM probe_claims c JOIN tables t ON t.id = c.table_id",
    )
    wrong = [(c["claimed_by"], c["bot_id"]) for c in claims if served.get(c["claimed_by"]) != c["bot_id"]]
    assert wrong == [], f"deadlines claimed by another bot's process: {wrong}"
    timeouts = {served[c["claimed_by"]] for c in claims if c["kind"] == "timeout"}
    assert timeouts == {first.bot_id, second.bot_id}, "each bot fired time-outs of its own"
    restarted = [w for w, b in served.items() if b == first.bot_id][-1]
    assert any(c["claimed_by"] == restarted for c in claims), "the restarted bot took its deadlines on"

    # No message with the wrong token: each bot wrote only into its groups and its players' chats.
    for bot in (first, second):
        own = {chat for s in mine[bot.bot_id] for chat in (s.table.group.id, s.ann.id, s.bob.id)}
        assert chats_written(bot) == own, bot.username
    # The update ids overlapped, ids of both bots' applied taps among them, and no update was lost: every tap
    # answered but those the killed process had taken (polling confirms a batch as the next is asked for: what
    # the process held died with it, and a person taps again), and where the bot ran on, every tap of a
    # player who taps at once was applied in time (her time never ran out).
    assert update_ids(first) & update_ids(second)
    both = await _rows(
        pg_database,
        "SELECT update_id FROM processed_updates GROUP BY update_id HAVING count(DISTINCT bot_id) = 2",
    )
    assert both, "an update id of each bot applied, once for each"
    taken_by_killed = _taps_delivered(first.api_log[: procs[first.bot_id].first_calls[1]])
    unanswered = {q.id for q in first.world.callback_queries.values() if not q.answered}
    assert unanswered <= taken_by_killed, "a tap lost that the killed process never had"
    queries = list(second.world.callback_queries.values())
    assert queries and all(q.answered for q in queries), "a tap of the bot that ran on went unanswered"
    assert [times_up(second, s.ann.id) for s in mine[second.bot_id]] == [0, 0]

    # Every round played to its end, each action once and in order: the log replays to the stored match.
    engine = make_engine(url)
    try:
        async with uow_factory(engine)() as uow:
            for bot_id, hosted in mine.items():
                stored = await uow.tables.all_open(bot_id)
                assert {t.group_id for t in stored} == {s.table.group.id for s in hosted}
                for record in stored:
                    log = await uow.actions.of_table(record.id)
                    assert [e.seq for e in log] == list(range(1, len(log) + 1))
                    rebuilt = await rebuild_round(uow, record.id, 1)
                    assert record.match is not None and record.match.round_over
                    assert rebuilt == record.match
    finally:
        await engine.dispose()
    survivor = (tmp_path / f"bot-{second.bot_id}.log").read_text()
    assert " ERROR " not in survivor, survivor
