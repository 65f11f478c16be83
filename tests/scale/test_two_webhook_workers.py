"""Two bot processes in webhook mode on one PostgreSQL database, one table's updates spread over both; and
one of the two SIGKILLed in the middle of a round, the other carrying the table on (issue 14).

A round-robin proxy stands where Telegram's webhook URL points; every third play is also delivered to
the other worker at the same time (as Telegram redelivers an update it thinks was lost). Whatever
process handles an update, every action must apply exactly once and in order, and each turn deadline
must fire once.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import socket
import subprocess
import sys
from pathlib import Path

import aiohttp
import asyncpg
from aiohttp import web
from players import Table

from emulator import TelegramEmulator
from storage import make_engine, uow_factory
from table.rebuild import rebuild_round

SECRET = "scale-test-secret"
TIMEOUT_S = 2
REPO = Path(__file__).resolve().parents[2]


async def _quiet(emu: TelegramEmulator, table: Table) -> None:
    """No human has a turn left: Ann, who stopped playing, is on 托管 too, or the round is over. Her two
    time-outs and the computers' moves between them take a few seconds, more on a loaded CI machine."""
    try:
        await emu.wait_for(lambda: not table.has_new_turn(), timeout=30)
    except TimeoutError:
        raise AssertionError(f"a human still has a turn:\n{table.dump()}") from None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RoundRobin:
    """Telegram's side of the webhook: each update to the next worker; some plays to both at once."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.turn = itertools.cycle(range(len(ports)))
        self.delivered = [0] * len(ports)
        self.duplicated = 0
        self.plays = 0
        self.session: aiohttp.ClientSession | None = None

    async def _post(self, i: int, body: bytes, headers: dict[str, str]) -> tuple[int, bytes] | None:
        assert self.session is not None
        try:
            async with self.session.post(
                f"http://127.0.0.1:{self.ports[i]}/telegram", data=body, headers=headers
            ) as r:
                self.delivered[i] += 1
                return r.status, await r.read()
        except aiohttp.ClientConnectionError:
            return None

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        headers = {
            "Content-Type": "application/json",
            "X-Telegram-Bot-Api-Secret-Token": request.headers.get("X-Telegram-Bot-Api-Secret-Token", ""),
        }
        first = next(self.turn)
        data = (json.loads(body).get("callback_query") or {}).get("data", "")
        if data.startswith("a:"):
            self.plays += 1
            if self.plays % 3 == 0:
                self.duplicated += 1
                other = (first + 1) % len(self.ports)
                results = await asyncio.gather(
                    self._post(first, body, headers), self._post(other, body, headers)
                )
                answered = next((r for r in results if r is not None), None)
                return web.Response(status=502) if answered is None else web.Response(status=answered[0])
        for i in (first, *(j for j in range(len(self.ports)) if j != first)):
            result = await self._post(i, body, headers)
            if result is not None:
                return web.Response(status=result[0], body=result[1])
        return web.Response(status=502)


def _worker(
    emu: TelegramEmulator, url: str, port: int, proxy_port: int, cwd: Path, **extra: str
) -> subprocess.Popen[bytes]:
    env = {
        **extra,
        **os.environ,
        "BOT_TOKEN": emu.token,
        "DATABASE_URL": url,
        "TELEGRAM_API_BASE_URL": emu.base_url,
        "WEBHOOK_URL": f"http://127.0.0.1:{proxy_port}",
        "WEBHOOK_LISTEN": "127.0.0.1",
        "WEBHOOK_PORT": str(port),
        "WEBHOOK_SECRET": SECRET,
        "PYTHONPATH": str(REPO),
    }
    with open(cwd / f"worker-{port}.log", "wb") as log:  # the child keeps its own copy of the file
        return subprocess.Popen(
            [sys.executable, str(Path(__file__).parent / "webhook_worker.py")],
            env=env,
            cwd=cwd,
            stderr=log,
        )


async def _listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    for _ in range(300):
        assert proc.poll() is None, "a bot worker exited while starting"
        try:
            _r, w = await asyncio.open_connection("127.0.0.1", port)
            w.close()
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise AssertionError(f"no worker listening on {port}")


async def test_one_table_over_two_webhook_workers(
    emulator: TelegramEmulator, pg_database: str, tmp_path: Path
) -> None:
    emu = emulator
    ports = [_free_port(), _free_port()]
    proxy = RoundRobin(ports)
    proxy.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20))
    app = web.Application()
    app.router.add_post("/telegram", proxy.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    proxy_port = _free_port()
    await web.TCPSite(runner, "127.0.0.1", proxy_port).start()
    url = pg_database.replace("postgresql://", "postgresql+asyncpg://", 1)
    workers: list[subprocess.Popen[bytes]] = []
    try:
        # One after the other: both would otherwise migrate the fresh database at the same time.
        for port in ports:
            workers.append(_worker(emu, url, port, proxy_port, tmp_path))
            await _listening(port, workers[-1])
        await emu.wait_for(lambda: emu.updates.webhook is not None, timeout=20, description="the webhook")

        table = await Table.seated(emu, ["Ann", "Bob"])
        ann, bob = table.humans
        conn = await asyncpg.connect(pg_database)
        try:
            await conn.execute(
                "UPDATE groups SET turn_timeout_seconds = $1 WHERE id = $2", TIMEOUT_S, table.group.id
            )
        finally:
            await conn.close()
        await table.begin()
        # Ann plays; Bob never does: his turns time out until he is on 托管 (two in a row, DESIGN.md).
        table.humans = [ann]

        def times_up() -> list[str]:
            # The first time-out is told in his turn message, the second (托管 begins) in a new one.
            return [
                rev.text or ""
                for m in emu.bot_messages(bob.id)
                for rev in m.history
                if "Time ran out" in (rev.text or "")
            ]

        await table.play_until(
            lambda: len(times_up()) >= 2 and proxy.duplicated >= 3, random.Random(5), type_some=False
        )
        await asyncio.sleep(TIMEOUT_S * 2)  # a deadline fired twice would show by now
        await _quiet(emu, table)
    finally:
        for proc in workers:
            proc.terminate()
        for proc in workers:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        await proxy.session.close()
        await runner.cleanup()

    assert all(n > 0 for n in proxy.delivered), f"both workers must have had updates: {proxy.delivered}"
    # An update delivered to both is no failure: neither worker logs an error for it.
    logs = "".join((tmp_path / f"worker-{port}.log").read_text() for port in ports)
    assert " ERROR " not in logs, logs
    assert len(times_up()) == 2, times_up()

    engine = make_engine(url)
    try:
        async with uow_factory(engine)() as uow:
            stored = await uow.tables.open_in_group(table.group.id)
            assert stored is not None
            log = await uow.actions.of_table(stored.id)
            # Every accepted action once, in order: the log is numbered without gap or repeat ...
            assert [e.seq for e in log] == list(range(1, len(log) + 1))
            assert stored.last_seq == len(log)
            # ... and replaying it from the seed gives exactly the state the workers saved.
            rebuilt = await rebuild_round(uow, stored.id, stored.round_no)
            full = await uow.tables.get(stored.id)
            assert full is not None and full.match is not None
            assert rebuilt == full.match
    finally:
        await engine.dispose()
    # No tap of Ann's went unanswered or was answered as a failure.
    answers = [q for q in emu.world.callback_queries.values() if q.user_id == ann.id]
    assert answers and all(q.answered for q in answers)


async def test_one_worker_killed_mid_round_the_other_carries_the_table_on(
    emulator: TelegramEmulator, pg_database: str, tmp_path: Path
) -> None:
    emu = emulator
    ports = [_free_port(), _free_port()]
    proxy = RoundRobin(ports)
    proxy.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20))
    app = web.Application()
    app.router.add_post("/telegram", proxy.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    proxy_port = _free_port()
    await web.TCPSite(runner, "127.0.0.1", proxy_port).start()
    url = pg_database.replace("postgresql://", "postgresql+asyncpg://", 1)
    workers: list[subprocess.Popen[bytes]] = []
    bob_timeouts_at_kill = 0
    try:
        for port in ports:
            # The survivor finds the deadlines the dead one armed with its regular sweep: every second here.
            workers.append(_worker(emu, url, port, proxy_port, tmp_path, SWEEP_EVERY_S="1"))
            await _listening(port, workers[-1])
        await emu.wait_for(lambda: emu.updates.webhook is not None, timeout=20, description="the webhook")

        table = await Table.seated(emu, ["Ann", "Bob"])
        ann, bob = table.humans
        conn = await asyncpg.connect(pg_database)
        try:
            await conn.execute(
                "UPDATE groups SET turn_timeout_seconds = $1 WHERE id = $2", TIMEOUT_S, table.group.id
            )
        finally:
            await conn.close()
        await table.begin()
        table.humans = [ann]  # Bob never plays: his turns time out, fired by whichever worker is alive

        def times_up() -> list[str]:
            return [
                rev.text or ""
                for m in emu.bot_messages(bob.id)
                for rev in m.history
                if "Time ran out" in (rev.text or "")
            ]

        rng = random.Random(11)
        # Killed after Bob's first time-out: his second (托管 begins) is the survivor's to fire.
        await table.play_until(
            lambda: min(proxy.delivered) >= 3 and len(times_up()) >= 1, rng, type_some=False
        )
        bob_timeouts_at_kill = len(times_up())
        workers[0].kill()  # SIGKILL, mid-round, whatever it was doing
        workers[0].wait(timeout=10)
        killed_at = sum(proxy.delivered)
        await table.play_until(lambda: table.round_over(1), rng, type_some=False)
        await _quiet(emu, table)
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.terminate()
        for proc in workers:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        await proxy.session.close()
        await runner.cleanup()

    assert sum(proxy.delivered) > killed_at + 5, "the survivor had the rest of the round's updates"
    assert len(times_up()) == 2 and bob_timeouts_at_kill == 1, (bob_timeouts_at_kill, times_up())
    survivor = (tmp_path / f"worker-{ports[1]}.log").read_text()
    assert " ERROR " not in survivor, survivor

    engine = make_engine(url)
    try:
        async with uow_factory(engine)() as uow:
            stored = await uow.tables.open_in_group(table.group.id)
            assert stored is not None
            log = await uow.actions.of_table(stored.id)
            assert [e.seq for e in log] == list(range(1, len(log) + 1))
            rebuilt = await rebuild_round(uow, stored.id, stored.round_no)
            full = await uow.tables.get(stored.id)
            assert full is not None and full.match is not None and rebuilt == full.match
            assert full.match.round_over, "the round went on to its end"
            assert await uow.deadlines.of_table(stored.id) == [], "no deadline left over at the round's end"
    finally:
        await engine.dispose()
    answers = [q for q in emu.world.callback_queries.values() if q.user_id == ann.id]
    assert answers and all(q.answered for q in answers), "no tap of Ann's unanswered, killed worker or not"
