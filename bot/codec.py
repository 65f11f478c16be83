"""Button data: the one place that writes and reads it. Within Telegram's 64 bytes, each button names its table
and the version it was drawn for, so a stale or replayed button is refused instead of acting twice
(DESIGN.md); a game button carries its :class:`~engine.Action` whole.

Format: ``KIND:TABLE:VERSION:ARG`` in ASCII. Cards are written compactly: each rank present as its letter and
its count in base 36 (``T4`` = four tens), so a whole composed play stays short.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import Action
from engine.actions import BURN, PASS, PLAY, YIELD, ActionKind
from engine.cards import NRANKS, RANKS, Counts
from engine.match import DECLARE, NO_DECLARE, NO_REVOLT, RETURN, REVOLT, WUTOU, YAOTOU
from table import TIME_ZONES, SettingChange, SettingKind

MAX_BYTES = 64
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"

# Kinds of buttons.
ACT = "a"  # a game action, or the hint: ARG is the action in compact form (see _WORDS, p/b/r + cards), h
COMPOSE = "k"  # the composer: ARG is the new selection
LOBBY = "l"  # lobby and table buttons: ARG is one of LOBBY_ARGS or seat<N>
SETTINGS = "s"  # group settings: ARG is p:<preset>, k:<key>, t:<seconds>, l:<language>, z:<zone>, m:on|off, v:<level>
HINT = "h"
CARDS = "c"  # his cards when he asks: any version shows the hand as it is now, so VERSION is 0 and ARG empty
ZONE = "z"  # a player's own time zone (/zone): ARG is its index in TIME_ZONES, or "g" for the group's

# stop asks first; stopok is its confirmation, keep takes it back; table posts the table again at the bottom.
LOBBY_ARGS = ("join", "leave", "bots", "begin", "next", "stop", "stopok", "keep", "table")

# Actions without cards, by their one-word button argument.
_WORDS: dict[str, ActionKind] = {
    "x": PASS,
    "y": YIELD,
    "revolt": REVOLT,
    "no_revolt": NO_REVOLT,
    "yaotou": YAOTOU,
    "wutou": WUTOU,
    "declare": DECLARE,
    "no_declare": NO_DECLARE,
}
_WORD_OF = {kind: word for word, kind in _WORDS.items()}
_CARD_KINDS: dict[str, ActionKind] = {"p": PLAY, "b": BURN, "r": RETURN}
_CARD_PREFIX = {kind: prefix for prefix, kind in _CARD_KINDS.items()}
_SETTING_KINDS: dict[str, SettingKind] = {
    "p": "preset",
    "k": "rule",
    "t": "turn_seconds",
    "l": "language",
    "z": "time_zone",
    "m": "card_memory",
    "v": "level",
}
_SETTING_PREFIX = {what: prefix for prefix, what in _SETTING_KINDS.items()}


class BadButton(ValueError):
    """Button data this bot never wrote (forged, or from an older bot): refused as out of date."""


@dataclass(frozen=True, slots=True)
class Act:
    table_id: int
    version: int
    action: Action


@dataclass(frozen=True, slots=True)
class Hint:
    table_id: int
    version: int


@dataclass(frozen=True, slots=True)
class ShowHand:
    table_id: int


@dataclass(frozen=True, slots=True)
class Compose:
    table_id: int
    version: int
    selection: Counts


@dataclass(frozen=True, slots=True)
class Lobby:
    table_id: int
    version: int
    what: str  # one of LOBBY_ARGS
    seat: int | None = None  # for "join": the seat picked


@dataclass(frozen=True, slots=True)
class Setting:
    change: SettingChange


@dataclass(frozen=True, slots=True)
class Zone:
    zone: str | None  # None: the group's time zone


Button = Act | Hint | ShowHand | Compose | Lobby | Setting | Zone


# ----------------------------------------------------------------------------- writing


def moves(data: str) -> bool:
    """Whether this button's data is a turn's (a move, the hint, the composer): what stays behind on a message
    whose turn is over must not be one."""
    return data[:2] in (ACT + ":", COMPOSE + ":")


def _data(kind: str, table_id: int, version: int, arg: str) -> str:
    data = f"{kind}:{table_id}:{version}:{arg}"
    if len(data.encode()) > MAX_BYTES:
        raise BadButton("button data over 64 bytes")
    return data


def act_data(table_id: int, version: int, action: Action) -> str:
    if action.cards is not None:
        return _data(ACT, table_id, version, _CARD_PREFIX[action.kind] + pack_cards(action.cards))
    return _data(ACT, table_id, version, _WORD_OF[action.kind])


def hint_data(table_id: int, version: int) -> str:
    return _data(ACT, table_id, version, HINT)


def cards_data(table_id: int) -> str:
    return _data(CARDS, table_id, 0, "")


def compose_data(table_id: int, version: int, selection: Counts) -> str:
    return _data(COMPOSE, table_id, version, pack_cards(selection))


def lobby_data(table_id: int, version: int, what: str, seat: int | None = None) -> str:
    return _data(LOBBY, table_id, version, f"seat{seat}" if seat is not None else what)


def setting_data(change: SettingChange) -> str:
    return _data(SETTINGS, 0, 0, f"{_SETTING_PREFIX[change.what]}:{change.value}")


def zone_data(zone: str | None) -> str:
    return _data(ZONE, 0, 0, "g" if zone is None else str(TIME_ZONES.index(zone)))


# ----------------------------------------------------------------------------- reading


def decode(data: str | None) -> Button:
    if not data or len(data.encode()) > MAX_BYTES:
        raise BadButton("empty or too long")
    parts = data.split(":", 3)
    if len(parts) != 4:
        raise BadButton("unknown button")
    kind, arg = parts[0], parts[3]
    try:
        table_id, version = int(parts[1]), int(parts[2])
    except ValueError:
        raise BadButton("bad numbers") from None
    if not (0 <= table_id < 2**63 and 0 <= version < 2**63):  # the database's BIGINT
        raise BadButton("bad numbers")
    if kind == ACT:
        if arg == HINT:
            return Hint(table_id, version)
        return Act(table_id, version, _action(arg))
    if kind == CARDS:
        if arg or version:
            raise BadButton("unknown cards button")
        return ShowHand(table_id)
    if kind == COMPOSE:
        return Compose(table_id, version, unpack_cards(arg) if arg else (0,) * NRANKS)
    if kind == LOBBY:
        if arg.startswith("seat") and arg[4:].isdigit() and int(arg[4:]) < 6:
            return Lobby(table_id, version, "join", int(arg[4:]))
        if arg in LOBBY_ARGS:
            return Lobby(table_id, version, arg)
        raise BadButton("unknown lobby button")
    if kind == SETTINGS:
        prefix, _, value = arg.partition(":")
        what = _SETTING_KINDS.get(prefix)
        if what is None or not value:
            raise BadButton("unknown setting")
        return Setting(
            SettingChange(
                what, int(value) if what in ("turn_seconds", "level") and value.isdigit() else value
            )
        )
    if kind == ZONE:
        if arg == "g":
            return Zone(None)
        if arg.isdigit() and int(arg) < len(TIME_ZONES):
            return Zone(TIME_ZONES[int(arg)])
        raise BadButton("unknown zone")
    raise BadButton("unknown button")


def _action(arg: str) -> Action:
    if arg in _WORDS:
        return Action(_WORDS[arg])
    kind = _CARD_KINDS.get(arg[:1])
    if kind is None or len(arg) < 3:
        raise BadButton("unknown action")
    return Action(kind, unpack_cards(arg[1:]))


def pack_cards(cards: Counts) -> str:
    return "".join(RANKS[r] + _DIGITS[c] for r, c in enumerate(cards) if c)


def unpack_cards(text: str) -> Counts:
    if len(text) % 2:
        raise BadButton("bad cards")
    counts = [0] * NRANKS
    for i in range(0, len(text), 2):
        r, c = RANKS.find(text[i]), _DIGITS.find(text[i + 1])
        if r < 0 or c <= 0 or counts[r]:
            raise BadButton("bad cards")
        counts[r] = c
    return tuple(counts)
