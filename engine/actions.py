"""Actions a seat may take, in the transcript notation: ``play CARDS``, ``burn CARDS``, ``pass``, ``yield``,
and the decisions of a match before the first lead (``return CARDS``, ``revolt`` …, engine/match.py).

An action's kind is one of a closed set of strings (:data:`ActionKind`); the strings are what the logs and the
JSON hold. They stay plain strings, compared as such on every move: a ``Literal`` type costs nothing at run
time, where an enum's comparisons would cost on the hot paths of the search (millions a decision).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from .cards import Counts, format_cards, parse_cards

ActionKind = Literal[
    "play",
    "burn",
    "pass",
    "yield",
    "return",
    "revolt",
    "no_revolt",
    "yaotou",
    "wutou",
    "declare",
    "no_declare",
]

# The moves of the play (R4, R6).
PLAY: Final = "play"
BURN: Final = "burn"
PASS: Final = "pass"
YIELD: Final = "yield"
KINDS = (PLAY, BURN, PASS, YIELD)
# The decisions before the first lead: 还贡 (R10.6), 革命 (R9.1), 要头/无头 (R9.4), 宣点 (R5.6).
RETURN: Final = "return"
REVOLT: Final = "revolt"
NO_REVOLT: Final = "no_revolt"
YAOTOU: Final = "yaotou"
WUTOU: Final = "wutou"
DECLARE: Final = "declare"
NO_DECLARE: Final = "no_declare"
Head = Literal["yaotou", "wutou"]  # the 对头's choice after a revolution (R9.4)

# Words players type for a pass and for 让牌; 过 and 要不起 are what a Qingdao table says. The bot's
# typed plays and the transcripts read the same words.
PASS_WORDS = frozenset({"pass", "过", "p", "过牌", "要不起"})
YIELD_WORDS = frozenset({"yield", "让", "让牌"})
BURN_WORDS = ("burn", "烧")


@dataclass(frozen=True, slots=True)
class Action:
    kind: ActionKind
    cards: Counts | None = None

    @classmethod
    def play(cls, cards: Counts | str) -> Action:
        return cls(PLAY, parse_cards(cards) if isinstance(cards, str) else tuple(cards))

    @classmethod
    def burn(cls, cards: Counts | str) -> Action:
        return cls(BURN, parse_cards(cards) if isinstance(cards, str) else tuple(cards))

    @classmethod
    def parse(cls, text: str) -> Action:
        """``play TTTT2``, ``burn KKK``, ``pass`` (or 过), ``yield`` (or 让); raises ValueError."""
        words = text.strip().split(None, 1)
        if not words:
            raise ValueError("empty action")
        verb = words[0].lower()
        rest = words[1] if len(words) > 1 else ""
        if verb in PASS_WORDS and not rest:
            return cls(PASS)
        if verb in YIELD_WORDS and not rest:
            return cls(YIELD)
        if (verb == PLAY or verb in BURN_WORDS) and rest:
            return cls(BURN if verb != PLAY else PLAY, parse_cards(rest))
        raise ValueError(f"not an action: {text.strip()!r}")

    def __str__(self) -> str:
        if self.cards is None:
            return self.kind
        return f"{self.kind} {format_cards(self.cards)}"


PASS_ACTION = Action(PASS)
YIELD_ACTION = Action(YIELD)
