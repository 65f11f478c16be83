"""Load benchmark: tables of scripted humans through the real bot, against the Bot API emulator with
Telegram's flood limits on. What a human action costs in Bot API calls and CPU, how long the bot takes to
answer it, whether it keeps to Telegram's limits, and what that makes one bot token's capacity.

    python -m benches.load                                   # a quick run: 20 tables of six humans
    python -m benches.load --tables 100 --think 5 --seconds 60
    python -m benches.load --tables 1000 --think 15 --seconds 120
    python -m benches.load --tables 100 --think 5 --pg postgresql://postgres@127.0.0.1:5432/test
    python -m benches.load --tables 200 --think 5 --tokens 2 --pg postgresql://postgres@127.0.0.1:5432/test

**Set-up.** The bot (``build_application`` with ``Settings``' defaults: 20 messages a minute per group,
30 a second in all; polling) runs in this process on a SQLite file in a temporary directory, or on a fresh
PostgreSQL database with ``--pg`` (dropped afterwards). The emulator and the scripted humans run in a
subprocess, so that their work is not counted against the bot; with ``--limits on`` (the default) the
emulator enforces ``FloodLimits()``: 20 messages a minute into a group, edits included; 3 per 3 s into a
private chat; 30 a second in all; a 429 with ``retry_after`` beyond them. ``--limits off`` switches only the
emulator's limits off; the bot keeps its own. Each table has ``--humans`` humans (1-6; computers in the other
seats), seated through the bot (``/new``, the lobby's buttons; the humans are taken to have started the bot
before, so no ``/start``): all tables into their lobbies first (``--setup-concurrency`` at a time), then
every table begun at once. The humans (:mod:`benches.players`, where their shares of compositions, one-tap
plays, passes, typed plays, hints and stale taps are given and argued) act from their table's start; the
measured ``--seconds`` begin ``--warmup`` seconds after the last table began (or after ``--setup-timeout``:
a table the bot did not seat or begin by then is counted and printed, and the run goes on).

**A fleet** (``--tokens K``): K bots on the one emulator, each with its own token and Telegram's limits
enforced per token, served by this one process (as ``BOT_TOKEN=t1,t2`` serves them: an Application and an
outbox per token, one database and one computers' pool) on one database; the tables are spread over the
tokens in turn (table n is bot n mod K's). The messages are also printed per token.

**Measured, from outside the bot** (nothing here reaches into the outbox or the rate limiter, which may
change): every Bot API call, by wrapping ``do_request`` of the bot's request class (``bot/http.py``; every
call goes through it): its method, chat, HTTP status, Telegram's description and ``retry_after``. Every
update, when PTB's updater puts it on the application's queue ("the update reaches the bot"), and when its
handlers start. The bot process's CPU time (``time.process_time``). In the emulator: the 429s it answered
(by the limit that refused), the calls made inside a 429's window (``FloodControl.violations``: a bot that
waits out ``retry_after`` makes none), and what the players saw (their waits, refusals, timeouts, rounds).

**Per human action.** Every update in the measured seconds is one human action (a tap, a composer tap
included, or a typed message). A call is the work of the latest update of its table before it (the calls
of one update do not carry its id): the calls between one update of a table and the next are that update's,
and a call held back until the table's next update counts for that one. Latency is from an update reaching
the bot to the last call attributed to it (calls are followed ``--drain`` seconds past the measured ones).

**Capacity.** Telegram's limit of about 30 messages a second applies to what the bot sends into chats:
sendMessage, editMessageText and editMessageReplyMarkup are counted (the methods the emulator's limits
apply to), answerCallbackQuery (an answer to a tap, not a message) and getUpdates are not. A table of six
humans at the think time asks for (messages per human action) × (human actions per second of a table when
the bot answers at once); the latter is the humans' actions over the time they spent thinking and between
taps (at a table one human acts at a time), which does not depend on how slow the bot was in the run. The
capacity is 30 over that, and the CPU capacity one core (less the idle bot's share, measured for ``--idle``
seconds before the tables are seated) over (bot CPU per human action, net of idle) × the same pace.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import logging
import os
import resource
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

GLOBAL_LIMIT = 30.0  # messages a second, all chats (Telegram's bot FAQ; FloodLimits.total_messages)
COUNTED = ("sendMessage", "editMessageText", "editMessageReplyMarkup")  # what the limits apply to
NOT_MODIFIED = "message is not modified"
TRY_AGAIN = "try again"  # the bot's answer when a handler failed ("Something went wrong; please try again.")


def _pct(values: Sequence[float], p: float) -> float:
    """The p-quantile of sorted ``values`` (nearest rank), NaN for none."""
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(p * len(values)))]


def _spread(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {"n": len(values), "p50": _pct(values, 0.5), "p99": _pct(values, 0.99), "max": _pct(values, 1.0)}


def _ms(s: dict[str, float]) -> str:
    if not s["n"]:
        return "none"
    return f"p50 {1000 * s['p50']:,.0f} ms, p99 {1000 * s['p99']:,.0f} ms, max {1000 * s['max']:,.0f} ms (n={s['n']:,})"


# ====================================================================== the players' side (subprocess)


async def _seat_table(
    emu: Any, n: int, humans: int, timeout: float, level: str | None = None
) -> tuple[Any, list[Any], Any]:
    """A group with ``humans`` people in a lobby of the bot's, computers in the other seats (at ``level``,
    chosen in /settings by the table's creator, when given); a coroutine function that begins it."""
    people = [emu.create_user(f"P{n}x{i}", language_code="en") for i in range(humans)]
    for user in people:
        # Players of a bot in use have started it before: no /start (and no welcome message) here.
        emu.world.private_chat(user).started = True
    group = emu.create_group(f"Table {n}", people)
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
        timeout=timeout,
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

    async def tap(user: Any, arg: str, until: Callable[[], Any]) -> None:
        for _attempt in range(3):
            msg = now()
            data = next(
                b["callback_data"]
                for row in msg.buttons
                for b in row
                if b["callback_data"].endswith(":" + arg)
            )
            query = emu.tap(user, msg, data)
            try:
                await emu.wait_for(
                    lambda q=query: until() or (q.answered and TRY_AGAIN in (q.answer_text or "")),
                    timeout=timeout,
                    description=f"lobby {arg} at table {n}",
                )
            except TimeoutError:
                raise TimeoutError(f"table {n} {arg}: {now().text!r} answer {query.answer_text!r}") from None
            if until():
                return
            await asyncio.sleep(1.0)  # the bot said to try again: a person would
        raise RuntimeError(f"table {n} {arg}: the bot kept saying {query.answer_text!r}")

    for user in people:
        await tap(user, "join", lambda u=user: shows(u.first_name))
    if level is not None and humans < 6:
        await _choose_level(emu, group, people[0], level, shows, timeout)
    if humans < 6:
        await tap(people[0], "bots", lambda: not any("（空）" in (m.text or "") for m in lobbies()))

    async def begin() -> None:
        await tap(people[0], "begin", lambda: not lobbies())

    return group, people, begin


