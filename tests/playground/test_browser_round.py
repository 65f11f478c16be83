"""The playground in a real browser: open a table, fill it with computer players, play a whole round by
clicking the hand keyboard, and see that the hand stays in the private pane."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playground_browser import GROUP, ROUND_OVER, Browser, PageSession, PlaygroundThread, unavailable

from playground import Playground

pytestmark = pytest.mark.skipif(unavailable() is not None, reason=f"no browser: {unavailable()}")


def test_a_whole_round_by_clicking(tmp_path: Path) -> None:
    runner = PlaygroundThread(database_url=f"sqlite+aiosqlite:///{tmp_path / 'pg.db'}", open_table=False)
    with runner as pg, Browser() as browser:
        you = pg.players[0]
        page = PageSession(browser.driver)
        page.open(pg.url)
        assert "You — private chat" in page.pane_text(f'.pane[data-user-id="{you.id}"]')

        page.type_in_group("/new")
        page.tap_in_group(":join", "the lobby's join button")
        page.wait(lambda: "1. You" in page.note_group(), "You seated in the lobby")
        page.tap_in_group(":bots", "the lobby's button for computer players")
        lobby = page.wait(
            lambda: (text := page.note_group()).count("·") >= 6 and "（空）" not in text and text,
            "the empty seats filled",
        )
        assert "1. You" in lobby
        assert len(re.findall(r"^\d\. 电脑", lobby, re.MULTILINE)) == 5  # five computer players
        page.tap_in_group(":begin", "the lobby's start button")

        group = page.play_round([you.id])

        summary = ROUND_OVER.search(group)
        assert summary and summary.group(0) == "第 1 局结束"  # the group speaks Chinese by default
        assert "You" in group[summary.start() :]
        private = page.pane_text(f'.pane[data-user-id="{you.id}"]')
        assert "Your cards" in private  # You's language is English, the group's is not
        assert page.turns_played >= 3 and page.composed_plays >= 1
        hands = {hand for hand in page.seen_hands if len(hand.split()) >= 4}
        assert hands, "the hand was shown in the private pane"
        assert any(hand in private for hand in hands) or "Round 1 is over" in private
        for text in page.seen_group_texts:
            for hand in hands:
                assert hand not in text
        # Nor in any version of any group message the page could have drawn.
        for text in runner.run(group_revisions(pg)):
            for hand in hands:
                assert hand not in text


async def group_revisions(pg: Playground) -> list[str]:
    """Read in the playground's own thread, where the bot is still writing."""
    assert pg.group is not None
    return [rev.text or "" for message in pg.emulator.messages(pg.group) for rev in message.history]


def test_a_new_player_joins_through_the_deep_link(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with (
        PlaygroundThread(database_url=f"sqlite+aiosqlite:///{tmp_path / 'pg.db'}") as pg,
        Browser() as browser,
    ):
        page = PageSession(browser.driver)
        page.open(pg.url)
        page.wait(lambda: "够级牌桌" in page.note_group(), "the lobby the page opens on")

        form = browser.driver.find_element(By.ID, "add-player")
        form.find_element(By.NAME, "first_name").send_keys("Carol")
        form.find_element(By.NAME, "started").click()  # she has never pressed Start
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        carol = page.wait(lambda: next((p for p in pg.players if p.first_name == "Carol"), None), "Carol")
        pane = f'.pane[data-user-id="{carol.id}"]'
        page.wait(lambda: "Carol — private chat" in page.pane_text(pane), "Carol's pane")

        speaker = page.wait(lambda: browser.driver.find_element(By.CSS_SELECTOR, "select[name=speaker]"), "")
        page.wait(lambda: "Carol" in speaker.text, "Carol among the group's speakers")
        Select(speaker).select_by_visible_text("Carol")
        page.tap_in_group(":join", "the lobby's join button")
        # The bot cannot write to her first: it answers in the group with a link to its private chat.
        page.click(f'{GROUP} button.url[data-url*="?start="]', "the deep link")
        page.wait(lambda: "1. Carol" in page.note_group(), "Carol seated")
        assert "Your cards will come here" in page.pane_text(pane)


def test_two_humans_get_their_cards_at_the_deal_and_the_round_end_in_private(tmp_path: Path) -> None:
    """Issue 13: the second human had his cards at the deal (round 1 too), and the round's end reached both
    private chats, each in its player's language."""
    runner = PlaygroundThread(database_url=f"sqlite+aiosqlite:///{tmp_path / 'pg.db'}")
    with runner as pg, Browser() as browser:
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
        ming_pane = f'.pane[data-user-id="{ming.id}"]'
        you_pane = f'.pane[data-user-id="{you.id}"]'
        # Both hold their 36 cards from the deal, whoever acts first.
        page.wait(lambda: "你的牌（36 张）" in page.pane_text(ming_pane), "小明's cards at the deal")
        page.wait(lambda: "Your cards (36)" in page.pane_text(you_pane), "You's cards at the deal")
        page.play_round([you.id, ming.id], max_seconds=90)
        page.wait(lambda: "第 1 局结束" in page.pane_text(ming_pane), "the round's end in 小明's chat")
        page.wait(lambda: "Round 1 is over" in page.pane_text(you_pane), "the round's end in You's chat")
        assert "你：" in page.pane_text(ming_pane) and "You:" in page.pane_text(you_pane)
