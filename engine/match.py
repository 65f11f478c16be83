"""A whole match (R1, R5.6, R8.2, R9, R10, R11.2) as one state machine in the manner of OpenSpiel:
``current_player``, ``legal_actions()``, ``apply(action)`` returning the events it caused, ``observation(seat)``,
``to_json()``/``from_json()``, and rebuildable from its seed and action log (:meth:`Match.replay`).

A round goes: deal (R1.3–R1.5, 自然点 R5.2) → 买三/买四 (R8.2, automatic) → tribute of the previous round's
debts (R10, automatic, shown to the table) → 还贡 (R10.6, chosen) → 革命 (R9.1, each eligible seat decides;
two or more redeal, R9.2) → 要头/无头 (R9.4) → 宣点 (R5.6) → the :class:`Round` from the first lead. After the
round the match waits in phase ``over`` until :meth:`next_round` (the table may stop there, R11.2).

Decisions before the first lead are :class:`Action` values with kinds of their own, in the same notation:
``return CARDS``, ``revolt``, ``no_revolt``, ``yaotou``, ``wutou``, ``declare``, ``no_declare``.
:func:`parse_action` reads them (and Chinese words for them); ``str()`` writes them back.

Events of the match, besides the round's: dealt (seat = leader, n = round), redeal (n = deal number), natural
(自然点), bought_three / bought_four (seat bought from ``other``, cards = what he paid, None if free),
kang_gong (cards shown, n = 3 for the team, 1 for himself), tribute_quan/dian/shao/men/luo (seat paid
``other`` the cards, n = how many), returned (还贡: seat gave ``other`` the cards), revolt / no_revolt,
laid_down (the revolutionary's hand), yaotou / wutou, declared / no_declare, scored (n = round).
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import Any

from .actions import BURN, BURN_WORDS, PASS, PLAY, YIELD, Action
from .cards import BIG, EMPTY, FOUR, NRANKS, SMALL, TWO, Counts, format_cards, parse_cards
from .deal import buy_all, deal
from .events import Event
from .refusals import Refusal, missing
from .round import NORMAL, PLACE_POINTS, Debt, IllegalAction, Round, Top, _parse_debt, opposite
from .rules import Rules
from .tribute import Returned, pay

RETURN, REVOLT, NO_REVOLT, YAOTOU, WUTOU, DECLARE, NO_DECLARE = (
    "return",
    "revolt",
    "no_revolt",
    "yaotou",
    "wutou",
    "declare",
    "no_declare",
)
ROUND_KINDS = (PLAY, BURN, PASS, YIELD)
# A pass tells little of the hand of a seat this short, or on the play of an owner this near going out
# (Tally.note_pass): gouji-sim, 200 duplicate rounds, the strong level reading passes there too: +2.90
# against +3.80.
NEAR_OUT = 6
SHORT_HAND = 8

# Phases of a match round; PLAY runs the Round, OVER waits for next_round().
P_RETURN, P_REVOLT, P_HEAD, P_DECLARE, P_PLAY, P_OVER = "return", "revolt", "head", "declare", "play", "over"

_WORDS = {
    REVOLT: REVOLT,
    "革命": REVOLT,
    NO_REVOLT: NO_REVOLT,
    "不革命": NO_REVOLT,
    YAOTOU: YAOTOU,
    "要头": YAOTOU,
    WUTOU: WUTOU,
    "无头": WUTOU,
    DECLARE: DECLARE,
    "宣点": DECLARE,
    NO_DECLARE: NO_DECLARE,
    "不宣": NO_DECLARE,
    "不宣点": NO_DECLARE,
}


def parse_action(text: str) -> Action:
    """Any match action in notation: the round's (``play TTTT2``, ``pass`` …) and the decisions before the
    first lead (``return 34``, ``revolt``, ``yaotou`` …, or 还贡 34, 革命, 要头 …). Raises ValueError."""
    words = text.strip().split(None, 1)
    if words and words[0].lower() in _WORDS and len(words) == 1:
        return Action(_WORDS[words[0].lower()])
    if words and words[0].lower() in (RETURN, "还", "还贡") and len(words) == 2:
        return Action(RETURN, parse_cards(words[1]))
    return Action.parse(text)


def parse_typed(text: str) -> Action:
    """What a player types (R2.2): any action of :func:`parse_action`, or cards alone for a play (``TTTT2``,
    ``888 B``), and ``烧KKK`` without a space. Raises ValueError (a CardError is one)."""
    text = text.strip()
    low = text.lower()
    for word in BURN_WORDS:
        if low.startswith(word) and len(text) > len(word) and not text[len(word)].isspace():
            return Action(BURN, parse_cards(text[len(word) :]))
    try:
        return parse_action(text)
    except ValueError:
        cards = parse_cards(text)
        if not sum(cards):
            raise ValueError("no cards") from None
        return Action(PLAY, cards)


@dataclass(frozen=True, slots=True)
class SeatView:
    """What a player at ``seat`` knows: his own hand and what the table shows; never another hand.

    Computer players decide on this alone."""

    seat: int
    phase: str
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
class Declined:
    """A seat passed on an opponent's play that was not gouji (R4.2): what the table saw then. A player who
    holds a cheap answer usually plays it, so a pass tells something of the hand."""

    top: Counts  # the play passed on
    owner_count: int | None  # its owner's cards then, when the table showed them (报户, 10 or fewer)
    count: int  # the seat's own cards then (counted)
    free: bool  # 四户乱缠 then
    opened: bool  # the seat had opened (开点) then
    played: Counts  # what the seat had played this round until then

    def text(self) -> str:
        """One word per field, as the Tally keeps it: ``"77 - 21 01 JJJ3"``."""
        owner = "-" if self.owner_count is None else str(self.owner_count)
        flags = f"{int(self.free)}{int(self.opened)}"
        return f"{format_cards(self.top)} {owner} {self.count} {flags} {format_cards(self.played)}"

    @classmethod
    def parse(cls, text: str) -> Declined:
        top, owner, count, flags, played = text.split(" ")
        return cls(
            _cards(top),
            None if owner == "-" else int(owner),
            int(count),
            flags[0] == "1",
            flags[1] == "1",
            _cards(played),
        )


def _cards(text: str) -> Counts:
    return EMPTY if text == "-" else parse_cards(text)


class Tally:
    """The public record of a round's plays, per seat (SeatView's ``played``, ``plain``, ``padded``,
    ``declined``): the table saw each of them, so a player who counts knows it. Kept by the Match, not by the
    Round, so that the search's rollouts (thousands of Round copies a decision) do not carry it.

    The passes are kept as text (:meth:`Declined.text`) and only those that can tell something: the record is
    written with the match at every move, and as objects it had made a move cost 30% more by the end of a
    round (benches.long_match: 3.7 ms a move and 2.4 KiB stored before it, 4.8 ms and 8.3 KiB with it)."""

    __slots__ = ("declined", "padded", "plain", "played")

    def __init__(self) -> None:
        self.played = [_empty() for _ in range(6)]
        self.plain = [0] * 6
        self.padded = [0] * 6
        self.declined: list[list[str]] = [[] for _ in range(6)]  # Declined.text()

    def note(self, seat: int, cards: Counts, lead: bool) -> None:
        played = self.played[seat]
        for r, n in enumerate(cards):
            played[r] += n
        base = next((r for r in range(TWO) if cards[r]), None)
        if base is None:
            return
        if cards[TWO] or cards[SMALL] or cards[BIG]:
            self.padded[seat] |= 1 << base
        elif lead:
            self.plain[seat] |= 1 << base

    def note_pass(self, rnd: Round, seat: int) -> None:
        """A pass by ``seat`` on the top play of ``rnd`` (before it is applied). Not kept when it tells little
        of his hand: on a teammate's play, a gouji or a play with jokers (answered only by spending big
        cards), on the play of an owner near going out (6 cards or fewer: any answer is worth its cost), by a
        seat with 8 cards or fewer (his last plays are planned), in 四户乱缠 (R6)."""
        top = rnd.top
        if (
            top is None
            or top.kind != NORMAL
            or top.owner % 2 == seat % 2
            or top.cards[SMALL]
            or top.cards[BIG]
            or rnd.free
        ):
            return
        n, count = sum(rnd.hands[top.owner]), sum(rnd.hands[seat])
        if n <= NEAR_OUT or count <= SHORT_HAND:
            return
        owner = n if n <= 10 else None
        d = Declined(top.cards, owner, count, False, rnd.opened[seat], tuple(self.played[seat]))
        self.declined[seat].append(d.text())

    def to_json(self) -> dict[str, Any]:
        return {
            "played": [format_cards(h) for h in self.played],
            "plain": self.plain,
            "padded": self.padded,
            "declined": [list(ds) for ds in self.declined],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any] | None) -> Tally:
        t = cls()
        if d:
            t.played = [list(_cards(h)) for h in d["played"]]
            t.plain, t.padded = list(d["plain"]), list(d["padded"])
            t.declined = [
                # States saved before the passes were kept as text hold them as lists of fields.
                [
                    x if isinstance(x, str) else Declined(_cards(x[0]), *x[1:5], _cards(x[5])).text()
                    for x in ds
                ]
                for ds in d.get("declined", [])
            ] or [[] for _ in range(6)]
        return t


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round as the table announces it (R7, R10, R11.1)."""

    round_no: int
    places: tuple[int, ...]  # seats by place, 头科 first
    scores: tuple[int, ...]  # per seat
    circled: bool  # 串三户 (R7.4)
    debts: tuple[Debt, ...]  # tribute owed before the next round's first lead