LEVELS = {"easy": 1, "normal": 2, "strong": 3}  # bot/codec.py's settings value v:<level>


async def _choose_level(
    emu: Any, group: Any, creator: Any, level: str, shows: Callable[[str], bool], timeout: float
) -> None:
    """The creator opens /settings and taps the computers' level, as a group would; the lobby then shows it."""
    from bot.texts.words import level_text

    said = emu.user_sends(creator, group.id, "/settings")
    panel = await emu.wait_for_bot_message(group.id, after=said, timeout=timeout)
    suffix = f":v:{LEVELS[level]}"
    data = next(
        b["callback_data"] for row in panel.buttons for b in row if b["callback_data"].endswith(suffix)
    )
    emu.tap(creator, panel, data)
    # The lobby reads "电脑：强" (the group's language is the bot's default, Chinese).
    await emu.wait_for(
        lambda: shows(f"：{level_text('zh', LEVELS[level])}"),
        timeout=timeout,
        description=f"the lobby of group {group.id} showing computers at {level}",
    )


class _Calls:
    """The emulator's own count of the calls it answered (every bot's, a fleet's included), by method and
    outcome, read off their api_logs."""

    def __init__(self, *bots: Any) -> None:
        self.bots = bots
        self.by: Counter[str] = Counter()
        self.violations: Counter[str] = Counter()
        self.dropped = 0

    def drain(self, counting: bool) -> None:
        """Count (when ``counting``) and drop the emulator's logs: they keep everything, and the run is long."""
        journal = self.bots[0].journal  # one for the whole emulated Telegram
        self.dropped += len(journal.events)
        journal.events.clear()
        for emu in self.bots:
            if counting:
                for entry in emu.api_log:
                    body = entry["response"]
                    if entry["method"] != "getUpdates":
                        self.by[f"{entry['method']} {'ok' if body['ok'] else body['error_code']}"] += 1
                for v in emu.flood.violations:
                    scope = (
                        "all chats"
                        if v.scope == "all chats"
                        else "private chat"
                        if v.chat_id > 0
                        else "group"
                    )
                    self.violations[
                        f"{v.method} into a {scope}" if scope != "all chats" else f"{v.method} (all chats)"
                    ] += 1
            self.dropped += len(emu.api_log) + len(emu.updates.history)
            emu.flood.violations.clear()
            emu.api_log.clear()
            emu.updates.history.clear()
            for chat in emu.world.chats.values():  # its private chats, and every group (trimmed once)
                for msg in chat.messages.values():
                    if len(msg.history) > 2:
                        self.dropped += len(msg.history) - 2
                        del msg.history[1:-1]  # the first revision and the latest stay
            queries = emu.world.callback_queries
            for qid in [qid for qid, q in queries.items() if q.answered]:
                del queries[qid]  # an unanswered one stays: the bot may still answer it


