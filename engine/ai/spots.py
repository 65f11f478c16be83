"""The two ways the heuristic sees the seat to act (:class:`~engine.ai.policy.Spot`): from a player's
:class:`~engine.views.SeatView` and legal actions, and from a whole :class:`~engine.round.Round` inside a
search rollout, where the rules themselves say what is allowed."""

from __future__ import annotations

from collections.abc import Sequence

from ..actions import BURN, PLAY, YIELD, YIELD_ACTION, Action
from ..cards import Counts
from ..moves import beating, plain_leads
from ..plays import Top, is_pure_gouji, shape_of
from ..round import Round
from ..rules import Rules
from ..views import SeatView


class ViewSpot:
    """A seat's own view: the legal actions say whether it may answer, yield or burn."""

    __slots__ = ("seat", "hand", "top", "opened", "free", "rules", "burner", "_view", "_legal")

    def __init__(self, view: SeatView, legal: Sequence[Action]) -> None:
        self.seat: int = view.seat
        self.hand: Sequence[int] = view.hand
        self.top: Top | None = view.top
        self.opened: Sequence[bool] = view.opened
        self.free: bool = view.free
        self.rules: Rules = view.rules
        self.burner: int | None = view.burner
        self._view = view
        self._legal = legal

    def count(self, seat: int) -> int | None:
        return self._view.counts[seat]

    def can_answer(self) -> bool:
        return any(a.kind == PLAY for a in self._legal)

    def can_yield(self) -> bool:
        return any(a.kind == YIELD for a in self._legal)

    def burns(self) -> list[Counts]:
        return [a.cards for a in self._legal if a.kind == BURN and a.cards is not None]

    def other_plays(self) -> list[Counts]:
        return [a.cards for a in self._legal if a.kind == PLAY and a.cards is not None]

    def burner_leads(self) -> list[Counts]:
        return self.other_plays()

    def extra_leads(self) -> list[Counts]:
        return self.other_plays()


class RoundSpot:
    """Seat ``seat`` of a whole round (a search's determinization): the round's own rule checks decide."""

    __slots__ = ("seat", "hand", "top", "opened", "free", "rules", "burner", "_rnd")

    def __init__(self, rnd: Round, seat: int) -> None:
        self.seat = seat
        self.hand: Sequence[int] = rnd.hands[seat]
        self.top = rnd.top
        self.opened: Sequence[bool] = rnd.opened
        self.free = rnd.free
        self.rules = rnd.rules
        self.burner = rnd.burner
        self._rnd = rnd

    def count(self, seat: int) -> int | None:
        n = sum(self._rnd.hands[seat])
        return n if n <= 10 else None  # 报户, as a player sees it

    def can_answer(self) -> bool:
        return self._rnd.may_answer(self.seat)

    def can_yield(self) -> bool:
        return self._rnd.illegal_reason(YIELD_ACTION) is None

    def burns(self) -> list[Counts]:
        rnd, s = self._rnd, self.seat
        if not rnd.may_burn(s):
            return []
        top = rnd.top
        assert top is not None
        old = shape_of(top.cards)
        assert old is not None
        plays = beating(rnd, s, old)
        if not rnd.rules.burn_feasibility:
            return plays
        opened = rnd.opened[s]
        return [c for c in plays if rnd.can_finish(s, c, opened or is_pure_gouji(shape_of(c)))]

    def other_plays(self) -> list[Counts]:
        top = self._rnd.top
        assert top is not None
        old = shape_of(top.cards)
        assert old is not None
        return beating(self._rnd, self.seat, old)

    def burner_leads(self) -> list[Counts]:
        return [a.cards for a in self._rnd.leads() if a.cards is not None]

    def extra_leads(self) -> list[Counts]:
        return plain_leads(self._rnd, self.seat)
