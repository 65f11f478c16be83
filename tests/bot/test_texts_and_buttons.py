"""Translations and button data: what a Chinese player reads, and what Telegram accepts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.callbacks import ACT, COMPOSE, MAX_BYTES, BadCallback, Callback, pack_cards, unpack_cards
from bot.i18n import t, translations
from bot.locales.update_catalog import message_ids

PLACEHOLDER = re.compile(r"\{(\w+)[^}]*\}")


def test_every_message_has_a_chinese_translation_with_the_same_placeholders() -> None:
    zh = translations("zh")
    ids = message_ids()
    assert len(ids) > 100
    for msgid in ids:
        text = zh.gettext(msgid)
        assert text != msgid or not re.search(r"[A-Za-z]{3}", PLACEHOLDER.sub("", msgid)), (
            f"untranslated: {msgid}"
        )
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(msgid)), msgid
        assert "lang" not in PLACEHOLDER.findall(msgid), (
            "a {lang} placeholder would clash with t()'s own argument"
        )


def test_english_is_the_message_id_and_chinese_the_default() -> None:
    assert t("en", "Seat {n}", n=2) == "Seat 2"
    assert t("zh", "Seat {n}", n=2) == "2 号位"


@given(
    table=st.integers(0, 10**9),
    version=st.integers(0, 10**6),
    hand=st.lists(st.integers(0, 16), min_size=15, max_size=15).filter(lambda h: sum(h) > 0),
)
def test_a_composed_play_of_any_size_fits_in_a_button(table: int, version: int, hand: list[int]) -> None:
    for kind, prefix in ((COMPOSE, ""), (ACT, "p"), (ACT, "b")):
        data = Callback(kind, table, version, prefix + pack_cards(tuple(hand))).encode()
        assert len(data.encode()) <= MAX_BYTES
        back = Callback.decode(data)
        assert unpack_cards(back.arg[len(prefix) :]) == tuple(hand)


@pytest.mark.parametrize("data", ["", "a", "a:1:2", "q:1:2:x", "a:-1:2:x", "a:x:2:x", "a:1:2:" + "x" * 80])
def test_forged_button_data_is_refused(data: str) -> None:
    with pytest.raises(BadCallback):
        Callback.decode(data)


@pytest.mark.parametrize("cards", ["T", "T0", "Z1", "T1T1", "Tz!"])
def test_forged_cards_in_button_data_are_refused(cards: str) -> None:
    with pytest.raises(BadCallback):
        unpack_cards(cards)
