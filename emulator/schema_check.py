"""Every Bot API call held against the published API (``schema``) before the emulator runs it.

A known method; no parameter the method does not have; the required ones there; every value of a type the
API names, through the JSON-serialized objects and lists PTB sends as form fields (unions such as
``reply_markup``, subtypes such as the BotCommandScope* told apart by their ``type``, objects inside lists
inside objects); no field an object does not have; the lengths and choices the descriptions state ("1-4096
characters after entities parsing" counted on the parsed text, "1-64 bytes", "0-200 characters"); exactly
one kind per inline button; well-formed HTML and MarkdownV2 wherever a parse_mode is set.

A call that fails gets Telegram's 400, worded as Telegram words it where that is known (``BUTTON_DATA_INVALID``,
``message text is empty``, ``can't parse inline keyboard button: Text buttons are unallowed in the inline
keyboard``, ``can't parse entities: ...``). Telegram itself ignores unknown parameters and fields and takes
the first kind of a button with two: the emulator refuses them, since a bot that sends them is mistaken.
"""

from __future__ import annotations

import json
from typing import Any

from .entities import parse_text
from .errors import bad_request, not_found
from .schema import PRIMITIVES, Field, ObjectType, Spec, load

# Where Telegram has its own words for a value out of its limits: (method or type, field) -> (short, long).
LIMIT_WORDING: dict[tuple[str, str], tuple[str, str]] = {
    ("sendMessage", "text"): ("message text is empty", "message is too long"),
    ("editMessageText", "text"): ("message text is empty", "message is too long"),
    ("answerCallbackQuery", "text"): ("MESSAGE_TOO_LONG", "MESSAGE_TOO_LONG"),
    ("InlineKeyboardButton", "callback_data"): ("BUTTON_DATA_INVALID", "BUTTON_DATA_INVALID"),
    ("BotCommand", "command"): ("BOT_COMMAND_INVALID", "BOT_COMMAND_INVALID"),
    ("BotCommand", "description"): ("BOT_COMMAND_DESCRIPTION_INVALID", "BOT_COMMAND_DESCRIPTION_INVALID"),
}
MISSING_WORDING = {
    "chat_id": "chat_id is empty",
    "text": "message text is empty",
    "message_id": "message identifier is not specified",
    "message_ids": "message identifiers are not specified",
    "callback_query_id": "query is too old and response timeout expired or query ID is invalid",
    "user_id": "invalid user_id specified",
}
# How Telegram names an object in "can't parse ...: " (the rest go by their type's name).
LABELS = {
    "InlineKeyboardButton": "inline keyboard button",
    "KeyboardButton": "keyboard button",
    "InlineKeyboardMarkup": "reply keyboard markup",
    "ReplyKeyboardMarkup": "reply keyboard markup",
    "ReplyKeyboardRemove": "reply keyboard markup",
    "ForceReply": "reply keyboard markup",
    "ReplyParameters": "reply parameters",
    "LinkPreviewOptions": "link preview options",
}
JSON_TYPES = {
    "String": "String",
    "Integer": "Number",
    "Float": "Number",
    "Boolean": "Boolean",
    "True": "Boolean",
}
TRUE_WORDS, FALSE_WORDS = frozenset({"true", "1"}), frozenset({"false", "0"})


class Problem(Exception):
    """What is wrong with a value. ``placed`` once it names the object it is in; ``bare`` for Telegram's
    upper-case codes, which it gives without naming the object."""

    def __init__(self, message: str, *, placed: bool = False, bare: bool = False) -> None:
        super().__init__(message)
        self.message, self.placed, self.bare = message, placed, bare


def check_call(method_name: str, params: dict[str, Any], spec: Spec | None = None) -> None:
    """Raise the ApiError Telegram would answer ``method_name`` called with ``params`` with, if any."""
    spec = spec or load()
    method = spec.method(method_name)
    if method is None:
        raise not_found()
    for name in params:
        if name not in method.fields:
            raise bad_request(f'method {method.name} has no parameter "{name}"')
    given = {name: value for name, value in params.items() if value is not None and value != ""}
    for field in method.fields.values():
        if field.required and field.name not in given:
            raise bad_request(MISSING_WORDING.get(field.name, f'parameter "{field.name}" is required'))
    try:
        values = {name: _decoded(spec, method.fields[name], value) for name, value in given.items()}
        _check_fields(spec, method.name, method.fields, values)
    except Problem as problem:
        raise bad_request(_telegram_case(problem.message)) from None


