"""Load benchmark: many tables at once through the real bot, against the Bot API emulator.

    python -m benches.load                    # a quick run: 20 tables
    python -m benches.load --tables 1000 --think 15   # on a SQLite file in a temporary directory
    python -m benches.load --tables 100 --pg postgresql://postgres@127.0.0.1:5432/test

The bot (build_application + start_application, polling) runs in this process; the emulator and the
scripted players run in a subprocess of their own, so that their work is not counted against the bot.
Each table has one or two scripted humans (alternately) who tap a one-tap play or pass after a think
time, and computer players in the other seats; at the end of a round a human taps "Next round".
The players hold their taps until every table is seated. The bot's and the emulator's CPU time over the
measured seconds are printed too (the bot's from this process, the emulator's from /proc).
With --pg a fresh database is created on that server for the run and dropped afterwards.

Printed: actions per second (every move in the action log, computers' included), the time from an
update arriving at the bot to the last Bot API call it causes (p50/p99), the bot's peak memory, the
Bot API calls per action and, by method, per update. The bot's rate limits are set far above Telegram's and the emulator's flood
limits are off: this measures the bot, not Telegram's limits.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

UNLIMITED = 1_000_000  # messages a second / a minute: far above anything the bench can send


# ====================================================================== the players' side (subprocess)


def _pick(buttons: list[dict[str, Any]], rng: random.Random) -> str | None:
    """What a simple player taps: a one-tap play (mostly) or pass; 还贡: the cards to give back."""
    data = [b.get("callback_data", "") for b in buttons]
    give_back = [d for d in data if d.count(":") >= 3 and d.split(":")[3][:1] == "r"]
    if give_back:
        return give_back[0]
    if not any(d.startswith("a:") for d in data):
        cards = [b["callback_data"] for b in buttons if "×" in b.get("text", "")]
        return cards[0] if cards else None
    one_tap = [b["callback_data"] for b in buttons if b.get("text", "").startswith("▶ ")]
    passes = [d for d in data if d.endswith(":x")]
    if one_tap and (not passes or rng.random() < 0.7):
        return rng.choice(one_tap)
    if passes:
        return passes[0]
    choices = [d for d in data if d.startswith("a:") and not d.endswith(":h")]
    return rng.choice(choices) if choices else None


@dataclass
class _Players:
    emu: Any
    think: float
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    humans: dict[int, int] = field(default_factory=dict)  # user id -> group id
    first_human: dict[int, Any] = field(default_factory=dict)  # group id -> user
    taps: int = 0
    pending: set[tuple[int, int, int]] = field(default_factory=set)
    # Until every table is seated, taps wait here (the latest per message): a table that began early
    # would otherwise load the bot while the others are still being seated.
    held: dict[tuple[int, int], tuple[Any, Any, tuple[int, int, int], Any]] | None = field(
        default_factory=dict
    )

    def release(self) -> None:
        held, self.held = self.held or {}, None
        loop = asyncio.get_running_loop()
        for user, msg, stamp, revision in held.values():
            delay = self.rng.uniform(0.5, 1.5) * self.think
            loop.call_later(delay, self._tap, user, msg, stamp, revision)

    def watch(self) -> None:
        journal = self.emu.journal
        add = journal.add

        def add_and_react(kind: str, **data: Any) -> dict[str, Any]:
            event = add(kind, **data)
            if kind in ("bot_message", "bot_edit"):
                self._seen(data["chat_id"], data["message_id"])
            return event

        journal.add = add_and_react

    def _seen(self, chat_id: int, message_id: int) -> None:
        chat = self.emu.world.chats.get(chat_id)
        msg = chat.messages.get(message_id) if chat is not None else None
        if msg is None:
            return
        data = [b.get("callback_data", "") for row in msg.buttons for b in row]
        if chat_id in self.humans:
            if not any(d[:2] in ("a:", "k:") for d in data):
                return
            user = self.emu.world.users[chat_id]
        elif chat_id in self.first_human and any(d.endswith(":next") for d in data):
            user = self.first_human[chat_id]
        else:
            return
        revision = msg.history[-1]
        stamp = (chat_id, message_id, id(revision))
        if stamp in self.pending:
            return
        self.pending.add(stamp)
        if self.held is not None:
            self.held[chat_id, message_id] = (user, msg, stamp, revision)
            return
        delay = self.rng.uniform(0.5, 1.5) * self.think
        asyncio.get_running_loop().call_later(delay, self._tap, user, msg, stamp, revision)

    def _tap(self, user: Any, msg: Any, stamp: tuple[int, int, int], revision: Any) -> None:
        self.pending.discard(stamp)
        if msg.history[-1] is not revision:
            return  # the message changed meanwhile; its new revision was seen too
        buttons = [b for row in msg.buttons for b in row]
        choice = (
            next((b["callback_data"] for b in buttons if b["callback_data"].endswith(":next")), None)
            if msg.chat_id < 0
            else _pick(buttons, self.rng)
        )
        if choice is None:
            return
        with contextlib.suppress(Exception):  # a message deleted meanwhile: nothing to tap
            self.emu.tap(user, msg, choice)
            self.taps += 1


async def _seat_table(emu: Any, players: _Players, n: int, humans: int) -> dict[str, Any]:
    people = [emu.create_user(f"P{n}x{i}", language_code="en") for i in range(humans)]
    group = emu.create_group(f"Table {n}", people)
    for user in people:
        started = emu.start_bot(user)
        # The bot must know the player (his /start answered) before he can sit down.
        await emu.wait_for_bot_message(user.id, after=started, timeout=120)
    said = emu.user_sends(people[0], group.id, "/new")
    lobby = await emu.wait_for(
        lambda: next(
            (
                m
                for m in emu.bot_messages(group.id)
                if m.message_id > said.message_id
                and any(b.get("callback_data", "").endswith(":join") for row in m.buttons for b in row)
            ),
            None,
        ),
        timeout=120,
        description=f"the lobby of table {n}",
    )
    chat = emu.world.chat(group.id)

    def lobbies() -> list[Any]:
        return [
            m
            for m in emu.bot_messages(group.id)
            if m.message_id >= lobby.message_id
            and any(b.get("callback_data", "").endswith(":begin") for row in m.buttons for b in row)
        ]

    def now() -> Any:
        # A tap that beats the bot's note of its lobby message gets a second lobby message; the one
        # drawn for the newest version is the one to tap.
        def version(m: Any) -> int:
            return max(int(b["callback_data"].split(":")[2]) for row in m.buttons for b in row)

        return max(lobbies(), key=version, default=chat.messages[lobby.message_id])

    def shows(text: str) -> bool:
        return any(text in (m.text or "") for m in lobbies())

    async def tap(user: Any, arg: str, until: Any) -> None:
        msg = now()
        data = next(
            b["callback_data"] for row in msg.buttons for b in row if b["callback_data"].endswith(":" + arg)
        )
        query = emu.tap(user, msg, data)
        try:
            await emu.wait_for(until, timeout=120, description=f"lobby {arg} at table {n}")
        except TimeoutError:
            raise TimeoutError(f"table {n} {arg}: {now().text!r} answer {query.answer_text!r}") from None

    for user in people:
        await tap(user, "join", lambda u=user: shows(u.first_name))
    await tap(people[0], "bots", lambda: not all("（空）" in (m.text or "") for m in lobbies()))
    for user in people:
        players.humans[user.id] = group.id
    players.first_human[group.id] = people[0]
    msg = now()
    data = next(
        b["callback_data"] for row in msg.buttons for b in row if b["callback_data"].endswith(":begin")
    )
    emu.tap(people[0], msg, data)
    return {"group": group.id, "users": [u.id for u in people]}


def _trim(emu: Any) -> int:
    """Drop the emulator's logs (journal, API log, update history, old revisions): they keep everything."""
    dropped = len(emu.journal.events) + len(emu.api_log) + len(emu.updates.history)
    emu.journal.events.clear()
    emu.api_log.clear()
    emu.updates.history.clear()
    for chat in emu.world.chats.values():
        for msg in chat.messages.values():
            if len(msg.history) > 2:
                dropped += len(msg.history) - 2
                del msg.history[1:-1]  # the first revision and the latest stay
    emu.world.callback_queries.clear()
    return dropped


