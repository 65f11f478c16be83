"""Driving the playground page in Debian's headless chromium (selenium + chromedriver), as a person would.

Shared by the browser test and ``make_screenshot.py``. The playground runs in a thread with its own event
loop, because selenium's calls block.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playground import Playground

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ROUND_OVER = re.compile(r"(Round \d+ is over|第 \d+ 局结束)")
GROUP = '.pane[data-kind="group"]'


def unavailable() -> str | None:
    """Why the browser cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} is missing (apt-get install -y {package})"
    return None


class PlaygroundThread:
    """A started :class:`Playground` on its own event loop in a background thread."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.playground: Playground | None = None

    def run(self, coroutine: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def __enter__(self) -> Playground:
        self.thread.start()

        async def start() -> Playground:
            playground = Playground(**self.options)
            await playground.start()
            return playground

        self.playground = self.run(start())
        return self.playground

    def __exit__(self, *exc_info: object) -> None:
        if self.playground is not None:
            self.run(self.playground.stop())
        self.run(_cancel_the_rest())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


async def _cancel_the_rest() -> None:
    """End what the page left open (its long poll) so the loop closes cleanly."""
    others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


class Browser:
    """Headless chromium on a fresh profile."""

    def __init__(self, width: int = 1500, height: int = 950) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = tempfile.mkdtemp(prefix="gouji-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for flag in (
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}",
        ):
            options.add_argument(flag)
        # The Debian driver, so that selenium never looks for one to download.
        self.driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
        self.driver.set_page_load_timeout(20)

    def close(self) -> None:
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


# The turn message of a private pane as the page shows it: the last message with game buttons.
TURN_SCRIPT = """
const pane = document.querySelector(arguments[0]);
if (!pane) return null;
const messages = [...pane.querySelectorAll('.msg')];
for (const msg of messages.reverse()) {
  const buttons = [...msg.querySelectorAll('.keyboard button')].map(
    (b) => ({text: b.textContent, data: b.dataset.callback || ''}));
  if (buttons.some((b) => b.data.startsWith('a:'))) {
    return {id: msg.dataset.messageId, text: msg.querySelector('.text').textContent, buttons};
  }
}
return null;
"""


@dataclass
class PageSession:
    """One person in front of the page: reads the panes, clicks buttons, types."""

    driver: Any
    timeout: float = 20
    seen_group_texts: set[str] = field(default_factory=set)
    seen_hands: set[str] = field(default_factory=set)
    turns_played: int = 0
    composed_plays: int = 0
    _acted: dict[str, float] = field(default_factory=dict)
    _composed: set[str] = field(default_factory=set)

    def open(self, url: str) -> None:
        self.driver.get(url)
        self.wait(
            lambda: self.driver.execute_script("return document.body.dataset.ready === '1'"), "the page"
        )

    def wait(self, condition: Callable[[], Any], what: str, timeout: float | None = None) -> Any:
        from selenium.common.exceptions import StaleElementReferenceException

        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            try:
                result = condition()
            except StaleElementReferenceException:
                result = None
            if result:
                return result
            time.sleep(0.05)
        raise AssertionError(f"gave up waiting for {what}; group pane: {self.pane_text(GROUP)[-600:]!r}")

    def pane_text(self, selector: str) -> str:
        return self.driver.execute_script(
            "const p = document.querySelector(arguments[0]); return p ? p.innerText : '';", selector
        )

    def click(self, selector: str, what: str) -> None:
        """Click the element as a user would (selenium refuses if something covers it)."""
        from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
        from selenium.webdriver.common.by import By

        def clicked() -> bool:
            try:
                element = self.driver.find_element(By.CSS_SELECTOR, selector)
                element.location_once_scrolled_into_view  # noqa: B018 - scrolls it into view
                element.click()
            except (NoSuchElementException, StaleElementReferenceException):
                return False
            return True

        self.wait(clicked, what)

    def button_in(self, pane: str, data_suffix: str) -> str | None:
        """The selector of the newest button in a pane whose callback data ends with ``data_suffix``."""
        found = self.driver.execute_script(
            """const buttons = [...document.querySelectorAll(arguments[0] + ' .keyboard button')]
                 .filter((b) => (b.dataset.callback || '').endsWith(arguments[1]));
               const b = buttons[buttons.length - 1];
               return b ? [b.closest('.msg').dataset.messageId, b.dataset.callback] : null;""",
            pane,
            data_suffix,
        )
        if not found:
            return None
        return f'{pane} .msg[data-message-id="{found[0]}"] button[data-callback="{found[1]}"]'

    def tap_in_group(self, data_suffix: str, what: str) -> None:
        selector = self.wait(lambda: self.button_in(GROUP, data_suffix), what)
        self.click(selector, what)

    def type_in_group(self, command: str) -> None:
        self.click(f'{GROUP} button[data-command="{command}"]', command)

    def note_group(self) -> str:
        text = self.pane_text(GROUP)
        self.seen_group_texts.add(text)
        return text

    def play_round(self, user_ids: list[int], max_seconds: float = 50) -> str:
        """Play these users' turns by clicking their hand keyboards until the group pane shows the round's end.

        Following a player: a one-tap ▶ play when there is one, else Pass. Leading: a rank button, then
        Play (the one-tap play if that was refused). Returns the group pane's text at the end.
        """
        deadline = time.monotonic() + max_seconds
        while time.monotonic() < deadline:
            group = self.note_group()
            if ROUND_OVER.search(group):
                return group
            if not any([self.step(user_id) for user_id in user_ids]):
                time.sleep(0.05)
        raise AssertionError(f"the round did not end in {max_seconds}s: {self.note_group()[-600:]!r}")

    def pending_turn(self, user_id: int) -> dict[str, Any] | None:
        """The user's turn message as shown, when it shows something not yet acted on."""
        turn = self.driver.execute_script(TURN_SCRIPT, f'.pane[data-user-id="{user_id}"]')
        if turn is None:
            return None
        lines = turn["text"].splitlines()
        for i, line in enumerate(lines[:-1]):
            if line.startswith(("Your cards", "你的牌")):
                self.seen_hands.add(lines[i + 1])
        # An unchanged keyboard means the bot has not answered the last tap yet, or refused it.
        acted = self._acted.get(json.dumps(turn, sort_keys=True))
        if acted is not None and time.monotonic() - acted < 1:
            return None
        return turn

    def step(self, user_id: int) -> bool:
        """Make one tap for the user if his hand keyboard asks for one."""
        turn = self.pending_turn(user_id)
        if turn is None:
            return False
        self._acted[json.dumps(turn, sort_keys=True)] = time.monotonic()
        data = self._choose(turn, f"{user_id}:{turn['id']}")
        pane = f'.pane[data-user-id="{user_id}"]'
        self.click(f'{pane} .msg[data-message-id="{turn["id"]}"] button[data-callback="{data}"]', data)
        return True

    def _choose(self, turn: dict[str, Any], key: str) -> str:
        composed = self._composed
        buttons = turn["buttons"]
        one_tap = [b["data"] for b in buttons if b["text"].startswith("▶")]
        passes = [b["data"] for b in buttons if b["data"].endswith(":x")]
        ranks = [b["data"] for b in buttons if b["data"].startswith("k:") and "×" in b["text"]]
        plays = [
            b["data"]
            for b in buttons
            if b["data"].startswith("a:")
            and b["data"].split(":")[3].startswith("p")
            and b["text"][:1] not in "▶🔥"
        ]
        if passes:  # following: beat the top play with the smallest play, or pass
            self.turns_played += 1
            return one_tap[0] if one_tap else passes[0]
        if ranks and key not in composed:  # leading: compose a play of the lowest rank
            composed.add(key)
            return ranks[0]
        if plays and key in composed and f"played {key}" not in composed:
            composed.add(f"played {key}")
            self.turns_played += 1
            self.composed_plays += 1
            return plays[0]
        if one_tap:
            self.turns_played += 1
            return one_tap[0]
        # A choice of the moment (革命?, 宣点?, 要头/无头): the last one, "no" where there is one.
        return [b["data"] for b in buttons if b["data"].startswith("a:") and not b["data"].endswith(":h")][-1]
