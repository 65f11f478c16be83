"""Formatted text: what a player would see (plain text, entity spans) after Telegram parses it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.entities import detect_entities, format_text, parse_html, utf16_len
from emulator.errors import ApiError


def spans(text: str, entities: list[dict]) -> list[tuple[str, str]]:
    encoded = text.encode("utf-16-le")
    return [
        (e["type"], encoded[e["offset"] * 2 : (e["offset"] + e["length"]) * 2].decode("utf-16-le"))
        for e in entities
    ]


def test_html_offsets_count_utf16_units_past_an_emoji() -> None:
    text, entities = format_text("🂡 <b>王</b> <i>&lt;3</i>", "HTML", None)
    assert text == "🂡 王 <3"
    assert spans(text, entities) == [("bold", "王"), ("italic", "<3")]
    assert entities[0]["offset"] == 3  # the playing-card emoji takes two UTF-16 units


def test_html_links_spoilers_and_code_language() -> None:
    text, entities = parse_html(
        '<a href="https://t.me/gouji_test_bot?start=t1">join</a> <tg-spoiler>hand</tg-spoiler> '
        '<pre><code class="language-python">x = 1</code></pre>'
    )
    assert spans(text, entities) == [("text_link", "join"), ("spoiler", "hand"), ("pre", "x = 1")]
    assert entities[0]["url"] == "https://t.me/gouji_test_bot?start=t1"
    assert entities[2]["language"] == "python"


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("<b>open", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b>x</i>", 'expected "</b>", found "</i>"'),
        ("<blink>x</blink>", 'Unsupported start tag "blink"'),
        ("1 < 2", "Unsupported start tag"),
    ],
)
def test_broken_html_is_refused(source: str, reason: str) -> None:
    with pytest.raises(ApiError) as refused:
        format_text(source, "HTML", None)
    assert refused.value.description.startswith("Bad Request: can't parse entities: ")
    assert reason in refused.value.description


def test_markdown_v2() -> None:
    text, entities = format_text(
        r"*Round 2* _of_ __3__ \- ~old~ ||secret|| [rules](https://example.org) `A\`K`", "MarkdownV2", None
    )
    assert text == "Round 2 of 3 - old secret rules A`K"
    assert spans(text, entities) == [
        ("bold", "Round 2"),
        ("italic", "of"),
        ("underline", "3"),
        ("strikethrough", "old"),
        ("spoiler", "secret"),
        ("text_link", "rules"),
        ("code", "A`K"),
    ]


def test_markdown_v2_unescaped_reserved_character() -> None:
    with pytest.raises(ApiError, match=r"Character '!' is reserved"):
        format_text("Well played!", "MarkdownV2", None)


def test_legacy_markdown() -> None:
    text, entities = format_text("*bold* and _italic_ [link](http://x.org)", "Markdown", None)
    assert spans(text, entities) == [("bold", "bold"), ("italic", "italic"), ("text_link", "link")]


def test_surrounding_whitespace_is_trimmed_and_entities_follow() -> None:
    text, entities = format_text("  <b>  hi</b>  ", "HTML", None)
    assert text == "hi"
    assert spans(text, entities) == [("bold", "hi")]


def test_explicit_entities_pass_through() -> None:
    given_entities = [{"type": "bold", "offset": 0, "length": 4}]
    assert format_text("Pass", None, given_entities) == ("Pass", given_entities)


def test_commands_and_mentions_users_type() -> None:
    text = "/join@gouji_test_bot now, /start@x1 a/b @alice_w email@host.org"
    assert spans(text, detect_entities(text)) == [
        ("bot_command", "/join@gouji_test_bot"),
        ("bot_command", "/start"),
        ("mention", "@alice_w"),
    ]


@given(
    st.text(
        alphabet=st.characters(exclude_characters="<>&", exclude_categories=["Cs"]), min_size=1, max_size=200
    )
)
def test_plain_html_text_round_trips(text: str) -> None:
    # Text without markup characters comes back unchanged, apart from the trimmed edges.
    if not text.strip():
        return
    plain, entities = format_text(f"<b>{text}</b>", "HTML", None)
    assert plain == text.strip()
    assert entities == [{"type": "bold", "offset": 0, "length": utf16_len(plain)}]
