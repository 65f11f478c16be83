"""Formatted text as Telegram sees it: parse_mode parsing, entity offsets, bot commands.

Offsets and lengths of entities count UTF-16 code units, as the Bot API specifies. The message
length limit counts code points of the parsed text (TDLib's ``utf8_length``), not UTF-16 units.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .errors import bad_request

Entity = dict[str, Any]

MAX_MESSAGE_LENGTH = 4096

_HTML_SIMPLE_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
}
_HTML_KNOWN_TAGS = set(_HTML_SIMPLE_TAGS) | {"a", "span", "blockquote", "tg-emoji"}
_TAG = re.compile(
    r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z-]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*)\s*/?>"
)
_ATTR = re.compile(r"([a-zA-Z-]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+)))?")
_CHAR_REF = re.compile(r"&(?:#(\d+)|#x([0-9a-fA-F]+)|(lt|gt|amp|quot));")
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_COMMAND = re.compile(r"(?<![\w/@])/[a-zA-Z0-9_]{1,32}(?:@[a-zA-Z0-9_]{3,32})?(?![\w/])")
_MENTION = re.compile(r"(?<![\w@])@[a-zA-Z0-9_]{4,32}(?!\w)")


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _byte_offset(source: str, index: int) -> int:
    return len(source[:index].encode("utf-8"))


def _can_t_parse(reason: str) -> Exception:
    return bad_request(f"can't parse entities: {reason}")


def _unescape(text: str) -> str:
    def repl(match: re.Match[str]) -> str:
        if match.group(1):
            return chr(int(match.group(1)))
        if match.group(2):
            return chr(int(match.group(2), 16))
        return _NAMED[match.group(3)]

    return _CHAR_REF.sub(repl, text)


def _attrs(raw: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for match in _ATTR.finditer(raw):
        value = next((g for g in match.groups()[1:] if g is not None), "")
        found[match.group(1).lower()] = _unescape(value)
    return found


def parse_html(source: str) -> tuple[str, list[Entity]]:
    plain: list[str] = []
    length = 0  # UTF-16 units emitted so far
    open_tags: list[tuple[str, int, Entity | None, int]] = []  # name, start, entity, source index
    entities: list[Entity] = []
    pos = 0
    while pos < len(source):
        lt = source.find("<", pos)
        chunk = source[pos:] if lt < 0 else source[pos:lt]
        if chunk:
            text = _unescape(chunk)
            plain.append(text)
            length += utf16_len(text)
        if lt < 0:
            break
        match = _TAG.match(source, lt)
        if match is None:
            raise _can_t_parse(f"Unsupported start tag at byte offset {_byte_offset(source, lt)}")
        closing, name, raw_attrs = match.group(1) == "/", match.group(2).lower(), match.group(3)
        if not closing:
            if name not in _HTML_KNOWN_TAGS:
                raise _can_t_parse(
                    f'Unsupported start tag "{name}" at byte offset {_byte_offset(source, lt)}'
                )
            open_tags.append((name, length, _html_entity(name, _attrs(raw_attrs), open_tags), lt))
        else:
            if not open_tags:
                raise _can_t_parse(f"Unexpected end tag at byte offset {_byte_offset(source, lt)}")
            open_name, start, entity, _ = open_tags.pop()
            if open_name != name:
                raise _can_t_parse(
                    f'Unmatched end tag at byte offset {_byte_offset(source, lt)}, expected "</{open_name}>", '
                    f'found "</{name}>"'
                )
            if entity is not None and length > start:
                entity["offset"], entity["length"] = start, length - start
                entities.append(entity)
        pos = match.end()
    if open_tags:
        raise _can_t_parse(f'Can\'t find end tag corresponding to start tag "{open_tags[-1][0]}"')
    return "".join(plain), _merge_pre_code(entities)


def _html_entity(
    name: str, attrs: dict[str, str], open_tags: list[tuple[str, int, Entity | None, int]]
) -> Entity | None:
    if name in _HTML_SIMPLE_TAGS:
        kind = _HTML_SIMPLE_TAGS[name]
        if kind == "code" and open_tags and open_tags[-1][0] == "pre":
            language = attrs.get("class", "")
            pre = open_tags[-1][2]
            if pre is not None and language.startswith("language-"):
                pre["language"] = language.removeprefix("language-")
            return None
        return {"type": kind}
    if name == "a":
        href = attrs.get("href", "")
        user = re.fullmatch(r"tg://user\?id=(\d+)", href)
        if user:
            return {
                "type": "text_mention",
                "user": {"id": int(user.group(1)), "is_bot": False, "first_name": ""},
            }
        return {"type": "text_link", "url": href} if href else None
    if name == "span":
        if attrs.get("class") != "tg-spoiler":
            raise _can_t_parse('Tag "span" must have class "tg-spoiler"')
        return {"type": "spoiler"}
    if name == "blockquote":
        return {"type": "expandable_blockquote" if "expandable" in attrs else "blockquote"}
    if name == "tg-emoji":
        return {"type": "custom_emoji", "custom_emoji_id": attrs.get("emoji-id", "")}
    return None


def _merge_pre_code(entities: list[Entity]) -> list[Entity]:
    return sorted(entities, key=lambda e: (e["offset"], -e["length"]))


_MDV2_RESERVED = set("_*[]()~`>#+-=|{}.!")
_MDV2_NAMES = {
    "*": "Bold",
    "_": "Italic",
    "__": "Underline",
    "~": "Strikethrough",
    "||": "Spoiler",
}
_MDV2_TYPES = {"*": "bold", "_": "italic", "__": "underline", "~": "strikethrough", "||": "spoiler"}


def parse_markdown_v2(source: str) -> tuple[str, list[Entity]]:
    plain: list[str] = []
    length = 0
    entities: list[Entity] = []
    open_marks: list[tuple[str, int, int]] = []  # mark, utf16 start, source index
    link_start: list[tuple[int, int]] = []
    i = 0
    at_line_start = True
    quote_start: int | None = None

    def emit(text: str) -> None:
        nonlocal length
        plain.append(text)
        length += utf16_len(text)

    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source) and 0 < ord(source[i + 1]) < 127:
            emit(source[i + 1])
            i += 2
            at_line_start = False
            continue
        if at_line_start and ch == ">":
            if quote_start is None:
                quote_start = length
            i += 1
            at_line_start = False
            continue
        if at_line_start and quote_start is not None:
            entities.append({"type": "blockquote", "offset": quote_start, "length": length - quote_start})
            quote_start = None
        at_line_start = False
        if ch == "`":
            fence = source.startswith("```", i)
            marker = "```" if fence else "`"
            end = _find_code_end(source, i + len(marker), marker)
            if end < 0:
                kind = "Pre" if fence else "Code"
                raise _can_t_parse(
                    f"Can't find end of {kind} entity at byte offset {_byte_offset(source, i)}"
                )
            body = source[i + len(marker) : end]
            entity: Entity = {"type": "pre" if fence else "code"}
            if fence and "\n" in body:
                first, rest = body.split("\n", 1)
                if first and re.fullmatch(r"[\w+#-]+", first):
                    entity["language"] = first
                    body = rest
            text = re.sub(r"\\([\\`])", r"\1", body)
            entity["offset"] = length
            emit(text)
            entity["length"] = utf16_len(text)
            if entity["length"]:
                entities.append(entity)
            i = end + len(marker)
            continue
        if ch == "[" or (ch == "!" and source.startswith("![", i)):
            link_start.append((length, i))
            i += 2 if ch == "!" else 1
            continue
        if ch == "]" and link_start:
            start, src = link_start.pop()
            if not source.startswith("(", i + 1):
                raise _can_t_parse(
                    f"Can't find end of TextUrl entity at byte offset {_byte_offset(source, src)}"
                )
            close = source.find(")", i + 2)
            if close < 0:
                raise _can_t_parse(
                    f"Can't find end of TextUrl entity at byte offset {_byte_offset(source, src)}"
                )
            url = re.sub(r"\\([\\)])", r"\1", source[i + 2 : close])
            if length > start:
                if source[src] == "!":
                    emoji_id = url.partition("id=")[2]
                    entities.append(
                        {
                            "type": "custom_emoji",
                            "offset": start,
                            "length": length - start,
                            "custom_emoji_id": emoji_id,
                        }
                    )
                else:
                    entities.append(
                        {"type": "text_link", "offset": start, "length": length - start, "url": url}
                    )
            i = close + 1
            continue
        mark = "__" if source.startswith("__", i) else "||" if source.startswith("||", i) else ch
        if mark in _MDV2_TYPES:
            if open_marks and open_marks[-1][0] == mark:
                _, start, _ = open_marks.pop()
                if length > start:
                    entities.append({"type": _MDV2_TYPES[mark], "offset": start, "length": length - start})
            elif any(m == mark for m, _, _ in open_marks):
                raise _can_t_parse(
                    f"Can't find end of {_MDV2_NAMES[open_marks[-1][0]]} entity at byte offset {_byte_offset(source, open_marks[-1][2])}"
                )
            else:
                open_marks.append((mark, length, i))
            i += len(mark)
            continue
        if ch in _MDV2_RESERVED:
            raise _can_t_parse(f"Character '{ch}' is reserved and must be escaped with the preceding '\\'")
        emit(ch)
        at_line_start = ch == "\n"
        i += 1
    if open_marks:
        mark, _, src = open_marks[-1]
        raise _can_t_parse(
            f"Can't find end of {_MDV2_NAMES[mark]} entity at byte offset {_byte_offset(source, src)}"
        )
    if link_start:
        raise _can_t_parse(
            f"Can't find end of TextUrl entity at byte offset {_byte_offset(source, link_start[-1][1])}"
        )
    if quote_start is not None:
        entities.append({"type": "blockquote", "offset": quote_start, "length": length - quote_start})
    return "".join(plain), sorted(
        (e for e in entities if e["length"]), key=lambda e: (e["offset"], -e["length"])
    )


def _find_code_end(source: str, start: int, marker: str) -> int:
    i = start
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source.startswith(marker, i):
            return i
        i += 1
    return -1


_MD_TYPES = {"*": "bold", "_": "italic", "`": "code", "```": "pre"}


def parse_markdown(source: str) -> tuple[str, list[Entity]]:
    """Legacy ``Markdown``: only *bold*, _italic_, `code`, ```pre``` and [text](url)."""
    plain: list[str] = []
    length = 0
    entities: list[Entity] = []
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source) and source[i + 1] in "_*`[":
            plain.append(source[i + 1])
            length += 1
            i += 2
            continue
        mark = "```" if source.startswith("```", i) else ch
        if mark in _MD_TYPES:
            end = source.find(mark, i + len(mark))
            if end < 0:
                raise _can_t_parse(
                    f"Can't find end of the entity starting at byte offset {_byte_offset(source, i)}"
                )
            body = source[i + len(mark) : end]
            entity: Entity = {"type": _MD_TYPES[mark], "offset": length}
            if mark == "```" and "\n" in body:
                first, rest = body.split("\n", 1)
                if first and re.fullmatch(r"[\w+#-]+", first):
                    entity["language"], body = first, rest
            plain.append(body)
            entity["length"] = utf16_len(body)
            length += entity["length"]
            if entity["length"]:
                entities.append(entity)
            i = end + len(mark)
            continue
        if ch == "[":
            match = re.compile(r"\[([^\]]*)\]\(([^)]*)\)").match(source, i)
            if match is None:
                raise _can_t_parse(
                    f"Can't find end of the entity starting at byte offset {_byte_offset(source, i)}"
                )
            text = match.group(1)
            if text:
                entities.append(
                    {"type": "text_link", "offset": length, "length": utf16_len(text), "url": match.group(2)}
                )
            plain.append(text)
            length += utf16_len(text)
            i = match.end()
            continue
        plain.append(ch)
        length += utf16_len(ch)
        i += 1
    return "".join(plain), entities


def _strip(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Telegram trims surrounding whitespace and clips entities to what is left."""
    stripped_left = text.lstrip()
    shift = utf16_len(text) - utf16_len(stripped_left)
    result = stripped_left.rstrip()
    total = utf16_len(result)
    kept: list[Entity] = []
    for entity in entities:
        start = max(entity["offset"] - shift, 0)
        end = min(entity["offset"] + entity["length"] - shift, total)
        if end > start:
            kept.append({**entity, "offset": start, "length": end - start})
    return result, kept


