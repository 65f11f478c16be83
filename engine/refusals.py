"""Why an action is illegal, as text and as facts: a ``Refusal`` is the English reason (what transcripts and
logs print) that also carries a ``code`` and its ``facts``, so that a table can word it in the player's
language and say what would be allowed (the play must have 3 cards; you hold no 2)."""

from __future__ import annotations

from typing import Any


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


def missing(hand: tuple[int, ...] | list[int], cards: tuple[int, ...]) -> tuple[int, ...]:
    """The cards of ``cards`` the hand does not hold."""
    return tuple(max(0, c - h) for h, c in zip(hand, cards, strict=True))


__all__ = ["Refusal", "missing"]
