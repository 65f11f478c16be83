"""The rules of 够级 (../shared/RULES.md) as a pure library: no I/O, no asyncio, no Telegram, no SQL."""

from .actions import Action, ActionKind
from .cards import RANKS, CardError, format_cards, parse_cards
from .events import Event, EventKind
from .match import Match
from .plays import beats_shape, is_gouji, is_pure_gouji, shape_of
from .refusals import IllegalAction
from .round import Round
from .rules import Rules
from .seats import opposite
from .stage import Question
from .tribute import Debt

__all__ = [
    "Action",
    "ActionKind",
    "CardError",
    "Debt",
    "Event",
    "EventKind",
    "IllegalAction",
    "Match",
    "Question",
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
