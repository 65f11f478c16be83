"""What an action caused, for the table to show: one small record per thing a player would notice."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .cards import Counts, format_cards


@dataclass(frozen=True, slots=True)
class Event:
    """kind is one of: played, burned, passed, yielded, trick_won, opened, out, men, burn_failed, burn_won,
    burn_broken, free_for_all, discarded_fours, round_over."""

    kind: str
    seat: int | None = None
    cards: Counts | None = None
    other: int | None = None  # the other seat involved (victim of a burn, the player who beat a 闷 play…)
    n: int | None = None  # a place (0 = 头科), a stake, a count

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if v is not None}
        if self.cards is not None:
            d["cards"] = format_cards(self.cards)
        return d