async def _emulator_process(args: argparse.Namespace) -> None:
    from emulator import FloodLimits, TelegramEmulator

    from .players import Crowd

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def say(**data: Any) -> None:
        sys.stdout.write(json.dumps(data) + "\n")
        sys.stdout.flush()

    def progress(text: str) -> None:
        print(f"  [players] {text}", file=sys.stderr, flush=True)

    emu = TelegramEmulator(flood_enabled=args.limits == "on", flood_limits=FloodLimits())
    # A fleet: more bots on the same emulated Telegram, each with Telegram's limits for its own token.
    bots = [emu] + [
        emu.create_bot(
            f"Gouji Bench {i + 1}",
            username=f"gouji_bench_{i + 1}_bot",
            flood_enabled=args.limits == "on",
            flood_limits=FloodLimits(),
        )
        for i in range(1, args.tokens)
    ]
    async with emu:
        crowd = Crowd(emu, args.think, args.seed)
        calls = _Calls(*bots)
        say(
            base_url=emu.api_base_url,
            token=emu.token,
            tokens=[b.token for b in bots],
            limits=vars(emu.flood.limits),
            flood=emu.flood.enabled,
        )
        await reader.readline()  # the bot is running
        measuring = False

        async def trim() -> None:
            while True:
                await asyncio.sleep(2.0)
                calls.drain(measuring)

        trimmer = asyncio.ensure_future(trim())
        gate = asyncio.Semaphore(args.setup_concurrency)
        began = time.perf_counter()
        done = 0

        failures: Counter[str] = Counter()

        async def seat(n: int) -> tuple[Any, list[Any], Any, Any] | None:
            nonlocal done
            bot = bots[n % len(bots)]  # the tables spread over the fleet's tokens in turn
            try:
                async with gate:
                    seated = await _seat_table(bot, n, args.humans, args.setup_timeout, args.level)
            except (TimeoutError, RuntimeError) as e:  # an overloaded bot: counted, and the run goes on
                failures[f"seating: {str(e)[:120]}"] += 1
                return None
            done += 1
            return (*seated, bot)

        async def report_progress(what: str) -> None:
            while True:
                await asyncio.sleep(15)
                progress(f"{done}/{args.tables} tables {what} after {time.perf_counter() - began:.0f} s")

        reporter = asyncio.ensure_future(report_progress("seated"))
        seated = [s for s in await asyncio.gather(*(seat(n) for n in range(args.tables))) if s is not None]
        reporter.cancel()
        seat_s, done = time.perf_counter() - began, 0
        reporter = asyncio.ensure_future(report_progress("begun"))

        async def begin(group: Any, people: list[Any], go: Any) -> None:
            nonlocal done
            try:
                await go()
            except (TimeoutError, RuntimeError) as e:
                failures[f"beginning: {str(e)[:120]}"] += 1
                return
            done += 1

        # Every table is begun at once and its humans play from then on: waiting for one table's start
        # before beginning the next would leave a bot that cannot keep up beginning tables for an hour
        # (today's bot, 1,000 tables: 700 begun after 50 minutes) while the begun ones play.
        starting = []
        for group, people, go, bot in seated:
            crowd.start(crowd.seat(group.id, people, bot))
            starting.append(asyncio.ensure_future(begin(group, people, go)))
        if starting:
            await asyncio.wait(starting, timeout=args.setup_timeout)
        reporter.cancel()
        say(
            tables=[
                {"group": g.id, "users": [u.id for u in people], "bot": bot.bot_id}
                for g, people, _, bot in seated
            ],
            seat_s=seat_s,
            begin_s=time.perf_counter() - began - seat_s,
            begun=done,
            failures=dict(failures),
        )
        refused0: Counter[str] = Counter()
        refused: Counter[str] = Counter()
        while True:
            line = (await reader.readline()).decode().strip()
            if line == "measure":
                calls.drain(False)
                refused0 = sum((Counter(b.flood.refusals_by_limit) for b in bots), Counter())
                measuring = crowd.stats.measuring = True
            elif line == "stop":
                calls.drain(True)
                measuring = crowd.stats.measuring = False
                refused = sum((Counter(b.flood.refusals_by_limit) for b in bots), Counter())
                refused.subtract(refused0)
            elif line == "report":
                st = crowd.stats
                say(
                    actions=dict(st.actions),
                    human_time=st.human_time,
                    answer_wait=_spread(st.answer_wait),
                    redraw_wait=_spread(st.redraw_wait),
                    handover=_spread(st.handover),
                    turns=dict(st.turns),
                    refused=dict(st.refused),
                    refusal_texts=dict(st.refusal_texts.most_common(6)),
                    timeouts=st.timeouts,
                    reminders=st.reminders,
                    rounds=st.rounds,
                    lost_patience=st.lost_patience,
                    errors=dict(st.errors),
                    calls=dict(calls.by),
                    refusals_by_limit={k: v for k, v in refused.items() if v},
                    violations=dict(calls.violations),
                    internal_errors=len(emu.internal_errors),  # the network's, every bot's
                    dropped_log_entries=calls.dropped,
                    peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                )
            elif line in ("quit", ""):
                break
        trimmer.cancel()
        await crowd.close()


# ====================================================================== the bot's side (this process)


def _kind_of(update: Any) -> str:
    """What the human did, as the update shows it (a composed play's final tap is a move tap like a one-tap)."""
    query = update.callback_query
    if query is not None:
        data = query.data or ""
        if data.startswith("k:"):
            return "composer tap"
        if data.startswith("a:"):
            return "hint" if data.endswith(":h") else "move tap"
        if data.startswith("l:"):
            return "next round" if data.endswith(":next") else "lobby tap"
        return "other tap"
    message = update.effective_message
    if message is not None and message.text:
        return "command" if message.text.startswith("/") else "typed"
    return "other"


class _Recorder:
    """Update arrivals and Bot API calls, by table (the group id)."""

    def __init__(self) -> None:
        self.table_of: dict[int, int] = {}  # chat id (group or private) -> group id
        self.query_table: dict[str, int] = {}
        self.query_arrival: dict[str, float] = {}
        # (arrived, table, kind, (bot, update id), callback query id): each bot numbers its own updates
        self.arrivals: list[tuple[float, int | None, str, tuple[int, int], str | None]] = []
        self.started: dict[tuple[int, int], float] = {}  # (bot, update id) -> its handlers started
        # (made at, table, method, status, key, description, retry_after, the bot: its token's id)
        self.calls: list[tuple[float, int | None, str, int | str, Any, str | None, float | None, int]] = []
        self.logged: list[tuple[float, str]] = []
        self.log_example: dict[str, str] = {}

    def arrived(self, update: Any, bot: int) -> None:
        now = time.perf_counter()
        chat = update.effective_chat
        query = update.callback_query
        table = self.table_of.get(chat.id) if chat is not None else None
        qid = query.id if query is not None else None
        if qid is not None:
            self.query_arrival[qid] = now
            if table is not None:
                self.query_table[qid] = table
        self.arrivals.append((now, table, _kind_of(update), (bot, update.update_id), qid))

    def called(
        self, at: float, bot: int, method: str, params: dict[str, Any], status: int | str, body: bytes | None
    ) -> None:
        chat = params.get("chat_id")
        chat_id = (
            int(chat)
            if isinstance(chat, int) or (isinstance(chat, str) and chat.lstrip("-").isdigit())
            else None
        )
        table = self.table_of.get(chat_id) if chat_id is not None else None
        qid = params.get("callback_query_id")
        if qid is not None:
            table = self.query_table.get(str(qid))
            key: Any = ("answer", str(qid))
        elif method == "sendMessage":
            key = ("send", chat_id, hash(params.get("text")))
        elif method.startswith("edit"):
            key = ("edit", chat_id, params.get("message_id"))
        else:
            key = (method, chat_id)
        description, retry_after = None, None
        if body is not None:
            with contextlib.suppress(ValueError, AttributeError):
                answer = json.loads(body)
                description = str(answer.get("description"))
                retry_after = (answer.get("parameters") or {}).get("retry_after")
        self.calls.append((at, table, method, status, key, description, retry_after, bot))


