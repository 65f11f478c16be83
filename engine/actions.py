"""Actions a seat may take, in the transcript notation: ``play CARDS``, ``burn CARDS``, ``pass``, ``yield``."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Counts, format_cards, parse_cards

PLAY, BURN, PASS, YIELD = "play", "burn", "pass", "yield"
KINDS = (PLAY, BURN, PASS, YIELD)
# Words players type for a pass; 过 is what a Qingdao table says.
_PASS_WORDS = {"pass", "过", "p", "过牌"}


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
        if verb in _PASS_WORDS and not rest:
            return cls(PASS)
        if verb in ("yield", "让", "让牌") and not rest:
            return cls(YIELD)
        if verb in (PLAY, BURN, "烧") and rest:
            return cls(BURN if verb != PLAY else PLAY, parse_cards(rest))
        raise ValueError(f"not an action: {text.strip()!r}")

    def __str__(self) -> str:
        if self.cards is None:
            return self.kind
        return f"{self.kind} {format_cards(self.cards)}"


PASS_ACTION = Action(PASS)
YIELD_ACTION = Action(YIELD)
