"""``python -m benches.crash``: the bot SIGKILLed at random moments of a running match, again and again, and
everything it did checked against what it had committed (issue 14).

The bot runs as its own process (``bot.main``) against the emulator, polling it over HTTP, on a SQLite file
or a PostgreSQL database of the run's own, with a turn time of seconds and its sweep every second, so that
deadlines come due while it is down and fire across restarts. Three people and three strong computers
play a match (the strong level thinks in the bot's process pool, bot/computers.py); the people act on every
turn message as soon as it comes, now and then let a turn run out on purpose, tap again a tap that went
unanswered (the bot died with it) and send ``/back`` when told to. The kills come at random moments of four
kinds: within 50 ms after a tap, within 5 s after a start, the moment a deadline is claimed (between the
claim and its move), and any moment of the first seconds up.

What is checked, from the database, the emulator's record of every Bot API call and the bot's log:

- the match ends; the log is gapless and every version the table ever had (recorded by triggers the run
  adds to the database: an observer, not the bot's) equals the match rebuilt from the seed and the log up
  to that version's last move;
- no tap applied twice, each applied tap recorded once;
- at every kill the table waited at its version with exactly the deadlines that decision needs (one turn
  deadline when a person is to act, none when nobody is); at the end, none is left;
- every time-out is one computer move, made after the deadline of that version was claimed; how late each
  fired after its due time;
- every turn message (a private message with game buttons, sent or edited) is for a version that existed,
  at which that seat was to act, and shows that seat's hand, the top play and what is asked as they were at
  that version; a process never sends one for a version older than the one committed when it started (so
  nothing built before a crash is sent after it); no seat gets two turn messages for one version, save
  where the process that sent the first died between Telegram's answer and recording it (then the next
  process cannot know it was delivered: counted apart);
- no process of a killed bot outlives it: its descendants (the strong computers' pool workers,
  multiprocessing's resource tracker), read from /proc just before each kill and before the last stop, are
  all gone a few seconds after the run.

The bot processes are forked from a Python process that has imported the bot once (``--spawn fork``, the
default): a cold ``python -m bot.main`` spends about 1.2 s importing (``python -X importtime``), which
would be most of every cycle; ``--spawn exec`` starts each one cold. Either way each is a process of its
own, killed with SIGKILL by its pid.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import random
import re
import signal
import statistics
import sys
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from emulator import CallbackQuery, TelegramEmulator
from emulator.state import StoredMessage, User

from .procs import Proc, descendants, outliving

ROOT = Path(__file__).resolve().parents[1]
PG_DSN = "postgresql://postgres@127.0.0.1:5432/test"

# ====================================================================== the bot as a process


def _zygote() -> None:
    """Import the bot once, then fork a bot process for each request on stdin (one JSON object a line)."""
    import bot.app
    import bot.main
    import storage.migrate  # noqa: F401

    out = sys.stdout
    for line in iter(sys.stdin.readline, ""):
        request = json.loads(line)
        if request["op"] == "fork":
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    code = _bot_child(request["env"], request["log"], bot.main.main)
                except BaseException:  # the child must never return into the zygote's loop
                    traceback.print_exc()
                finally:
                    os._exit(code)
            reply: dict[str, Any] = {"pid": pid}
        elif request["op"] == "reap":
            reply = {"pid": request["pid"], "status": _reap(int(request["pid"]), float(request["timeout"]))}
        else:
            reply = {"error": request["op"]}
        out.write(json.dumps(reply) + "\n")
        out.flush()


def _reap(pid: int, timeout: float) -> int:
    """Wait for the child to end; SIGKILL it when it has not ended after ``timeout`` seconds."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    return os.waitpid(pid, 0)[1]


def _bot_child(env: dict[str, str], log: str, main: Callable[[list[str]], int]) -> int:
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(out, 1)
    os.dup2(out, 2)
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115 - lives as long as the process
    sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
    os.environ.clear()
    os.environ.update(env)
    return main(["--env-file", ""]) or 0