async def _emulator_process(tables: int, think: float, concurrency: int) -> None:
    from emulator import TelegramEmulator

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def say(**data: Any) -> None:
        sys.stdout.write(json.dumps(data) + "\n")
        sys.stdout.flush()

    async with TelegramEmulator(flood_enabled=False) as emu:
        players = _Players(emu, think)
        players.watch()
        say(base_url=emu.api_base_url, token=emu.token)
        await reader.readline()  # the bot is running
        gate = asyncio.Semaphore(concurrency)
        began = time.perf_counter()

        async def seat(n: int) -> dict[str, Any]:
            async with gate:
                return await _seat_table(emu, players, n, 1 + n % 2)

        seated = await asyncio.gather(*(seat(n) for n in range(tables)))
        players.release()
        say(tables=seated, setup_s=time.perf_counter() - began)
        dropped = 0
        stop = asyncio.ensure_future(reader.readline())
        while not stop.done():
            await asyncio.wait([stop], timeout=5)
            dropped += _trim(emu)
        say(
            taps=players.taps,
            calls=sum(v for k, v in emu.calls.items() if k != "getUpdates"),
            internal_errors=len(emu.internal_errors),
            dropped_log_entries=dropped,
            peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        )


# ====================================================================== the bot's side (this process)


class _Recorder:
    """Update arrivals and Bot API calls, by table (the group id)."""

    def __init__(self) -> None:
        self.table_of: dict[int, int] = {}  # chat id (group or private) -> group id
        self.arrivals: dict[int, list[float]] = defaultdict(list)
        self.calls: dict[int, list[float]] = defaultdict(list)
        self.query_table: dict[str, int] = {}
        self.updates = 0
        self.api_calls = 0
        self.by_method: Counter[str] = Counter()
        self.unattributed = 0

    def arrived(self, chat_id: int | None, query_id: str | None) -> None:
        self.updates += 1
        table = self.table_of.get(chat_id or 0)
        if table is None:
            return
        self.arrivals[table].append(time.perf_counter())
        if query_id:
            self.query_table[query_id] = table

    def called(self, endpoint: str, data: dict[str, Any]) -> None:
        self.api_calls += 1
        self.by_method[endpoint] += 1
        chat = data.get("chat_id")
        table = (
            self.table_of.get(int(chat))
            if isinstance(chat, int | str) and str(chat).lstrip("-").isdigit()
            else None
        )
        if table is None and "callback_query_id" in data:
            table = self.query_table.pop(str(data["callback_query_id"]), None)
        if table is None:
            self.unattributed += 1
            return
        self.calls[table].append(time.perf_counter())

    def latencies(self, start: float, end: float) -> list[float]:
        """For each update arriving in [start, end): until the table's last API call before its next update."""
        out = []
        for table, arrivals in self.arrivals.items():
            calls = self.calls.get(table, [])
            for i, at in enumerate(arrivals):
                if not start <= at < end:
                    continue
                until = arrivals[i + 1] if i + 1 < len(arrivals) else float("inf")
                last = bisect.bisect_left(calls, until) - 1
                if last >= 0 and calls[last] >= at:
                    out.append(calls[last] - at)
        return out


