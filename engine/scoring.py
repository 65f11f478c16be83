"""Places and scores: where each seat finishes (R7.1, R7.3; 闷 and 烧糊 from the bottom, R8.3, R6.7; the
revolutionary's 四科 or 三科, R9.3), and a finished round's score per seat from its places (R11.1), doubled when
one team took 头科, 二科 and 三科 (串三户, R7.4). Round.places and Round.scores are these functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .seats import SEATS

if TYPE_CHECKING:
    from .round import Round

PLACE_POINTS = (4, 2, 0, 0, -2, -4)  # R11.1: 头科, 二科, 三科, 四科, 二落, 大落
PLACE_NAMES = ("头科", "二科", "三科", "四科", "二落", "大落")


def places(rnd: Round) -> list[int | None]:
    """Seats in places 1–6 (头科 … 大落) as far as decided; None while undecided. Once the round is over every
    place is decided (:func:`final_places`)."""
    places: list[int | None] = [None] * 6
    slots = list(range(6))
    r = rnd.revolted
    if r is not None:
        # R9.3: 四科, or 三科 when his teammates took 头科 and 二科; until that is known, keep 四科 free.
        teammates_first = len(rnd.out) >= 2 and rnd.out[0] % 2 == rnd.out[1] % 2 == r % 2
        rpos = 2 if teammates_first else 3
        if len(rnd.out) >= 2 or rnd.over:
            places[rpos] = r
        slots.remove(rpos)
    for i, s in enumerate(rnd.out):
        places[slots[i]] = s
    for i, (s, _) in enumerate(rnd.dead):
        places[slots[-1 - i]] = s
    if rnd.over:
        last = rnd.out[-1] if rnd.out else 0
        rest = [s for s in SEATS if rnd.active(s)]
        rest.sort(key=lambda s: (sum(rnd.hands[s]), (s - last - 1) % 6))  # R7.3
        empty = [i for i in slots if places[i] is None]
        for i, s in zip(empty, rest, strict=False):
            places[i] = s
    return places


def final_places(rnd: Round) -> list[int]:
    """The seats by place of a round that is over, 头科 first; ValueError before."""
    if not rnd.over:
        raise ValueError("the round is not over: its places are not all decided")
    decided = [s for s in places(rnd) if s is not None]
    assert len(decided) == 6  # the places of a round over are a permutation of the seats
    return decided


def circled(places: Sequence[int]) -> bool:
    """R7.4 串三户: one team took 头科, 二科 and 三科 (a revolutionary counts as 三科, R9.3); ``places`` are
    the seats by place, 头科 first."""
    return places[0] % 2 == places[1] % 2 == places[2] % 2


def place_scores(places: Sequence[int]) -> list[int]:
    """R11.1 per seat for a finished round's places (seats by place, 头科 first); 串三户 doubles every score."""
    factor = 2 if circled(places) else 1
    scores = [0] * 6
    for place, seat in enumerate(places):
        scores[seat] = PLACE_POINTS[place] * factor
    return scores