class Zygote:
    """The forking parent of the bot processes (see the module's docstring)."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self._lock = asyncio.Lock()

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            "from benches.crash import _zygote; _zygote()",
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )

    async def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        async with self._lock:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            await self.proc.stdin.drain()
            line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the zygote died")
        return dict(json.loads(line))

    async def fork(self, env: dict[str, str], log: Path) -> int:
        return int((await self._ask({"op": "fork", "env": env, "log": str(log)}))["pid"])

    async def reap(self, pid: int, timeout: float = 20.0) -> int:
        return int((await self._ask({"op": "reap", "pid": pid, "timeout": timeout}))["status"])

    async def close(self) -> None:
        if self.proc is None:
            return
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 10)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


class BotProcess:
    """``bot.main`` as a process of its own against the emulator: started, SIGKILLed, started again."""

    def __init__(
        self,
        emu: TelegramEmulator,
        database_url: str,
        log: Path,
        *,
        zygote: Zygote | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.emu, self.log, self.zygote = emu, log, zygote
        self.env = {
            **os.environ,
            "BOT_TOKEN": emu.token,
            "TELEGRAM_API_BASE_URL": emu.base_url,
            "DATABASE_URL": database_url,
            "LOG_LEVEL": "INFO",
            "PYTHONPATH": str(ROOT),
            # The emulator enforces no flood limits in the crash runs; the group limit would only slow the
            # match down (and the outbox's pace is tested elsewhere).
            "GROUP_MESSAGES_PER_MINUTE": "6000",
            "PRIVATE_MESSAGES_PER_3S": "3000",
            "SWEEP_EVERY_S": "1",
            **(env or {}),
        }
        self.pid: int | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        # Where each process's calls begin in the emulator's api_log: the one before was reaped by then, and
        # every request it had sent was answered during the reaping and the down time.
        self.first_calls: list[int] = []
        self.started_at = 0.0
        self._polls = 0
        self.family: list[Proc] = []  # the processes below each bot process when it was killed or stopped

    @property
    def running(self) -> bool:
        return self.pid is not None

    async def start(self) -> None:
        self._polls = self.emu.calls["getUpdates"]
        self.started_at = time.monotonic()
        self.first_calls.append(len(self.emu.api_log))
        if self.zygote is not None:
            self.pid = await self.zygote.fork(self.env, self.log)
        else:
            with self.log.open("ab") as out:
                self._proc = await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "bot.main",
                    "--env-file",
                    "",
                    cwd=ROOT,
                    env=self.env,
                    stdout=out,
                    stderr=out,
                )
            self.pid = self._proc.pid
        self.starts += 1

    async def polling(self, timeout: float = 60) -> None:
        """Wait until the bot asks for updates (its start-up, resumes included, is behind it)."""
        await self.emu.wait_for(
            lambda: self.emu.calls["getUpdates"] > self._polls, timeout=timeout, description="the bot to poll"
        )

    async def kill(self) -> None:
        assert self.pid is not None
        self.family += descendants(self.pid)
        os.kill(self.pid, signal.SIGKILL)
        await self._reaped(0.0)

    async def stop(self) -> None:
        """SIGTERM: the bot stops as an operator would stop it (SIGKILL after 20 s)."""
        if self.pid is None:
            return
        self.family += descendants(self.pid)
        os.kill(self.pid, signal.SIGTERM)
        await self._reaped(20.0)

    async def _reaped(self, timeout: float) -> None:
        assert self.pid is not None
        if self.zygote is not None:
            await self.zygote.reap(self.pid, timeout)
        else:
            assert self._proc is not None
            try:
                await asyncio.wait_for(self._proc.wait(), timeout or None)
            except TimeoutError:
                self._proc.kill()
                await self._proc.wait()
        self.pid, self._proc = None, None


# ====================================================================== the people at the table

ROUND_OVER = re.compile(r"(Round \d+ is over|第 \d+ 局结束)")
RETAP_AFTER = 2.0  # seconds without an answer before a person taps the same button again
BUTTON = re.compile(r"^([ak]):(\d+):(\d+):")


def buttons(msg: StoredMessage) -> list[dict[str, Any]]:
    return [b for row in msg.buttons for b in row]


def turn_message(emu: TelegramEmulator, user_id: int) -> StoredMessage | None:
    """The newest private message with buttons to act with (a turn), if any."""
    for msg in reversed(emu.bot_messages(user_id)):
        if any(b.get("callback_data", "")[:2] in ("a:", "k:") for b in buttons(msg)):
            return msg
    return None


def version_of(msg: StoredMessage) -> int | None:
    for b in buttons(msg):
        found = BUTTON.match(b.get("callback_data", ""))
        if found:
            return int(found.group(3))
    return None


def choose_tap(msg: StoredMessage, rng: random.Random) -> str:
    """What a simple player taps: a one-tap play, else pass; the cards to give back one by one (还贡); else
    any decision button."""
    all_buttons = buttons(msg)
    give_back = [b for b in all_buttons if b["callback_data"].split(":")[3][:1] == "r"]
    if give_back:
        return str(give_back[0]["callback_data"])
    if not any(b["callback_data"].startswith("a:") for b in all_buttons):
        return str(next(b["callback_data"] for b in all_buttons if "×" in b["text"]))
    one_tap = [b for b in all_buttons if b["text"].startswith("▶ ")]
    passes = [b for b in all_buttons if b["callback_data"].endswith(":x")]
    choices = [
        b
        for b in all_buttons
        if b["callback_data"].startswith("a:") and not b["callback_data"].endswith(":h")
    ]
    if one_tap and (not passes or rng.random() < 0.7):
        return str(rng.choice(one_tap)["callback_data"])
    if passes:
        return str(passes[0]["callback_data"])
    return str(rng.choice(choices)["callback_data"])


def round_summaries(emu: TelegramEmulator, group_id: int) -> list[StoredMessage]:
    return [m for m in emu.bot_messages(group_id) if ROUND_OVER.search(m.text or "")]


@dataclass
class Tap:
    user: User
    message: StoredMessage
    data: str
    query: CallbackQuery
    retry_of: Tap | None = None


class Players:
    """People who act on every new turn message at once, let one now and then run out on purpose (never two
    in a row: they do not mean to hand their seat to the computer), tap again when a tap went unanswered,
    send /back when the bot says the computer took their seat, and start the next round until told not to."""

    def __init__(
        self,
        emu: TelegramEmulator,
        group_id: int,
        humans: list[User],
        rng: random.Random,
        *,
        skip_share: float,
    ) -> None:
        self.emu, self.group_id, self.humans, self.rng = emu, group_id, humans, rng
        self.skip_share = skip_share
        self.taps: list[Tap] = []
        self.skipped: list[tuple[int, int]] = []  # (user id, version) turns let run out on purpose
        self.backs = 0
        self.rounds_wanted = 10**6
        self.next_pressed = 0
        self._seen: dict[int, tuple[int, int]] = {}
        self._last: dict[int, Tap] = {}
        self._since: dict[int, float] = {}
        self._skipped_last: dict[int, bool] = {}
        self._decided: dict[int, int] = {}  # user -> the version of the last turn he decided on
        self._back_notice: dict[int, int] = {}
        self._tapped = asyncio.Event()

    async def next_tap(self) -> None:
        """Wait for the next tap anybody makes."""
        await self._tapped.wait()

    def step(self, now: float) -> None:
        for user in self.humans:
            self._back(user)
            msg = turn_message(self.emu, user.id)
            if msg is None:
                continue
            stamp = (msg.message_id, len(msg.history))
            last = self._last.get(user.id)
            if self._seen.get(user.id) != stamp:
                self._seen[user.id] = stamp
                version = version_of(msg)
                if version is not None and self._decided.get(user.id) != version:
                    self._decided[user.id] = version  # a new turn: play it, or let it run out
                    if not self._skipped_last.get(user.id) and self.rng.random() < self.skip_share:
                        self.skipped.append((user.id, version))
                        self._skipped_last[user.id] = True
                        self._last.pop(user.id, None)
                        continue
                    self._skipped_last[user.id] = False
                elif (user.id, version) in self.skipped:
                    continue
                self._tap(user, msg, choose_tap(msg, self.rng), None, now)
            elif last is not None:
                self._retap(user.id, last, now)
        summaries = round_summaries(self.emu, self.group_id)
        last_next = self._last.get(self.group_id)
        if len(summaries) > self.next_pressed and len(summaries) < self.rounds_wanted:
            nxt = next((b for b in buttons(summaries[-1]) if b["callback_data"].endswith(":next")), None)
            if nxt is not None:
                self._tap(self.humans[0], summaries[-1], nxt["callback_data"], None, now, key=self.group_id)
                self.next_pressed = len(summaries)
        elif last_next is not None:
            self._retap(self.group_id, last_next, now)

    def _retap(self, key: int, last: Tap, now: float) -> None:
        message = self.emu.world.chat(last.message.chat_id).messages[last.message.message_id]
        if (
            not last.query.answered
            and now - self._since.get(key, now) > RETAP_AFTER
            and any(b.get("callback_data") == last.data for b in buttons(message))
        ):
            self._tap(last.user, message, last.data, last, now, key=key)

    def _back(self, user: User) -> None:
        """The bot said the computer plays his seat now: he takes it back."""
        for msg in reversed(self.emu.bot_messages(user.id)):
            if msg.message_id <= self._back_notice.get(user.id, 0):
                break
            if "/back" in (msg.text or ""):
                self._back_notice[user.id] = msg.message_id
                self.emu.user_sends(user, user.id, "/back")
                self.backs += 1
                break

    def _tap(
        self,
        user: User,
        msg: StoredMessage,
        data: str,
        retry_of: Tap | None,
        now: float,
        key: int | None = None,
    ) -> None:
        tap = Tap(user, msg, data, self.emu.tap(user, msg, data), retry_of)
        self.taps.append(tap)
        self._last[user.id if key is None else key] = tap
        self._since[user.id if key is None else key] = now
        tapped, self._tapped = self._tapped, asyncio.Event()
        tapped.set()

    async def run(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        while not stop.is_set():
            self.step(loop.time())
            await asyncio.sleep(0.03)


def delivered_update_ids(api_log: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Callback query id -> the update ids of every getUpdates answer that carried it."""
    seen: dict[str, list[int]] = {}
    for call in api_log:
        if call["method"] == "getUpdates" and call["response"].get("ok"):
            for update in call["response"]["result"]:
                if "callback_query" in update:
                    seen.setdefault(update["callback_query"]["id"], []).append(update["update_id"])
    return seen