@dataclass(frozen=True, slots=True)
class PublicView:
    """What the whole table sees, the same for everyone: what a group message may show. No hand is here,
    and others' card counts only as 报户 shows them (10 or fewer)."""

    round_no: int
    phase: str
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
    returning: tuple[int, int, int] | None  # 还贡 being chosen: (receiver, payer, cards)
    result: RoundResult | None  # once the round is over
    yielder: int | None = None  # who yielded (让牌, R4.4) on the play on the table
    yield_back: bool = False  # both after him passed: the decision is back with the yielder
    pile: Counts = EMPTY  # every card played this round (all were shown): what card memory (记牌) counts
    laid_down: Counts = EMPTY  # a revolutionary's hand, laid down for all to see (R9.3)
    deck: Counts = EMPTY  # every card of the match's deck

    @property
    def round_over(self) -> bool:
        return self.phase == P_OVER


def _one(rank: int) -> Counts:
    c = [0] * NRANKS
    c[rank] = 1
    return tuple(c)


def _empty() -> list[int]:
    return [0] * NRANKS


class Match:
    """A match among six seats from a seed. Construct with ``Match(rules, seed)``: round 1 is dealt at once."""

    def __init__(self, rules: Rules, seed: int, _deal: bool = True) -> None:
        self.rules = rules
        self.seed = seed
        self.round_no = 1
        self.deal_no = 0
        self.leader: int | None = None
        self.debts: list[Debt] = []  # owed from the previous round, paid before this one's first lead
        self.phase = P_OVER
        self.hands: list[list[int]] = [_empty() for _ in range(6)]
        self.dealt: list[list[int]] = [_empty() for _ in range(6)]
        self.natural_cards: list[list[int]] = [_empty() for _ in range(6)]
        self.natural = [False] * 6
        self.pending: list[int] = []  # seats still to decide in this phase, the first is to act
        self.returns: list[Returned] = []
        self.revolters: list[int] = []
        self.revolted: int | None = None
        self.laid_down: list[int] = _empty()
        self.head: str | None = None  # YAOTOU or WUTOU
        self.declared = [False] * 6
        self.round: Round | None = None
        self.tally = Tally()  # the public record of this round's plays
        self.shown: list[dict[str, Any]] = []  # public events of this round before the first lead
        self.totals = [0] * 6
        # Only the last round's result: the earlier ones are in the table's log and its rounds, and a state
        # that grew with every round made every move of a long match dearer (issue 12: 259 KB and 10.7 ms
        # per move in round 100, against 4.8 KB and 1.7 ms in round 1).
        self.last_result: dict[str, Any] | None = None
        if _deal:
            self._start_deal([])

    # ----------------------------------------------------------------- queries

    @property
    def current_player(self) -> int | None:
        if self.phase == P_PLAY:
            assert self.round is not None
            return self.round.current_player
        if self.phase == P_OVER:
            return None
        return self.pending[0]

    @property
    def round_over(self) -> bool:
        return self.phase == P_OVER

    parse_action = staticmethod(parse_action)

    # The aggregate's shape as storage and the bot see it (the same as Round's): a round is "over" until
    # next_round() deals the next one; places and scores are the current round's.
    @classmethod
    def deal(cls, rules: Rules, seed: int) -> Match:
        return cls(rules, seed)

    @classmethod
    def start(cls, rules: Rules, seed: int) -> tuple[Match, list[Event]]:
        """A new match with round 1 dealt, and the deal's events (dealt, 自然点, 买三 …) for the table."""
        m = cls(rules, seed, _deal=False)
        return m, m._start_deal([])

    @property
    def is_over(self) -> bool:
        return self.phase == P_OVER

    @property
    def places(self) -> list[int | None]:
        if self.round is None:
            return [None] * 6
        return list(final_places(self.round)) if self.round.over else self.round.places

    def scores(self) -> list[int] | None:
        return self.last_result["scores"] if self.phase == P_OVER and self.last_result else None

    @property
    def team_totals(self) -> tuple[int, int]:
        """R11.2: seats 0,2,4 and seats 1,3,5."""
        return (sum(self.totals[0::2]), sum(self.totals[1::2]))

    def hand(self, seat: int) -> Counts:
        if self.round is not None:
            return tuple(self.round.hands[seat])
        return tuple(self.hands[seat])

    def legal_actions(self) -> list[Action]:
        """The seat to act's choices. While playing, exactly :meth:`Round.legal_actions` (plain leads when
        leading; every answer when answering); a composed lead is judged by :meth:`is_legal`."""
        s = self.current_player
        if s is None:
            return []
        if self.phase == P_PLAY:
            assert self.round is not None
            return self.round.legal_actions()
        if self.phase == P_RETURN:
            return [Action(RETURN, c) for c in _multisets(self.hands[s], self.returns[0].n)]
        if self.phase == P_REVOLT:
            return [Action(NO_REVOLT), Action(REVOLT)]
        if self.phase == P_HEAD:
            return [Action(YAOTOU), Action(WUTOU)]
        return [Action(NO_DECLARE), Action(DECLARE)]

    def is_legal(self, action: Action) -> bool:
        return self.illegal_reason(action) is None

    def illegal_reason(self, action: Action) -> Refusal | None:
        s = self.current_player
        if s is None:
            return (
                Refusal("over", "nobody is to act: the round is over")
                if self.phase == P_OVER
                else Refusal("nobody", "nobody is to act")
            )
        if self.phase == P_PLAY:
            if action.kind not in ROUND_KINDS:
                return Refusal("not_an_action", f"{action.kind} is not a move of the play")
            assert self.round is not None
            return self.round.illegal_reason(action)
        if self.phase == P_RETURN:
            if action.kind != RETURN or action.cards is None or len(action.cards) != NRANKS:
                return Refusal(
                    "give_back", f"give back {self.returns[0].n} cards (还贡)", n=self.returns[0].n
                )
            if sum(action.cards) != self.returns[0].n:
                return Refusal(
                    "give_back", f"give back exactly {self.returns[0].n} cards (还贡)", n=self.returns[0].n
                )
            if any(h < c for h, c in zip(self.hands[s], action.cards, strict=True)):
                return Refusal(
                    "not_held",
                    f"you do not hold {format_cards(action.cards)}",
                    cards=action.cards,
                    missing=missing(self.hands[s], action.cards),
                )
            return None
        allowed = {P_REVOLT: (REVOLT, NO_REVOLT), P_HEAD: (YAOTOU, WUTOU), P_DECLARE: (DECLARE, NO_DECLARE)}
        if action.kind not in allowed[self.phase] or action.cards is not None:
            return Refusal(
                "choose", "choose " + " or ".join(allowed[self.phase]), options=allowed[self.phase]
            )
        return None

    # ----------------------------------------------------------------- applying

    def apply(self, action: Action) -> list[Event]:
        """Apply the action of the seat to act; raise IllegalAction (changing nothing) when it is not legal."""
        reason = self.illegal_reason(action)
        if reason is not None:
            raise IllegalAction(reason)
        s = self.current_player
        assert s is not None
        if self.phase == P_PLAY:
            assert self.round is not None
            lead = self.round.top is None
            if action.kind == PASS:
                self.tally.note_pass(self.round, s)
            events = self.round.apply(action)
            if action.cards is not None:
                self.tally.note(s, action.cards, lead)
            for e in events:
                if e.kind == "discarded_fours" and e.seat is not None and e.n:
                    self.tally.played[e.seat][FOUR] += e.n  # R5.4: thrown away, shown to the table
            if self.round.over:
                events += self._finish_round()
            return events
        events: list[Event] = []
        if self.phase == P_RETURN:
            assert action.cards is not None
            ret = self.returns.pop(0)
            for r, n in enumerate(action.cards):
                if n:
                    self.hands[s][r] -= n
                    self.hands[ret.payer][r] += n
                    self.natural_cards[s][r] = min(self.natural_cards[s][r], self.hands[s][r])
            events.append(self._show(Event("returned", s, action.cards, other=ret.payer, n=ret.n)))
            self.pending.pop(0)
            if not self.pending:
                events += self._start_revolt()
        elif self.phase == P_REVOLT:
            if action.kind == REVOLT:
                self.revolters.append(s)
            events.append(self._show(Event(action.kind, s)))
            self.pending.pop(0)
            if not self.pending:
                events += self._after_revolt()
        elif self.phase == P_HEAD:
            self.head = action.kind
            events.append(self._show(Event(action.kind, s)))
            self.pending.pop(0)
            events += self._start_declare()
        else:
            self.declared[s] = action.kind == DECLARE
            events.append(self._show(Event("declared" if action.kind == DECLARE else NO_DECLARE, s)))
            self.pending.pop(0)
            if not self.pending:
                events += self._start_play()
        return events

    def next_round(self) -> list[Event]:
        """Deal the next round: the previous 大落 leads (R1.4); its debts are paid first (R10)."""
        if self.phase != P_OVER or self.round is None:
            raise IllegalAction("the round is not over")
        rnd = self.round
        debts = rnd.debts()
        leader = rnd.places[5]
        self.round_no += 1
        self.deal_no = 0
        self.leader = leader
        return self._start_deal(debts)

    @classmethod
    def from_round(cls, rnd: Round, seed: int = 0) -> Match:
        """A match whose current round is ``rnd`` already in play (a set position: practice, tests)."""
        m = cls(rnd.rules, seed, _deal=False)
        m.round = rnd
        m.leader = rnd.current_player
        m.natural = list(rnd.natural)
        m.phase = P_OVER if rnd.over else P_PLAY
        return m

    @classmethod
    def replay(cls, rules: Rules, seed: int, log: list[str]) -> Match:
        """Rebuild a match from its seed and action log (``next`` marks :meth:`next_round`)."""
        m = cls(rules, seed)
        for text in log:
            if text == "next":
                m.next_round()
            else:
                m.apply(parse_action(text))
        return m

    # ----------------------------------------------------------------- phases

    def _show(self, e: Event) -> Event:
        self.shown.append(e.to_dict())
        return e

    def _reset_deal(self) -> None:
        self.pending, self.returns, self.revolters = [], [], []
        self.revolted, self.head = None, None
        self.laid_down = _empty()
        self.declared = [False] * 6
        self.round = None
        self.tally = Tally()
        self.shown = []

    def _start_deal(self, debts: list[Debt]) -> list[Event]:
        self._reset_deal()
        self.debts = list(debts)
        d = deal(self.rules, self.seed, self.round_no, self.deal_no, self.leader)
        self.leader = d.leader
        self.hands, self.natural_cards, self.natural = d.hands, d.natural_cards, d.natural
        self.dealt = [list(h) for h in d.hands]
        events = [self._show(Event("dealt", d.leader, n=self.round_no))]
        if self.deal_no:
            events.append(self._show(Event("redeal", n=self.deal_no)))
        events += [self._show(Event("natural", s)) for s in range(6) if d.natural[s]]
        events += [self._show(e) for e in buy_all(self.rules, d)]
        if debts:
            paid, self.returns = pay(self.rules, debts, self.hands, self.natural_cards, self.dealt)
            events += [self._show(e) for e in paid]
        if self.returns:
            self.phase = P_RETURN
            self.pending = [r.receiver for r in self.returns]
            return events
        return events + self._start_revolt()

    def _start_revolt(self) -> list[Event]:
        """R9.1: after tribute and 买三, each seat without jokers and 2s may declare, in turn from the leader."""
        assert self.leader is not None
        order = [(self.leader + i) % 6 for i in range(6)]
        self.pending = [
            s for s in order if not (self.hands[s][TWO] or self.hands[s][SMALL] or self.hands[s][BIG])
        ]
        if self.pending:
            self.phase = P_REVOLT
            return []
        return self._after_revolt()

    def _after_revolt(self) -> list[Event]:
        if len(self.revolters) >= 2:
            # R9.2: the deal is void; deal again, the same debts to pay and the same leader.
            self.deal_no += 1
            return self._start_deal(self.debts)
        if self.revolters:
            r = self.revolters[0]
            self.revolted = r
            self.laid_down = self.hands[r]  # R9.3: he lays his hand down and drops out
            self.hands[r] = _empty()
            self.natural_cards[r] = _empty()
            self.phase = P_HEAD
            self.pending = [opposite(r)]
            return [self._show(Event("laid_down", r, tuple(self.laid_down)))]
        return self._start_declare()

    def _start_declare(self) -> list[Event]:
        """R5.6: each seat may declare against his 对头 (not the revolutionary and his 对头: see decisions)."""
        if self.rules.xuan_dian_active:
            assert self.leader is not None
            skip = set() if self.revolted is None else {self.revolted, opposite(self.revolted)}
            self.pending = [(self.leader + i) % 6 for i in range(6) if (self.leader + i) % 6 not in skip]
            self.phase = P_DECLARE
            return []
        return self._start_play()

    def _start_play(self) -> list[Event]:
        assert self.leader is not None
        leader = self.leader
        if leader == self.revolted:
            leader = (leader + 1) % 6  # the revolutionary cannot lead; the next seat does
        rnd = Round(self.rules, self.hands, leader)
        rnd.natural = list(self.natural)
        rnd.opened = list(self.natural)
        rnd.declared = list(self.declared)
        r = self.revolted
        if r is not None:
            rnd.revolted = r
            rnd.opened[r] = False  # R9.3
            o = opposite(r)
            rnd.opened[o] = True  # R9.4
            if self.head == YAOTOU:
                rnd.gousi_left[o] = 3
        rnd.free = rnd.free_due()  # as Round.from_position does (zhangqiu counts the revolutionary, R1.5)
        self.round = rnd
        self.hands = [_empty() for _ in range(6)]  # the Round holds the hands from now on
        self.pending = []
        self.phase = P_PLAY
        return []

    def _finish_round(self) -> list[Event]:
        rnd = self.round
        assert rnd is not None
        places = final_places(rnd)
        factor = 2 if None not in places[:3] and places[0] % 2 == places[1] % 2 == places[2] % 2 else 1
        scores = [0] * 6
        for i, seat in enumerate(places):
            scores[seat] = PLACE_POINTS[i] * factor
        for s in range(6):
            self.totals[s] += scores[s]
        self.last_result = {
            "round": self.round_no,
            "places": places,
            "scores": scores,
            "circled": factor == 2,
            "revolted": self.revolted,
        }
        self.phase = P_OVER
        return [Event("scored", n=self.round_no)]

    # ----------------------------------------------------------------- views

    def cards_in_play(self) -> Counts:
        """Every card of the match's deck where it is now: hands, the round's pile and laid-down hands."""
        total = [0] * NRANKS
        hands = self.round.hands if self.round is not None else self.hands
        for h in hands:
            for r in range(NRANKS):
                total[r] += h[r]
        pile = self.round.pile if self.round is not None else EMPTY
        for r in range(NRANKS):
            total[r] += pile[r] + self.laid_down[r]
        return tuple(total)

    def view(self, seat: int) -> SeatView:
        rnd = self.round
        hands = rnd.hands if rnd is not None else self.hands
        common = {
            "seat": seat,
            "phase": self.phase,
            "rules": self.rules,
            "hand": tuple(hands[seat]),
            "leader": self.leader or 0,
            "counts": tuple(sum(h) if (s == seat or sum(h) <= 10) else None for s, h in enumerate(hands)),
            "totals": tuple(self.totals),
            "sizes": tuple(sum(h) for h in hands),
            "played": tuple(tuple(p) for p in self.tally.played),
            "plain": tuple(self.tally.plain),
            "padded": tuple(self.tally.padded),
            "declined": tuple(tuple(Declined.parse(x) for x in ds) for ds in self.tally.declined),
            "received": self._received(),
            "laid_down": tuple(self.laid_down),
        }
        if rnd is None:
            return SeatView(
                **common,
                top=None,
                passed=(False,) * 6,
                opened=tuple(self.natural),
                out=(),
                dead=(),
                free=False,
                burner=None,
                revolted=self.revolted,
                gousi_left=(0,) * 6,
                declared=tuple(self.declared),
                pile=EMPTY,
                return_n=self.returns[0].n if self.phase == P_RETURN and self.pending[0] == seat else 0,
            )
        top = rnd.top
        if top is not None:
            top = Top(top.owner, top.cards, top.kind, False)  # whether the owner holds only 3s is not shown
        return SeatView(
            **common,
            top=top,
            passed=tuple(rnd.bound),
            opened=tuple(rnd.opened),
            out=tuple(rnd.out),
            dead=tuple(d for d, _ in rnd.dead),
            free=rnd.free,
            burner=rnd.burner,
            revolted=rnd.revolted,
            gousi_left=tuple(rnd.gousi_left),
            declared=tuple(rnd.declared),
            pile=tuple(rnd.pile),
            return_n=0,
        )

    def _received(self) -> tuple[Counts, ...]:
        """The cards each seat received before this round's first lead and still had at its start, as the table
        was shown them: tribute (R10), 还贡 (R10.6), the 3 or 4 bought and the card paid for it (R8.2); what he
        passed on (a 还贡 of a card just received) is taken off again."""
        got = [_empty() for _ in range(6)]

        def move(cards: Counts, giver: int | None, taker: int | None) -> None:
            for r, n in enumerate(cards):
                if taker is not None:
                    got[taker][r] += n
                if giver is not None:
                    got[giver][r] = max(0, got[giver][r] - n)

        for e in self.shown:
            kind, seat, other = e["kind"], e.get("seat"), e.get("other")
            cards = parse_cards(e["cards"]) if e.get("cards") else None
            if kind.startswith("tribute_") or kind == "returned":
                if cards is not None:
                    move(cards, seat, other)
            elif kind in ("bought_three", "bought_four") and seat is not None:
                move(_one(0 if kind == "bought_three" else FOUR), other, seat)
                if cards is not None:
                    move(cards, seat, other)
        return tuple(tuple(g) for g in got)

    def public_view(self) -> PublicView:
        rnd = self.round
        hands = rnd.hands if rnd is not None else self.hands
        top = (
            None if rnd is None or rnd.top is None else Top(rnd.top.owner, rnd.top.cards, rnd.top.kind, False)
        )
        result = None
        if self.phase == P_OVER and self.last_result is not None and rnd is not None:
            r = self.last_result
            result = RoundResult(
                round_no=r["round"],
                places=tuple(r["places"]),
                scores=tuple(r["scores"]),
                circled=r["circled"],
                debts=tuple(rnd.debts()),
            )
        ret = self.returns[0] if self.phase == P_RETURN and self.returns else None
        return PublicView(
            round_no=self.round_no,
            phase=self.phase,
            current=self.current_player,
            leader=self.leader,
            free=rnd.free if rnd is not None else False,
            top=top,
            counts=tuple(n if (n := sum(h)) <= 10 else None for h in hands),
            places=tuple(self.places) if rnd is not None else (None,) * 6,
            opened=tuple(rnd.opened) if rnd is not None else tuple(self.natural),
            natural=tuple(self.natural),
            dead=tuple(rnd.dead) if rnd is not None else (),
            passed=tuple(rnd.bound) if rnd is not None and rnd.top is not None else (False,) * 6,
            out=tuple(rnd.out) if rnd is not None else (),
            burner=rnd.burner if rnd is not None else None,
            revolted=self.revolted,
            declared=tuple(rnd.declared) if rnd is not None else tuple(self.declared),
            totals=tuple(self.totals),
            team_totals=self.team_totals,
            returning=None if ret is None else (ret.receiver, ret.payer, ret.n),
            result=result,
            yielder=rnd.yielder if rnd is not None else None,
            yield_back=rnd.yielder_back if rnd is not None else False,
            pile=tuple(rnd.pile) if rnd is not None else EMPTY,
            laid_down=tuple(self.laid_down),
            deck=self.cards_in_play(),
        )

    def only_pass(self) -> bool:
        """R4.3: the seat to act may only pass (the table passes for him: 要不起)."""
        return self.phase == P_PLAY and self.round is not None and self.round.only_pass()

    def copy(self) -> Match:
        """An independent copy (a use case changes its copy, never the state it read)."""
        return pickle.loads(pickle.dumps(self, pickle.HIGHEST_PROTOCOL))

    def observation(self, seat: int) -> dict[str, Any]:
        """What the player at ``seat`` may see, as plain JSON values: his hand, and only what the table shows."""
        obs: dict[str, Any] = {
            "seat": seat,
            "round": self.round_no,
            "deal": self.deal_no,
            "phase": self.phase,
            "leader": self.leader,
            "current": self.current_player,
            "hand": format_cards(self.hand(seat)),
            "natural": list(self.natural),
            "shown": list(self.shown),
            "revolted": self.revolted,
            "laid_down": format_cards(self.laid_down) if self.revolted is not None else None,
            "head": self.head,
            "declared": list(self.declared),
            "return_n": self.returns[0].n if self.phase == P_RETURN and self.pending[0] == seat else 0,
            "totals": list(self.totals),
            "team_totals": list(self.team_totals),
            "last_result": None if self.last_result is None else dict(self.last_result),
        }
        if self.round is not None:
            obs["play"] = self.round.observation(seat)
        return obs

    # ----------------------------------------------------------------- values

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "round_no": self.round_no,
            "deal_no": self.deal_no,
            "leader": self.leader,
            "debts": [str(d) for d in self.debts],
            "phase": self.phase,
            "hands": [format_cards(h) for h in self.hands],
            "dealt": [format_cards(h) for h in self.dealt],
            "natural_cards": [format_cards(h) for h in self.natural_cards],
            "natural": list(self.natural),
            "pending": list(self.pending),
            "returns": [[r.receiver, r.payer, r.n] for r in self.returns],
            "revolters": list(self.revolters),
            "revolted": self.revolted,
            "laid_down": format_cards(self.laid_down),
            "head": self.head,
            "declared": list(self.declared),
            "round": None if self.round is None else self.round.to_json(),
            "tally": self.tally.to_json(),
            "shown": [dict(e) for e in self.shown],
            "totals": list(self.totals),
            "last_result": self.last_result,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Match:
        def cards(text: str) -> list[int]:
            return _empty() if text == "-" else list(parse_cards(text))

        m = cls(Rules.from_dict(d["rules"]), d["seed"], _deal=False)
        m.round_no, m.deal_no, m.leader = d["round_no"], d["deal_no"], d["leader"]
        m.debts = [_parse_debt(x) for x in d["debts"]]
        m.phase = d["phase"]
        m.hands = [cards(h) for h in d["hands"]]
        m.dealt = [cards(h) for h in d["dealt"]]
        m.natural_cards = [cards(h) for h in d["natural_cards"]]
        m.natural = list(d["natural"])
        m.pending = list(d["pending"])
        m.returns = [Returned(a, b, n) for a, b, n in d["returns"]]
        m.revolters = list(d["revolters"])
        m.revolted = d["revolted"]
        m.laid_down = cards(d["laid_down"])
        m.head = d["head"]
        m.declared = list(d["declared"])
        m.round = None if d["round"] is None else Round.from_json(d["round"])
        m.tally = Tally.from_json(d.get("tally"))  # states saved before it: an empty record
        m.shown = [dict(e) for e in d["shown"]]
        m.totals = list(d["totals"])
        # States saved before the last result replaced the whole list (and the log) still load.
        last = d.get("last_result", (d.get("results") or [None])[-1])
        m.last_result = None if last is None else dict(last)
        return m

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Match) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"<Match round={self.round_no} phase={self.phase} current={self.current_player}>"


def final_places(rnd: Round) -> list[int]:
    """The places of a finished round (R7.1, R7.3, R9.3).

    Works around Round.places, which lets a third 闷/烧糊 seat overwrite the revolutionary's 四科 slot and
    leaves a None: the revolutionary keeps his slot and everyone below it moves down one.
    """
    places = rnd.places
    if None not in places:
        return list(places)  # type: ignore[arg-type]
    r = rnd.revolted
    assert r is not None
    out = rnd.out
    rpos = 2 if len(out) >= 2 and out[0] % 2 == out[1] % 2 == r % 2 else 3
    placed = [s for s in places if s is not None and s != r]
    seen = set(placed) | {r}
    placed += [s for s in range(6) if s not in seen]
    placed.insert(rpos, r)
    return placed


def _multisets(hand: list[int], n: int) -> list[Counts]:
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


__all__ = [
    "Match",
    "SeatView",
    "PublicView",
    "RoundResult",
    "parse_action",
    "parse_typed",
    "P_RETURN",
    "P_REVOLT",
    "P_HEAD",
    "P_DECLARE",
    "P_PLAY",
    "P_OVER",
]
