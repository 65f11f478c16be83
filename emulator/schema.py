"""The published Bot API as data: its methods, their parameters, the types they take, and the limits and
choices the descriptions state in words ("1-4096 characters after entities parsing", "1-64 bytes",
"Exactly one of the fields other than text, ... must be used", "must be one of ...").

The data is ``botapi/api.min.json`` (Bot API 10.1, scraped from the official page by the public project
PaulSonOfLars/telegram-bot-api-spec, MIT: ``botapi/LICENSE``). ``schema_check`` holds a call against it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "botapi" / "api.min.json"
PRIMITIVES = frozenset({"Integer", "String", "Boolean", "Float", "True", "InputFile"})

_LENGTH = re.compile(r"(\d+)-(\d+) (characters|bytes)\b([^.;]*?after entit(?:y|ies) parsing)?")
_ITEMS = re.compile(r"(?:list of|include|array of) (\d+)-(\d+)\b|At most (\d+) \w+ can be specified")
_CHOICES = re.compile(r"[Mm]ust be one of (.*?)(?:\.\s+[A-Z]|\.?$)")
_QUOTED = re.compile(r'"([^"]+)"')
_ALWAYS = re.compile(r'(?:must be|always) \*?"?([a-z_]+)"?\*?$')
_ONE_OF_OTHER = re.compile(r"(Exactly|At most) one of the fields other than ([\w, ]+?) must be used")
_ONE_OF_NAMED = re.compile(r"Exactly one of the fields (\w+) or (\w+) must be used")
_ONE_OF_OPTIONAL = re.compile(r"must use exactly one of the optional fields")
_STRING_INSTEAD = "String can be used instead of this object"


@dataclass(frozen=True)
class Limit:
    """A length stated in a description: characters (code points), bytes (UTF-8) or the items of a list."""

    low: int
    high: int
    unit: str
    after_entities: bool = False


@dataclass(frozen=True)
class Field:
    name: str
    types: tuple[str, ...]
    required: bool
    description: str
    limit: Limit | None = None
    choices: tuple[str, ...] = ()  # the values it may take, where the description names them


@dataclass(frozen=True)
class OneOf:
    """Which fields say what kind of object it is, and whether one of them must be there or at most one."""

    exactly: bool
    kinds: tuple[str, ...] | None  # these fields; None: every field but ``excluded``
    excluded: tuple[str, ...] = ()

    def present(self, fields: dict[str, Field], value: dict[str, Any]) -> list[str]:
        names = self.kinds if self.kinds is not None else [f for f in fields if f not in self.excluded]
        return [name for name in names if name in value]


@dataclass(frozen=True)
class ObjectType:
    name: str
    fields: dict[str, Field]
    subtypes: tuple[str, ...] = ()
    one_of: OneOf | None = None
    string_allowed: bool = False  # a bare String may stand for the object (a KeyboardButton's text)
    tag: tuple[str, str] | None = None  # (field, value) that names this subtype: ("type", "chat")
    parent: str | None = None  # the abstract type it is one kind of: BotCommandScopeChat's BotCommandScope


@dataclass(frozen=True)
class Method:
    name: str
    fields: dict[str, Field]
    returns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Spec:
    version: str
    methods: dict[str, Method]  # by lower-case name: Telegram matches method names without regard to case
    types: dict[str, ObjectType]

    def method(self, name: str) -> Method | None:
        return self.methods.get(name.lower())


def _limit(field: dict[str, Any]) -> Limit | None:
    description = field["description"]
    if any(t.startswith("Array of") for t in field["types"]):
        items = _ITEMS.search(description)
        if items is None:
            return None
        if items.group(3):
            return Limit(0, int(items.group(3)), "items")
        return Limit(int(items.group(1)), int(items.group(2)), "items")
    if "String" not in field["types"]:
        return None
    found = _LENGTH.search(description)
    if found is None:
        return None
    return Limit(int(found.group(1)), int(found.group(2)), found.group(3), bool(found.group(4)))


def _choices(description: str) -> tuple[str, ...]:
    found = _CHOICES.search(description)
    return tuple(_QUOTED.findall(found.group(1))) if found else ()


def _field(raw: dict[str, Any]) -> Field:
    return Field(
        name=raw["name"],
        types=tuple(raw["types"]),
        required=bool(raw["required"]),
        description=raw["description"],
        limit=_limit(raw),
        choices=_choices(raw["description"]),
    )


def _one_of(description: str) -> OneOf | None:
    if found := _ONE_OF_OTHER.search(description):
        excluded = tuple(n for n in re.split(r",\s*|\s+and\s+|\s+", found.group(2)) if n and n != "and")
        return OneOf(exactly=found.group(1) == "Exactly", kinds=None, excluded=excluded)
    if found := _ONE_OF_NAMED.search(description):
        return OneOf(exactly=True, kinds=(found.group(1), found.group(2)))
    return None


def _object_type(name: str, raw: dict[str, Any], parent: str | None) -> ObjectType:
    fields = {f["name"]: _field(f) for f in raw.get("fields", [])}
    description = " ".join(raw.get("description", []))
    one_of = _one_of(description)
    if one_of is None and _ONE_OF_OPTIONAL.search(description):
        one_of = OneOf(exactly=True, kinds=tuple(n for n, f in fields.items() if not f.required))
    tag = None
    for key in ("type", "status", "source"):
        field = fields.get(key)
        if field is not None and field.required and (found := _ALWAYS.search(field.description)):
            tag = (key, found.group(1))
            break
    return ObjectType(
        name=name,
        fields=fields,
        subtypes=tuple(raw.get("subtypes", [])),
        one_of=one_of,
        string_allowed=_STRING_INSTEAD in description,
        tag=tag,
        parent=parent,
    )


@cache
def load(path: Path = DATA) -> Spec:
    data = json.loads(path.read_text(encoding="utf-8"))
    methods = {
        name.lower(): Method(
            name, {f["name"]: _field(f) for f in raw.get("fields", [])}, tuple(raw.get("returns", []))
        )
        for name, raw in data["methods"].items()
    }
    parents = {sub: name for name, raw in data["types"].items() for sub in raw.get("subtypes", [])}
    types = {name: _object_type(name, raw, parents.get(name)) for name, raw in data["types"].items()}
    return Spec(version=data["version"], methods=methods, types=types)