# ====================================================================== the database: set-up and observers

_SQLITE_PROBES = [
    "CREATE TABLE probe_versions (table_id INTEGER, version INTEGER, last_seq INTEGER, status TEXT,"
    " round_no INTEGER, state TEXT, marks TEXT, at TEXT)",
    "CREATE TRIGGER probe_version AFTER UPDATE OF version ON tables WHEN NEW.version <> OLD.version BEGIN"
    " INSERT INTO probe_versions VALUES (NEW.id, NEW.version, NEW.last_seq, NEW.status, NEW.round_no,"
    " NEW.state, NEW.marks, strftime('%Y-%m-%d %H:%M:%f', 'now')); END",
    "CREATE TABLE probe_deadlines (op TEXT, table_id INTEGER, version INTEGER, kind TEXT, due_at TEXT,"
    " claimed_by TEXT, claimed_at TEXT, at TEXT)",
    *(
        f"CREATE TRIGGER probe_deadline_{op} AFTER {op.upper()} ON deadlines BEGIN"
        f" INSERT INTO probe_deadlines VALUES ('{op}', {row}.table_id, {row}.version, {row}.kind,"
        f" {row}.due_at, {row}.claimed_by, {row}.claimed_at, strftime('%Y-%m-%d %H:%M:%f', 'now')); END"
        for op, row in (("insert", "NEW"), ("update", "NEW"), ("delete", "OLD"))
    ),
]
_PG_PROBES = [
    "CREATE TABLE probe_versions (table_id bigint, version int, last_seq int, status text, round_no int,"
    " state text, marks text, at timestamptz)",
    "CREATE FUNCTION probe_version() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
    " IF NEW.version <> OLD.version THEN INSERT INTO probe_versions VALUES (NEW.id, NEW.version,"
    " NEW.last_seq, NEW.status, NEW.round_no, NEW.state, NEW.marks, clock_timestamp()); END IF;"
    " RETURN NULL; END $$",
    "CREATE TRIGGER probe_version AFTER UPDATE ON tables FOR EACH ROW EXECUTE FUNCTION probe_version()",
    "CREATE TABLE probe_deadlines (op text, table_id bigint, version int, kind text, due_at timestamptz,"
    " claimed_by text, claimed_at timestamptz, at timestamptz)",
    "CREATE FUNCTION probe_deadline() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
    " IF TG_OP = 'DELETE' THEN INSERT INTO probe_deadlines VALUES ('delete', OLD.table_id, OLD.version,"
    " OLD.kind, OLD.due_at, OLD.claimed_by, OLD.claimed_at, clock_timestamp());"
    " ELSE INSERT INTO probe_deadlines VALUES (lower(TG_OP), NEW.table_id, NEW.version, NEW.kind,"
    " NEW.due_at, NEW.claimed_by, NEW.claimed_at, clock_timestamp()); END IF; RETURN NULL; END $$",
    "CREATE TRIGGER probe_deadline AFTER INSERT OR UPDATE OR DELETE ON deadlines FOR EACH ROW"
    " EXECUTE FUNCTION probe_deadline()",
]


async def prepare_database(
    url: str, group_id: int, title: str, turn_seconds: int, computer_level: int | None = None
) -> None:
    """The bot's schema, the observers (triggers that copy every table version and every change of a deadline
    into tables of their own, in the bot's own transactions), and the group with its turn time (shorter than
    /settings offers, so that deadlines fire across restarts) and its computers' level."""
    from storage import make_engine, uow_factory, upgrade_to_head

    engine = make_engine(url)
    try:
        await upgrade_to_head(engine)
        async with engine.begin() as conn:
            for statement in _PG_PROBES if engine.dialect.name == "postgresql" else _SQLITE_PROBES:
                await conn.exec_driver_sql(statement)
        async with uow_factory(engine)() as uow:
            await uow.groups.ensure(group_id, title)
            await uow.groups.update_settings(
                group_id, turn_timeout_seconds=turn_seconds, computer_level=computer_level
            )
            await uow.commit()
    finally:
        await engine.dispose()


async def fresh_pg_database(dsn: str) -> str:
    """A new PostgreSQL database for one run (its SQLAlchemy URL); ``drop_pg_database`` removes it."""
    import asyncpg

    name = f"gouji_crash_{uuid.uuid4().hex[:10]}"
    conn = await asyncpg.connect(dsn, timeout=5)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return dsn.rpartition("/")[0].replace("postgresql://", "postgresql+asyncpg://", 1) + f"/{name}"


