"""进贡 before a round's first lead (R10): paying the previous round's debts, 抗贡, and the 还贡 owed back."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import BIG, NRANKS, SMALL, TWO
from .events import Event
from .round import Debt
from .rules import Rules

Hand = list[int]
TRIBUTE_RANKS = (BIG, SMALL, TWO)  # R10.3: highest first


@dataclass(frozen=True)
class Returned:
    """A 还贡 still to be given: ``receiver`` got ``n`` cards of 落贡 from ``payer`` (R10.6)."""

    receiver: int
    payer: int
    n: int


def exempt_payers(rules: Rules, dealt: list[Hand]) -> tuple[set[int], list[Event]]:
    """R10.5 抗贡: four naturally dealt R exempt the holder's team, four B the holder alone."""
    if not rules.kang_gong:
        return set(), []
    exempt: set[int] = set()
    events: list[Event] = []
    for s in range(6):
        if dealt[s][BIG] >= 4:
            exempt |= {t for t in range(6) if t % 2 == s % 2}
            events.append(Event("kang_gong", s, _cards(BIG, dealt[s][BIG]), n=3))
        elif dealt[s][SMALL] >= 4:
            exempt.add(s)
            events.append(Event("kang_gong", s, _cards(SMALL, dealt[s][SMALL]), n=1))
    return exempt, events


def _cards(rank: int, n: int) -> tuple[int, ...]:
    c = [0] * NRANKS
    c[rank] = n
    return tuple(c)


def ordered(rules: Rules, debts: list[Debt]) -> list[Debt]:
    """R10.1: by the table's ``tribute_order``, teammates' debts dropped (R10.4)."""
    rank = {k: i for i, k in enumerate(rules.tribute_order)}
    kept = [d for d in debts if d.payer % 2 != d.receiver % 2 and d.n > 0]
    return sorted(kept, key=lambda d: rank[d.kind])  # stable: Round.debts() already orders by seat


def pay(
    rules: Rules,
    debts: list[Debt],
    hands: list[Hand],
    natural_cards: list[Hand],
    dealt: list[Hand],
) -> tuple[list[Event], list[Returned]]:
    """Pay every debt in order (R10.1–R10.5); return the events shown to the table and the 还贡 owed."""
    exempt, events = exempt_payers(rules, dealt)
    returns: list[Returned] = []
    for d in ordered(rules, debts):
        if d.payer in exempt:
            events.append(Event(f"tribute_{d.kind}", d.payer, None, other=d.receiver, n=0))
            continue
        paid = [0] * NRANKS
        nat = natural_cards[d.payer]
        for _ in range(d.n):
            r = next((r for r in TRIBUTE_RANKS if nat[r]), None)
            if r is None:
                break  # R10.3: a payer without them owes nothing more
            nat[r] -= 1
            hands[d.payer][r] -= 1
            hands[d.receiver][r] += 1
            paid[r] += 1
        k = sum(paid)
        events.append(Event(f"tribute_{d.kind}", d.payer, tuple(paid) if k else None, other=d.receiver, n=k))
        if d.kind == "luo" and k and rules.return_tribute:
            returns.append(Returned(d.receiver, d.payer, k))
    return events, returns
