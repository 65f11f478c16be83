"""One round of 够级 as a state machine (R3–R8, R11), in the manner of OpenSpiel: ``current_player``,
``legal_actions()``, ``apply(action)`` returning the events it caused.

The state is a plain value: ``to_json()`` / ``from_json()`` round-trip to an equal state, and a deal plus the
log of accepted actions rebuilds it exactly. ``apply`` validates first and mutates only when the action is
legal, so an illegal action changes nothing.

Here are the judge (``illegal_reason``) and the transitions. Beside them: the legal-action lists
(engine/moves.py), places and scores (engine/scoring.py), the tribute a round leaves (engine/tribute.py), what
a seat sees (engine/views.py) and the JSON form (engine/snapshot.py).
"""

from __future__ import annotations

import random
from typing import Any, Final

from . import moves, scoring, snapshot, views
from .actions import BURN, PASS, PLAY, YIELD, Action
from .cards import BIG, FOUR, NRANKS, RANKS, SMALL, THREE, TWO, Counts, format_cards
from .deal import deal_hands
from .events import Event
from .plays import (
    GOUJI,
    GOUSI,
    NORMAL,
    Shape,
    Top,
    TopKind,
    beats_shape,
    has_pure_gouji,
    is_gouji,
    is_pure_gouji,
    shape_of,
)
from .refusals import IllegalAction, Refusal, does_not_beat, missing
from .rules import Rules
from .scoring import PLACE_NAMES, PLACE_POINTS
from .seats import SEATS, opposite
from .tribute import Debt, Waived, owed, waived

MEN: Final = "men"  # ways to die: 闷 (R8.3)
HU: Final = "hu"  # and 烧糊 (R6.7)