async def drop_pg_database(dsn: str, url: str) -> None:
    import asyncpg

    name = url.rpartition("/")[2]
    conn = await asyncpg.connect(dsn, timeout=5)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def _when(value: Any) -> datetime:
    """A moment as either backend hands it back: an aware datetime, or SQLite's text in UTC."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    moment = datetime.fromisoformat(str(value))
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class SeatRow:
    seat: int
    user_id: int | None
    autoplay: bool
    timeouts: int
    hand_message_id: int | None
    prompted_version: int | None


@dataclass(frozen=True)
class DeadlineRow:
    version: int
    kind: str
    due_at: datetime
    claimed_by: str | None


@dataclass
class Snapshot:
    """The table as committed when a process was killed (nothing changes until the next one starts)."""

    kill: int
    mode: str
    version: int
    last_seq: int
    seats: dict[int, SeatRow]
    deadlines: list[DeadlineRow]
    waits_on: int | None  # the seat whose decision the table waits on (a person who plays himself)
    unmade: bool  # moves nobody has to tap for were left unmade (resume makes them)
    wanted: list[str]  # the kinds of deadline that decision needs


class Database:
    """The run's reads of the bot's database (the bot never waits on them: WAL on SQLite, MVCC on PG)."""

    def __init__(self, url: str) -> None:
        from storage import make_engine, uow_factory

        self.url = url
        self.engine = make_engine(url)
        self.uow = uow_factory(self.engine)

    async def close(self) -> None:
        await self.engine.dispose()

    async def rows(self, sql: str, **params: Any) -> list[Any]:
        from sqlalchemy import text

        async with self.engine.connect() as conn:
            return list((await conn.execute(text(sql), params)).all())

    async def table_id(self, group_id: int) -> int | None:
        found = await self.rows("SELECT id FROM tables WHERE group_id = :g ORDER BY id DESC", g=group_id)
        return int(found[0][0]) if found else None

    async def service(self, table_id: int) -> Any:
        """The table layer as the bot that hosts the table has it (it reads no other bot's tables)."""
        from table import TableService

        (host,) = await self.rows("SELECT bot_id FROM tables WHERE id = :t", t=table_id)
        return TableService(self.uow, bot_id=int(host[0]))

    async def claimed(self, table_id: int) -> bool:
        rows = await self.rows(
            "SELECT 1 FROM deadlines WHERE table_id = :t AND claimed_by IS NOT NULL", t=table_id
        )
        return bool(rows)

    async def follow_armed(self, table_id: int) -> bool:
        """A player's move is stored and the computers' follow-on not yet made (nor claimed)."""
        rows = await self.rows(
            "SELECT 1 FROM deadlines WHERE table_id = :t AND kind = 'follow' AND claimed_by IS NULL",
            t=table_id,
        )
        return bool(rows)

    async def snapshot(self, table_id: int, kill: int, mode: str) -> Snapshot:
        from table.policy import automatic, deadlines

        table = await (await self.service(table_id)).reads.load(table_id)
        seats = {
            int(r.seat): SeatRow(
                int(r.seat),
                r.user_id,
                bool(r.autoplay),
                int(r.consecutive_timeouts),
                r.hand_message_id,
                r.prompted_version,
            )
            for r in await self.rows("SELECT * FROM seats WHERE table_id = :t", t=table_id)
        }
        rows = [
            DeadlineRow(int(r.version), str(r.kind), _when(r.due_at), r.claimed_by)
            for r in await self.rows("SELECT * FROM deadlines WHERE table_id = :t", t=table_id)
        ]
        match = table.match
        unmade = match is not None and automatic(table, match) is not None
        acting = table.to_act
        waits_on = acting.n if acting is not None and acting.plays_himself and not unmade else None
        wanted = sorted(d.kind for d in deadlines(table, match, datetime.now(UTC))) if not unmade else []
        return Snapshot(kill, mode, table.version, table.last_seq, seats, rows, waits_on, unmade, wanted)


# ====================================================================== the run

KINDS = ("tap", "start", "claim", "follow", "up")
# Shares of the kills by moment: within 50 ms after a tap (a move being committed, its messages on their
# way), within 5 s after a start (start-up, resumes, the first sweeps: the hang of issue 14 came 3 s after
# one), the moment a deadline is claimed (between the claim and its move), between a player's move stored
# and the computers' moves that follow it (issue 23), any moment of the first seconds.
SHARES = {"tap": 0.3, "start": 0.25, "claim": 0.15, "follow": 0.15, "up": 0.15}
CLAIM_WAIT_S = 4.0  # a kill waiting for a claim waits at most this long (two turn times), then kills anyway


@dataclass
class Plan:
    kills: int = 30
    rounds: int = 2  # at least; more are played while kills remain
    seed: int = 2024
    turn_seconds: int = 2
    skip_share: float = 0.08  # of his turns a person lets run out on purpose
    down_s: tuple[float, float] = (0.0, 0.4)  # how long the bot stays dead (taps pile up meanwhile)
    spawn: str = "fork"
    # The computers are strong, so every bot process that moved one has a pool of worker processes that must
    # die with it; a short budget keeps the match's pace.
    computer_level: int = 3
    strong_budget_ms: int = 50
    outlive_s: float = 5.0  # how long after the run a process of a killed bot may take to end
    finish_within_s: float = 240.0  # after the last kill, the match must end within this (it hung, else)


def kill_schedule(kills: int, rng: random.Random) -> list[str]:
    counts = {kind: int(kills * share) for kind, share in SHARES.items()}
    counts["tap"] += kills - sum(counts.values())
    kinds = [kind for kind, n in counts.items() for _ in range(n)]
    rng.shuffle(kinds)
    return kinds


@dataclass
class Run:
    """What a run leaves for the checks."""

    plan: Plan
    emu: TelegramEmulator
    group_id: int
    table_id: int
    humans: list[User]
    players: Players
    snapshots: list[Snapshot]
    log_text: str
    ended: bool
    seconds: float
    kill_kinds: Counter[str]
    killed_at: list[datetime]
    claims_seen: int
    first_calls: list[int]
    api_log: list[dict[str, Any]]
    bot_processes: list[Proc] = field(default_factory=list)  # below each bot process at its kill or stop
    outlived: list[Proc] = field(default_factory=list)  # of those, alive plan.outlive_s after the run


async def run(
    plan: Plan,
    database_url: str,
    workdir: Path,
    *,
    progress: Callable[[str], None] | None = None,
) -> Run:
    """Play a match while killing the bot ``plan.kills`` times; :func:`check` then checks it all."""
    say = progress or (lambda _text: None)
    rng = random.Random(plan.seed)
    began = time.monotonic()
    emu = TelegramEmulator()
    await emu.start()
    zygote = Zygote() if plan.spawn == "fork" else None
    if zygote is not None:
        await zygote.start()
    log = workdir / "bot.log"
    db = Database(database_url)
    players: Players | None = None
    stop = asyncio.Event()
    playing: asyncio.Task[None] | None = None
    bot = BotProcess(
        emu, database_url, log, zygote=zygote, env={"STRONG_BUDGET_MS": str(plan.strong_budget_ms)}
    )
    snapshots: list[Snapshot] = []
    kinds: Counter[str] = Counter()
    killed_at: list[datetime] = []
    claims_seen = 0
    ended = False
    outlived: list[Proc] = []
    try:
        humans = [emu.create_user(name, language_code="en") for name in ("Ann", "Ben", "Cai")]
        group = emu.create_group("Friends", humans)
        await prepare_database(database_url, group.id, "Friends", plan.turn_seconds, plan.computer_level)
        await bot.start()
        await bot.polling()
        table_id = await _seat_and_begin(emu, group.id, humans)
        players = Players(emu, group.id, humans, rng, skip_share=plan.skip_share)
        playing = asyncio.create_task(players.run(stop))
        for n, kind in enumerate(kill_schedule(plan.kills, rng), start=1):
            if kind != "start":
                await bot.polling()
            if kind == "tap":
                await asyncio.wait_for(players.next_tap(), 60)
                await asyncio.sleep(rng.uniform(0.0, 0.05))
            elif kind == "start":
                await asyncio.sleep(max(0.0, bot.started_at + rng.uniform(0.0, 5.0) - time.monotonic()))
            elif kind == "claim":
                give_up = time.monotonic() + CLAIM_WAIT_S
                while time.monotonic() < give_up and not await db.claimed(table_id):
                    await asyncio.sleep(0.003)
                claims_seen += time.monotonic() < give_up
            elif kind == "follow":
                give_up = time.monotonic() + CLAIM_WAIT_S
                while time.monotonic() < give_up and not await db.follow_armed(table_id):
                    await asyncio.sleep(0.001)
            else:
                await asyncio.sleep(rng.uniform(0.0, 2.0))
            await bot.kill()
            killed_at.append(datetime.now(UTC))
            kinds[kind] += 1
            snapshots.append(await db.snapshot(table_id, n, kind))
            say(f"kill {n}/{plan.kills} ({kind}): table at version {snapshots[-1].version}")
            await asyncio.sleep(rng.uniform(*plan.down_s))
            await bot.start()
        # The kills are over: the round in play is the last one (the match has at least plan.rounds).
        summaries = len(round_summaries(emu, group.id))
        in_play = players.next_pressed >= summaries
        players.rounds_wanted = max(plan.rounds, summaries + 1 if in_play else summaries)
        try:
            await emu.wait_for(
                lambda: len(round_summaries(emu, group.id)) >= players.rounds_wanted,
                timeout=plan.finish_within_s,
                description="the match to end",
            )
            ended = True
        except TimeoutError:
            ended = False
        stop.set()
        await playing
        await bot.polling()
        await asyncio.sleep(0.5)  # the last answers and edits
    finally:
        stop.set()
        if playing is not None and not playing.done():
            await playing
        await bot.stop()
        outlived = await asyncio.to_thread(outliving, bot.family, plan.outlive_s)
        if zygote is not None:
            await zygote.close()
        await emu.stop()
    try:
        assert players is not None
        return Run(
            plan,
            emu,
            group.id,
            table_id,
            humans,
            players,
            snapshots,
            log.read_text(errors="replace"),
            ended,
            time.monotonic() - began,
            kinds,
            killed_at,
            claims_seen,
            bot.first_calls,
            list(emu.api_log),
            bot.family,
            outlived,
        )
    finally:
        await db.close()


async def _seat_and_begin(emu: TelegramEmulator, group_id: int, humans: list[User]) -> int:
    for user in humans:
        emu.start_bot(user)
    said = emu.user_sends(humans[0], group_id, "/new")
    lobby = await emu.wait_for_bot_message(group_id, after=said, timeout=20)

    def lobby_text() -> str:
        return emu.world.chat(group_id).messages[lobby.message_id].text or ""

    for user in humans:
        emu.user_sends(user, group_id, "/join")
        await emu.wait_for(lambda u=user: u.first_name in lobby_text(), timeout=20, description="a join")
    emu.user_sends(humans[0], group_id, "/addbot")
    await emu.wait_for(lambda: "（空）" not in lobby_text(), timeout=20, description="the computers")
    emu.user_sends(humans[0], group_id, "/begin")
    await emu.wait_for(
        lambda: any(turn_message(emu, u.id) is not None for u in humans), timeout=20, description="a turn"
    )
    return int(version_of_table(emu, humans))


def version_of_table(emu: TelegramEmulator, humans: list[User]) -> int:
    """The table id in the buttons of the first turn message."""
    for user in humans:
        msg = turn_message(emu, user.id)
        if msg is not None:
            for b in buttons(msg):
                found = BUTTON.match(b.get("callback_data", ""))
                if found:
                    return int(found.group(2))
    raise AssertionError("no turn message")


# ====================================================================== the checks


@dataclass
class Report:
    kills: int = 0
    kill_kinds: dict[str, int] = field(default_factory=dict)
    starts: int = 0
    seconds: float = 0.0
    rounds_finished: int = 0
    match_ended: bool = False
    actions: int = 0
    versions: int = 0
    taps: int = 0
    taps_applied: int = 0
    taps_retried: int = 0
    taps_lost: int = 0  # died with a process, unanswered, and not applied (tapped again)
    taps_applied_twice: int = 0
    skipped: int = 0  # turns let run out on purpose
    deadlines_fired: int = 0
    fired_across_restart: int = 0  # armed by one process, fired by a later one
    follow_ons: int = 0  # the computers' moves after a player's move stored alone, each made once
    follow_ons_across_restart: int = 0  # armed by a process killed before it made them
    late_s: list[float] = field(default_factory=list)  # each time-out: its move's commit after its due time
    claims_at_kill: int = 0  # deadlines a killed process had claimed and not yet handled
    claims_seen: int = 0
    rearmed_logged: int = 0  # "armed again" warnings: tables the invariant found without their deadline
    turn_messages: int = 0  # turn messages checked (sends and edits with game buttons)
    stale: int = 0
    twice: int = 0
    resent_unrecorded: int = 0  # a turn message sent again: the process that sent it died before recording it
    reshown_edited: int = 0  # a turn shown again after a restart: it had come as an edit (never recorded)
    turns_never_shown: int = 0  # a person's turn ran out without his having had a turn message for it
    errors_logged: int = 0
    # Pool workers whose bot was killed while it started them: they found no parent to read from and ended.
    worker_starts_orphaned: int = 0
    bot_processes: int = 0  # processes found below a bot process at its kill or stop
    pool_workers: int = 0  # of those, the strong computers' pool workers
    outlived: int = 0  # of those, still alive after the run (must be 0)
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        late = sorted(self.late_s)
        spread = f"median {statistics.median(late):.2f} s, max {late[-1]:.2f} s" if late else "none fired"
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.kill_kinds.items()))
        return [
            f"kills: {self.kills} ({kinds}); starts {self.starts}; {self.seconds:.0f} s",
            f"rounds finished: {self.rounds_finished}; the match ended: {self.match_ended}",
            f"actions logged: {self.actions}; table versions checked against the log: {self.versions}",
            f"taps: {self.taps}, applied {self.taps_applied}, tapped again {self.taps_retried}, "
            f"lost with a process {self.taps_lost}, applied twice {self.taps_applied_twice} (must be 0)",
            f"deadlines fired: {self.deadlines_fired}, {self.fired_across_restart} of them across a restart "
            f"(turns let run out on purpose: {self.skipped}); "
            f"late after their due time: {spread}",
            f"follow-ons made: {self.follow_ons}, {self.follow_ons_across_restart} of them after a kill",
            f"claims a killed process left: {self.claims_at_kill}; tables found without their deadline "
            f"and armed again: {self.rearmed_logged}",
            f"turn messages checked: {self.turn_messages}; stale: {self.stale} (must be 0); "
            f"twice for one turn: {self.twice} (must be 0)",
            f"turn messages again after a restart: {self.resent_unrecorded} (the sender died before recording "
            f"it), {self.reshown_edited} (it had come as an edit); turns that ran out unseen: "
            f"{self.turns_never_shown}",
            f"errors logged by the bot: {self.errors_logged}",
            f"processes below a bot process at its kill or stop: {self.bot_processes}"
            f" ({self.pool_workers} pool workers); alive after the run: {self.outlived} (must be 0); workers"
            f" whose bot was killed while it started them: {self.worker_starts_orphaned}",
            f"problems: {len(self.problems)}",
            *(f"  - {p}" for p in self.problems[:40]),
        ]


