"""Tribute (R10): the debts a round leaves (:class:`Debt`; 点贡 R5.5/R5.6, 烧贡 R6.6, 闷贡 R8.3, 落贡 and 圈贡
R10.2, teammates' debts waived R10.4), and their paying before the next round's first lead: 抗贡 (R10.5) and
the 还贡 owed back (R10.6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .cards import BIG, NRANKS, SMALL, TWO
from .events import Event, EventKind
from .rules import DEBT_KINDS, Rules
from .seats import SEATS, opposite

Hand = list[int]
TRIBUTE_RANKS = (BIG, SMALL, TWO)  # R10.3: highest first
_PAID: dict[str, EventKind] = {
    "quan": "tribute_quan",
    "dian": "tribute_dian",
    "shao": "tribute_shao",
    "men": "tribute_men",
    "luo": "tribute_luo",
}


@dataclass(frozen=True, slots=True)
class Debt:
    """``payer`` owes ``receiver`` ``n`` cards of tribute of ``kind`` (quan dian shao men luo, R10.1)."""

    payer: int
    receiver: int
    n: int
    kind: str

    def __str__(self) -> str:
        return f"{self.payer}>{self.receiver}:{self.n}:{self.kind}"  # engine.notation.parse_debt reads it


# R5.6 (S3): 点贡 between 对头 A and B by who declared and who opened: (A pays, B pays).
_DIAN_TABLE: dict[tuple[bool, bool, bool, bool], tuple[int, int]] = {}
for _a_open in (True, False):
    for _b_open in (True, False):
        _DIAN_TABLE[(False, False, _a_open, _b_open)] = (int(not _a_open), int(not _b_open))
        _DIAN_TABLE[(True, True, _a_open, _b_open)] = (
            (0, 4) if (_a_open and not _b_open) else (4, 0) if (_b_open and not _a_open) else (2, 2)
        )
_DIAN_TABLE.update(
    {
        (True, False, True, False): (0, 3),
        (True, False, False, False): (1, 2),
        (True, False, True, True): (2, 0),
        (True, False, False, True): (3, 0),
    }
)
for (_da, _db, _ao, _bo), (_pa, _pb) in list(_DIAN_TABLE.items()):
    if _da and not _db:
        _DIAN_TABLE[(False, True, _bo, _ao)] = (_pb, _pa)


def dian_debts(a: int, opened: Sequence[bool], declared: Sequence[bool], xuan_dian: bool) -> list[Debt]:
    """R5.5/R5.6: the 点贡 between seat a and his 对头."""
    b = opposite(a)
    da, db = (declared[a], declared[b]) if xuan_dian else (False, False)
    pa, pb = _DIAN_TABLE[(da, db, opened[a], opened[b])]
    return [Debt(a, b, pa, "dian"), Debt(b, a, pb, "dian")]


def owed(
    rules: Rules,
    arisen: Sequence[Debt],
    places: Sequence[int] | None,
    circled: bool,
    opened: Sequence[bool],
    declared: Sequence[bool],
) -> list[Debt]:
    """Tribute owed (R5.5, R5.6, R6.6, R7.4, R8.3, R10.2), teammates' debts waived (R10.4), merged per kind,
    payer and receiver and ordered by kind, then payer, then receiver.

    烧贡 and 闷贡 (``arisen``) count from the moment they arise; 圈贡, 点贡 and 落贡 once the round has ended
    (``places``, the final places, None before)."""
    debts: list[Debt] = list(arisen)
    if places is not None:
        if rules.dian_gong:
            for a in range(3):
                debts += dian_debts(a, opened, declared, rules.xuan_dian_active)
        debts += [Debt(places[5], places[0], 2, "luo"), Debt(places[4], places[1], 1, "luo")]
        if circled:
            # R7.4/R10.2: each circled player gives 1 to his 对头 and pays no other tribute.
            team = places[5] % 2
            debts = [d for d in debts if d.payer % 2 != team]
            debts += [Debt(s, opposite(s), 1, "quan") for s in SEATS if s % 2 == team]
    merged: dict[tuple[str, int, int], int] = {}
    for d in debts:
        if d.payer % 2 != d.receiver % 2 and d.n > 0:
            key = (d.kind, d.payer, d.receiver)
            merged[key] = merged.get(key, 0) + d.n
    order = {k: i for i, k in enumerate(DEBT_KINDS)}
    keys = sorted(merged, key=lambda k: (order[k[0]], k[1], k[2]))
    return [Debt(p, r, merged[(k, p, r)], k) for k, p, r in keys]


WaivedWhy = Literal["team", "quan"]


@dataclass(frozen=True, slots=True)
class Waived:
    """A debt the round made and the rules waived: between teammates (R10.4), or a circled player's other
    tribute, replaced by his 圈贡 (R10.2)."""

    debt: Debt
    why: WaivedWhy


def waived(rules: Rules, arisen: Sequence[Debt], places: Sequence[int] | None, circled: bool) -> list[Waived]:
    """The debts :func:`owed` leaves out: the 烧贡 and 闷贡 the table heard of as they arose, and the 落贡, that
    are owed to a teammate (R10.4) or by a circled player (R10.2). (点贡 is always between opponents.)"""
    debts = list(arisen)
    if places is not None:
        debts += [Debt(places[5], places[0], 2, "luo"), Debt(places[4], places[1], 1, "luo")]
    team = places[5] % 2 if places is not None and circled else None
    out: list[Waived] = []
    for d in debts:
        if d.n <= 0:
            continue
        if d.payer % 2 == d.receiver % 2:
            out.append(Waived(d, "team"))
        elif team is not None and d.payer % 2 == team:
            out.append(Waived(d, "quan"))
    return out


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
            events.append(Event(_PAID[d.kind], d.payer, None, other=d.receiver, n=0))
            events.append(Event("tribute_exempt", d.payer, None, other=d.receiver, n=d.n))
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
        events.append(Event(_PAID[d.kind], d.payer, tuple(paid) if k else None, other=d.receiver, n=k))
        if k < d.n:
            # Said, not silently dropped: the table was told he owes d.n (the round's summary).
            events.append(Event("tribute_short", d.payer, None, other=d.receiver, n=d.n - k))
        if d.kind == "luo" and k and rules.return_tribute:
            returns.append(Returned(d.receiver, d.payer, k))
    return events, returns
