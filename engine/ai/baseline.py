"""The 'baseline' computer player: always the smallest legal play, a pass when it cannot beat.

It never burns, yields, revolts or declares; 要头 when asked (the first choice offered); gives back the
smallest cards as 还贡."""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..actions import PASS, PLAY, RETURN, Action
from ..cards import NRANKS, Counts
from ..views import SeatView


def size_key(cards: Counts) -> tuple[int, int]:
    """Smaller = the highest card is lower, then fewer cards."""
    top = max(r for r in range(NRANKS) if cards[r])
    return (top, sum(cards))


class BaselinePlayer:
    level = "baseline"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        plays = [(a, a.cards) for a in legal if a.kind in (PLAY, RETURN) and a.cards is not None]
        if plays:
            return min(plays, key=lambda ac: size_key(ac[1]))[0]
        for a in legal:
            if a.kind == PASS:
                return a
        return legal[0]
