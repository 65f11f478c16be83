"""The questions before the first lead (还贡 R10.6, 革命 R9.1, 要头/无头 R9.4, 宣点 R5.6), asked of every seat
concerned at once and answered in any order. Players play over days with turns of up to 24 hours: asked seat
by seat, the first card of a round waited for each of them in turn.

The reading (engine/RULES-DECISIONS.md, "Questions before the first lead"):

- At the deal, after 买三 and tribute (both automatic), every question that can be judged is open at once.
  A seat answers his own in the order 还贡 → 革命 → 宣点, the next opening when he has answered the one
  before: the receiver of 落贡 gives back first (R10.6); a seat is asked 革命 only if he holds no joker and no
  2 (R9.1), judged once no 还贡 to or from him is outstanding (those cards may change it); every seat is asked
  宣点 when ``xuan_dian`` applies (R5.6), unless he declared 革命.
- 革命 and 宣点 answers are sealed: no other seat and not the table learns them until every answer of the
  stage is in; then they are revealed together, so the order of answering changes nothing. The table sees
  only that a seat has answered everything sealed he is asked (one ``answered`` event per seat: one per
  answer would tell a 革命, which no 宣点 follows), and meanwhile sees his question as ``declare`` (every
  seat is asked it) or, without 宣点, as ``revolt``. Nor does the reveal tell a declined 革命 while 宣点
  hides who was asked it: that would show which hands hold no joker and no 2. 还贡 cards are shown at once.
- When every answer is in: two or more 革命 void the deal (R9.2) and everything answered; exactly one lays
  his hand down (R9.3), voids the 宣点 of his pair and asks his 对头 要头 or 无头 (R9.4); then the first lead.

The functions read and change the :class:`~engine.match.Match` they are given (``step``, ``returns``,
``revolt_answers``, ``declare_answers``, ``revolted``, ``head``, ``declared``, ``hands``); Match's ``asked``,
``legal_actions``, ``illegal_reason`` and ``apply`` call them before the first lead.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING

from .actions import DECLARE, NO_DECLARE, NO_REVOLT, RETURN, REVOLT, WUTOU, YAOTOU, Action, ActionKind
from .cards import BIG, NRANKS, SMALL, TWO, Counts, format_cards
from .events import Event
from .phases import P_DECLARE, P_HEAD, P_RETURN, P_REVOLT, S_STAGE, QuestionKind
from .refusals import Refusal, missing
from .seats import opposite

if TYPE_CHECKING:
    from .match import Match


@dataclass(frozen=True, slots=True)
class Question:
    """What ``seat`` is asked now: ``kind`` is ``return`` (give ``n`` cards back to seat ``to``, R10.6),
    ``revolt`` (R9.1), ``head`` (要头 or 无头, R9.4) or ``declare`` (R5.6)."""

    seat: int
    kind: QuestionKind
    n: int = 0
    to: int | None = None


# The answers to each kind of question but 还贡 (whose answers are the cards).
CHOICES: dict[QuestionKind, tuple[ActionKind, ActionKind]] = {
    P_REVOLT: (NO_REVOLT, REVOLT),
    P_HEAD: (YAOTOU, WUTOU),
    P_DECLARE: (NO_DECLARE, DECLARE),
}


def eligible(hand: list[int]) -> bool:
    """R9.1: no jokers and no 2s."""
    return not (hand[TWO] or hand[SMALL] or hand[BIG])


def from_leader(m: Match) -> list[int]:
    lead = m.leader or 0
    return [(lead + i) % 6 for i in range(6)]


def question(m: Match, seat: int) -> Question | None:
    """What ``seat`` is asked now, None when nothing (before the first lead only)."""
    if m.step == P_HEAD:
        r = m.revolted
        return Question(seat, P_HEAD) if r is not None and seat == opposite(r) else None
    if m.step != S_STAGE:
        return None
    for ret in m.returns:
        if ret.receiver == seat:
            return Question(seat, P_RETURN, ret.n, ret.payer)
    if any(ret.payer == seat for ret in m.returns):
        return None  # his 革命 waits for the 还贡 cards, which may change it
    revolt = m.revolt_answers[seat]
    if revolt is None and eligible(m.hands[seat]):
        return Question(seat, P_REVOLT)
    if not revolt and m.rules.xuan_dian_active and m.declare_answers[seat] is None:
        return Question(seat, P_DECLARE)
    return None


def asked(m: Match) -> tuple[int, ...]:
    """The seats with an open question, in seat order from the leader."""
    return tuple(s for s in from_leader(m) if question(m, s) is not None)


def shown(m: Match, q: Question) -> Question:
    """A question as the table may see it: a sealed one (革命 or 宣点) as ``declare`` when every seat is asked
    宣点, else as ``revolt``, so that neither a seat's eligibility nor his first sealed answer shows."""
    if q.kind == P_REVOLT or q.kind == P_DECLARE:
        return Question(q.seat, P_DECLARE if m.rules.xuan_dian_active else P_REVOLT)
    return q


