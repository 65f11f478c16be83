"""Translations and button data: what a Chinese player reads, and what Telegram accepts (every message of
the catalogue in both languages: test_catalogue.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot import codec
from bot.i18n import t
from engine import Action
from engine.actions import BURN, PASS, PLAY, YIELD
from engine.match import DECLARE, NO_DECLARE, NO_REVOLT, RETURN, REVOLT, WUTOU, YAOTOU
from table import SettingChange


def test_english_is_the_message_id_and_chinese_the_default() -> None:
    assert t("en", "Seat {n}", n=2) == "Seat 2"
    assert t("zh", "Seat {n}", n=2) == "2 号位"


@given(
    table=st.integers(0, 10**9),
    version=st.integers(0, 10**6),
    hand=st.lists(st.integers(0, 16), min_size=15, max_size=15).filter(lambda h: sum(h) > 0),
)
def test_a_composed_play_of_any_size_fits_in_a_button_and_reads_back_as_the_same_action(
    table: int, version: int, hand: list[int]
) -> None:
    cards = tuple(hand)
    data = codec.compose_data(table, version, cards)
    assert len(data.encode()) <= codec.MAX_BYTES
    assert codec.decode(data) == codec.Compose(table, version, cards)
    for action in (Action(PLAY, cards), Action(BURN, cards), Action(RETURN, cards)):
        data = codec.act_data(table, version, action)
        assert len(data.encode()) <= codec.MAX_BYTES
        assert codec.decode(data) == codec.Act(table, version, action)


@pytest.mark.parametrize(
    "action",
    [
        Action(PASS),
        Action(YIELD),
        *(Action(w) for w in (REVOLT, NO_REVOLT, YAOTOU, WUTOU, DECLARE, NO_DECLARE)),
    ],
)
def test_every_word_action_reads_back_from_its_button(action: Action) -> None:
    assert codec.decode(codec.act_data(7, 3, action)) == codec.Act(7, 3, action)


def test_lobby_hint_and_settings_buttons_read_back() -> None:
    assert codec.decode(codec.lobby_data(5, 2, "join", 3)) == codec.Lobby(5, 2, "join", 3)
    assert codec.decode(codec.lobby_data(5, 2, "stop")) == codec.Lobby(5, 2, "stop")
    assert codec.decode(codec.hint_data(5, 2)) == codec.Hint(5, 2)
    change = SettingChange("turn_seconds", 300)
    assert codec.decode(codec.setting_data(change)) == codec.Setting(change)


@pytest.mark.parametrize(
    "data",
    [
        "",
        "a",
        "a:1:2",
        "q:1:2:x",
        "a:-1:2:x",
        "a:x:2:x",
        "a:1:2:" + "x" * 80,
        "a:1:2:zz",
        "l:1:2:seat9",
        "s:0:0:q:1",
    ],
)
def test_forged_button_data_is_refused(data: str) -> None:
    with pytest.raises(codec.BadButton):
        codec.decode(data)


@pytest.mark.parametrize("cards", ["T", "T0", "Z1", "T1T1", "Tz!"])
def test_forged_cards_in_button_data_are_refused(cards: str) -> None:
    with pytest.raises(codec.BadButton):
        codec.unpack_cards(cards)
