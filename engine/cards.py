"""Cards and the notation of R1.2/R2.2.

Suits never matter (R1.2), so a hand or a play is a vector of 15 counts, one per rank, low to high:
``3 4 5 6 7 8 9 T J Q K A 2 B R`` (B = small joker 小王, R = big joker 大王).
"""

from __future__ import annotations

RANKS = "3456789TJQKA2BR"
NRANKS = 15
THREE, FOUR, TEN, JACK, QUEEN, KING, ACE, TWO, SMALL, BIG = 0, 1, 7, 8, 9, 10, 11, 12, 13, 14
BASE_RANKS = range(0, 12)  # 3..A: the ranks a base play is built on (R2.1)

Counts = tuple[int, ...]
EMPTY: Counts = (0,) * NRANKS

# Four full decks with jokers (R1.2): four of each suit rank per deck, two jokers per deck.
FULL_DECK: Counts = (16,) * 13 + (4, 4)

_ALIASES = {"小王": SMALL, "小花": SMALL, "小鬼": SMALL, "大王": BIG, "大花": BIG, "大鬼": BIG}


_CANONICAL = frozenset(RANKS)


class CardError(ValueError):
    """Text that is not in the card notation; the message names the bad token."""


def parse_cards(text: str) -> Counts:
    """Parse R2.2 notation: rank letters in any order, ``10`` for ``T``, any case, spaces, 小王/大王."""
    if _CANONICAL.issuperset(text):
        # Stored hands and plays are canonical: counting each rank in C is ten times faster than the scan.
        return tuple(map(text.count, RANKS))
    counts = [0] * NRANKS
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace() or ch in ",":
            i += 1
            continue
        alias = text[i : i + 2]
        if alias in _ALIASES:
            counts[_ALIASES[alias]] += 1
            i += 2
            continue
        if text.startswith("10", i):
            counts[TEN] += 1
            i += 2
            continue
        idx = RANKS.find(ch.upper())
        if idx < 0 or ch == "":
            token = text[i:].split()[0] if text[i:].split() else ch
            raise CardError(f"not a card: {token!r}")
        counts[idx] += 1
        i += 1
    return tuple(counts)


def format_cards(counts: Counts | list[int]) -> str:
    """Canonical notation: sorted low to high; ``-`` for no cards."""
    text = "".join(RANKS[r] * c for r, c in enumerate(counts) if c)
    return text or "-"


def card_count(counts: Counts | list[int]) -> int:
    return sum(counts)


def contains(hand: Counts | list[int], cards: Counts) -> bool:
    return all(h >= c for h, c in zip(hand, cards, strict=True))