def public(m: Match) -> tuple[Question, ...]:
    """Every open question as the table may see it, in seat order from the leader."""
    out = []
    for s in from_leader(m):
        q = question(m, s)
        if q is not None:
            out.append(shown(m, q))
    return tuple(out)


def answered(m: Match) -> tuple[int, ...]:
    """The seats that answered every sealed question they were asked and wait for the reveal."""
    if m.step != S_STAGE:
        return ()
    return tuple(
        s
        for s in from_leader(m)
        if (m.revolt_answers[s] is not None or m.declare_answers[s] is not None) and question(m, s) is None
    )


def sealed(m: Match, seat: int) -> tuple[ActionKind, ...]:
    """``seat``'s own answers not yet revealed (what he alone may be reminded of)."""
    if m.step != S_STAGE:
        return ()
    out: list[ActionKind] = []
    revolt, declare = m.revolt_answers[seat], m.declare_answers[seat]
    if revolt is not None:
        out.append(REVOLT if revolt else NO_REVOLT)
    if declare is not None:
        out.append(DECLARE if declare else NO_DECLARE)
    return tuple(out)


# ----------------------------------------------------------------- answering


def legal(m: Match, seat: int | None) -> list[Action]:
    """The answers ``seat`` (default: the first asked) may give now."""
    if seat is None:
        first = asked(m)
        if not first:
            return []
        seat = first[0]
    q = question(m, seat)
    if q is None:
        return []
    if q.kind == P_RETURN:
        return [Action(RETURN, c) for c in multisets(m.hands[seat], q.n)]
    return [Action(k) for k in CHOICES[q.kind]]


def refusal(m: Match, action: Action, seat: int | None) -> Refusal | None:
    """Why ``seat`` (default: the first asked) may not answer ``action`` now; None when he may."""
    if seat is None:
        first = asked(m)
        if not first:
            return Refusal("nobody", "nobody is to act")
        seat = first[0]
    q = question(m, seat)
    if q is None:
        giver = next((r.receiver for r in m.returns if r.payer == seat), None)
        if giver is not None and m.step == S_STAGE:
            return Refusal(
                "not_asked", f"seat {seat} waits for the 还贡 from seat {giver}", seat=seat, waits_for=giver
            )
        return Refusal("not_asked", f"seat {seat} is asked nothing now", seat=seat)
    if q.kind == P_RETURN:
        if action.kind != RETURN or action.cards is None or len(action.cards) != NRANKS:
            return Refusal("give_back", f"give back {q.n} cards (还贡)", n=q.n)
        if sum(action.cards) != q.n:
            return Refusal("give_back", f"give back exactly {q.n} cards (还贡)", n=q.n)
        hand = m.hands[seat]
        if any(h < c for h, c in zip(hand, action.cards, strict=True)):
            return Refusal(
                "not_held",
                f"you do not hold {format_cards(action.cards)}",
                cards=action.cards,
                missing=missing(hand, action.cards),
            )
        return None
    allowed = CHOICES[q.kind]
    if action.kind not in allowed or action.cards is not None:
        return Refusal("choose", "choose " + " or ".join(allowed), options=allowed)
    return None


