"""Inline button data: within Telegram's 64 bytes, each button names its table and the version it was drawn
for, so a stale or replayed button is refused instead of acting twice (DESIGN.md).

Format: ``KIND:TABLE:VERSION[:ARG]`` in ASCII. Cards are written compactly: each rank present as its letter and
its count in base 36 (``T4`` = four tens), so a whole composed play stays short.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import NRANKS, RANKS, Counts

MAX_BYTES = 64
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"

# Kinds of buttons.
ACT = "a"  # a game action: ARG is the action in compact form (p/b + cards, x = pass, y = yield, or a phase word)
COMPOSE = "k"  # the composer: ARG is the new selection
LOBBY = "l"  # lobby and table buttons: ARG is join, seat<N>, bots, begin, leave, next, stop
SETTINGS = "s"  # group settings: ARG is p:<preset>, k:<key>, t:<seconds>, l:<language>


class BadCallback(ValueError):
    pass


@dataclass(frozen=True)
class Callback:
    kind: str
    table_id: int
    version: int
    arg: str = ""

    def encode(self) -> str:
        data = f"{self.kind}:{self.table_id}:{self.version}:{self.arg}"
        if len(data.encode()) > MAX_BYTES:
            raise BadCallback("callback data over 64 bytes")
        return data

    @classmethod
    def decode(cls, data: str | None) -> Callback:
        if not data or len(data.encode()) > MAX_BYTES:
            raise BadCallback("empty or too long")
        parts = data.split(":", 3)
        if len(parts) != 4 or parts[0] not in (ACT, COMPOSE, LOBBY, SETTINGS):
            raise BadCallback("unknown button")
        try:
            table_id, version = int(parts[1]), int(parts[2])
        except ValueError:
            raise BadCallback("bad numbers") from None
        if not (0 <= table_id < 2**63 and 0 <= version < 2**63):  # the database's BIGINT
            raise BadCallback("bad numbers")
        return cls(parts[0], table_id, version, parts[3])


def pack_cards(cards: Counts) -> str:
    return "".join(RANKS[r] + _DIGITS[c] for r, c in enumerate(cards) if c)


def unpack_cards(text: str) -> Counts:
    if len(text) % 2:
        raise BadCallback("bad cards")
    counts = [0] * NRANKS
    for i in range(0, len(text), 2):
        r, c = RANKS.find(text[i]), _DIGITS.find(text[i + 1])
        if r < 0 or c <= 0 or counts[r]:
            raise BadCallback("bad cards")
        counts[r] = c
    return tuple(counts)