@dataclass(frozen=True)
class _Version:
    version: int
    last_seq: int
    round_no: int
    state: str | None
    marks: str | None
    at: datetime


@dataclass(frozen=True)
class _DeadlineEvent:
    op: str
    version: int
    kind: str
    due_at: datetime
    claimed_by: str | None
    at: datetime


@dataclass
class _Prompt:
    index: int
    process: int
    kind: str  # send, edit


async def check(done: Run, database_url: str) -> Report:
    """Everything the module's docstring lists, from the database, the calls the emulator answered and the
    bot's log; ``problems`` is empty when it all holds."""
    db = Database(database_url)
    try:
        return await _check(done, db)
    finally:
        await db.close()


async def _check(done: Run, db: Database) -> Report:
    from engine import Match, Rules
    from engine.match import parse_action
    from table import NEXT_ROUND
    from table.model import Marks

    emu, table_id = done.emu, done.table_id
    report = Report(
        kills=len(done.snapshots),
        kill_kinds=dict(done.kill_kinds),
        seconds=done.seconds,
        match_ended=done.ended,
        claims_seen=done.claims_seen,
        skipped=len(done.players.skipped),
    )
    problem = report.problems.append
    if not done.ended:
        problem("the match did not end: it hung")

    table = await (await db.service(table_id)).reads.load(table_id)
    async with db.uow() as uow:
        log = await uow.actions.of_table(table_id)
        rounds = await uow.rounds.of_table(table_id)
        left = await uow.deadlines.of_table(table_id)
    processed = {int(r[0]) for r in await db.rows("SELECT update_id FROM processed_updates")}
    versions = [
        _Version(int(r.version), int(r.last_seq), int(r.round_no), r.state, r.marks, _when(r.at))
        for r in await db.rows(
            "SELECT * FROM probe_versions WHERE table_id = :t ORDER BY version", t=table_id
        )
    ]
    events = [
        _DeadlineEvent(str(r.op), int(r.version), str(r.kind), _when(r.due_at), r.claimed_by, _when(r.at))
        for r in await db.rows("SELECT * FROM probe_deadlines WHERE table_id = :t", t=table_id)
    ]
    events.sort(key=lambda e: e.at)
    report.rounds_finished = sum(1 for r in rounds if r.finished_at is not None)
    report.actions = len(log)

    # ---- the log: gapless; every version the table had is the log's rebuild up to its last move.
    if [a.seq for a in log] != list(range(1, len(log) + 1)) or table.last_seq != len(log):
        problem("the log has a gap or a repeat")
    if not versions:
        problem("no version of the table was recorded")
        return report
    if [v.version for v in versions] != list(range(versions[0].version, versions[-1].version + 1)):
        problem("the table's versions are not consecutive")
    if versions[-1].version != table.version:
        problem("the last version recorded is not the table's")
    played = [v for v in versions if v.state is not None]
    at_seq: dict[int, list[_Version]] = {}
    for v in played:
        at_seq.setdefault(v.last_seq, []).append(v)
    rebuilt: dict[int, Match] = {}
    match = Match(Rules.from_dict(rounds[0].rules), rounds[0].seed)

    def take(seq: int) -> None:
        for v in at_seq.get(seq, ()):
            rebuilt[v.version] = match.copy()
            if Match.from_json(json.loads(v.state or "null")) != match:
                problem(f"version {v.version}: the state saved differs from the log's rebuild")

    take(0)
    for entry in log:
        if entry.action == NEXT_ROUND:
            match.next_round()
        else:
            match.apply(parse_action(entry.action), entry.seat)
        take(entry.seq)
    report.versions = len(rebuilt)
    if table.match != match:
        problem("the saved match is not the log's rebuild")
    by_version = {v.version: v for v in versions}
    seat_of_user = {s.user_id: s.n for s in table.humans}
    user_of_seat = {n: u for u, n in seat_of_user.items()}

    # ---- taps: applied at most once; an unanswered one was tapped again.
    delivered = delivered_update_ids(done.api_log)
    taps = done.players.taps
    applied = {id(t) for t in taps if set(delivered.get(t.query.id, ())) & processed}
    for tap in taps:
        chain, link = 0, tap
        while link is not None:
            chain += id(link) in applied
            link = link.retry_of
        if chain > 1:
            report.taps_applied_twice += 1
    report.taps = len(taps)
    report.taps_applied = len(applied)
    report.taps_retried = sum(1 for t in taps if t.retry_of is not None)
    report.taps_lost = sum(1 for t in taps if not t.query.answered and id(t) not in applied)
    if report.taps_applied_twice:
        problem(f"{report.taps_applied_twice} taps applied twice")
    if len(processed) != len(applied):
        problem("a recorded update id matches no tap")
    applied_at = {
        (seat_of_user.get(t.user.id), int(m.group(3)))
        for t in taps
        if id(t) in applied and (m := BUTTON.match(t.data)) and m.group(1) == "a"
    }

    # ---- each kill: the table waited with exactly the deadlines its decision needs; claims left behind.
    for snap in done.snapshots:
        report.claims_at_kill += sum(1 for d in snap.deadlines if d.claimed_by is not None)
        if snap.unmade:
            continue
        kinds = sorted(d.kind for d in snap.deadlines if d.version == snap.version)
        others = [d for d in snap.deadlines if d.version != snap.version]
        if kinds != snap.wanted or others:
            problem(
                f"kill {snap.kill} ({snap.mode}): at version {snap.version} the table waited on "
                f"{'seat ' + str(snap.waits_on) if snap.waits_on is not None else 'nobody'} with deadlines "
                f"{[(d.kind, d.version) for d in snap.deadlines]}"
            )
    if left:
        problem(f"deadlines left at the end: {[(d.kind, d.version, d.claimed_by) for d in left]}")

    # ---- time-outs: one computer move each, after its deadline was claimed; how late.
    timed_out: set[int] = set()
    for v in versions:
        after = by_version.get(v.version + 1)
        m = rebuilt.get(v.version)
        # The players the table waited on: the one to act, or before the first lead every one asked.
        asked = [s for s in m.asked if s in user_of_seat] if m is not None else []
        if after is None or m is None or not asked or after.last_seq <= v.last_seq:
            continue
        first = log[v.last_seq]  # the first move of the next version's stretch
        recent = Marks.from_json(json.loads(after.marks) if after.marks else None).recent
        by_clock = any(e.seq == first.seq and e.actor == "timeout" for e in recent)
        by_tap = any((s, v.version) in applied_at for s in asked)
        if by_clock and by_tap:
            problem(f"version {v.version}: a time-out and a tap both moved it")
        if not by_clock:
            continue
        timed_out.add(v.version)
        if first.seat not in asked:
            problem(f"version {v.version}: the time-out moved a seat that was not waited on")
        armed = [e for e in events if e.version == v.version and e.kind == "timeout" and e.at <= after.at]
        claims = [e for e in armed if e.op == "update" and e.claimed_by is not None]
        if not claims:
            problem(f"version {v.version}: timed out without its deadline claimed")
            continue
        due = next(e.due_at for e in reversed(armed) if e.op != "delete")
        late = (after.at - due).total_seconds()
        if late < -0.5:
            problem(f"version {v.version}: its deadline fired {-late:.2f} s before it was due")
        report.late_s.append(late)
        armed_at = min(e.at for e in armed)
        report.fired_across_restart += any(armed_at < k < after.at for k in done.killed_at)
    report.deadlines_fired = len(timed_out)

    # ---- follow-ons: the computers' moves after a player's move stored alone, made once, by the clock. The
    # version a follow-on was armed for is followed by exactly one version (the table's version is the whole
    # concurrency control), and that version's stretch begins with no player's tap.
    for fv in sorted({e.version for e in events if e.kind == "follow" and e.op != "delete"}):
        base, after = by_version.get(fv), by_version.get(fv + 1)
        if base is None or after is None or after.last_seq <= base.last_seq:
            continue  # the round ended there, or the table moved on by a notice (a seat back from 托管)
        if any((s, fv) in applied_at for s in seat_of_user.values()):
            problem(f"version {fv}: a player's tap moved it while the computers' moves were to follow")
            continue
        report.follow_ons += 1
        armed = [e for e in events if e.version == fv and e.kind == "follow"]
        armed_at = min(e.at for e in armed)
        report.follow_ons_across_restart += any(armed_at < k < after.at for k in done.killed_at)

    # ---- turn messages: each for a version at which that seat was to act, showing it as it was then.
    from bot.i18n import t as tr
    from bot.texts import player, words

    report.starts = len(done.first_calls)
    start_version = [0] + [s.version for s in done.snapshots]
    start_seats = [None] + [s.seats for s in done.snapshots]
    prompts: dict[tuple[int, int], list[_Prompt]] = {}
    showing: dict[tuple[int, int], int | None] = {}  # (chat, message) -> the turn version it shows
    for i, call in enumerate(done.api_log):
        process = bisect.bisect_right(done.first_calls, i) - 1
        if call["method"] not in ("sendMessage", "editMessageText", "editMessageReplyMarkup"):
            continue
        if not call["response"].get("ok"):
            continue
        params = call["params"]
        chat = int(params["chat_id"])
        if chat <= 0 or chat not in seat_of_user:
            continue
        result = call["response"]["result"]
        message_id = int(result["message_id"] if call["method"] == "sendMessage" else params["message_id"])
        markup = params.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        datas = [b.get("callback_data", "") for row in (markup or {}).get("inline_keyboard", []) for b in row]
        found = {int(m.group(3)) for d in datas if (m := BUTTON.match(d)) and int(m.group(2)) == table_id}
        if not found:
            showing[(chat, message_id)] = None
            continue
        if len(found) > 1:
            problem(f"call {i}: buttons of versions {sorted(found)} in one message")
        v = max(found)
        seat = seat_of_user[chat]
        kind = "send" if call["method"] == "sendMessage" else "edit"
        report.turn_messages += 1
        why = _stale_turn(
            player, words, tr, table, rebuilt, by_version, Marks, v, seat, str(params.get("text", ""))
        )
        if why is None and v < start_version[process]:
            why = f"built for version {v}, sent by a process that started at version {start_version[process]}"
        if why is not None:
            report.stale += 1
            problem(f"call {i} (process {process}): a stale turn message for seat {seat}: {why}")
        if kind == "send" or showing.get((chat, message_id)) != v:
            prompts.setdefault((seat, v), []).append(_Prompt(i, process, kind))
        showing[(chat, message_id)] = v

    for (seat, v), shown in prompts.items():
        for earlier, later in zip(shown, shown[1:], strict=False):
            seats = start_seats[later.process]
            unrecorded = (
                earlier.process < later.process and seats is not None and seats[seat].prompted_version != v
            )
            if not unrecorded:
                report.twice += 1
                problem(
                    f"seat {seat} got a second turn message for version {v} (calls {earlier.index}, {later.index})"
                )
            elif earlier.kind == "edit":
                report.reshown_edited += 1
            else:
                report.resent_unrecorded += 1
    report.turns_never_shown = sum(
        1 for v in timed_out if not any((s, w) in prompts for s in rebuilt[v].asked for w in range(v + 1))
    )

    # ---- the bot's log
    report.errors_logged = done.log_text.count(" ERROR ")
    report.rearmed_logged = done.log_text.count("without its deadline: armed again")
    tracebacks = _tracebacks(done.log_text)
    report.worker_starts_orphaned = sum(_orphaned_start(t) for t in tracebacks)
    for t in tracebacks:
        if not _orphaned_start(t):
            problem(f"a traceback in the bot's log: {t.splitlines()[-1][:100]!r}")
    if emu.internal_errors:
        problem(f"the emulator failed: {emu.internal_errors[:3]}")

    # ---- no process of the bot outlives it
    report.bot_processes = len(done.bot_processes)
    report.pool_workers = sum("multiprocessing.spawn" in p.command for p in done.bot_processes)
    report.outlived = len(done.outlived)
    for p in done.outlived:
        problem(f"process {p.pid} of a stopped or killed bot still alive: {p.command[:100]!r}")
    return report


