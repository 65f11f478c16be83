"""What each reader of a match may see, built from the match's state: a player's :class:`SeatView` (his own
hand and what the table shows: what computer players decide on), the table's :class:`PublicView` (what a group
message may show, no hand), a finished round's :class:`RoundResult`, and the plain-JSON observations of a seat.

Match.view, Match.public_view and Match.observation (and Round.observation) are these functions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import stage
from .actions import ActionKind
from .cards import EMPTY, FOUR, NRANKS, THREE, Counts, format_cards, parse_cards
from .phases import P_DECLARE, P_OVER, P_RETURN, S_STAGE, Phase
from .plays import Top
from .rules import Rules
from .stage import Question
from .tribute import Debt, Waived

if TYPE_CHECKING:
    from .match import Match
    from .round import Round


@dataclass(frozen=True, slots=True)
class Declined:
    """A seat passed on an opponent's play that was not gouji (R4.2): what the table saw then. A player who
    holds a cheap answer usually plays it, so a pass tells something of the hand. The Tally keeps it as text
    (engine/notation.py)."""

    top: Counts  # the play passed on
    owner_count: int | None  # its owner's cards then, when the table showed them (报户, 10 or fewer)
    count: int  # the seat's own cards then (counted)
    free: bool  # 四户乱缠 then
    opened: bool  # the seat had opened (开点) then
    played: Counts  # what the seat had played this round until then


@dataclass(frozen=True, slots=True)
class SeatView:
    """What a player at ``seat`` knows: his own hand and what the table shows; never another hand.

    Computer players decide on this alone."""

    seat: int
    phase: Phase  # before the first lead: the kind of his own question when he is asked one
    rules: Rules
    hand: Counts
    leader: int
    counts: tuple[int | None, ...]  # others' counts only when 10 or fewer (报户)
    top: Top | None  # men is always False here: whether the owner holds only 3s is not shown
    passed: tuple[bool, ...]
    opened: tuple[bool, ...]
    out: tuple[int, ...]
    dead: tuple[int, ...]
    free: bool
    burner: int | None
    revolted: int | None
    gousi_left: tuple[int, ...]
    declared: tuple[bool, ...]
    pile: Counts  # every card played so far this round (all were shown)
    return_n: int  # 还贡 cards to give now
    totals: tuple[int, ...]
    # What he is asked now before the first lead (还贡 with how many cards and to whom, 革命, 要头/无头, 宣点),
    # None when nothing (``phase`` is then the table's, see public_phase); his own answers not yet revealed.
    asked: Question | None = None
    sealed: tuple[ActionKind, ...] = ()
    # What a player who counts could know, every fact of it shown at the table: each seat's cards (the table
    # announces them only at 10 or fewer, 报户, but every deal, transfer and play was shown), the cards each
    # seat played this round, the base ranks he led with nothing attached and those he played with 2s or
    # jokers attached (bit r for rank r), the cards each received before the first lead (tribute, 还贡, 买三),
    # and a revolutionary's laid-down hand (R9.3). The strong computer player reads hands from these.
    sizes: tuple[int, ...] = ()
    played: tuple[Counts, ...] = ()
    plain: tuple[int, ...] = ()
    padded: tuple[int, ...] = ()
    received: tuple[Counts, ...] = ()
    laid_down: Counts = EMPTY
    declined: tuple[tuple[Declined, ...], ...] = ()  # the passes each seat made on opponents' plain plays


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round as the table announces it (R7, R10, R11.1)."""

    round_no: int
    places: tuple[int, ...]  # seats by place, 头科 first
    scores: tuple[int, ...]  # per seat
    circled: bool  # 串三户 (R7.4)
    debts: tuple[Debt, ...]  # tribute owed before the next round's first lead
    waived: tuple[Waived, ...] = ()  # debts the round made that the rules waived, and why (R10.2, R10.4)


@dataclass(frozen=True, slots=True)
class PublicView:
    """What the whole table sees, the same for everyone: what a group message may show. No hand is here,
    and others' card counts only as 报户 shows them (10 or fewer)."""

    round_no: int
    phase: Phase
    current: int | None
    leader: int | None
    free: bool  # 四户乱缠 (R7.2)
    top: Top | None  # men is always False: whether the owner holds only 3s is not shown
    counts: tuple[int | None, ...]  # 报户: a seat's cards when 10 or fewer
    places: tuple[int | None, ...]  # seats by place as far as decided, 头科 first
    opened: tuple[bool, ...]
    natural: tuple[bool, ...]  # 自然点 (R5.2)
    dead: tuple[tuple[int, str], ...]  # (seat, "men" or "hu"), from the bottom
    passed: tuple[bool, ...]  # bound by a pass in this trick (R4.2)
    out: tuple[int, ...]
    burner: int | None
    revolted: int | None
    declared: tuple[bool, ...]
    totals: tuple[int, ...]
    team_totals: tuple[int, int]
    returning: tuple[int, int, int] | None  # the current player's 还贡: (receiver, payer, cards)
    result: RoundResult | None  # once the round is over
    # Before the first lead: every open question as the table may see it, in seat order from the leader (a
    # sealed 革命 or 宣点 is shown as ``declare``, or ``revolt`` without 宣点: engine/stage.py), and the seats
    # that gave every sealed answer they were asked and wait for the others. Empty during the play (``current``).
    asked: tuple[Question, ...] = ()
    answered: tuple[int, ...] = ()
    yielder: int | None = None  # who yielded (让牌, R4.4) on the play on the table
    yield_back: bool = False  # both after him passed: the decision is back with the yielder
    pile: Counts = EMPTY  # every card played this round (all were shown): what card memory (记牌) counts
    laid_down: Counts = EMPTY  # a revolutionary's hand, laid down for all to see (R9.3)
    deck: Counts = EMPTY  # every card of the match's deck

    @property
    def round_over(self) -> bool:
        return self.phase == P_OVER


