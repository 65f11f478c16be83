"""Reading Bot API parameters that may arrive as JSON values or as form strings.

PTB posts url-encoded forms whose non-string values are JSON-encoded; other clients post JSON
bodies. Each accessor accepts both spellings so the methods never care which one came.
"""

from __future__ import annotations

import builtins
import json
from typing import Any

from .errors import bad_request


class Params:
    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw

    def __contains__(self, name: str) -> bool:
        return self.raw.get(name) is not None

    def str(self, name: str, default: builtins.str | None = None) -> builtins.str | None:
        value = self.raw.get(name)
        if value is None:
            return default
        return value if isinstance(value, str) else json.dumps(value)

    def required_str(self, name: builtins.str) -> builtins.str:
        value = self.str(name)
        if value is None:
            raise bad_request(f'parameter "{name}" is required')
        return value

    def int(self, name: builtins.str, default: builtins.int | None = None) -> builtins.int | None:
        value = self.raw.get(name)
        if value is None or value == "":
            return default
        if isinstance(value, bool):
            return int(value)
        try:
            return int(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def float(self, name: builtins.str, default: builtins.float | None = None) -> builtins.float | None:
        value = self.raw.get(name)
        if value is None or value == "":
            return default
        try:
            return float(value)
        except (TypeError, ValueError):
            raise bad_request(f"invalid {name} specified") from None

    def bool(self, name: builtins.str, default: builtins.bool = False) -> builtins.bool:
        value = self.raw.get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, int | float):
            return bool(value)
        return str(value).strip().lower() in ("true", "1", "yes")

    def obj(self, name: builtins.str) -> Any:
        """A structured parameter (reply_markup, entities, ...); forms carry it JSON-encoded."""
        value = self.raw.get(name)
        if isinstance(value, str):
            if value == "":
                return None
            try:
                return json.loads(value)
            except ValueError:
                raise bad_request(f"can't parse {name} JSON object") from None
        return value

    def chat_id(self, name: builtins.str = "chat_id") -> builtins.int | builtins.str:
        """Integer ids stay integers; ``@username`` stays a string."""
        value = self.raw.get(name)
        if value is None or value == "":
            raise bad_request("chat_id is empty" if name == "chat_id" else f"{name} is empty")
        if isinstance(value, bool):
            raise bad_request("chat not found")
        if isinstance(value, int):
            return value
        text = str(value).strip()
        if text.startswith("@"):
            return text
        try:
            return int(text)
        except ValueError:
            raise bad_request("chat not found") from None
