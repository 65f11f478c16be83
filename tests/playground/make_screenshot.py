"""Take the README's pictures: playground/screenshot.png (a round in progress with two human players and four
computers: the group table with the trick, You's turn message with what happened since his last move) and
playground/round-end.png (the same round's end, in the group and in each private chat).

    .venv/bin/python tests/playground/make_screenshot.py [OUT.png [END.png]]

Needs chromium and chromium-driver (Debian), and a CJK font for the group's Chinese
(``apt-get install -y fonts-wqy-microhei``).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from playground_browser import ROUND_OVER, Browser, PageSession, PlaygroundThread, unavailable

REPO = Path(__file__).resolve().parents[2]
TURNS_BEFORE_THE_PICTURE = 6


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "playground" / "screenshot.png"
    end = Path(sys.argv[2]) if len(sys.argv) > 2 else REPO / "playground" / "round-end.png"
    reason = unavailable()
    if reason:
        sys.exit(f"cannot take the screenshot: {reason}")
    with (
        tempfile.TemporaryDirectory() as tmp,
        PlaygroundThread(database_url=f"sqlite+aiosqlite:///{tmp}/pg.db") as pg,
        Browser(width=1460, height=900) as browser,
    ):
        ming = pg.add_player("小明", "zh")
        you = pg.players[0]
        page = PageSession(browser.driver)
        page.open(pg.url)
        page.tap_in_group(":join", "You joins")
        page.wait(lambda: "1. You" in page.note_group(), "You seated")
        page.driver.execute_script(
            "const s = document.querySelector('select[name=speaker]'); s.value = arguments[0];", ming.id
        )
        page.tap_in_group(":join", "小明 joins")
        page.wait(lambda: "2. 小明" in page.note_group(), "小明 seated")
        page.tap_in_group(":bots", "computer players")
        page.wait(lambda: "（空）" not in page.note_group(), "seats filled")
        page.tap_in_group(":begin", "start")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if ROUND_OVER.search(page.note_group()):
                sys.exit("the round ended before the picture; run again")
            turn = page.pending_turn(you.id)
            if (
                page.turns_played >= TURNS_BEFORE_THE_PICTURE
                and turn
                and "Since your last move" in turn["text"]
            ):
                time.sleep(0.5)  # let the other panes catch up
                # Close alerts a refused tap left (the lowest single card may not lead), for a clear picture.
                page.driver.execute_script(
                    "document.querySelectorAll('.notice button').forEach((b) => b.click())"
                )
                break
            if not (page.step(you.id) or page.step(ming.id)):
                time.sleep(0.05)
        out.parent.mkdir(parents=True, exist_ok=True)
        browser.driver.save_screenshot(str(out))
        page.play_round([you.id, ming.id], max_seconds=120)
        page.wait(
            lambda: "第 1 局结束" in page.pane_text(f'.pane[data-user-id="{ming.id}"]'), "the end in private"
        )
        time.sleep(0.5)
        page.driver.execute_script("document.querySelectorAll('.notice button').forEach((b) => b.click())")
        browser.driver.save_screenshot(str(end))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
