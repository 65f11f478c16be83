"""The six seats (R1.1): play goes 0 → 5 and round again; seats 0, 2, 4 are one team and 1, 3, 5 the other, so
a seat's 对头 sits opposite it, three seats on."""

from __future__ import annotations

SEATS = range(6)


def opposite(seat: int) -> int:
    """对头 (R1.1)."""
    return (seat + 3) % 6