def answer(m: Match, seat: int, action: Action) -> list[Event]:
    """Take ``seat``'s legal answer (judged by :func:`refusal`) and whatever it settles."""
    q = question(m, seat)
    assert q is not None
    events: list[Event] = []
    if q.kind == P_RETURN:
        assert action.cards is not None and q.to is not None
        done = next(r for r in m.returns if r.receiver == seat)  # the one question() asked
        m.returns = [r for r in m.returns if r is not done]
        give, take = m.hands[seat], m.hands[q.to]
        for r, n in enumerate(action.cards):
            if n:
                give[r] -= n
                take[r] += n
                m.natural_cards[seat][r] = min(m.natural_cards[seat][r], give[r])
        events.append(m._show(Event("returned", seat, action.cards, other=q.to, n=q.n)))
    elif q.kind == P_HEAD:
        m.head = YAOTOU if action.kind == YAOTOU else WUTOU
        events.append(m._show(Event(m.head, seat)))
        return events + m._start_play()
    else:
        if q.kind == P_REVOLT:
            m.revolt_answers[seat] = action.kind == REVOLT
        else:
            m.declare_answers[seat] = action.kind == DECLARE
        if question(m, seat) is None:
            events.append(m._show(Event("answered", seat)))
    return events + settle(m)


def settle(m: Match) -> list[Event]:
    """When no question is open any more, reveal the sealed answers and go on (R9.2–R9.4); else nothing."""
    if m.step != S_STAGE or any(question(m, s) is not None for s in range(6)):
        return []
    order = from_leader(m)
    xuan = m.rules.xuan_dian_active
    events: list[Event] = []
    r = m.revolted  # set already only in a state saved by the engine that asked seat by seat (snapshot.py)
    if r is None:
        revolters = [s for s in order if m.revolt_answers[s]]
        for s in order:
            ans = m.revolt_answers[s]
            if ans:
                events.append(m._show(Event(REVOLT, s)))
            elif ans is False and not xuan:
                events.append(m._show(Event(NO_REVOLT, s)))  # he was asked in the table's sight
        if len(revolters) >= 2:
            # R9.2: the deal is void, and every answer with it; deal again, the same debts and leader.
            m.deal_no += 1
            return events + m._start_deal(m.debts)
        r = revolters[0] if revolters else None
    void = set() if r is None else {r, opposite(r)}  # R9.3/R9.4 settle their point
    if xuan:
        for s in order:
            if s not in void:
                m.declared[s] = bool(m.declare_answers[s])
                events.append(m._show(Event("declared" if m.declared[s] else NO_DECLARE, s)))
    if r is not None:
        if m.revolted is None:
            m.revolted = r
            m.laid_down = m.hands[r]  # R9.3: he lays his hand down and drops out
            m.hands[r] = [0] * NRANKS
            m.natural_cards[r] = [0] * NRANKS
            events.append(m._show(Event("laid_down", r, tuple(m.laid_down))))
        if m.head is None:
            m.step = P_HEAD
            return events
    return events + m._start_play()


def multisets(hand: list[int], n: int) -> list[Counts]:
    """Every distinct multiset of ``n`` cards from ``hand`` (还贡 gives at most 2, so this stays small)."""
    ranks = [r for r in range(NRANKS) if hand[r]]
    out: list[Counts] = []
    for combo in combinations_with_replacement(ranks, n):
        c = [0] * NRANKS
        for r in combo:
            c[r] += 1
        if all(c[r] <= hand[r] for r in ranks):
            out.append(tuple(c))
    return out