def _bot_id(token: str) -> int:
    """A bot's id, its token's first part (as Telegram makes them)."""
    return int(token.partition(":")[0])


def _record_calls(request_class: type, recorder: _Recorder) -> None:
    """Every Bot API call through ``request_class`` is also told to ``recorder`` (getUpdates excepted)."""
    original = request_class.do_request  # type: ignore[attr-defined]
    if getattr(original, "bench_recorded", False):
        return

    async def do_request(self: Any, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        names = ("url", "method", "request_data")
        given = dict(zip(names, args, strict=False)) | {k: kwargs[k] for k in names if k in kwargs}
        url = str(given["url"])
        token, endpoint = url.rsplit("/", 2)[-2:]
        bot = _bot_id(token.removeprefix("bot"))
        if endpoint == "getUpdates":
            return await original(self, *args, **kwargs)  # type: ignore[no-any-return]
        data = given.get("request_data")
        params = data.parameters if data is not None else {}
        at = time.perf_counter()
        try:
            status, body = await original(self, *args, **kwargs)
        except Exception as e:  # a timeout or a network error: the bot sees it raised
            recorder.called(at, bot, endpoint, params, type(e).__name__, None)
            raise
        recorder.called(at, bot, endpoint, params, status, body if status != 200 else None)
        return status, body

    do_request.bench_recorded = True  # type: ignore[attr-defined]
    request_class.do_request = do_request  # type: ignore[attr-defined]


class _LogCounter(logging.Handler):
    """The bot's warnings and errors, counted rather than printed (under the limits there are thousands)."""

    def __init__(self, recorder: _Recorder) -> None:
        super().__init__(logging.WARNING)
        self.recorder = recorder

    def emit(self, record: logging.LogRecord) -> None:
        # Counted by the message's template; one filled-in example kept (the bot logs no message texts).
        key = f"{record.name}: {record.msg}"
        self.recorder.logged.append((time.perf_counter(), key))
        self.recorder.log_example.setdefault(key, record.getMessage()[:200])


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


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of another process so far (Linux /proc; NaN elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pool_cpu(app: Any) -> dict[int, float]:
    """CPU seconds so far of each process of the strong computers' pool (bot/computers.py), by pid."""
    computers = app.bot_data.get("computers")
    return {pid: _cpu_seconds(pid) for pid in (computers.pids() if computers is not None else [])}


class _PoolWatch:
    """The strong computers' pool over the measured seconds: its counters (bot/computers.py's PoolStats, the
    budgets it used) at the start and the end, and how many decisions were queued or running, every half
    second."""

    EVERY = 0.5

    def __init__(self, app: Any) -> None:
        self.computers = app.bot_data.get("computers")
        self.queued: list[int] = []
        self.before: Any = None
        self.stats: Any = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.computers is not None:
            self.before = self.computers.stats.copy()
            self._task = asyncio.ensure_future(self._sample())

    async def _sample(self) -> None:
        while True:
            self.queued.append(self.computers.waiting)
            await asyncio.sleep(self.EVERY)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self.stats = self.computers.stats.since(self.before)


def _print_waits() -> None:
    """Where the bot's tasks are waiting right now: the innermost frame of bot/, table/ or storage/ code."""
    where: Counter[str] = Counter()
    for task in asyncio.all_tasks():
        chain, coro = [], task.get_coro()
        while coro is not None and getattr(coro, "cr_frame", None) is not None:
            chain.append(coro.cr_frame)
            coro = coro.cr_await
        frames = [
            f for f in chain if any(f"/{p}/" in f.f_code.co_filename for p in ("bot", "table", "storage"))
        ]
        if frames:
            f = frames[-1]
            where[f"{f.f_code.co_filename.rsplit('/', 2)[-2]}/{f.f_code.co_name}:{f.f_lineno}"] += 1
    print("where the bot's tasks wait, at the end of the measured seconds:")
    for line, n in where.most_common(12):
        print(f"  {n:6,d} tasks in {line}")


class _Stalls:
    """How long the event loop is held: the longest single callback (a step of a task, a timer, an I/O
    callback: every other table waits that long) and how late a 10 ms ticker wakes up (a step plus everything
    queued before it). Each callback is timed by wrapping ``asyncio.Handle._run`` while measuring; that costs
    two clock reads a callback."""

    TICK = 0.01

    def __init__(self) -> None:
        self.longest = 0.0
        self.longest_where = ""
        self.over_50ms = 0
        self.lateness: list[float] = []
        self._original: Any = None
        self._ticker: asyncio.Task[None] | None = None

    def start(self) -> None:
        original = self._original = asyncio.Handle._run
        stalls = self

        def _run(handle: asyncio.Handle) -> None:
            t0 = time.perf_counter()
            original(handle)
            dt = time.perf_counter() - t0
            if dt > 0.05:
                stalls.over_50ms += 1
            if dt > stalls.longest:
                stalls.longest = dt
                stalls.longest_where = repr(handle)[:160]

        asyncio.Handle._run = _run  # type: ignore[method-assign]
        self._ticker = asyncio.ensure_future(self._tick())

    async def _tick(self) -> None:
        while True:
            due = time.perf_counter() + self.TICK
            await asyncio.sleep(self.TICK)
            self.lateness.append(time.perf_counter() - due)

    def stop(self) -> None:
        if self._original is not None:
            asyncio.Handle._run = self._original  # type: ignore[method-assign]
            self._original = None
        if self._ticker is not None:
            self._ticker.cancel()


def _attribute(
    recorder: _Recorder, start: float, end: float, until: float
) -> tuple[list[tuple[str, float, int]], int]:
    """For each update arriving in [start, end): (kind, latency to its last call, its calls); and the number
    of such updates no call was attributed to."""
    arrivals: dict[int, list[tuple[float, str]]] = defaultdict(list)
    for at, table, kind, _uid, _qid in recorder.arrivals:
        if table is not None:
            arrivals[table].append((at, kind))
    calls: dict[int, list[float]] = defaultdict(list)
    for at, table, *_ in recorder.calls:
        if table is not None and at < until:
            calls[table].append(at)
    out, silent = [], 0
    for table, updates in arrivals.items():
        times = sorted(calls.get(table, []))
        for i, (at, kind) in enumerate(updates):
            if not start <= at < end:
                continue
            upto = updates[i + 1][0] if i + 1 < len(updates) else until
            lo, hi = bisect.bisect_left(times, at), bisect.bisect_left(times, upto)
            if hi > lo:
                out.append((kind, times[hi - 1] - at, hi - lo))
            else:
                silent += 1
    return out, silent


async def _run(args: argparse.Namespace) -> None:
    from telegram import Update
    from telegram.ext import TypeHandler

    from bot.app import Shared, build_application, start_application, stop_application
    from bot.config import Settings

    tmp = tempfile.mkdtemp(prefix="gouji-bench-")
    pg_name = None
    if args.pg:
        url, pg_name = await _fresh_pg_database(args.pg)
        where = f"PostgreSQL (fresh database {pg_name})"
    else:
        url = f"sqlite+aiosqlite:///{os.path.join(tmp, 'bench.db')}"
        where = "SQLite (a file in a temporary directory)"
    child = [sys.executable, "-m", "benches.load", "--emulator-process"]
    for name in (
        "tables",
        "humans",
        "think",
        "seed",
        "limits",
        "setup_concurrency",
        "setup_timeout",
        "tokens",
    ):
        child += [f"--{name.replace('_', '-')}", str(getattr(args, name))]
    if args.level is not None:
        child += ["--level", args.level]
    proc = await asyncio.create_subprocess_exec(
        *child, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**26
    )
    assert proc.stdin is not None and proc.stdout is not None

    async def hear() -> dict[str, Any]:
        assert proc.stdout is not None
        line = await proc.stdout.readline()
        if not line:
            raise RuntimeError("the emulator process ended")
        return dict(json.loads(line))

    def tell(what: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(what.encode() + b"\n")

    recorder = _Recorder()
    stalls = _Stalls()
    counter = _LogCounter(recorder)
    logging.getLogger().addHandler(counter)
    apps: list[Any] = []
    profiler = None
    began = time.perf_counter()
    try:
        hello = await hear()
        # The bot's own settings are its defaults: Telegram's limits (20 a minute per group, 30 a second);
        # the strong computers' pool as given.
        tokens = hello["tokens"]
        settings = Settings(
            bot_token=",".join(tokens),
            database_url=url,
            api_base_url=hello["base_url"].removesuffix("/bot"),
            log_level="WARNING",
            strong_workers=args.strong_workers,
            **({"strong_floor_ms": args.strong_floor_ms} if args.strong_floor_ms is not None else {}),
        )
        # One Application per token on what they share (as bot.app.run_fleet serves BOT_TOKEN=t1,t2).
        shared = Shared(settings)
        apps = [build_application(settings, token, shared=shared) for token in tokens]
        _record_calls(type(apps[0].bot.request), recorder)

        async def handling(update: object, context: Any) -> None:
            assert isinstance(update, Update)
            recorder.started[(_bot_id(context.bot.token), update.update_id)] = time.perf_counter()

        for app in apps:
            queue = app.update_queue

            async def arrived(item: Any, put: Any = queue.put, bot_id: int = _bot_id(app.bot.token)) -> None:
                if isinstance(item, Update):
                    recorder.arrived(item, bot_id)
                await put(item)

            queue.put = arrived  # type: ignore[method-assign]
            app.add_handler(TypeHandler(Update, handling), group=-1000)
        for app in apps:
            await start_application(app)
        app = apps[0]  # what the pool's figures are read from: the computers are shared
        # The bot's CPU with nothing to do (polling, the job queue), so that a light run's figure per action
        # can be read net of it.
        idle0, idle_at = time.process_time(), time.perf_counter()
        await asyncio.sleep(args.idle)
        idle = (time.process_time() - idle0) / (time.perf_counter() - idle_at)
        tell("go")
        seated = await hear()
        for t in seated["tables"]:
            recorder.table_of[t["group"]] = t["group"]
            for user in t["users"]:
                recorder.table_of[user] = t["group"]
        print(
            f"{len(seated['tables'])} of {args.tables} tables seated in {seated['seat_s']:.0f} s,"
            f" {seated['begun']} begun in {seated['begin_s']:.0f} s more; warming up {args.warmup:.0f} s",
            flush=True,
        )
        await asyncio.sleep(args.warmup)
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        tell("measure")
        cpu0, emu_cpu0 = time.process_time(), _cpu_seconds(proc.pid)
        pool_cpu0, pool_cpu = _pool_cpu(app), {}
        pool = _PoolWatch(app)
        start = time.perf_counter()
        stalls.start()
        pool.start()
        await asyncio.sleep(args.seconds)
        pool.stop()
        stalls.stop()
        end = time.perf_counter()
        tell("stop")
        cpu, emu_cpu = time.process_time() - cpu0, _cpu_seconds(proc.pid) - emu_cpu0
        pool_cpu = {pid: t - pool_cpu0.get(pid, 0.0) for pid, t in _pool_cpu(app).items()}
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        if args.waits:
            _print_waits()
        load = os.getloadavg()
        await asyncio.sleep(args.drain)  # the calls of the last updates, still on their way
        until = time.perf_counter()
        tell("report")
        players = await hear()
        for app in apps:
            await stop_application(app)
        apps = []
    finally:
        stalls.stop()
        logging.getLogger().removeHandler(counter)
        for app in apps:
            await stop_application(app)
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                tell("quit")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 30)
            if proc.returncode is None:
                proc.kill()
        if pg_name is not None:
            await _drop_pg_database(args.pg, pg_name)
        shutil.rmtree(tmp, ignore_errors=True)
    _report(
        args,
        where,
        hello,
        seated,
        players,
        recorder,
        stalls,
        start,
        end,
        until,
        cpu,
        idle,
        emu_cpu,
        sum(pool_cpu.values()),
        pool,
        load,
        began,
    )


def _report(
    args: argparse.Namespace,
    where: str,
    hello: dict[str, Any],
    seated: dict[str, Any],
    players: dict[str, Any],
    recorder: _Recorder,
    stalls: _Stalls,
    start: float,
    end: float,
    until: float,
    cpu: float,
    idle: float,
    emu_cpu: float,
    pool_cpu: float,
    pool: _PoolWatch,
    load: tuple[float, float, float],
    began: float,
) -> None:
    seconds = end - start
    tables = args.tables
    updates = [a for a in recorder.arrivals if start <= a[0] < end]
    actions = sum(1 for a in updates if a[1] is not None)
    calls = [c for c in recorder.calls if start <= c[0] < end]
    by_method = Counter(c[2] for c in calls)
    ok = [c for c in calls if c[3] == 200]
    counted = [c for c in ok if c[2] in COUNTED]
    counted_group = sum(1 for c in counted if isinstance(c[4][1], int) and c[4][1] < 0)
    limits = hello["limits"]

    def per(n: float) -> str:
        return f"{n / actions:.2f}" if actions else "n/a"

    print()
    fleet = [_bot_id(token) for token in hello["tokens"]]
    print(
        f"bench_load: {tables} tables × {args.humans} humans (computers in the other seats"
        f"{f', level {args.level}' if args.level else ''}), think time ~{args.think:g} s, seed {args.seed}; {where}"
        + (
            f"; a fleet of {len(fleet)} tokens in this one process, the tables spread over them"
            if len(fleet) > 1
            else ""
        )
    )
    if hello["flood"]:
        print(
            f"Telegram's limits ON in the emulator: {limits['group_messages']} per {limits['group_period']:g} s"
            f" into a group (edits included), {limits['private_messages']} per {limits['private_period']:g} s"
            f" into a private chat, {limits['total_messages']} per {limits['total_period']:g} s in all;"
            " the bot with its Settings' defaults"
        )
    else:
        print("Telegram's limits OFF in the emulator (--limits off); the bot with its Settings' defaults")
    if len(seated["tables"]) < tables or seated["begun"] < tables:
        print(
            f"NOT ALL TABLES PLAY: {len(seated['tables'])} of {tables} seated, {seated['begun']} begun within"
            f" --setup-timeout {args.setup_timeout:g} s; "
            + "; ".join(f"{k} ×{v}" for k, v in seated["failures"].items())
        )
    print(
        f"set-up: seated in {seated['seat_s']:.0f} s, begun in {seated['begin_s']:.0f} s, warm-up"
        f" {args.warmup:.0f} s; measured {seconds:.0f} s, calls followed {until - end:.0f} s more;"
        f" load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1/5/15 min) at the end;"
        f" {time.perf_counter() - began:.0f} s in all"
    )

    kinds = Counter(players["actions"])
    total = sum(kinds.values())
    print()
    print(f"human actions:       {actions:,} updates from the tables' humans ({actions / seconds:.1f}/s)")
    turns = Counter(players["turns"])
    if turns:
        print("  turns played: " + ", ".join(f"{k} {n:,}" for k, n in turns.most_common()))
    if total:
        shares = ", ".join(f"{k} {100 * n / total:.0f}%" for k, n in kinds.most_common())
        print(f"  as the players count them ({total:,}): {shares}")
        print(
            "  (compose-tap: a rank button; compose / compose-mistake / give-back: the Play, 烧 or Give back"
            " after composing; fallback: a one-tap play or Pass after a refusal)"
        )
    print(
        f"Bot API calls:       {len(calls):,} ({len(calls) / seconds:.1f}/s), {per(len(calls))} per human action"
    )
    print("  per human action:  " + ", ".join(f"{m} {per(n)}" for m, n in by_method.most_common()))
    net = cpu - idle * seconds
    print(
        f"bot CPU:             {cpu:.1f} s in {seconds:.0f} s; "
        + (f"{1000 * cpu / actions:.2f} ms per human action" if actions else "n/a")
        + f" ({1000 * net / actions:.2f} ms net of the idle bot's {100 * idle:.1f}% of a core)"
        * bool(actions)
    )

    if pool_cpu:
        print(
            f"strong computers' process pool: CPU {pool_cpu:.1f} s in {seconds:.0f} s"
            f" ({100 * pool_cpu / seconds:.0f}% of a core), not in the bot's figure above"
        )
    if pool.stats is not None and (pool.stats.decisions or pool.stats.forced):
        _report_strong(pool, pool_cpu, seconds, stalls, players)
    late = sorted(stalls.lateness)
    print(
        f"event loop: longest stall {1000 * stalls.longest:.1f} ms (one callback; {stalls.over_50ms} over 50 ms);"
        f" a 10 ms timer woke late by p50 {1000 * _pct(late, 0.5):.1f} ms, p99 {1000 * _pct(late, 0.99):.1f} ms,"
        f" max {1000 * _pct(late, 1.0):.1f} ms"
    )
    if stalls.longest_where:
        print(f"  the longest: {stalls.longest_where}")

    attributed, silent = _attribute(recorder, start, end, until)
    lat = _spread([a[1] for a in attributed])
    print(
        f"latency, update -> its last call: {_ms(lat)}"
        + (f"; {silent} updates with no call" if silent else "")
    )
    answers: dict[str, float] = {}
    for c in recorder.calls:
        if c[2] == "answerCallbackQuery" and c[3] == 200:
            answers.setdefault(c[4][1], c[0])
    answered = [answers[q] - at for at, _t, _k, _u, q in updates if q is not None and q in answers]
    print(f"  a tap until its answerCallbackQuery: {_ms(_spread(answered))}")
    unanswered = sum(
        1 for at, t, _k, _u, q in updates if q is not None and t is not None and q not in answers
    )
    if unanswered:
        print(f"  TAPS NOT ANSWERED by the end (answerCallbackQuery never made): {unanswered:,}")
    slots = [recorder.started[u] - at for at, _t, _k, u, _q in updates if u in recorder.started]
    waiting = sum(1 for _a, _t, _k, u, _q in updates if u not in recorder.started)
    print(
        f"  an update until its handlers start (PTB's queue): {_ms(_spread(slots))}"
        + (f"; NOT STARTED by the end: {waiting:,}" if waiting else "")
    )
    by_kind: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for kind, latency, n in attributed:
        by_kind[kind].append((latency, n))
    for kind, rows in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        s = _spread([r[0] for r in rows])
        print(
            f"  {kind + ':':14s} {len(rows):6,d} updates, {sum(r[1] for r in rows) / len(rows):.2f} calls each,"
            f" p50 {1000 * s['p50']:,.0f} ms, p99 {1000 * s['p99']:,.0f} ms"
        )
    group_calls: dict[int, list[float]] = defaultdict(list)
    for c in recorder.calls:
        if c[3] == 200 and c[2] in COUNTED and isinstance(c[4][1], int) and c[4][1] < 0:
            group_calls[c[4][1]].append(c[0])
    for times in group_calls.values():
        times.sort()
    lags = []
    for at, table, kind, _u, _q in updates:
        if table is not None and kind in ("move tap", "typed"):
            times = group_calls.get(table, [])
            i = bisect.bisect_right(times, at)
            lags.append(times[i] - at if i < len(times) else until - at)
    print(f"  a move until the next message or edit into its group: {_ms(_spread(lags))}")
    print("the players' side:")
    print(f"  a tap until answered:            {_ms(players['answer_wait'])}")
    print(f"  a composer tap until redrawn:    {_ms(players['redraw_wait'])}")
    print(f"  a move until the next human's turn message at the table: {_ms(players['handover'])}")
    if players["refusal_texts"]:
        print(
            "  the bot's refusals: " + "; ".join(f"{t!r} ×{n}" for t, n in players["refusal_texts"].items())
        )
    busy = players["human_time"] / (tables * seconds) if seconds else float("nan")
    print(
        f"  the humans were thinking or tapping {100 * busy:.0f}% of the table time;"
        f" waiting for the bot {100 * (1 - busy):.0f}%"
    )
    print(
        f"  rounds finished {players['rounds']}, turns played by the clock {players['timeouts']},"
        f" reminders {players['reminders']}, refused {players['refused'] or 0},"
        f" gave up waiting {players['lost_patience']}, taps on a vanished button {players['errors'] or 0}"
    )

    statuses = Counter(c[3] for c in calls)
    too_many = [c for c in calls if c[3] == 429]
    print("Telegram's answers:")
    print(
        f"  429s received by the bot: {len(too_many):,}"
        + (
            " (" + ", ".join(f"{m} {n}" for m, n in Counter(c[2] for c in too_many).most_common()) + ";"
            f" retry_after total {sum(float(c[6] or 0) for c in too_many):,.0f} s)"
            if too_many
            else ""
        )
    )
    emulated = Counter(players["calls"])
    print(
        f"  the emulator answered {sum(emulated.values()):,} calls in the measured seconds: "
        + ", ".join(f"{k} {v:,}" for k, v in emulated.most_common())
    )
    refusals = players["refusals_by_limit"]
    print(
        f"  429s answered by the emulator: {sum(refusals.values()):,}"
        + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(refusals.items())) + ")" if refusals else "")
    )
    violations = players["violations"]
    print(
        f"  calls inside a 429's retry window: {sum(violations.values()):,}"
        + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(violations.items())) + ")" if violations else "")
    )
    not_modified = sum(1 for c in calls if c[5] and NOT_MODIFIED in c[5])
    print(f"  no-op edits refused ('message is not modified'): {not_modified:,}")
    failed = [
        c
        for c in calls
        if not isinstance(c[3], int)
        or c[3] >= 500
        or (c[3] >= 400 and c[3] != 429 and NOT_MODIFIED not in (c[5] or ""))
    ]
    reasons = Counter(c[3] if not isinstance(c[3], int) else f"{c[3]} {c[5]}" for c in failed)
    print(
        f"  calls that timed out or failed: {len(failed):,}"
        + (
            " (" + "; ".join(f"{k} ×{v}" for k, v in reasons.most_common(6)) + ")"
            if failed
            else " (must be 0)"
        )
    )
    later_ok = {c[4]: c[0] for c in recorder.calls if c[3] == 200 and c[0] < until}
    lost = {c[4] for c in too_many if later_ok.get(c[4], 0.0) < c[0]}
    print(f"  calls refused with a 429 and never made again successfully (messages lost): {len(lost):,}")
    other = Counter(s for s in statuses if s not in (200, 429))
    if other:
        print("  statuses other than 200 and 429: " + ", ".join(f"{s} ×{statuses[s]}" for s in other))
    logged = Counter(text for at, text in recorder.logged if start <= at < until)
    if logged:
        print("  the bot's log, warnings and errors (an example of each kind):")
        for t, n in logged.most_common(5):
            print(f"    ×{n:,}: {recorder.log_example.get(t, t)}")

    print(
        "messages (sendMessage and edits that went through; answerCallbackQuery and getUpdates not counted):"
    )
    print(
        f"  {len(counted) / seconds:.1f}/s in the run (Telegram allows {GLOBAL_LIMIT:g}/s"
        f"{' per token' if len(fleet) > 1 else ''}), {per(len(counted))} per"
        f" human action; into the groups {counted_group / tables / seconds * 60:.1f} a minute per table (limit 20),"
        f" into private chats {(len(counted) - counted_group) / (tables * args.humans) / seconds:.2f}/s per human"
    )
    if len(fleet) > 1:
        tables_of = Counter(t["bot"] for t in seated["tables"])
        sent_by, refused_by = Counter(c[7] for c in counted), Counter(c[7] for c in too_many)
        for bot in fleet:
            print(
                f"  token of bot {bot}: {sent_by[bot] / seconds:.1f}/s for its {tables_of[bot]} tables"
                f" ({sent_by[bot] / max(tables_of[bot], 1) / seconds:.2f}/s a table), 429s received"
                f" {refused_by[bot]}"
            )
    if actions and players["human_time"] > 0 and total:
        pace = total / players["human_time"]  # a table's human actions a second if the bot answered at once
        demand = pace * len(counted) / actions
        cpu_each = max(net, 0.0) / actions
        print("capacity:")
        print(
            f"  a table of {args.humans} humans at think time ~{args.think:g} s makes {pace:.2f} human actions/s when"
            f" the bot answers at once: {demand:.2f} messages/s"
        )
        deletes = sum(1 for c in ok if c[2] == "deleteMessage")
        if deletes:
            print(
                f"  ({deletes / actions:.2f} deleteMessage per human action not counted: the emulator does not"
                f" limit it; counted, one token carries {GLOBAL_LIMIT / (pace * (len(counted) + deletes) / actions):,.0f} tables)"
            )
        print(
            f"  one bot token ({GLOBAL_LIMIT:g} messages/s): {GLOBAL_LIMIT / demand:,.0f} tables;"
            f" the bot's CPU ({1000 * cpu_each:.2f} ms per action, net of idle) on one core:"
            f" {(1 - idle) / (cpu_each * pace):,.0f} tables"
        )
        if len(fleet) > 1:
            each = round(GLOBAL_LIMIT / demand)
            print(
                f"  the fleet's {len(fleet)} tokens: {len(fleet)} × {each:,} = {len(fleet) * each:,} tables by"
                " Telegram's limits; one process's CPU as above (a fleet past it runs a process per token, or"
                " per few, on the same database)"
            )
    print(
        f"bot peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB; emulator and players:"
        f" CPU {emu_cpu:.1f} s in {seconds:.0f} s, peak RSS {players['peak_rss_mb']:.0f} MB,"
        f" {players['internal_errors']} internal errors"
    )


