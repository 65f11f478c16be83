"""A player's "since your last move" as a line (issue 22, defect 3): however long, every play stays until the
line would not fit a turn message; what is left out is counted, never cut silently."""

from __future__ import annotations

import pytest

from bot.texts.words import STORY_CHARS, SeatInfo, story_line
from engine.cards import parse_cards
from table import Entry

pytestmark = pytest.mark.unit

SEATS = {n: SeatInfo(n, f"P{n + 1}") for n in range(6)}


def _play(seq: int, seat: int, cards: str) -> Entry:
    return Entry(seq, "play", seat, parse_cards(cards))


def test_a_long_list_leaves_out_passes_first_and_keeps_every_play() -> None:
    entries: list[Entry] = []
    for i in range(40):
        entries.append(_play(2 * i, i % 6, "77"))
        entries.append(Entry(2 * i + 1, "auto_pass", (i + 1) % 6))
    line = story_line("en", entries, SEATS, 0, 60)
    assert line.count("77") == 40, "every play"
    assert "passes left out)" in line


def test_a_line_too_long_for_a_message_folds_its_oldest_into_a_count() -> None:
    entries = [_play(i, i % 6, "TTTTT22") for i in range(600)]
    line = story_line("en", entries, SEATS, None, 60)
    assert line.startswith("…") and "earlier moves" in line
    assert len(line) <= STORY_CHARS + 40
    folded = int(line.split(" ", 1)[0].removeprefix("…"))
    assert folded + line.count("TTTTT22") == 600, "what is not shown is counted"
