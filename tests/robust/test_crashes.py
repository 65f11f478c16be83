"""The bot killed with SIGKILL at random moments of a running match, again and again: the match goes on to
its end with nothing lost and nothing applied twice.

The bot runs as ``python -m bot.main`` against an emulator served by the test on 127.0.0.1, on a SQLite file
of the test's own. The scripted players keep playing while it is down, as people would: their taps wait in
Telegram. A tap whose answer never came (the bot died with it) is tapped again once the bot is back.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from players import buttons, choose_tap, round_summaries, turn_message

from emulator import CallbackQuery, TelegramEmulator
from emulator.state import StoredMessage, User
from storage import make_engine, uow_factory
from table import TableService
from table.rebuild import rebuild_round

ROOT = Path(__file__).resolve().parents[2]
KILLS = 10
RETAP_AFTER = 2.0  # seconds without an answer before a player taps the same button again


@dataclass
class Tap:
    user: User
    message: StoredMessage
    data: str
    query: CallbackQuery
    retry_of: Tap | None = None


class Bot:
    """The bot as a separate process, started and SIGKILLed by the test."""

    def __init__(self, emu: TelegramEmulator, db: Path, log: Path) -> None:
        self.emu, self.log = emu, log
        self.env = {
            **os.environ,
            "BOT_TOKEN": emu.token,
            "TELEGRAM_API_BASE_URL": emu.base_url,
            "DATABASE_URL": f"sqlite+aiosqlite:///{db}",
            "LOG_LEVEL": "INFO",
            # The emulator enforces no flood limits here; the group limit would only slow the match down.
            "GROUP_MESSAGES_PER_MINUTE": "6000",
            "PRIVATE_MESSAGES_PER_3S": "3000",
        }
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        polls = self.emu.calls["getUpdates"]
        with self.log.open("ab") as out:
            self.proc = await asyncio.create_subprocess_exec(
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
        await self.emu.wait_for(
            lambda: self.emu.calls["getUpdates"] > polls, timeout=30, description="the bot to poll"
        )

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                await self.kill()


class Players:
    """Humans who act on every new turn message and tap again when a tap went unanswered."""

    def __init__(self, emu: TelegramEmulator, group_id: int, humans: list[User], rng: random.Random) -> None:
        self.emu, self.group_id, self.humans, self.rng = emu, group_id, humans, rng
        self.taps: list[Tap] = []
        self._seen: dict[int, tuple[int, int]] = {}
        self._last: dict[int, Tap] = {}
        self._next_pressed = 0
        self.rounds_wanted = 1

    def step(self, now: float, since: dict[int, float]) -> None:
        for user in self.humans:
            msg = turn_message(self.emu, user.id)
            if msg is None:
                continue
            stamp = (msg.message_id, len(msg.history))
            last = self._last.get(user.id)
            if self._seen.get(user.id) != stamp:
                self._seen[user.id] = stamp
                self._tap(user, msg, choose_tap(msg, self.rng), None)
                since[user.id] = now
            elif (
                last is not None
                and not last.query.answered
                and now - since.get(user.id, now) > RETAP_AFTER
                and any(b.get("callback_data") == last.data for b in buttons(last.message))
            ):
                self._tap(user, last.message, last.data, last)
                since[user.id] = now
        summaries = round_summaries(self.emu, self.group_id)
        if len(summaries) > self._next_pressed and len(summaries) < self.rounds_wanted:
            nxt = next(b for b in buttons(summaries[-1]) if b["callback_data"].endswith(":next"))
            self.emu.tap(self.humans[0], summaries[-1], nxt["callback_data"])
            self._next_pressed = len(summaries)

    def _tap(self, user: User, msg: StoredMessage, data: str, retry_of: Tap | None) -> None:
        tap = Tap(user, msg, data, self.emu.tap(user, msg, data), retry_of)
        self.taps.append(tap)
        self._last[user.id] = tap

    async def run(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        since: dict[int, float] = {}
        while not stop.is_set():
            self.step(loop.time(), since)
            await asyncio.sleep(0.03)


def delivered_update_ids(emu: TelegramEmulator) -> dict[str, list[int]]:
    """Callback query id -> the update ids of every getUpdates answer that carried it."""
    seen: dict[str, list[int]] = {}
    for call in emu.api_log:
        if call["method"] == "getUpdates" and call["response"].get("ok"):
            for update in call["response"]["result"]:
                if "callback_query" in update:
                    seen.setdefault(update["callback_query"]["id"], []).append(update["update_id"])
    return seen


async def test_sigkilled_again_and_again_the_match_ends_with_nothing_lost_or_doubled(
    emulator: TelegramEmulator, tmp_path: Path
) -> None:
    emu = emulator
    rng = random.Random(2024)
    db, log = tmp_path / "gouji.db", tmp_path / "bot.log"
    bot = Bot(emu, db, log)
    await bot.start()
    humans = [emu.create_user(name, language_code="en") for name in ("Ann", "Ben", "Cai")]
    group = emu.create_group("Friends", humans)
    for user in humans:
        emu.start_bot(user)
    said = emu.user_sends(humans[0], group.id, "/new")
    lobby = await emu.wait_for_bot_message(group.id, after=said, timeout=10)
    for user in humans:
        emu.user_sends(user, group.id, "/join")
        await emu.wait_for(
            lambda u=user: u.first_name in (emu.world.chat(group.id).messages[lobby.message_id].text or ""),
            timeout=10,
        )
    emu.user_sends(humans[0], group.id, "/addbot")
    await emu.wait_for(
        lambda: "（空）" not in (emu.world.chat(group.id).messages[lobby.message_id].text or "")
    )
    emu.user_sends(humans[0], group.id, "/begin")

    players = Players(emu, group.id, humans, rng)
    players.rounds_wanted = 2
    stop = asyncio.Event()
    playing = asyncio.create_task(players.run(stop))
    try:
        for _ in range(KILLS):
            await asyncio.sleep(rng.uniform(0.2, 1.5))
            await bot.kill()
            await asyncio.sleep(rng.uniform(0.0, 0.5))  # taps pile up while the bot is down
            await bot.start()
        await emu.wait_for(
            lambda: len(round_summaries(emu, group.id)) >= players.rounds_wanted,
            timeout=60,
            description="the match to go on to its end",
        )
    finally:
        stop.set()
        await playing
        await bot.stop()

    engine = make_engine(f"sqlite+aiosqlite:///{db}")
    uow = uow_factory(engine)
    try:
        view = await TableService(uow).load(1)
        async with uow() as u:
            logged = await u.actions.of_table(1)
            rebuilt = await rebuild_round(u, 1, view.round_no)
            processed = {row[0] for row in (await u.connection.execute(_processed())).all()}
    finally:
        await engine.dispose()

    # The log is continuous and rebuilds the saved state; the round in the log is the round that ended.
    assert [a.seq for a in logged] == list(range(1, len(logged) + 1))
    assert rebuilt == view.match
    assert view.match is not None and view.match.round_over and view.round_no == players.rounds_wanted

    # Every tap: applied (its update id recorded with its action, once: the id is a primary key), or
    # answered, or lost with the process that took it; a lost tap was tapped again. Never applied twice.
    delivered = delivered_update_ids(emu)
    applied = {id(t) for t in players.taps if set(delivered.get(t.query.id, ())) & processed}
    redelivered = sum(1 for ids in delivered.values() if len(ids) > 1)
    for tap in players.taps:
        chain = [tap]
        while chain[-1].retry_of is not None:
            chain.append(chain[-1].retry_of)
        assert sum(1 for t in chain if id(t) in applied) <= 1, "a tap and its repeat both counted"
    unanswered = [t for t in players.taps if not t.query.answered]
    lost = [t for t in unanswered if id(t) not in applied]
    # The last taps are answered: only a tap that died with a process can stay unanswered.
    answers = Counter((t.query.answer_text or "").split(":")[0] for t in players.taps if t.query.answered)
    bot_log = log.read_text(errors="replace")
    print(
        f"taps {len(players.taps)}, applied {len(applied)}, retries "
        f"{sum(1 for t in players.taps if t.retry_of)}, redelivered {redelivered}, lost {len(lost)}, "
        f"answers {dict(answers)}, log {len(logged)} actions, "
        f"errors logged {bot_log.count('error handling an update')}"
    )
    assert len(unanswered) <= KILLS, "taps went unanswered by a bot that was running"
    assert len(processed) == len(applied), "a recorded update id matches no tap"
    assert "Traceback" not in bot_log


def _processed():  # noqa: ANN202
    from sqlalchemy import text

    return text("SELECT update_id FROM processed_updates")