def parse_text(text: str, parse_mode: str | None, entities: list[Entity] | None) -> tuple[str, list[Entity]]:
    """The plain text and entities that ``text`` becomes (trimmed, as Telegram keeps it), or the refusal
    Telegram gives for markup it cannot parse."""
    mode = (parse_mode or "").lower()
    if mode == "html":
        plain, found = parse_html(text)
    elif mode == "markdownv2":
        plain, found = parse_markdown_v2(text)
    elif mode == "markdown":
        plain, found = parse_markdown(text)
    elif mode:
        raise bad_request("unsupported parse_mode")
    else:
        plain, found = text, [dict(e) for e in entities or []]
    return _strip(plain, found)


def format_text(text: str, parse_mode: str | None, entities: list[Entity] | None) -> tuple[str, list[Entity]]:
    """The plain text and entities a message ends up with, or the refusal Telegram gives."""
    plain, found = parse_text(text, parse_mode, entities)
    if not plain:
        raise bad_request("message text is empty")
    if len(plain) > MAX_MESSAGE_LENGTH:
        raise bad_request("message is too long")
    return plain, found


def _utf16_offset(text: str, index: int) -> int:
    return utf16_len(text[:index])


def detect_entities(text: str) -> list[Entity]:
    """The entities Telegram adds by itself to what a user types: commands and @mentions."""
    found: list[Entity] = []
    for pattern, kind in ((_COMMAND, "bot_command"), (_MENTION, "mention")):
        for match in pattern.finditer(text):
            found.append(
                {
                    "type": kind,
                    "offset": _utf16_offset(text, match.start()),
                    "length": utf16_len(match.group()),
                }
            )
    return sorted(found, key=lambda e: e["offset"])


def commands_in(text: str, entities: Iterable[Entity]) -> list[str]:
    """Commands of a message, as written (``/join@gouji_bot``)."""
    encoded = text.encode("utf-16-le")
    return [
        encoded[e["offset"] * 2 : (e["offset"] + e["length"]) * 2].decode("utf-16-le")
        for e in entities
        if e["type"] == "bot_command"
    ]
