"""The rules of 够级 (../shared/RULES.md) as a pure library: no I/O, no asyncio, no Telegram, no SQL."""

from .actions import Action
from .cards import RANKS, CardError, format_cards, parse_cards
from .events import Event
from .match import Match
from .plays import beats_shape, is_gouji, is_pure_gouji, shape_of
from .round import Debt, IllegalAction, Round, opposite
from .rules import Rules

__all__ = [
    "Action",
    "CardError",
    "Debt",
    "Event",
    "IllegalAction",
    "Match",
    "RANKS",
    "Round",
    "Rules",
    "beats_shape",
    "format_cards",
    "is_gouji",
    "is_pure_gouji",
    "opposite",
    "parse_cards",
    "shape_of",
]
