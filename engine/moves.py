"""The legal-action lists of a :class:`~engine.round.Round`: what :meth:`Round.illegal_reason` allows, listed.

Answering, the list is complete: pass, yield, every play and every burn that beats the top play (R2.4–R2.6,
R5.4, R6.3, R8.1). Leading, the plain leads, or every lead. Round binds these functions as its methods
(``legal_actions``, ``all_legal_actions``, ``leads``); the search's rollouts call :func:`beating` and
:func:`plain_leads` directly. tests/engine/test_round_properties.py checks the lists against the judge.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .actions import BURN, PASS_ACTION, PLAY, YIELD_ACTION, Action
from .cards import BIG, FOUR, NRANKS, SMALL, THREE, TWO, Counts
from .plays import Shape, counts_of, is_pure_gouji, shape_of

if TYPE_CHECKING:
    from .round import Round


def legal_actions(rnd: Round) -> list[Action]:
    """Legal actions of the seat to act.

    Answering, the list is complete: pass, yield, every play and every burn that beats the top play (each
    distinct multiset once, so 2s and jokers are attached in every way that makes a different play). Leading,
    listing every subset would explode, so the list holds the plain leads (one rank, no 2s or jokers attached,
    plus plain 2-plays and joker plays); :meth:`leads` generates them all and :meth:`is_legal` judges any.
    A burner who must lead again gets his complete list, since each of his leads must carry a joker.
    """
    s = rnd.current_player
    if s is None:
        return []
    if rnd.top is None:
        if rnd.burner == s:
            return list(leads(rnd))
        return [Action(PLAY, c) for c in plain_leads(rnd, s)]
    return answers(rnd, s)


def all_legal_actions(rnd: Round) -> Iterator[Action]:
    """Every legal action of the seat to act, leads included."""
    s = rnd.current_player
    if s is None:
        return iter(())
    if rnd.top is None:
        return leads(rnd)
    return iter(answers(rnd, s))


def answers(rnd: Round, s: int) -> list[Action]:
    """Every answer of s to the top play: pass, yield, the plays and the burns that beat it."""
    top = rnd.top
    assert top is not None
    acts = [PASS_ACTION]
    if rnd.illegal_reason(YIELD_ACTION) is None:
        acts.append(YIELD_ACTION)
    old = shape_of(top.cards)
    assert old is not None
    answer = rnd.may_answer(s)
    burn = rnd.may_burn(s)
    if not (answer or burn):
        return acts
    plays = beating(rnd, s, old)
    if answer:
        acts.extend(Action(PLAY, c) for c in plays)
    if burn:
        if rnd.rules.burn_feasibility:
            opened = rnd.opened[s]
            plays = [c for c in plays if rnd.can_finish(s, c, opened or is_pure_gouji(shape_of(c)))]
        acts.extend(Action(BURN, c) for c in plays)
    return acts


def beating(rnd: Round, s: int, old: Shape) -> list[Counts]:
    """Every distinct play in s's hand that beats ``old`` (R2.4, R2.5) and obeys R2.6, R5.4, R8.1."""
    hand = rnd.hands[s]
    rules = rnd.rules
    m = old.size
    big, small, twos = hand[BIG], hand[SMALL], hand[TWO]
    max_t = twos if rules.tie_two else 0
    four_ok = rnd.opened[s] or not rules.dian_si_active or rnd.free
    out: list[Counts] = []

    def normals(rest: int, min_v: int, nb: int, nr: int) -> None:
        # 2-play (value 13), then base plays of rank r (value r + 1).
        if rest <= twos and min_v < 13:
            out.append(counts_of(-1, 0, rest, nb, nr))
        for r in range(min_v, 12):
            c = hand[r]
            if not c:
                continue
            if r == THREE and rules.bie_san:
                if c == rest and sum(hand) == rest and not nb and not nr:
                    out.append(counts_of(r, c, 0, 0, 0))
                continue
            if r == FOUR and not four_ok:
                continue
            for t in range(max(0, rest - c), min(max_t, rest - 1) + 1):
                out.append(counts_of(r, rest - t, t, nb, nr))

    if old.nr == 0:
        for nr in range(old.nb, min(big, m) + 1):
            for nb in range(min(small, m - nr) + 1):
                rest = m - nr - nb
                if rest == 0:
                    out.append(counts_of(-1, 0, 0, nb, nr))
                elif old.n:
                    normals(rest, old.v, nb, nr)
    elif rules.two_big_kill_one and old.nr == 1 and big >= 2 and small >= old.nb:
        # R2.5: one more R, the same B, and the non-joker part again (none under a joker-only play).
        if old.n:
            normals(old.n, old.v, old.nb, 2)
        else:
            out.append(counts_of(-1, 0, 0, old.nb, 2))
    return out


def plain_leads(rnd: Round, s: int) -> list[Counts]:
    """s's plain leads: one rank alone (each count of it), plain 2-plays, and joker plays."""
    hand = rnd.hands[s]
    out: list[Counts] = []
    for r in range(NRANKS):
        c = hand[r]
        for k in range(1, c + 1):
            cards = [0] * NRANKS
            cards[r] = k
            t = tuple(cards)
            shape = shape_of(t)
            assert shape is not None
            if rnd.card_rules_reason(s, t, shape, True) is None:
                out.append(t)
    if hand[SMALL] and hand[BIG]:
        for nb in range(1, hand[SMALL] + 1):
            for nr in range(1, hand[BIG] + 1):
                out.append(counts_of(-1, 0, 0, nb, nr))
    return out


def leads(rnd: Round, rank: int | None = None) -> Iterator[Action]:
    """Every legal lead of the seat to act, rank by rank (base rank, then 2-plays, then joker plays), or only
    those built on ``rank`` (an index into RANKS; 12 = 2-plays, 13/14 = joker plays)."""
    s = rnd.current_player
    if s is None or rnd.top is not None:
        return
    hand = rnd.hands[s]
    twos, small, big = hand[TWO], hand[SMALL], hand[BIG]
    max_t = twos if rnd.rules.tie_two else 0
    ranks = range(14) if rank is None else [min(rank, 13)]
    for r in ranks:
        if r < 12:
            if not hand[r]:
                continue
            tmax = max_t
            for k in range(1, hand[r] + 1):
                for t in range(tmax + 1):
                    for nb in range(small + 1):
                        for nr in range(big + 1):
                            a = Action(PLAY, counts_of(r, k, t, nb, nr))
                            if rnd.illegal_reason(a) is None:
                                yield a
        elif r == 12:
            for t in range(1, twos + 1):
                for nb in range(small + 1):
                    for nr in range(big + 1):
                        a = Action(PLAY, counts_of(-1, 0, t, nb, nr))
                        if rnd.illegal_reason(a) is None:
                            yield a
        else:
            for nb in range(small + 1):
                for nr in range(big + 1):
                    if nb + nr:
                        a = Action(PLAY, counts_of(-1, 0, 0, nb, nr))
                        if rnd.illegal_reason(a) is None:
                            yield a
