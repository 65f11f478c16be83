"""Plays: shape (R2.1), values (R2.3), beating (R2.4, R2.5), 够级牌 (R3.1, R3.2), and the play on the table
(:class:`Top`: a plain play, a gouji or a 够死级, R3, R4.6)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal, NamedTuple

from .cards import ACE, BIG, KING, NRANKS, QUEEN, SMALL, TEN, TWO, Counts
from .rules import Rules

# Kinds of a play on the table; GOUSI = 够死级 (R4.6, R9.4). One letter each: the round's JSON holds them.
TopKind = Literal["n", "g", "d"]
NORMAL: Final = "n"
GOUJI: Final = "g"
GOUSI: Final = "d"

# R3.1: the least count (2s included) of a base rank that makes a gouji play.
GOUJI_THRESHOLD = {TEN: 5, TEN + 1: 4, QUEEN: 3, KING: 2, ACE: 2}


class Shape(NamedTuple):
    """A play seen as R2.4 compares it: ``nr`` big jokers, ``nb`` small jokers, then ``n`` cards of value ``v``."""

    size: int
    nr: int
    nb: int
    n: int  # normal cards: base cards plus attached 2s, or the 2s of a 2-play
    v: int  # value of the normal cards (R2.3): 3..A = 1..12, a 2-play 13; 0 when n == 0
    base: int  # base rank index 0..11; -1 for a 2-play or a joker play
    twos: int  # 2s in the play (attached or not)


@lru_cache(maxsize=1 << 16)
def shape_of(cards: Counts) -> Shape | None:
    """The shape of a multiset of cards, or None when it is not a play (R2.1)."""
    base = -1
    for r in range(12):
        if cards[r]:
            if base >= 0:
                return None  # two different base ranks
            base = r
    nr, nb, twos = cards[BIG], cards[SMALL], cards[TWO]
    size = sum(cards)
    if size == 0:
        return None
    if base >= 0:
        return Shape(size, nr, nb, cards[base] + twos, base + 1, base, twos)
    if twos:
        return Shape(size, nr, nb, twos, 13, -1, twos)
    return Shape(size, nr, nb, 0, 0, -1, 0)


@dataclass(frozen=True, slots=True)
class Top:
    """The play on the table: whose it is and what it is."""

    owner: int
    cards: Counts
    kind: TopKind  # NORMAL, GOUJI or GOUSI
    men: bool  # the owner kept only 3s: whoever beats this play 闷s him (R8.3)


def beats_shape(new: Shape, old: Shape, two_big_kill_one: bool = False) -> bool:
    """R2.4: same size and, values sorted high to low, strictly higher at every position.

    With both sorted, the old play reads R…R B…B v…v and the new R'…B'…v'…. The R-positions of the old play
    cannot be beaten, its B-positions need R's, and every v' of the new play faces a v of the old one.
    """
    if two_big_kill_one and old.nr == 1 and new.nr == 2 and new.nb == old.nb and new.n == old.n:
        # R2.5 二杀一: one more 大王 and a non-joker part of the same count, higher where there is one (RAA
        # falls to RR22; a lone R falls to RR, S0 §4 "无论单出大、小王还是挂花时").
        if new.n == 0 or new.v > old.v:
            return True
    if new.size != old.size or old.nr:
        return False
    if new.nr < old.nb:
        return False
    return new.n == 0 or new.v > old.v


def is_gouji(s: Shape, rules: Rules) -> bool:
    """R3.1."""
    if s.nr or s.nb:
        return True
    if s.base < 0:  # a 2-play
        return s.n >= 2 or rules.single_two_gouji
    need = GOUJI_THRESHOLD.get(s.base)
    return need is not None and s.n >= need


def is_pure_gouji(s: Shape | None) -> bool:
    """R3.2: the threshold reached by base cards alone, no 2s and no jokers (never so for None, no play)."""
    if s is None or s.nr or s.nb or s.twos or s.base < 0:
        return False
    need = GOUJI_THRESHOLD.get(s.base)
    return need is not None and s.n >= need


def has_pure_gouji(hand: Counts | list[int]) -> bool:
    """Whether a hand holds any pure gouji at all (R5.2: without one it is 自然点)."""
    return any(hand[r] >= need for r, need in GOUJI_THRESHOLD.items())


def counts_of(base: int, k: int, twos: int, nb: int, nr: int) -> Counts:
    c = [0] * NRANKS
    if base >= 0:
        c[base] = k
    c[TWO] = twos
    c[SMALL] = nb
    c[BIG] = nr
    return tuple(c)