def _shown_top(top: Top | None) -> Top | None:
    """The play on the table as the table shows it: whether the owner holds only 3s is not shown."""
    return None if top is None else Top(top.owner, top.cards, top.kind, False)


def seat_view(m: Match, seat: int) -> SeatView:
    """:meth:`Match.view`."""
    rnd = m.round
    hands = rnd.hands if rnd is not None else m.hands
    tally = m.tally
    if rnd is None:
        top = None
        passed: tuple[bool, ...] = (False,) * 6
        opened = tuple(m.natural)
        out: tuple[int, ...] = ()
        dead: tuple[int, ...] = ()
        free = False
        burner = None
        revolted = m.revolted
        gousi_left: tuple[int, ...] = (0,) * 6
        declared = tuple(m.declared)
        pile = EMPTY
    else:
        top = _shown_top(rnd.top)
        passed = tuple(rnd.bound)
        opened = tuple(rnd.opened)
        out = tuple(rnd.out)
        dead = tuple(d for d, _ in rnd.dead)
        free = rnd.free
        burner = rnd.burner
        revolted = rnd.revolted
        gousi_left = tuple(rnd.gousi_left)
        declared = tuple(rnd.declared)
        pile = tuple(rnd.pile)
    asked = stage.question(m, seat) if rnd is None else None
    return SeatView(
        seat=seat,
        phase=public_phase(m) if asked is None else asked.kind,
        rules=m.rules,
        hand=tuple(hands[seat]),
        leader=m.leader or 0,
        counts=tuple(sum(h) if (s == seat or sum(h) <= 10) else None for s, h in enumerate(hands)),
        top=top,
        passed=passed,
        opened=opened,
        out=out,
        dead=dead,
        free=free,
        burner=burner,
        revolted=revolted,
        gousi_left=gousi_left,
        declared=declared,
        pile=pile,
        return_n=asked.n if asked is not None and asked.kind == P_RETURN else 0,
        totals=tuple(m.totals),
        asked=asked,
        sealed=stage.sealed(m, seat),
        sizes=tuple(sum(h) for h in hands),
        played=tuple(tuple(p) for p in tally.played),
        plain=tuple(tally.plain),
        padded=tuple(tally.padded),
        received=received(m.shown),
        laid_down=tuple(m.laid_down),
        declined=tally.declined_records(),
    )


def received(shown: list[dict[str, Any]]) -> tuple[Counts, ...]:
    """The cards each seat received before this round's first lead and still had at its start, as the table
    was shown them (``shown``: the round's public events before the first lead, as dicts): tribute (R10),
    还贡 (R10.6), the 3 or 4 bought and the card paid for it (R8.2); what he passed on (a 还贡 of a card just
    received) is taken off again."""
    got = [[0] * NRANKS for _ in range(6)]

    def move(cards: Counts, giver: int | None, taker: int | None) -> None:
        for r, n in enumerate(cards):
            if taker is not None:
                got[taker][r] += n
            if giver is not None:
                got[giver][r] = max(0, got[giver][r] - n)

    for e in shown:
        kind, seat, other = e["kind"], e.get("seat"), e.get("other")
        cards = parse_cards(e["cards"]) if e.get("cards") else None
        if kind.startswith("tribute_") or kind == "returned":
            if cards is not None:
                move(cards, seat, other)
        elif kind in ("bought_three", "bought_four") and seat is not None:
            move(_one(THREE if kind == "bought_three" else FOUR), other, seat)
            if cards is not None:
                move(cards, seat, other)
    return tuple(tuple(g) for g in got)


def _one(rank: int) -> Counts:
    c = [0] * NRANKS
    c[rank] = 1
    return tuple(c)


def cards_in_play(m: Match) -> Counts:
    """:meth:`Match.cards_in_play`."""
    total = [0] * NRANKS
    hands = m.round.hands if m.round is not None else m.hands
    for h in hands:
        for r in range(NRANKS):
            total[r] += h[r]
    pile = m.round.pile if m.round is not None else EMPTY
    for r in range(NRANKS):
        total[r] += pile[r] + m.laid_down[r]
    return tuple(total)


