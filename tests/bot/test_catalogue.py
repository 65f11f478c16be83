"""The catalogue as players read it: every message of the code (bot.locales.update_catalog extracts them,
t() and tn() alike) rendered in Chinese and in English, singular and plural, with counts 0, 1 and 2 and
plausible values for its other placeholders. A Chinese reader never sees an English message id (a message
with no translation), no reader sees a raw ``{placeholder}``, a translation has the placeholders of its id,
English says "1 card" and "2 cards", and Chinese punctuation is full-width."""

from __future__ import annotations

import re
import string
from functools import cache

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.i18n import LOCALES, t, tn, translations
from bot.locales.update_catalog import Message, messages

pytestmark = pytest.mark.unit

COUNTS = (0, 1, 2)
# Placeholders that hold a number though they carry no format spec.
NUMBERS = {"n", "rounds", "wins", "first", "i", "two"}
# Placeholders that hold cards or a rank, a time and a zone; anything else is a name or a phrase.
VALUES = {"cards": "TT2", "top": "99", "paid": "2", "what": "3", "rank": "R", "time": "08:32", "zone": "CST"}
# An English plural noun after "1": what a count through t() instead of tn() reads like.
ONE_PLURAL = re.compile(r"(?<![\d.+-])1 (cards|rounds|points|minutes|hours|seconds|4s|3s|2s)\b")
RAW = re.compile(r"\{[^{}]*\}")
ENGLISH_WORD = re.compile(r"[A-Za-z]{2,}")
# Chinese text with ASCII punctuation where a Chinese writer puts full-width: a colon after Chinese or
# before a space, a space after a full-width stop or comma, or before a full-width bracket.
CJK = "\u4e00-\u9fff"
HALF_WIDTH = re.compile(rf"[{CJK}）]:|: |[。，：；！？] | （")


@cache
def zh_catalog() -> Catalog:
    with (LOCALES / "zh" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale="zh")


def fields(text: str) -> set[tuple[str, str]]:
    """The placeholders of a message: (name, format spec)."""
    return {
        (name, spec or "") for _lit, name, spec, _conv in string.Formatter().parse(text) if name is not None
    }


def values(msg: Message, count: int) -> dict[str, object]:
    ids = (msg,) if isinstance(msg, str) else msg
    out: dict[str, object] = {}
    for name, spec in set().union(*(fields(i) for i in ids)):
        if spec.endswith("f"):
            out[name] = count + 0.5
        elif spec.endswith("d") or name in NUMBERS:
            out[name] = count
        else:
            out[name] = VALUES.get(name, "老王")
    return out


def render(lang: str, msg: Message, count: int) -> str:
    kwargs = values(msg, count)
    if isinstance(msg, str):
        return t(lang, msg, **kwargs)
    kwargs.pop("n", None)  # tn() puts the count itself
    return tn(lang, msg[0], msg[1], count, **kwargs)


def ident(msg: Message) -> str:
    return msg if isinstance(msg, str) else msg[0]


ALL = messages()


def test_the_code_has_plural_messages_and_chinese_has_one_plural_form() -> None:
    assert len(ALL) > 200 and sum(not isinstance(m, str) for m in ALL) > 20
    assert zh_catalog().plural_forms == "nplurals=1; plural=0;"
    assert tn("zh", "{n} card left", "{n} cards left", 1) == "剩 1 张"
    assert tn("zh", "{n} card left", "{n} cards left", 2) == "剩 2 张"
    assert [tn("en", "{n} card left", "{n} cards left", n) for n in COUNTS] == [
        "0 cards left",
        "1 card left",
        "2 cards left",
    ]


@pytest.mark.parametrize("msg", ALL, ids=ident)
def test_every_message_has_its_chinese_translation_with_the_placeholders_of_its_id(msg: Message) -> None:
    found = zh_catalog().get(msg if isinstance(msg, str) else msg[0])
    assert found is not None, "not in the catalogue: run python -m bot.locales.update_catalog"
    if isinstance(msg, str):
        assert isinstance(found.string, str) and found.string, "no Chinese translation"
        assert fields(found.string) == fields(msg)
    else:
        assert found.id == msg, "the catalogue's plural id is out of date: run update_catalog"
        forms = tuple(found.string or ())
        assert len(forms) == 1 and all(forms), "no Chinese translation (Chinese has one plural form)"
        assert fields(forms[0]) == fields(msg[1])
        assert fields(msg[0]) <= fields(msg[1]), "the singular names nothing its plural does not"
    names = {name for i in ((msg,) if isinstance(msg, str) else msg) for name, _spec in fields(i)}
    assert "lang" not in names, "a {lang} placeholder would clash with t()'s own argument"


@pytest.mark.parametrize("msg", ALL, ids=ident)
def test_every_message_renders_for_0_1_and_2_in_both_languages_as_a_reader_should_see_it(
    msg: Message,
) -> None:
    english_id = bool(ENGLISH_WORD.search(RAW.sub("", ident(msg))))
    for count in COUNTS:
        en, zh = render("en", msg, count), render("zh", msg, count)
        for text in (en, zh):
            assert not RAW.search(text), f"a raw placeholder: {text!r}"
        assert not ONE_PLURAL.search(en), f"a count of one with a plural noun: {en!r}"
        if english_id:
            assert zh != en, f"a Chinese reader would read the English id: {en!r}"
        assert not HALF_WIDTH.search(zh), f"half-width punctuation in Chinese: {zh!r}"


def test_the_translations_are_what_gettext_serves() -> None:
    """The .po file read by bot.i18n is the one checked above (compiled in memory at start)."""
    zh = translations("zh")
    for msg in ALL:
        found = zh_catalog().get(ident(msg))
        assert found is not None
        if isinstance(msg, str):
            assert zh.gettext(msg) == found.string
        else:
            assert zh.ngettext(msg[0], msg[1], 1) == zh.ngettext(msg[0], msg[1], 2) == tuple(found.string)[0]