def _telegram_case(message: str) -> str:
    # Telegram lowers the first letter of a description unless it starts a code (MESSAGE_TOO_LONG).
    if len(message) >= 2 and (message[1] == "_" or message[1].isupper()):
        return message
    return message[:1].lower() + message[1:]


def _structured(field: Field) -> bool:
    return any(t.startswith("Array of ") or t not in PRIMITIVES for t in field.types)


def _label(spec: Spec, types: tuple[str, ...], name: str) -> str:
    for type_name in types:
        if type_name in LABELS:
            return LABELS[type_name]
        if type_name in spec.types and not type_name.startswith("Array of "):
            return type_name
    return name


def _decoded(spec: Spec, field: Field, value: Any) -> Any:
    """A top-level parameter as the value it stands for: forms carry numbers, booleans and JSON as text."""
    if not isinstance(value, str) or "String" in field.types:
        if isinstance(value, str) and _structured(field) and value[:1] in "[{":
            return _json(spec, field, value)
        return value
    if _structured(field):
        return _json(spec, field, value)
    text = value.strip()
    if "Integer" in field.types and _is_integer(text):
        return int(text)
    if "Float" in field.types:
        try:
            return float(text)
        except ValueError:
            pass
    if {"Boolean", "True"} & set(field.types) and text.lower() in TRUE_WORDS | FALSE_WORDS:
        return text.lower() in TRUE_WORDS
    if "InputFile" in field.types:
        return value
    raise Problem(f'parameter "{field.name}" must be of type {" or ".join(field.types)}')


def _is_integer(text: str) -> bool:
    return text.removeprefix("-").isdigit()