class Round:
    """A round from the first lead to its end. Build one with :meth:`deal` or :meth:`from_position`."""

    def __init__(self, rules: Rules, hands: list[list[int]], leader: int) -> None:
        self.rules = rules
        self.hands = [list(h) for h in hands]
        self.pile = [0] * NRANKS  # every card played or discarded so far
        self.opened = [False] * 6
        self.natural = [False] * 6  # 自然点 (R5.2), shown by the table
        self.declared = [False] * 6  # 宣点 against one's 对头 (R5.6)
        self.out: list[int] = []  # finishing order, 头科 first (R7.1)
        self.dead: list[tuple[int, str]] = []  # 闷 and 烧糊 seats, ranked from the bottom (R8.3, R6.7)
        self.revolted: int | None = None  # R9.3
        self.gousi_left = [0] * 6  # R9.4 要头: gouji plays still 够死级
        self.free = False  # 四户乱缠 (R7.2)
        self.top: Top | None = None
        self.bound = [False] * 6  # passed in this trick (R4.2)
        self.queue: list[int] = []  # seats still to be considered about the top play (R4.7)
        self.yielder: int | None = None  # R4.4
        self.yielder_back = False  # the decision has returned to the yielder
        self.burner: int | None = None  # R6: the seat whose burn is running
        self.burn_victim: int | None = None
        self.burn_stake = 0
        self.arisen: list[Debt] = []  # 烧贡 and 闷贡, owed from the moment they arise
        self.over = False
        self.current: int | None = leader

    # ----------------------------------------------------------------- construction

    @classmethod
    def from_position(
        cls,
        rules: Rules,
        hands: list[Counts] | list[list[int]],
        leader: int,
        out: list[int] | None = None,
        opened: list[int] | None = None,
    ) -> Round:
        rnd = cls(rules, [list(h) for h in hands], leader)
        for s in out or []:
            rnd.out.append(s)
        for s in opened or []:
            rnd.opened[s] = True
        if rnd.free_due():
            rnd.free = True
        return rnd

    @classmethod
    def deal(cls, rules: Rules, seed: int, leader: int | None = None) -> Round:
        """A seeded random deal (R1.3), the leader from the same RNG (R1.4), 自然点 marked (R5.2)."""
        rng = random.Random(seed)
        if leader is None:
            leader = rng.randrange(6)
        hands = deal_hands(rules, rng, leader)
        rnd = cls(rules, hands, leader)
        rnd.mark_natural_open()
        return rnd

    def mark_natural_open(self) -> None:
        for s in SEATS:
            if not has_pure_gouji(self.hands[s]):
                self.natural[s] = self.opened[s] = True

    # ----------------------------------------------------------------- seats

    def active(self, s: int) -> bool:
        return s not in self.out and s != self.revolted and all(d != s for d, _ in self.dead)

    def has_head(self, s: int) -> bool:
        """Not 无头 (R3.4): the 对头 is still there; a 闷 player counts as there, 要头 keeps the head too."""
        if self.gousi_left[s]:
            return True
        o = opposite(s)
        if o in self.out or o == self.revolted:
            return False
        return all(d != o or how == MEN for d, how in self.dead)

    def next_active(self, s: int) -> int | None:
        for i in range(1, 7):
            t = (s + i) % 6
            if self.active(t):
                return t
        return None

    def may_burn(self, s: int) -> bool:
        """R6.1, against the play on the table."""
        top = self.top
        if self.free or top is None or top.kind == NORMAL:
            return False
        x = top.owner
        if s == x or s == opposite(x) or self.bound[s] or not self.has_head(s):
            return False
        return self.opened[s] or not self.rules.burn_requires_open

    def may_answer(self, s: int) -> bool:
        """Whether s may beat the top play outright (not by burning): R3.3, R3.4, R4.6, R7.2."""
        top = self.top
        if top is None or self.free:
            return True
        if top.kind == GOUSI:
            return False
        if top.kind == NORMAL:
            return True
        x = top.owner
        if s == opposite(x):
            return True
        return not self.bound[s] and (not self.has_head(x) or not self.has_head(s))

    def may_act(self, s: int) -> bool:
        """R4.7: whether s is asked about the top play."""
        if not self.active(s):
            return False
        top = self.top
        if top is None or self.free:
            return True
        if top.kind == GOUSI:
            return self.may_burn(s)
        x = top.owner
        if s == opposite(x):
            return True
        if self.bound[s]:
            return False
        if top.kind == NORMAL:
            return True
        return not self.has_head(x) or not self.has_head(s) or self.may_burn(s)

    def free_due(self) -> bool:
        """R7.2: 头科 and 二科 are out, a revolutionary counting as one of them (R9.3, S0 §14); with R1.5 五户乱缠
        as soon as 头科 is out, and a revolutionary is no 头科."""
        if self.rules.zhangqiu:
            return len(self.out) >= 1
        return len(self.out) + (self.revolted is not None) >= 2

    # ----------------------------------------------------------------- queries

    @property
    def current_player(self) -> int | None:
        return None if self.over else self.current

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def places(self) -> list[int | None]:
        """Seats in places 1–6 (头科 … 大落); None while undecided (engine/scoring.py)."""
        return scoring.places(self)

    def final_places(self) -> list[int]:
        """The seats by place once the round is over, 头科 first; ValueError before (engine/scoring.py)."""
        return scoring.final_places(self)

    def circled(self) -> bool:
        """R7.4 串三户: one team took 头科, 二科 and 三科 (a revolutionary counts as 三科, R9.3)."""
        first = [s for s in self.places[:3] if s is not None]
        return len(first) == 3 and scoring.circled(first)

    def scores(self) -> list[int] | None:
        """R11.1 per seat; None before the round ends."""
        return scoring.place_scores(self.final_places()) if self.over else None

    def debts(self) -> list[Debt]:
        """Tribute owed (R5.5, R5.6, R6.6, R7.4, R8.3, R10.2), teammates' debts waived (R10.4).

        烧贡 and 闷贡 count from the moment they arise; 圈贡, 点贡 and 落贡 once the round has ended.
        """
        places = self.final_places() if self.over else None
        circled = places is not None and scoring.circled(places)
        return owed(self.rules, self.arisen, places, circled, self.opened, self.declared)

    def waived(self) -> list[Waived]:
        """The debts of the round the rules waived (R10.4 teammates, R10.2 replaced by 圈贡), once it is over."""
        places = self.final_places() if self.over else None
        return waived(self.rules, self.arisen, places, places is not None and scoring.circled(places))

    def hand(self, s: int) -> Counts:
        return tuple(self.hands[s])

    # The legal-action lists (engine/moves.py), bound as methods: a method calling them would add a call to
    # every listing, and the search lists moves in every rollout.
    legal_actions = moves.legal_actions
    all_legal_actions = moves.all_legal_actions
    leads = moves.leads

    def is_legal(self, action: Action) -> bool:
        return self.illegal_reason(action) is None

    def only_pass(self) -> bool:
        """R4.3: nothing but a pass is open to the seat to act (the table passes for him: 要不起)."""
        acts = self.legal_actions()
        return len(acts) == 1 and acts[0].kind == PASS

    # ----------------------------------------------------------------- legality

    def illegal_reason(self, action: Action) -> Refusal | None:
        if self.over:
            return Refusal("over", "the round is over")
        s = self.current
        assert s is not None
        top = self.top
        if action.kind == PASS:
            return Refusal("lead_something", "you lead: play something") if top is None else None
        if action.kind == YIELD:
            if top is None:
                return Refusal("nothing_to_yield", "there is nothing to yield to")
            if self.free:
                return Refusal("no_yield_free", "no yielding in 四户乱缠")
            if top.owner != opposite(s):
                return Refusal("yield_only_duitou", "you may only yield to your 对头's play")
            if top.kind != NORMAL:
                return Refusal("no_yield_gouji", "never yield against a gouji play")
            if self.yielder is not None:
                return Refusal("yielded_already", "you have yielded already")
            return None
        cards = action.cards
        if action.kind not in (PLAY, BURN) or cards is None or len(cards) != NRANKS:
            return Refusal("not_an_action", "not an action")
        shape = shape_of(cards)
        if shape is None:
            return Refusal(
                "not_a_play",
                f"{format_cards(cards)} is not a play: one rank, with 2s and jokers",
                cards=cards,
            )
        hand = self.hands[s]
        if any(h < c for h, c in zip(hand, cards, strict=True)):
            return Refusal(
                "not_held",
                f"you do not hold {format_cards(cards)}",
                cards=cards,
                missing=missing(hand, cards),
            )
        reason = self.card_rules_reason(s, cards, shape, top is None)
        if reason:
            return reason
        if action.kind == BURN:
            if top is None:
                return Refusal("nothing_to_burn", "there is nothing to burn")
            if self.free:
                return Refusal("no_burn_free", "no burning in 四户乱缠")
            if not self.may_burn(s):
                return self._why_no_burn(s)
            old = shape_of(top.cards)
            assert old is not None
            if not beats_shape(shape, old, self.rules.two_big_kill_one):
                return does_not_beat(cards, top.cards)
            if self.rules.burn_feasibility and not self.can_finish(
                s, cards, self.opened[s] or is_pure_gouji(shape)
            ):
                return Refusal(
                    "burn_cannot_finish", "that burn cannot finish: every lead after it needs a joker"
                )
            return None
        if top is None:
            if self.burner == s:
                rest = sum(hand) - shape.size
                if rest and not (shape.nr or shape.nb):
                    return Refusal(
                        "burn_needs_joker", "while burning, every lead but the last must carry a joker"
                    )
                if self.rules.burn_feasibility and not self.can_finish(s, cards, self.opened[s]):
                    return Refusal(
                        "burn_rest_unfinishable", "the rest of your hand could not finish the burn"
                    )
            return None
        if not self.may_answer(s):
            if top.kind == GOUSI:
                return Refusal("gousi_only_burn", "够死级: only a burn may answer it")
            return Refusal(
                "only_duitou_answers", "only the 对头 may answer a gouji play; others may only burn it"
            )
        old = shape_of(top.cards)
        assert old is not None
        if not beats_shape(shape, old, self.rules.two_big_kill_one):
            return does_not_beat(cards, top.cards)
        return None

    def _why_no_burn(self, s: int) -> Refusal:
        top = self.top
        assert top is not None
        if top.kind == NORMAL:
            return Refusal("only_gouji_burned", "only a gouji play can be burned")
        if s == opposite(top.owner):
            return Refusal("duitou_answers", "the 对头 answers, he does not burn")
        if self.bound[s]:
            return Refusal("passed_already", "you passed in this trick")
        if not self.has_head(s):
            return Refusal("wutou_cannot_burn", "无头: you cannot burn")
        return Refusal("burn_needs_open", "only an opened player may burn")

    def card_rules_reason(self, s: int, cards: Counts, shape: Shape, leading: bool) -> Refusal | None:
        """What R2.6, R8.1 and R5.4 say of ``cards`` as s's play, whatever is on the table."""
        rules = self.rules
        if shape.base >= 0 and shape.twos and not rules.tie_two:
            return Refusal("tie_two_off", "2s may not be attached (tie_two is off)")
        if rules.bie_san and cards[THREE]:
            # R8.1: 3s only as the last play, all of them, nothing attached.
            if shape.size != cards[THREE] or sum(self.hands[s]) != shape.size:
                return Refusal(
                    "three_last", "3s may only be your last play, all together, with nothing attached"
                )
        if cards[FOUR] and rules.dian_si_active and not self.opened[s] and not self.free:
            # R5.4; a leader left with nothing but 4s and 3s must still be able to lead (S0 §6).
            hand = self.hands[s]
            stuck = leading and hand[THREE] + hand[FOUR] == sum(hand)
            if not stuck or shape.size != cards[FOUR]:
                return Refusal("four_after_open", "open the point (开点) before you play 4s")
        return None

    def can_finish(self, s: int, cards: Counts, opened: bool) -> bool:
        """R6.3 burn_feasibility: after ``cards`` the rest of the hand can be led out, every lead but the last
        carrying a joker (K: distinct ranks − jokers ≤ 1, or the rest is a single play)."""
        rules = self.rules
        rest = [h - c for h, c in zip(self.hands[s], cards, strict=True)]
        if sum(rest) == 0:
            return True
        jokers = rest[SMALL] + rest[BIG]
        three_last = rules.bie_san and rest[THREE] > 0
        four_locked = rules.dian_si_active and not opened and rest[FOUR] > 0
        if three_last and four_locked:
            return False  # both would have to be the jokerless last lead
        ranks = [r for r in range(12) if rest[r]]
        attachable = [r for r in ranks if not (r == THREE and three_last) and not (r == FOUR and four_locked)]
        groups = len(ranks)
        if rest[TWO] and (not rules.tie_two or not attachable):
            groups += 1  # the 2s make a lead of their own
        # The forced last group (3s, or 4s before opening) is the one jokerless lead; jokers alone make a lead.
        return groups == 0 or jokers >= groups - 1

    # ----------------------------------------------------------------- applying

    def apply(self, action: Action) -> list[Event]:
        """Apply the action of the seat to act; raise IllegalAction (and change nothing) when it is not legal."""
        reason = self.illegal_reason(action)
        if reason is not None:
            raise IllegalAction(reason)
        s = self.current
        assert s is not None
        events: list[Event] = []
        if action.kind == PASS:
            self.bound[s] = True
            if self.yielder == s:
                self.yielder = None
            events.append(Event("passed", s))
            self._advance(events)
        elif action.kind == YIELD:
            self.yielder, self.yielder_back = s, False
            events.append(Event("yielded", s))
            self._advance(events)
        else:
            assert action.cards is not None
            self._play(s, action.cards, action.kind == BURN, events)
        return events

    def _play(self, s: int, cards: Counts, burn: bool, events: list[Event]) -> None:
        top = self.top
        hand = self.hands[s]
        for r in range(NRANKS):
            if cards[r]:
                hand[r] -= cards[r]
                self.pile[r] += cards[r]
        shape = shape_of(cards)
        assert shape is not None
        if top is not None and top.men and self.active(top.owner):
            # R8.3 闷: his last other play is beaten; he is dead and owes the beater 1 闷贡.
            self.dead.append((top.owner, MEN))
            self.arisen.append(Debt(top.owner, s, 1, "men"))
            events.append(Event("men", top.owner, other=s))
        if burn:
            assert top is not None
            if self.burner is not None and top.owner == self.burner:
                stake = self.burn_stake * 2  # R6.5 反烧 doubles the 烧贡
                events.append(Event("burn_broken", self.burner, other=s))
            else:
                stake = 1
            self.burner, self.burn_victim, self.burn_stake = s, top.owner, stake
        elif top is not None and self.burner is not None and top.owner == self.burner:
            events.append(Event("burn_broken", self.burner, other=s))  # R6.4 解烧
            self.burner, self.burn_victim, self.burn_stake = None, None, 0
        kind: TopKind = NORMAL
        if not self.free and is_gouji(shape, self.rules):
            kind = GOUJI
            if self.gousi_left[s]:
                self.gousi_left[s] -= 1
                kind = GOUSI
            elif (
                not burn
                and top is not None
                and top.kind != NORMAL
                and top.owner in self.out
                and s == opposite(top.owner)
            ):
                kind = GOUSI  # R4.6: the 对头's answer to a last gouji play is 够死级
        left = sum(hand)
        men = self.rules.bie_san and left > 0 and hand[THREE] == left
        self.top = Top(s, cards, kind, men)
        events.append(
            Event("burned" if burn else "played", s, cards, other=top.owner if burn and top else None)
        )
        if self.yielder is not None and self.yielder != s:
            self.bound[self.yielder] = True  # R4.4: a successor played, the yielder counts as passed
        self.yielder, self.yielder_back = None, False
        if left == 0:
            self._go_out(s, events)
        self.queue = [(s + i) % 6 for i in range(1, 6)]
        if not self._check_over(events):
            self._advance(events)

    def _go_out(self, s: int, events: list[Event]) -> None:
        self.out.append(s)
        events.append(Event("out", s, n=self.places.index(s)))
        if self.burner == s:
            # R6.6: the burn succeeded.
            assert self.burn_victim is not None
            self.arisen.append(Debt(self.burn_victim, s, self.burn_stake, "shao"))
            events.append(Event("burn_won", s, other=self.burn_victim, n=self.burn_stake))
            self.burner, self.burn_victim, self.burn_stake = None, None, 0

    def _advance(self, events: list[Event]) -> None:
        while self.queue:
            s = self.queue.pop(0)
            if self.may_act(s):
                self.current = s
                return
        if self.yielder is not None and not self.yielder_back:
            self.yielder_back = True
            if self.may_act(self.yielder):
                self.current = self.yielder
                return
        self._end_trick(events)

    def _end_trick(self, events: list[Event]) -> None:
        top = self.top
        assert top is not None
        w = top.owner
        events.append(Event("trick_won", w, top.cards))
        if not self.free and not self.opened[w] and is_pure_gouji(shape_of(top.cards)):
            self.opened[w] = True  # R5.1
            events.append(Event("opened", w))
        self.top = None
        self.bound = [False] * 6
        self.queue = []
        self.yielder, self.yielder_back = None, False
        if not self.free and self.free_due():
            self._start_free(events)
            if self._check_over(events):
                return
        leader = w if self.active(w) else self.next_active(w)  # R4.6 接风
        if self.burner is not None and self.burner != leader:
            self.burner, self.burn_victim, self.burn_stake = None, None, 0
        if self.burner is not None and leader == self.burner and not self._has_burn_lead(leader):
            # R6.7 烧糊: he cannot make the lead his burn requires; the burned player leads.
            victim = self.burn_victim
            assert victim is not None
            self.dead.append((leader, HU))
            events.append(Event("burn_failed", leader, other=victim))
            self.burner, self.burn_victim, self.burn_stake = None, None, 0
            if self._check_over(events):
                return
            leader = victim if self.active(victim) else self.next_active(victim)
        self.current = leader

    def _has_burn_lead(self, s: int) -> bool:
        self.current = s
        return next(self.leads(), None) is not None

    def _start_free(self, events: list[Event]) -> None:
        """R7.2 四户乱缠; R5.4 unopened players discard their 4s, and one left with nothing goes out."""
        self.free = True
        self.burner, self.burn_victim, self.burn_stake = None, None, 0
        events.append(Event("free_for_all"))
        if not self.rules.dian_si_active:
            return
        emptied = []
        for s in SEATS:
            hand = self.hands[s]
            if self.active(s) and not self.opened[s] and hand[FOUR]:
                n = hand[FOUR]
                hand[FOUR] = 0
                self.pile[FOUR] += n
                events.append(Event("discarded_fours", s, n=n))
                if sum(hand) == 0:
                    emptied.append(s)
        last = self.out[-1] if self.out else 0
        for s in sorted(emptied, key=lambda t: (t - last - 1) % 6):
            self._go_out(s, events)

    def _check_over(self, events: list[Event]) -> bool:
        """R7.3: the round ends as soon as every player still holding cards is on one team."""
        teams = {s % 2 for s in SEATS if self.active(s)}
        if len(teams) > 1:
            return False
        self.over = True
        self.current = None
        self.top = None
        events.append(Event("round_over"))
        return True

    # ----------------------------------------------------------------- views and values

    def observation(self, seat: int) -> dict[str, Any]:
        """What a player at ``seat`` may see, as plain JSON values (engine/views.py)."""
        return views.round_observation(self, seat)

    def to_json(self) -> dict[str, Any]:
        """The state as plain JSON values (engine/snapshot.py)."""
        return snapshot.round_to_json(self)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Round:
        """The state of :meth:`to_json` read back."""
        return snapshot.round_from_json(cls, d)

    def clone(self) -> Round:
        """An independent copy, cheap enough for search rollouts (issue 16): the mutable lists are copied, the
        immutable values (rules, Top, Debt, tuples) shared. ``to_json``/``from_json`` or pickling cost 20–50×
        more, which a search that copies the state once per rollout cannot afford."""
        rnd = Round.__new__(Round)
        d = self.__dict__.copy()
        d["hands"] = [h[:] for h in self.hands]
        for name in ("pile", "opened", "natural", "declared", "out", "dead", "gousi_left", "bound", "queue"):
            d[name] = d[name][:]
        d["arisen"] = self.arisen[:]
        rnd.__dict__ = d
        return rnd

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Round) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        hands = " ".join(format_cards(h) for h in self.hands)
        return f"<Round current={self.current_player} top={self.top} hands={hands}>"


# What may be imported from here (callers outside engine/ import some of these); a name that lives in another
# module says which.
__all__ = [
    "Debt",  # engine.tribute
    "GOUJI",  # engine.plays
    "GOUSI",
    "HU",
    "IllegalAction",  # engine.refusals
    "MEN",
    "NORMAL",
    "PLACE_NAMES",  # engine.scoring
    "PLACE_POINTS",
    "RANKS",  # engine.cards
    "Round",
    "Top",  # engine.plays
    "deal_hands",  # engine.deal
    "opposite",  # engine.seats
]
