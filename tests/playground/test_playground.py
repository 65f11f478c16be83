"""The playground without a browser: what it sets up, its page and routes, and the command line."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.main import main
from playground import Playground

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
async def playground(tmp_path: Path) -> AsyncIterator[Playground]:
    async with Playground(database_url=f"sqlite+aiosqlite:///{tmp_path / 'pg.db'}") as pg:
        yield pg
    assert not pg.emulator.internal_errors


async def get(session: aiohttp.ClientSession, url: str) -> Any:
    async with session.get(url) as response:
        assert response.status == 200
        return await response.json()


async def test_opens_on_a_group_with_a_lobby_and_you_started(playground: Playground) -> None:
    emu, group = playground.emulator, playground.group
    assert group is not None
    lobby = await emu.wait_for_bot_message(group, contains="够级牌桌")  # the group speaks Chinese
    assert any(b["callback_data"].endswith(":bots") for row in lobby.buttons for b in row)
    you = playground.players[0]
    welcome = await emu.wait_for_bot_message(you, contains="Welcome")  # You's Telegram is in English
    assert "/new" in (welcome.text or "")
    assert playground.url.startswith("http://127.0.0.1:")

    async with aiohttp.ClientSession() as session:
        view = (await get(session, playground.url + "_pg/view"))["result"]
        assert view["group"] == {"id": group.id, "title": "Playground"}
        assert [(p["first_name"], p["language_code"], p["started_bot"]) for p in view["players"]] == [
            ("You", "en", True)
        ]
        async with session.get(playground.url) as page:
            html = await page.text()
        assert page.status == 200 and "/static/playground.js" in html
        async with session.get(playground.url + "static/playground.js") as script:
            assert script.status == 200 and "/_emu/events" in await script.text()
        # The page reads the chats through the emulator's routes on the same server.
        messages = (await get(session, f"{playground.url}_emu/chats/{group.id}/messages"))["result"]
        assert any("够级牌桌" in (m["text"] or "") for m in messages)


async def test_the_page_adds_players_each_with_a_private_chat(playground: Playground) -> None:
    emu, group = playground.emulator, playground.group
    assert group is not None
    async with aiohttp.ClientSession() as session:
        async with session.post(
            playground.url + "_pg/players", json={"first_name": "小明", "language_code": "zh"}
        ) as response:
            ming = (await response.json())["result"]
        assert ming["started_bot"] is True
        welcome = await emu.wait_for_bot_message(ming["id"])
        assert "/new" in (welcome.text or "") and "Welcome" not in (welcome.text or "")  # in Chinese
        assert emu.world.chat(group.id).members[ming["id"]] == "member"

        for bad in ({"first_name": ""}, {"first_name": "Eve", "language_code": "fr"}, ["Eve"]):
            async with session.post(playground.url + "_pg/players", json=bad) as response:
                assert response.status == 400
                assert not (await response.json())["ok"]
        view = (await get(session, playground.url + "_pg/view"))["result"]
        assert [p["first_name"] for p in view["players"]] == ["You", "小明"]


async def test_a_player_who_never_started_the_bot_joins_through_the_deep_link(
    playground: Playground,
) -> None:
    emu, group = playground.emulator, playground.group
    assert group is not None
    lobby = await emu.wait_for_bot_message(group, contains="够级牌桌")
    carol = playground.add_player("Carol", started=False)
    join = next(
        b["callback_data"] for row in lobby.buttons for b in row if b["callback_data"].endswith(":join")
    )
    emu.tap(carol, lobby, join)
    link_message = await emu.wait_for_bot_message(group, after=lobby, contains="Carol")
    url = next(b["url"] for row in link_message.buttons for b in row if "url" in b)
    assert url.startswith("https://t.me/gouji_playground_bot?start=")
    # What the page does with that button: Carol opens the private chat and presses Start.
    emu.start_bot(carol, url.partition("?start=")[2])
    await emu.wait_for(
        lambda: "Carol" in (emu.world.chat(group.id).messages[lobby.message_id].text or ""),
        description="Carol seated in the lobby",
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ctrl_c_as_in_a_terminal() -> None:
    """A child inherits its parent's ignored and blocked signals: in the full suite something earlier in
    pytest's process leaves SIGINT so (the command's log stopped at "Application started", twice in 600 s
    runs, and it passed alone), while a terminal starts the command with Ctrl+C delivered."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_without_a_token_the_command_serves_the_playground(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("BOT_TOKEN", "DATABASE_URL", "PLAYGROUND_PORT")}
    env["PYTHONPATH"] = str(REPO)
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.main", "--port", str(port)],
        cwd=tmp_path,  # no .env here
        env=env,
        stdout=subprocess.PIPE,
        stderr=(log := (tmp_path.parent / f"{tmp_path.name}.log").open("w")),
        text=True,
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )
    try:
        assert process.stdout is not None
        output = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "Run gouji-bot again" not in "".join(output):
            line = process.stdout.readline()
            if not line:
                break
            output.append(line)
        printed = "".join(output)
        assert f"Open http://127.0.0.1:{port}/ in a browser" in printed, printed
        assert "@BotFather" in printed and "BOT_TOKEN=" in printed  # the way to the real Telegram
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_pg/view", timeout=5) as response:
            view = json.load(response)["result"]
        group_id = view["group"]["id"]
        lobby = None
        while time.monotonic() < deadline and lobby is None:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{port}/_emu/chats/{group_id}/messages", timeout=5
            ) as response:
                messages = json.load(response)["result"]
            lobby = next((m for m in messages if "够级牌桌" in (m["text"] or "")), None)
            time.sleep(0.1)
        assert lobby is not None, "the page opens on a table waiting for players"
        assert not list(tmp_path.iterdir()), "the playground keeps its database out of the working directory"
    finally:
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            log.close()
            pytest.fail("Ctrl+C did not stop it within 15 s; its log:\n" + Path(log.name).read_text()[-3000:])
        finally:
            log.close()
    assert code == 0


def test_a_busy_port_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["--playground", "--port", str(port), "--env-file", str(tmp_path / "none.env")])
    assert code == 1
    assert f"cannot serve on 127.0.0.1:{port}" in capsys.readouterr().out