def _recording_limiter(inner: Any, recorder: _Recorder) -> Any:
    from telegram.ext import BaseRateLimiter

    class Recording(BaseRateLimiter[Any]):
        async def initialize(self) -> None:
            await inner.initialize()

        async def shutdown(self) -> None:
            await inner.shutdown()

        async def process_request(  # type: ignore[override]
            self,
            callback: Any,
            args: Any,
            kwargs: dict[str, Any],
            endpoint: str,
            data: dict[str, Any],
            rate_limit_args: Any,
        ) -> Any:
            result = await inner.process_request(callback, args, kwargs, endpoint, data, rate_limit_args)
            if endpoint != "getUpdates":
                recorder.called(endpoint, data)
            return result

    return Recording()


async def _fresh_pg_database(dsn: str) -> tuple[str, str]:
    """A new database on the server of `dsn`: (SQLAlchemy URL, its name)."""
    import asyncpg

    name = f"gouji_bench_{uuid.uuid4().hex[:10]}"
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    base, _, _db = dsn.rpartition("/")
    return f"{base.replace('postgresql://', 'postgresql+asyncpg://', 1)}/{name}", name


async def _drop_pg_database(dsn: str, name: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def _count_actions(app: Any) -> int:
    from sqlalchemy import text

    async with app.bot_data["engine"].connect() as conn:
        return int((await conn.execute(text("SELECT count(*) FROM actions"))).scalar_one())


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of another process so far (Linux /proc; NaN elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _print_waits() -> None:
    """Where the bot's tasks are waiting right now: the innermost frame of bot/ or storage/ code."""
    from collections import Counter

    where: Counter[str] = Counter()
    for task in asyncio.all_tasks():
        chain, coro = [], task.get_coro()
        while coro is not None and getattr(coro, "cr_frame", None) is not None:
            chain.append(coro.cr_frame)
            coro = coro.cr_await
        frames = [f for f in chain if "/bot/" in f.f_code.co_filename or "/storage/" in f.f_code.co_filename]
        if frames:
            f = frames[-1]
            where[f"{f.f_code.co_filename.rsplit('/', 2)[-2]}/{f.f_code.co_name}:{f.f_lineno}"] += 1
    for line, n in where.most_common(12):
        print(f"  {n:5d} tasks waiting in {line}")


async def _run(args: argparse.Namespace) -> None:
    from telegram import Update
    from telegram.ext import TypeHandler

    from bot.app import build_application, start_application, stop_application
    from bot.config import Settings

    tmp = tempfile.mkdtemp(prefix="gouji-bench-")
    pg_name = None
    if args.pg:
        url, pg_name = await _fresh_pg_database(args.pg)
        where = f"PostgreSQL (fresh database {pg_name})"
    else:
        url = f"sqlite+aiosqlite:///{os.path.join(tmp, 'bench.db')}"
        where = "SQLite (a file in a temporary directory)"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "benches.load",
        "--emulator-process",
        "--tables",
        str(args.tables),
        "--think",
        str(args.think),
        "--setup-concurrency",
        str(args.setup_concurrency),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=2**26,
    )
    assert proc.stdin is not None and proc.stdout is not None

    async def hear() -> dict[str, Any]:
        assert proc.stdout is not None
        line = await proc.stdout.readline()
        if not line:
            raise RuntimeError("the emulator process ended")
        return dict(json.loads(line))

    def tell() -> None:
        assert proc.stdin is not None
        proc.stdin.write(b"go\n")

    app = None
    profiler = None
    try:
        hello = await hear()
        settings = Settings(
            bot_token=hello["token"],
            database_url=url,
            api_base_url=hello["base_url"].removesuffix("/bot"),
            log_level="WARNING",
            group_messages_per_minute=UNLIMITED,
            messages_per_second=UNLIMITED,
        )
        recorder = _Recorder()
        app = build_application(settings)
        app.bot._rate_limiter = _recording_limiter(app.bot.rate_limiter, recorder)

        async def arrived(update: object, _context: object) -> None:
            assert isinstance(update, Update)
            chat = update.effective_chat
            query = update.callback_query
            recorder.arrived(chat.id if chat else None, query.id if query else None)

        app.add_handler(TypeHandler(Update, arrived), group=-1000)
        if args.tracemalloc:
            tracemalloc.start()
        await start_application(app)
        tell()
        seated = await hear()
        for t in seated["tables"]:
            recorder.table_of[t["group"]] = t["group"]
            for user in t["users"]:
                recorder.table_of[user] = t["group"]
        print(
            f"{args.tables} tables seated and dealt in {seated['setup_s']:.1f} s; warming up {args.warmup} s"
        )
        await asyncio.sleep(args.warmup)
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        if args.waits:
            _print_waits()
        actions0, calls0, updates0 = await _count_actions(app), recorder.api_calls, recorder.updates
        methods0 = Counter(recorder.by_method)
        cpu0, emu_cpu0 = time.process_time(), _cpu_seconds(proc.pid)
        start = time.perf_counter()
        await asyncio.sleep(args.seconds)
        end = time.perf_counter()
        cpu, emu_cpu = time.process_time() - cpu0, _cpu_seconds(proc.pid) - emu_cpu0
        actions1, calls1, updates1 = await _count_actions(app), recorder.api_calls, recorder.updates
        methods = recorder.by_method - methods0
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        lat = sorted(
            recorder.latencies(start, end - 1.0)
        )  # the last second's replies may still be on the way
        unattributed = recorder.unattributed
        await stop_application(app)
        app = None
        tell()
        emu_stats = await hear()
        traced = tracemalloc.get_traced_memory()[1] if args.tracemalloc else None
    finally:
        if app is not None:
            await stop_application(app)
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                tell()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 10)
            if proc.returncode is None:
                proc.kill()
        if pg_name is not None:
            await _drop_pg_database(args.pg, pg_name)
        shutil.rmtree(tmp, ignore_errors=True)

    seconds = end - start
    actions = actions1 - actions0
    calls = calls1 - calls0

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1000 if lat else float("nan")

    print(
        f"storage: {where}; {args.tables} tables (1 or 2 humans each, think time ~{args.think} s), {seconds:.0f} s measured"
    )
    print(
        "rate limits: bot's AIORateLimiter at 1,000,000/s and /min, emulator flood limits off (measures the bot)"
    )
    print(f"actions/s:           {actions / seconds:.0f}  ({actions} actions, computers' included)")
    print(f"updates/s:           {(updates1 - updates0) / seconds:.0f}")
    print(
        f"latency update->last API call: p50 {pct(0.50):.1f} ms, p99 {pct(0.99):.1f} ms, max {pct(1.0):.1f} ms"
        f" ({len(lat)} updates)"
    )
    print(f"Bot API calls/action: {calls / actions:.2f}" if actions else "Bot API calls/action: n/a")
    if updates1 > updates0:
        each = ", ".join(f"{m} {n / (updates1 - updates0):.2f}" for m, n in methods.most_common())
        print(f"Bot API calls/update: {each}")
    print(
        f"bot CPU:             {cpu:.1f} s in {seconds:.0f} s (the whole bot process)"
        + (f", {1000 * cpu / actions:.2f} ms per action" if actions else "")
    )
    print(f"emulator CPU:        {emu_cpu:.1f} s (the scripted players and the fake Bot API, other process)")
    print(f"bot peak RSS:        {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    if traced is not None:
        print(f"bot peak traced (tracemalloc): {traced / 2**20:.0f} MB")
    print(
        f"emulator process:    peak RSS {emu_stats['peak_rss_mb']:.0f} MB with its logs trimmed every 5 s "
        f"({emu_stats['dropped_log_entries']} entries dropped), {emu_stats['internal_errors']} internal errors"
    )
    if unattributed:
        print(f"(API calls not attributed to a table, setup included: {unattributed})")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benches.load", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=15.0, help="measured time, after the warm-up")
    parser.add_argument(
        "--warmup", type=float, help="seconds before measuring (default: twice the think time, at least 5)"
    )
    parser.add_argument("--think", type=float, default=2.0, help="a human's mean think time, seconds")
    parser.add_argument(
        "--pg", metavar="DSN", help="PostgreSQL server (e.g. postgresql://postgres@127.0.0.1/test)"
    )
    parser.add_argument("--profile", metavar="FILE", help="cProfile the measured time into FILE")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations (slower)")
    parser.add_argument("--setup-concurrency", type=int, default=32)
    parser.add_argument("--waits", action="store_true", help="print where the bot's tasks wait, once")
    parser.add_argument("--emulator-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.warmup is None:
        args.warmup = max(5.0, 2 * args.think)
    if args.emulator_process:
        asyncio.run(_emulator_process(args.tables, args.think, args.setup_concurrency))
        return
    import logging

    logging.basicConfig(level=logging.WARNING)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    asyncio.run(_run(args))


if __name__ == "__main__":
    main()