def _json(spec: Spec, field: Field, value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        label = _label(spec, field.types, field.name)
        raise Problem(f"can't parse {label} JSON object") from None


def _check_fields(spec: Spec, owner: str, fields: dict[str, Field], values: dict[str, Any]) -> None:
    for name, value in values.items():
        field = fields[name]
        _check_value(spec, value, field.types, name)
        if field.choices and value not in field.choices:
            choices = ", ".join(f'"{c}"' for c in field.choices)
            raise Problem(f'Field "{name}" must be one of {choices}')
        if field.limit is not None:
            _check_limit(owner, field, value, values)


def _check_limit(owner: str, field: Field, value: Any, siblings: dict[str, Any]) -> None:
    limit = field.limit
    assert limit is not None
    if limit.unit == "items":
        size = len(value) if isinstance(value, list) else 0
    elif not isinstance(value, str):
        return
    elif limit.after_entities:
        # A quote's markup is quote_parse_mode, a poll option's text_parse_mode, a message's parse_mode.
        mode = siblings.get(f"{field.name}_parse_mode", siblings.get("parse_mode"))
        plain, _ = parse_text(value, mode if isinstance(mode, str) else None, None)
        size = len(plain)
    else:
        size = len(value.encode("utf-8")) if limit.unit == "bytes" else len(value)
    if limit.low <= size <= limit.high:
        return
    short, long = LIMIT_WORDING.get((owner, field.name), ("", ""))
    if field.name == "caption":
        long = long or "message caption is too long"
    worded = short if size < limit.low else long
    if worded:
        raise Problem(worded, bare=worded.isupper() or worded.startswith("message"))
    after = " after entities parsing" if limit.after_entities else ""
    raise Problem(f'Field "{field.name}" must be {limit.low}-{limit.high} {limit.unit}{after}, not {size}')


def _expand(spec: Spec, types: tuple[str, ...]) -> list[str]:
    """The concrete types a list of types allows: an abstract type stands for its subtypes."""
    found: list[str] = []
    for name in types:
        object_type = spec.types.get(name)
        if object_type is not None and object_type.subtypes:
            found.extend(_expand(spec, object_type.subtypes))
        else:
            found.append(name)
    return found


def _fits(object_type: ObjectType, value: dict[str, Any]) -> bool:
    return all(name in value for name, field in object_type.fields.items() if field.required)


def _check_value(spec: Spec, value: Any, types: tuple[str, ...], name: str) -> None:
    concrete = _expand(spec, types)
    if len(concrete) == 1:
        _check_one(spec, value, concrete[0], name)
        return
    objects = [t for t in concrete if t in spec.types and spec.types[t].fields]
    if isinstance(value, dict) and objects:
        # Subtypes say which they are in a field ("type": "chat"); the others by the fields they require.
        tags = {t: tag for t in objects if (tag := spec.types[t].tag) is not None}
        chosen = [t for t, (key, tag) in tags.items() if value.get(key) == tag]
        chosen += [t for t in objects if t not in tags and _fits(spec.types[t], value)]
        if chosen or len(objects) == 1:
            _check_one(spec, value, (chosen or objects)[0], name)
            return
        label = _label(spec, types, name)
        if tags:
            key = next(iter(tags.values()))[0]
            raise Problem(f'can\'t parse {label}: unsupported {key} "{value.get(key)}"', placed=True)
        raise Problem(f"can't parse {label}: it is none of {', '.join(objects)}", placed=True)
    for type_name in concrete:
        try:
            _check_one(spec, value, type_name, name)
            return
        except Problem:
            continue
    raise Problem(f'Field "{name}" must be of type {" or ".join(types)}')


def _check_one(spec: Spec, value: Any, type_name: str, name: str) -> None:
    if type_name.startswith("Array of "):
        if not isinstance(value, list):
            raise Problem(f'Field "{name}" must be of type Array')
        for item in value:
            _check_value(spec, item, (type_name.removeprefix("Array of "),), name)
    elif type_name in PRIMITIVES:
        _check_primitive(value, type_name, name)
    else:
        _check_object(spec, spec.types[type_name], value, name)


def _check_primitive(value: Any, type_name: str, name: str) -> None:
    if type_name == "InputFile":
        return
    if type_name == "String":
        ok = isinstance(value, str)
    elif type_name == "Integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif type_name == "Float":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:  # Boolean, True
        ok = isinstance(value, bool) and (type_name == "Boolean" or value)
    if not ok:
        raise Problem(f'Field "{name}" must be of type {JSON_TYPES[type_name]}')


def _check_object(spec: Spec, object_type: ObjectType, value: Any, name: str) -> None:
    if isinstance(value, str) and object_type.string_allowed:
        return
    label = LABELS.get(object_type.name, object_type.parent or object_type.name)
    if not isinstance(value, dict):
        raise Problem(f"{object_type.name} must be an Object")
    try:
        for key in value:
            if key not in object_type.fields:
                raise Problem(f'Field "{key}" is not a field of {object_type.name}')
        for field in object_type.fields.values():
            if field.required and field.name not in value:
                raise Problem(f'Can\'t find field "{field.name}"')
        _check_fields(spec, object_type.name, object_type.fields, value)
        _check_kind(object_type, value)
    except Problem as problem:
        if problem.placed or problem.bare:
            raise
        raise Problem(f"can't parse {label}: {problem.message}", placed=True) from None


def _check_kind(object_type: ObjectType, value: dict[str, Any]) -> None:
    rule = object_type.one_of
    if rule is None:
        return
    present = rule.present(object_type.fields, value)
    if len(present) == 1 or (not present and not rule.exactly):
        return
    if not present and object_type.name == "InlineKeyboardButton":
        raise Problem("Text buttons are unallowed in the inline keyboard")
    if rule.kinds is not None:
        which = " or ".join(rule.kinds)
    else:
        which = "the fields other than " + ", ".join(rule.excluded)
    found = " and ".join(present) if present else "none"
    raise Problem(f"{'exactly' if rule.exactly else 'at most'} one of {which} must be used, found {found}")


# Fields of a Message and a Chat that Telegram still sends but the published API no longer lists.
UNDOCUMENTED = {
    "message_id": frozenset({"new_chat_member", "new_chat_participant", "left_chat_participant"}),
    "type": frozenset({"all_members_are_administrators"}),
}


def conformance_problem(value: Any, type_name: str, spec: Spec | None = None) -> str | None:
    """What keeps ``value`` (an update, a message the emulator renders) from being a ``type_name`` as the Bot
    API publishes it, or None; the fields Telegram sends undocumented are let through."""
    try:
        _check_value(spec or load(), _documented(value), (type_name,), type_name)
    except Problem as problem:
        return problem.message
    return None


def _documented(value: Any) -> Any:
    if isinstance(value, dict):
        dropped = frozenset().union(*(names for key, names in UNDOCUMENTED.items() if key in value))
        return {k: _documented(v) for k, v in value.items() if k not in dropped}
    if isinstance(value, list):
        return [_documented(v) for v in value]
    return value
