"""Actions a seat may take, in the transcript notation: ``play CARDS``, ``burn CARDS``, ``pass``, ``yield``."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Counts, format_cards, parse_cards

PLAY, BURN, PASS, YIELD = "play", "burn", "pass", "yield"
KINDS = (PLAY, BURN, PASS, YIELD)
# Words players type for a pass and for 让牌; 过 and 要不起 are what a Qingdao table says. The bot's
# typed plays and the transcripts read the same words.
PASS_WORDS = frozenset({"pass", "过", "p", "过牌", "要不起"})
YIELD_WORDS = frozenset({"yield", "让", "让牌"})
BURN_WORDS = ("burn", "烧")


@dataclass(frozen=True, slots=True)
class Action:
    kind: str
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
