"""A whole match (R1, R5.6, R8.2, R9, R10, R11.2) as one state machine in the manner of OpenSpiel:
``current_player``, ``legal_actions()``, ``apply(action)`` returning the events it caused, ``observation(seat)``,
``to_json()``/``from_json()``, and rebuildable from its seed and action log (:meth:`Match.replay`).

A round goes: deal (R1.3–R1.5, 自然点 R5.2) → 买三/买四 (R8.2, automatic) → tribute of the previous round's
debts (R10, automatic, shown to the table) → the stage: every question that can be judged is asked at once
and answered in any order (还贡 R10.6, 革命 R9.1, 宣点 R5.6; engine/stage.py) → the reveal (two or more 革命
redeal, R9.2; one lays his hand down, R9.3) → 要头/无头 (R9.4) → the :class:`Round` from the first lead. After
the round the match waits in phase ``over`` until :meth:`next_round` (the table may stop there, R11.2).

Before the first lead several seats may be asked at once: :attr:`Match.asked` lists them, and
``legal_actions``, ``illegal_reason``, ``is_legal`` and ``apply`` take the answering ``seat`` (default: the
``current_player``, the first asked, so a caller that asks one seat at a time still works). During the play
only the seat to act may act. :meth:`Match.question` says what a seat is asked.

Decisions before the first lead are :class:`Action` values with kinds of their own, in the same notation:
``return CARDS``, ``revolt``, ``no_revolt``, ``yaotou``, ``wutou``, ``declare``, ``no_declare``.
:func:`~engine.notation.parse_action` reads them (and Chinese words for them); ``str()`` writes them back.

Events of the match, besides the round's: dealt (seat = leader, n = round), redeal (n = deal number), natural
(自然点), bought_three / bought_four (seat bought from ``other``, cards = what he paid, None if free),
kang_gong (cards shown, n = 3 for the team, 1 for himself), tribute_quan/dian/shao/men/luo (seat paid
``other`` the cards, n = how many), returned (还贡: seat gave ``other`` the cards), answered (the seat has given
every sealed answer he is asked; no content); at the reveal, in seat order from the leader, revolt (no_revolt
too when there is no 宣点), the counting declared / no_declare, then laid_down (the revolutionary's hand) or
the redeal; yaotou / wutou; scored (n = round).

Beside it: the questions before the first lead (engine/stage.py), what each reader sees (engine/views.py), the
public record of the plays (engine/tally.py), the notation (engine/notation.py), the deal (engine/deal.py),
the tribute (engine/tribute.py) and the JSON form (engine/snapshot.py).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

from . import snapshot, stage, views
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
    Head,
)
from .cards import FOUR, NRANKS, Counts
from .deal import buy_all, deal
from .events import Event
from .notation import parse_action, parse_typed
from .phases import P_DECLARE, P_HEAD, P_OVER, P_PLAY, P_RETURN, P_REVOLT, S_STAGE, Phase, Step
from .refusals import IllegalAction, Refusal
from .round import Round
from .rules import Rules
from .seats import opposite
from .stage import Question
from .tally import Tally
from .tribute import Debt, Returned, pay
from .views import Declined, PublicView, RoundResult, SeatView

ROUND_KINDS = (PLAY, BURN, PASS, YIELD)
# A log entry of Match.replay: an action in notation (or ``next``), alone or with the seat that gave it.
LogEntry = str | tuple[int | None, str]


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
        self.step: Step = P_OVER
        self.hands: list[list[int]] = [_empty() for _ in range(6)]
        self.dealt: list[list[int]] = [_empty() for _ in range(6)]
        self.natural_cards: list[list[int]] = [_empty() for _ in range(6)]
        self.natural = [False] * 6
        self.returns: list[Returned] = []  # 还贡 still to give (R10.6)
        # The sealed answers of the stage (engine/stage.py), None while not given; revealed when all are in.
        self.revolt_answers: list[bool | None] = [None] * 6
        self.declare_answers: list[bool | None] = [None] * 6
        self.revolted: int | None = None
        self.laid_down: list[int] = _empty()
        self.head: Head | None = None
        self.declared = [False] * 6  # the 宣点 revealed and counting (R5.6)
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
        """The seat to act in the play; before the first lead, the first seat asked (see :attr:`asked`)."""
        if self.step == P_PLAY:
            assert self.round is not None
            return self.round.current_player
        if self.step == P_OVER:
            return None
        first = stage.asked(self)
        return first[0] if first else None

    @property
    def asked(self) -> tuple[int, ...]:
        """The seats with an open question now, in seat order from the leader: before the first lead every
        seat concerned, each answering in any order; during the play only the seat to act; none when over."""
        if self.step == P_PLAY:
            assert self.round is not None
            cur = self.round.current_player
            return () if cur is None else (cur,)
        if self.step == P_OVER:
            return ()
        return stage.asked(self)

    def question(self, seat: int) -> Question | None:
        """What ``seat`` is asked before the first lead (还贡 with how many cards and to whom, 革命, 要头/无头,
        宣点); None when nothing, and always during the play."""
        return stage.question(self, seat)

    @property
    def phase(self) -> Phase:
        """``play`` or ``over``; before the first lead the kind of question of :attr:`current_player` (each
        asked seat's own: :meth:`question`)."""
        step = self.step
        if step != S_STAGE:
            return step
        cur = self.current_player
        q = None if cur is None else stage.question(self, cur)
        return P_DECLARE if q is None else q.kind

    @property
    def round_over(self) -> bool:
        return self.step == P_OVER

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
        return self.step == P_OVER

    @property
    def places(self) -> list[int | None]:
        """The current round's seats by place, as far as decided (Round.places)."""
        return [None] * 6 if self.round is None else self.round.places

    def scores(self) -> list[int] | None:
        return self.last_result["scores"] if self.step == P_OVER and self.last_result else None

    @property
    def team_totals(self) -> tuple[int, int]:
        """R11.2: seats 0,2,4 and seats 1,3,5."""
        return (sum(self.totals[0::2]), sum(self.totals[1::2]))

    def hand(self, seat: int) -> Counts:
        if self.round is not None:
            return tuple(self.round.hands[seat])
        return tuple(self.hands[seat])

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """The choices of ``seat`` (default: the current player); none for a seat not asked. While playing,
        exactly :meth:`Round.legal_actions` (plain leads when leading; every answer when answering); a
        composed lead is judged by :meth:`is_legal`."""
        if self.step == P_PLAY:
            assert self.round is not None
            if seat is not None and seat != self.round.current_player:
                return []
            return self.round.legal_actions()
        if self.step == P_OVER:
            return []
        return stage.legal(self, seat)

    def is_legal(self, action: Action, seat: int | None = None) -> bool:
        return self.illegal_reason(action, seat) is None

    def illegal_reason(self, action: Action, seat: int | None = None) -> Refusal | None:
        """Why ``seat`` (default: the current player) may not take ``action`` now; None when he may."""
        if self.step == P_PLAY:
            rnd = self.round
            assert rnd is not None
            cur = rnd.current_player
            if seat is not None and seat != cur:
                return Refusal("not_your_turn", f"it is seat {cur}'s turn, not seat {seat}'s", current=cur)
            if action.kind not in ROUND_KINDS:
                return Refusal("not_an_action", f"{action.kind} is not a move of the play")
            return rnd.illegal_reason(action)
        if self.step == P_OVER:
            return Refusal("over", "nobody is to act: the round is over")
        return stage.refusal(self, action, seat)

    # ----------------------------------------------------------------- applying

    def apply(self, action: Action, seat: int | None = None) -> list[Event]:
        """Apply the action of ``seat`` (default: the current player); raise IllegalAction (changing nothing)
        when it is not legal. Before the first lead any asked seat may answer his own question."""
        reason = self.illegal_reason(action, seat)
        if reason is not None:
            raise IllegalAction(reason)
        if self.step == P_PLAY:
            rnd = self.round
            assert rnd is not None
            s = rnd.current_player
            assert s is not None
            lead = rnd.top is None
            if action.kind == PASS:
                self.tally.note_pass(rnd, s)
            events = rnd.apply(action)
            if action.cards is not None:
                self.tally.note(s, action.cards, lead)
            for e in events:
                if e.kind == "discarded_fours" and e.seat is not None and e.n:
                    self.tally.played[e.seat][FOUR] += e.n  # R5.4: thrown away, shown to the table
            if rnd.over:
                events += self._finish_round()
            return events
        if seat is None:
            seat = self.current_player
            assert seat is not None
        return stage.answer(self, seat, action)

    def next_round(self) -> list[Event]:
        """Deal the next round: the previous 大落 leads (R1.4); its debts are paid first (R10)."""
        if self.step != P_OVER or self.round is None:
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
        m.step = P_OVER if rnd.over else P_PLAY
        return m

    @classmethod
    def from_stage(
        cls,
        rules: Rules,
        hands: list[Counts],
        leader: int,
        natural: Iterable[int] = (),
        returns: Iterable[Returned] = (),
        seed: int = 0,
        round_no: int = 1,
    ) -> tuple[Match, list[Event]]:
        """A match at a set position before the first lead (transcripts, tests): ``hands`` as they are after
        买三 and tribute, ``natural`` the 自然点 seats (R5.2), ``returns`` the 还贡 owed (R10.6). The stage
        opens at once; the events are those it caused (none, unless nobody is asked anything). A redeal
        (R9.2) deals from ``seed`` and pays no tribute: the position knows no debts."""
        m = cls(rules, seed, _deal=False)
        m.round_no, m.leader = round_no, leader
        m.hands = [list(h) for h in hands]
        m.dealt = [list(h) for h in hands]
        m.natural_cards = [list(h) for h in hands]
        nat = set(natural)
        m.natural = [s in nat for s in range(6)]
        m.returns = list(returns)
        m.step = S_STAGE
        return m, stage.settle(m)

    @classmethod
    def replay(cls, rules: Rules, seed: int, log: Iterable[LogEntry]) -> Match:
        """Rebuild a match from its seed and action log. An entry is an action in notation, or ``next`` for
        :meth:`next_round`, either alone (the current player's, as logs of one seat at a time were written)
        or as a pair ``(seat, text)``: the seat that gave it (None: the current player). Before the first
        lead answers come in any order, so a log of them needs the seats: the table logs each action with
        its seat."""
        m = cls(rules, seed)
        for entry in log:
            seat, text = (None, entry) if isinstance(entry, str) else entry
            if text == "next":
                m.next_round()
            else:
                m.apply(parse_action(text), seat)
        return m

    # ----------------------------------------------------------------- the deal and the play

    def _show(self, e: Event) -> Event:
        self.shown.append(e.to_dict())
        return e

    def _reset_deal(self) -> None:
        self.returns = []
        self.revolt_answers, self.declare_answers = [None] * 6, [None] * 6
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
        self.step = S_STAGE
        return events + stage.settle(self)

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
        self.revolt_answers, self.declare_answers = [None] * 6, [None] * 6  # revealed: no longer sealed
        self.step = P_PLAY
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
        self.step = P_OVER
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
        return self.step == P_PLAY and self.round is not None and self.round.only_pass()

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
    "LogEntry",
    "Match",
    "PublicView",
    "Question",  # engine.stage
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
    "S_STAGE",
]