def _report_strong(
    pool: _PoolWatch, pool_cpu: float, seconds: float, stalls: _Stalls, players: dict[str, Any]
) -> None:
    """The strong computers' figures in one place: what they thought, at what cost, and what the humans
    waited for."""
    c, s = pool.computers, pool.stats
    queued = sorted(pool.queued)
    print(
        f"strong computers ({c.workers} workers at nice +10, budget {c.options.budget_ms:.0f} ms bending down to"
        f" {c.floor_ms:.0f} ms):"
    )
    print(f"  {s.summary()}")
    print(
        f"  queued or running, every {pool.EVERY:g} s: p50 {_pct(queued, 0.5):.0f}, max {_pct(queued, 1.0):.0f};"
        f" the workers busy deciding {s.busy_s:.1f} s in {seconds:.0f} s; their CPU {pool_cpu:.1f} s"
        f" ({100 * pool_cpu / seconds:.0f}% of a core)"
    )
    print(f"  the event loop's longest stall {1000 * stalls.longest:.1f} ms ({stalls.over_50ms} over 50 ms)")
    answered, handed = players["answer_wait"], players["handover"]
    print(
        f"  as the humans felt it: a tap until answered p50 {1000 * answered['p50']:,.0f} ms,"
        f" p99 {1000 * answered['p99']:,.0f} ms; a move until the next human's turn message at the table"
        f" p50 {1000 * handed['p50']:,.0f} ms, p99 {1000 * handed['p99']:,.0f} ms (n={handed['n']:,})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benches.load", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument(
        "--humans", type=int, default=6, choices=range(1, 7), metavar="1-6", help="humans per table"
    )
    parser.add_argument(
        "--think", type=float, default=5.0, help="a human's mean think time on a turn, seconds"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="measured time, after the warm-up")
    parser.add_argument(
        "--warmup",
        type=float,
        help="seconds after the last table began (default: three think times, at least 10)",
    )
    parser.add_argument(
        "--drain", type=float, default=10.0, help="seconds the calls are followed after the measured ones"
    )
    parser.add_argument(
        "--limits",
        choices=("on", "off"),
        default="on",
        help="Telegram's flood limits in the emulator (default on)",
    )
    parser.add_argument(
        "--level",
        choices=tuple(LEVELS),
        help="the computers' level, chosen in /settings at every table (default: the bot's, normal)",
    )
    parser.add_argument("--seed", type=int, default=7, help="the players' random choices")
    parser.add_argument(
        "--tokens",
        type=int,
        default=1,
        help="bots (tokens) on the emulator, all served by this process on one database; tables spread over them",
    )
    parser.add_argument(
        "--pg", metavar="DSN", help="PostgreSQL server (e.g. postgresql://postgres@127.0.0.1/test)"
    )
    parser.add_argument("--profile", metavar="FILE", help="cProfile the measured time into FILE")
    parser.add_argument("--setup-concurrency", type=int, default=64, help="tables being seated at once")
    parser.add_argument(
        "--setup-timeout", type=float, default=900.0, help="seconds a set-up step may wait for the bot"
    )
    parser.add_argument(
        "--idle", type=float, default=5.0, help="seconds the idle bot's CPU is measured first"
    )
    parser.add_argument(
        "--strong-workers",
        type=int,
        help="the strong computers' pool size (default: one per core, as the bot's)",
    )
    parser.add_argument(
        "--strong-floor-ms",
        type=float,
        help="the strong budget's floor under load, ms (default: the bot's, 50)",
    )
    parser.add_argument("--waits", action="store_true", help="print where the bot's tasks wait, once")
    parser.add_argument("--emulator-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.warmup is None:
        # The first minutes of a round are its decisions (革命, 宣点: one turn each, in order); a warm-up of
        # a few turns around the table gets past them where the bot keeps up.
        args.warmup = max(30.0, 6 * args.think)
    if args.emulator_process:
        asyncio.run(_emulator_process(args))
        return
    logging.basicConfig(level=logging.WARNING, handlers=[logging.NullHandler()])
    asyncio.run(_run(args))


if __name__ == "__main__":
    main()
