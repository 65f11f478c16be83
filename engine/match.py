"""A whole match (R1, R5.6, R8.2, R9, R10, R11.2) as one state machine in the manner of OpenSpiel:
``current_player``, ``legal_actions()``, ``apply(action)`` returning the events it caused, ``observation(seat)``,
``to_json()``/``from_json()``, and rebuildable from its seed and action log (:meth:`Match.replay`).

A round goes: deal (R1.3–R1.5, 自然点 R5.2) → 买三/买四 (R8.2, automatic) → tribute of the previous round's
debts (R10, automatic, shown to the table) → 还贡 (R10.6, chosen) → 革命 (R9.1, each eligible seat decides;
two or more redeal, R9.2) → 要头/无头 (R9.4) → 宣点 (R5.6) → the :class:`Round` from the first lead. After the
round the match waits in phase ``over`` until :meth:`next_round` (the table may stop there, R11.2).

Decisions before the first lead are :class:`Action` values with kinds of their own, in the same notation:
``return CARDS``, ``revolt``, ``no_revolt``, ``yaotou``, ``wutou``, ``declare``, ``no_declare``.
:func:`~engine.notation.parse_action` reads them (and Chinese words for them); ``str()`` writes them back.

Events of the match, besides the round's: dealt (seat = leader, n = round), redeal (n = deal number), natural
(自然点), bought_three / bought_four (seat bought from ``other``, cards = what he paid, None if free),
kang_gong (cards shown, n = 3 for the team, 1 for himself), tribute_quan/dian/shao/men/luo (seat paid
``other`` the cards, n = how many), returned (还贡: seat gave ``other`` the cards), revolt / no_revolt,
laid_down (the revolutionary's hand), yaotou / wutou, declared / no_declare, scored (n = round).

Beside it: what each reader sees (engine/views.py), the public record of the plays (engine/tally.py), the
notation (engine/notation.py), the deal (engine/deal.py), the tribute (engine/tribute.py) and the JSON form
(engine/snapshot.py).
"""

from __future__ import annotations

import pickle
from itertools import combinations_with_replacement
from typing import Any

from . import snapshot, views
from .actions import (
    BURN,
    DECLARE,
    NO_DECLARE,
    NO_REVOLT,
    PASS,
    PLAY,
    RETURN,
    REVOLT,
    WUTOU,
    YAOTOU,
    YIELD,
    Action,
    ActionKind,
    Head,
)
from .cards import BIG, FOUR, NRANKS, SMALL, TWO, Counts, format_cards
from .deal import buy_all, deal
from .events import Event
from .notation import parse_action, parse_typed
from .phases import P_DECLARE, P_HEAD, P_OVER, P_PLAY, P_RETURN, P_REVOLT, Phase
from .refusals import IllegalAction, Refusal, missing
from .round import Round
from .rules import Rules
from .seats import opposite
from .tally import Tally
from .tribute import Debt, Returned, pay
from .views import Declined, PublicView, RoundResult, SeatView

ROUND_KINDS = (PLAY, BURN, PASS, YIELD)
# The decisions open in each phase before the first lead.
_CHOICES: dict[Phase, tuple[ActionKind, ActionKind]] = {
    P_REVOLT: (REVOLT, NO_REVOLT),
    P_HEAD: (YAOTOU, WUTOU),
    P_DECLARE: (DECLARE, NO_DECLARE),
}


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
        self.phase: Phase = P_OVER
        self.hands: list[list[int]] = [_empty() for _ in range(6)]
        self.dealt: list[list[int]] = [_empty() for _ in range(6)]
        self.natural_cards: list[list[int]] = [_empty() for _ in range(6)]
        self.natural = [False] * 6
        self.pending: list[int] = []  # seats still to decide in this phase, the first is to act
        self.returns: list[Returned] = []
        self.revolters: list[int] = []
        self.revolted: int | None = None
        self.laid_down: list[int] = _empty()
        self.head: Head | None = None
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
        """The current round's seats by place, as far as decided (Round.places)."""
        return [None] * 6 if self.round is None else self.round.places

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
        allowed = _CHOICES[self.phase]
        if action.kind not in allowed or action.cards is not None:
            return Refusal("choose", "choose " + " or ".join(allowed), options=allowed)
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
        events = []
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
            revolt = action.kind == REVOLT
            if revolt:
                self.revolters.append(s)
            events.append(self._show(Event(REVOLT if revolt else NO_REVOLT, s)))
            self.pending.pop(0)
            if not self.pending:
                events += self._after_revolt()
        elif self.phase == P_HEAD:
            self.head = YAOTOU if action.kind == YAOTOU else WUTOU
            events.append(self._show(Event(self.head, s)))
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
        leader = rnd.final_places()[5]
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
        scores = rnd.scores()
        assert scores is not None
        for s in range(6):
            self.totals[s] += scores[s]
        self.last_result = {
            "round": self.round_no,
            "places": rnd.final_places(),
            "scores": scores,
            "circled": rnd.circled(),
            "revolted": self.revolted,
        }
        self.phase = P_OVER
        return [Event("scored", n=self.round_no)]

    # ----------------------------------------------------------------- views (engine/views.py)

    def cards_in_play(self) -> Counts:
        """Every card of the match's deck where it is now: hands, the round's pile and laid-down hands."""
        return views.cards_in_play(self)

    def view(self, seat: int) -> SeatView:
        """What the player at ``seat`` knows: his hand and what the table shows (computer players decide on it)."""
        return views.seat_view(self, seat)

    def public_view(self) -> PublicView:
        """What the whole table sees: what a group message may show."""
        return views.public_view(self)

    def only_pass(self) -> bool:
        """R4.3: the seat to act may only pass (the table passes for him: 要不起)."""
        return self.phase == P_PLAY and self.round is not None and self.round.only_pass()

    def copy(self) -> Match:
        """An independent copy (a use case changes its copy, never the state it read)."""
        copy: Match = pickle.loads(pickle.dumps(self, pickle.HIGHEST_PROTOCOL))
        return copy

    def observation(self, seat: int) -> dict[str, Any]:
        """What the player at ``seat`` may see, as plain JSON values: his hand, and only what the table shows."""
        return views.match_observation(self, seat)

    # ----------------------------------------------------------------- values

    def to_json(self) -> dict[str, Any]:
        """The state as plain JSON values (engine/snapshot.py)."""
        return snapshot.match_to_json(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Match:
        """The state of :meth:`to_json` read back."""
        return snapshot.match_from_json(cls, Round, d)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Match) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return f"<Match round={self.round_no} phase={self.phase} current={self.current_player}>"


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


# What may be imported from here (callers outside engine/ import some of these); a name that lives in another
# module says which.
__all__ = [
    "DECLARE",  # engine.actions
    "NO_DECLARE",
    "NO_REVOLT",
    "RETURN",
    "REVOLT",
    "WUTOU",
    "YAOTOU",
    "Declined",  # engine.views
    "Match",
    "PublicView",
    "RoundResult",
    "SeatView",
    "Tally",  # engine.tally
    "parse_action",  # engine.notation
    "parse_typed",
    "P_DECLARE",  # engine.phases
    "P_HEAD",
    "P_OVER",
    "P_PLAY",
    "P_RETURN",
    "P_REVOLT",
]
