"""Why an action is illegal, as text and as facts: a ``Refusal`` is the English reason (what transcripts and
logs print) that also carries a ``code`` and its ``facts``, so that a table can word it in the player's
language and say what would be allowed (the play must have 3 cards; you hold no 2). ``IllegalAction`` is
what applying an illegal action raises, the refusal its ``reason``."""

from __future__ import annotations

from typing import Any

from .cards import Counts, format_cards


class Refusal(str):
    code: str
    facts: dict[str, Any]

    def __new__(cls, code: str, text: str, **facts: Any) -> Refusal:
        self = super().__new__(cls, text)
        self.code, self.facts = code, facts
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.code, str(self), self.facts))


def _rebuild(code: str, text: str, facts: dict[str, Any]) -> Refusal:
    return Refusal(code, text, **facts)


class IllegalAction(ValueError):
    """An action that is not legal now; nothing was changed. ``reason`` says why (a Refusal, or plain text)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def missing(hand: tuple[int, ...] | list[int], cards: tuple[int, ...]) -> tuple[int, ...]:
    """The cards of ``cards`` the hand does not hold."""
    return tuple(max(0, c - h) for h, c in zip(hand, cards, strict=True))


def does_not_beat(cards: Counts, top: Counts) -> Refusal:
    """R2.4: a play beats only one of as many cards (R2.5's 二杀一 aside)."""
    return Refusal(
        "does_not_beat",
        f"{format_cards(cards)} does not beat {format_cards(top)}",
        cards=cards,
        top=top,
        size=sum(top),
    )


__all__ = ["IllegalAction", "Refusal", "does_not_beat", "missing"]
