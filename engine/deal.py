"""The deal (R1.3–R1.5, R5.2) and 买三/买四 (R8.2).

Each deal has its own RNG derived from the match seed, the round number and the redeal number, so any
deal can be rebuilt alone. Besides the hands we keep, per seat, the cards still held that were naturally
dealt: R8.2 and R10.3 pay only with naturally dealt 2s and jokers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import BIG, FOUR, FULL_DECK, NRANKS, SMALL, THREE, TWO
from .events import Event, EventKind
from .plays import has_pure_gouji
from .rules import Rules
from .seats import SEATS, opposite

Hand = list[int]


def deal_hands(rules: Rules, rng: random.Random, first: int = 0) -> list[list[int]]:
    """R1.3 (R1.5 with zhangqiu: ten 3s and ten 4s removed, 33 cards to the first four seats from ``first``)."""
    deck_counts = list(FULL_DECK)
    if rules.zhangqiu:
        deck_counts[THREE] -= 10
        deck_counts[FOUR] -= 10
    deck = [r for r in range(NRANKS) for _ in range(deck_counts[r])]
    rng.shuffle(deck)
    sizes = [33, 33, 33, 33, 32, 32] if rules.zhangqiu else [36] * 6
    hands = [[0] * NRANKS for _ in SEATS]
    pos = 0
    for i, size in enumerate(sizes):
        seat = (first + i) % 6
        for r in deck[pos : pos + size]:
            hands[seat][r] += 1
        pos += size
    return hands


def deal_rng(seed: int, round_no: int, deal_no: int) -> random.Random:
    # A string seed is hashed (sha512) by random.seed, so this is stable across runs and platforms.
    return random.Random(f"gouji:{seed}:{round_no}:{deal_no}")


@dataclass
class Deal:
    hands: list[Hand]
    natural_cards: list[Hand]  # the cards of each hand that were dealt to it and are still there
    natural: list[bool]  # 自然点 (R5.2), judged on the hand as dealt
    leader: int


def deal(rules: Rules, seed: int, round_no: int, deal_no: int, leader: int | None) -> Deal:
    """R1.3 a uniform seeded deal; R1.4 the round-1 leader drawn from the same RNG; R1.5 the zhangqiu deal
    (dealing starts at the leader, so he and the next three seats get 33 cards)."""
    rng = deal_rng(seed, round_no, deal_no)
    if leader is None:
        leader = rng.randrange(6)
    hands = deal_hands(rules, rng, leader)
    natural = [not has_pure_gouji(h) for h in hands]
    return Deal(hands, [list(h) for h in hands], natural, leader)


def _pay_for_buy(natural_cards: Hand) -> int | None:
    """R8.2: a naturally dealt 2, else B, else R; None when the buyer holds none of them."""
    for r in (TWO, SMALL, BIG):
        if natural_cards[r]:
            return r
    return None


def buy(rules: Rules, d: Deal, rank: int, dealt: list[Hand]) -> list[Event]:
    """买三 (rank = THREE) or 买四 (rank = FOUR), R8.2: each seat dealt none of ``rank``, in turn from the
    leader, buys one from his 对头 if the 对头 holds two or more, else from an opponent neighbour who does
    (the next seat first), paying a naturally dealt 2 (else B, else R); else a teammate who holds two or more
    gives one free; a buyer with nothing to pay goes to his teammates at once (S0 §7 "由同帮相助"). With
    nobody to give, he stays without one."""
    kind: EventKind = "bought_three" if rank == THREE else "bought_four"
    events: list[Event] = []
    for i in range(6):
        s = (d.leader + i) % 6
        if dealt[s][rank]:
            continue
        hands = d.hands
        pay = _pay_for_buy(d.natural_cards[s])
        sellers = [opposite(s), (s + 1) % 6, (s + 5) % 6] if pay is not None else []
        seller = next((t for t in sellers if hands[t][rank] >= 2), None)
        if seller is not None and pay is not None:
            hands[s][pay] -= 1
            d.natural_cards[s][pay] -= 1
            hands[seller][pay] += 1
            hands[seller][rank] -= 1
            d.natural_cards[seller][rank] = min(d.natural_cards[seller][rank], hands[seller][rank])
            hands[s][rank] += 1
            events.append(Event(kind, s, _one(pay), other=seller))
            continue
        giver = next((t for t in ((s + 2) % 6, (s + 4) % 6) if hands[t][rank] >= 2), None)
        if giver is not None:
            hands[giver][rank] -= 1
            d.natural_cards[giver][rank] = min(d.natural_cards[giver][rank], hands[giver][rank])
            hands[s][rank] += 1
            events.append(Event(kind, s, None, other=giver))
    return events


def _one(rank: int) -> tuple[int, ...]:
    c = [0] * NRANKS
    c[rank] = 1
    return tuple(c)


def buy_all(rules: Rules, d: Deal) -> list[Event]:
    """R8.2: 买三 with ``bie_san``; 买四 as well with ``zhangqiu`` (see RULES-DECISIONS.md "Match")."""
    if not rules.bie_san:
        return []
    dealt = [list(h) for h in d.hands]
    events = buy(rules, d, THREE, dealt)
    if rules.zhangqiu:
        events += buy(rules, d, FOUR, dealt)
    return events
