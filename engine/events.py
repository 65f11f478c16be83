"""What an action caused, for the table to show: one small record per thing a player would notice.

An event's kind is one of a closed set of strings (:data:`EventKind`), the strings the logs and the JSON hold.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from .cards import Counts, format_cards

EventKind = Literal[
    # The play of a round (engine/round.py).
    "played",
    "burned",
    "passed",
    "yielded",
    "trick_won",
    "opened",
    "out",
    "men",
    "burn_failed",
    "burn_won",
    "burn_broken",
    "free_for_all",
    "discarded_fours",
    "round_over",
    # The match around it (engine/match.py, engine/deal.py, engine/tribute.py).
    "dealt",
    "redeal",
    "natural",
    "bought_three",
    "bought_four",
    "kang_gong",
    "tribute_quan",
    "tribute_dian",
    "tribute_shao",
    "tribute_men",
    "tribute_luo",
    "tribute_short",  # R10.3: the payer had too few naturally dealt R, B or 2: n cards owed are waived
    "tribute_exempt",  # R10.5 抗贡: the payer is exempt: n cards owed are waived
    "returned",
    "answered",
    "revolt",
    "no_revolt",
    "laid_down",
    "yaotou",
    "wutou",
    "declared",
    "no_declare",
    "scored",
]


@dataclass(frozen=True, slots=True)
class Event:
    """What ``seat`` did or met; ``cards``, ``other`` and ``n`` as the kind needs them (engine/match.py lists the
    match's kinds)."""

    kind: EventKind
    seat: int | None = None
    cards: Counts | None = None
    other: int | None = None  # the other seat involved (victim of a burn, the player who beat a 闷 play…)
    n: int | None = None  # a place (0 = 头科), a stake, a count

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if v is not None}
        if self.cards is not None:
            d["cards"] = format_cards(self.cards)
        return d