def _tracebacks(log: str) -> list[str]:
    """Every traceback in the log, up to and with its exception's line (the first line not indented)."""
    found = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last):"):
            end = next((j for j in range(i + 1, len(lines)) if not lines[j].startswith(" ")), len(lines) - 1)
            found.append("\n".join(lines[i : end + 1]))
    return found


def _orphaned_start(traceback: str) -> bool:
    """A pool worker (spawned: a fresh interpreter) whose bot was SIGKILLed between starting it and sending it
    what it is to run: the worker finds the pipe from its parent empty and ends, with this traceback on the
    stderr it shares with the bot, before any of the bot's code runs in it. Not the bot's failure."""
    return "multiprocessing/spawn.py" in traceback and traceback.endswith("EOFError: Ran out of input")


def _stale_turn(
    player: Any,
    words: Any,
    tr: Callable[..., str],
    table: Any,
    rebuilt: dict[int, Any],
    by_version: dict[int, _Version],
    marks_type: Any,
    v: int,
    seat: int,
    text: str,
) -> str | None:
    """Why a turn message for seat ``seat`` with buttons for version ``v`` does not show the table as it was
    at ``v``, or None when it does: his hand, the top play (or none), what is asked of him."""
    match = rebuilt.get(v)
    if match is None:
        return f"version {v} never existed with a match"
    if seat not in match.asked:
        return f"at version {v} seat {match.current_player} was to act"
    stored = by_version[v]
    then = replace(
        table,
        version=v,
        match=match,
        round_no=stored.round_no,
        marks=marks_type.from_json(json.loads(stored.marks) if stored.marks else None),
        due=None,
    )
    lang = words.reader_language(then, seat)
    view = match.public_view()
    seats = words.seat_infos(then, lang)
    expected = [*player.hand_lines(lang, then, seat), player.why_text(lang, then, view, seat, seats)]
    if view.top is not None:
        expected.append(words.top_line(lang, view, seats))
    lines = text.splitlines()
    missing = [line for line in expected if line not in lines]
    if missing:
        return f"at version {v} it would show {missing!r}"
    top = tr(lang, "On the table: {cards} by {name}").split("{")[0]
    if view.top is None and any(line.startswith(top) for line in lines):
        return f"at version {v} nothing was on the table"
    return None