def public_view(m: Match) -> PublicView:
    """:meth:`Match.public_view`."""
    rnd = m.round
    hands = rnd.hands if rnd is not None else m.hands
    result = None
    if m.phase == P_OVER and m.last_result is not None and rnd is not None:
        r = m.last_result
        result = RoundResult(
            round_no=r["round"],
            places=tuple(r["places"]),
            scores=tuple(r["scores"]),
            circled=r["circled"],
            debts=tuple(rnd.debts()),
            waived=tuple(rnd.waived()),
        )
    cur = m.current_player
    q = stage.question(m, cur) if cur is not None and rnd is None else None
    ret = q if q is not None and q.kind == P_RETURN else None
    return PublicView(
        round_no=m.round_no,
        phase=public_phase(m),
        current=cur,
        leader=m.leader,
        free=rnd.free if rnd is not None else False,
        top=None if rnd is None else _shown_top(rnd.top),
        counts=tuple(n if (n := sum(h)) <= 10 else None for h in hands),
        places=tuple(m.places) if rnd is not None else (None,) * 6,
        opened=tuple(rnd.opened) if rnd is not None else tuple(m.natural),
        natural=tuple(m.natural),
        dead=tuple(rnd.dead) if rnd is not None else (),
        passed=tuple(rnd.bound) if rnd is not None and rnd.top is not None else (False,) * 6,
        out=tuple(rnd.out) if rnd is not None else (),
        burner=rnd.burner if rnd is not None else None,
        revolted=m.revolted,
        declared=tuple(rnd.declared) if rnd is not None else tuple(m.declared),
        totals=tuple(m.totals),
        team_totals=m.team_totals,
        returning=None if ret is None or ret.to is None else (ret.seat, ret.to, ret.n),
        result=result,
        yielder=rnd.yielder if rnd is not None else None,
        yield_back=rnd.yielder_back if rnd is not None else False,
        pile=tuple(rnd.pile) if rnd is not None else EMPTY,
        laid_down=tuple(m.laid_down),
        deck=cards_in_play(m),
        asked=stage.public(m) if rnd is None else (),
        answered=stage.answered(m),
    )


def public_phase(m: Match) -> Phase:
    """The match's phase as the table may see it: before the first lead, the kind of question of the current
    player as :func:`engine.stage.shown` shows it (his real one could tell a sealed answer)."""
    step = m.step
    if step != S_STAGE:
        return step
    cur = m.current_player
    q = None if cur is None else stage.question(m, cur)
    return P_DECLARE if q is None else stage.shown(m, q).kind


def _question_json(q: Question) -> dict[str, Any]:
    d: dict[str, Any] = {"seat": q.seat, "kind": q.kind}
    if q.kind == P_RETURN:
        d["n"], d["to"] = q.n, q.to
    return d


def match_observation(m: Match, seat: int) -> dict[str, Any]:
    """:meth:`Match.observation`."""
    q = stage.question(m, seat)
    obs: dict[str, Any] = {
        "seat": seat,
        "round": m.round_no,
        "deal": m.deal_no,
        "phase": public_phase(m) if q is None else q.kind,
        "leader": m.leader,
        "current": m.current_player,
        "hand": format_cards(m.hand(seat)),
        "natural": list(m.natural),
        "shown": list(m.shown),
        "revolted": m.revolted,
        "laid_down": format_cards(m.laid_down) if m.revolted is not None else None,
        "head": m.head,
        "declared": list(m.declared),
        "return_n": q.n if q is not None and q.kind == P_RETURN else 0,
        "asked": None if q is None else _question_json(q),
        "waiting": [_question_json(p) for p in stage.public(m)],
        "sealed": list(stage.sealed(m, seat)),
        "totals": list(m.totals),
        "team_totals": list(m.team_totals),
        "last_result": None if m.last_result is None else dict(m.last_result),
    }
    if m.round is not None:
        obs["play"] = round_observation(m.round, seat)
    return obs


def round_observation(rnd: Round, seat: int) -> dict[str, Any]:
    """:meth:`Round.observation`: his own hand; of the others only what the table shows (their card counts
    when 10 or fewer, 报户, else None)."""
    counts = [sum(h) for h in rnd.hands]
    top = rnd.top
    return {
        "seat": seat,
        "hand": format_cards(rnd.hands[seat]),
        "counts": [c if s == seat or c <= 10 else None for s, c in enumerate(counts)],
        "current": rnd.current_player,
        "top": None
        if top is None
        else {"owner": top.owner, "cards": format_cards(top.cards), "kind": top.kind},
        "passed": list(rnd.bound),
        "opened": list(rnd.opened),
        "natural": list(rnd.natural),
        "free": rnd.free,
        "places": rnd.places,
        "burner": rnd.burner,
        "over": rnd.over,
        "scores": rnd.scores(),
    }