# ====================================================================== the command


async def _main(args: argparse.Namespace) -> int:
    plan = Plan(
        kills=args.kills,
        rounds=args.rounds,
        seed=args.seed,
        turn_seconds=args.turn,
        skip_share=args.skip,
        spawn=args.spawn,
        computer_level={"easy": 1, "normal": 2, "strong": 3}[args.level],
    )
    workdir = Path(args.workdir) if args.workdir else Path(f"/tmp/gouji-crash-{os.getpid()}")
    workdir.mkdir(parents=True, exist_ok=True)
    if args.pg:
        url = await fresh_pg_database(args.pg)
    else:
        url = f"sqlite+aiosqlite:///{workdir / 'gouji.db'}"
    print(f"database {url.rpartition('@')[2]}, bot log {workdir / 'bot.log'}", flush=True)
    try:
        done = await run(
            plan, url, workdir, progress=(lambda s: print(s, flush=True)) if args.verbose else None
        )
        report = await check(done, url)
    finally:
        if args.pg:
            await drop_pg_database(args.pg, url)
    for line in report.lines():
        print(line)
    return 1 if report.problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benches.crash", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=300)
    parser.add_argument(
        "--rounds", type=int, default=2, help="at least this many rounds (more while kills remain)"
    )
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--turn", type=int, default=2, help="the turn time, seconds")
    parser.add_argument("--skip", type=float, default=0.08, help="share of turns a person lets run out")
    parser.add_argument("--spawn", choices=("fork", "exec"), default="fork")
    parser.add_argument(
        "--level", choices=("easy", "normal", "strong"), default="strong", help="the computers' level"
    )
    parser.add_argument("--pg", metavar="DSN", help=f"PostgreSQL instead of SQLite (e.g. {PG_DSN})")
    parser.add_argument("--workdir", help="where the SQLite file and the bot's log go")
    parser.add_argument("--verbose", action="store_true", help="a line per kill")
    args = parser.parse_args(argv)
    return asyncio.run(_main(args))


if __name__ == "__main__":
    sys.exit(main())
