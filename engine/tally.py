"""The public record of a round's plays, per seat, that the strong player reads hands from (SeatView's
``played``, ``plain``, ``padded``, ``declined``): the table saw each of them, so a player who counts knows it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cards import BIG, NRANKS, SMALL, TWO, Counts, format_cards
from .notation import cards_or_empty, declined_text, parse_declined
from .plays import NORMAL
from .views import Declined

if TYPE_CHECKING:
    from .round import Round

# A pass tells little of the hand of a seat this short, or on the play of an owner this near going out
# (Tally.note_pass): gouji-sim, 200 duplicate rounds, the strong level reading passes there too: +2.90
# against +3.80.
NEAR_OUT = 6
SHORT_HAND = 8


class Tally:
    """Kept by the Match, not by the Round, so that the search's rollouts (thousands of Round copies a
    decision) do not carry it.

    The passes are kept as text (:func:`~engine.notation.declined_text`) and only those that can tell
    something: the record is written with the match at every move, and as objects it had made a move cost 30%
    more by the end of a round (benches.long_match: 3.7 ms a move and 2.4 KiB stored before it, 4.8 ms and
    8.3 KiB with it)."""

    __slots__ = ("declined", "padded", "plain", "played")

    def __init__(self) -> None:
        self.played = [[0] * NRANKS for _ in range(6)]
        self.plain = [0] * 6
        self.padded = [0] * 6
        self.declined: list[list[str]] = [[] for _ in range(6)]  # declined_text()

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
        self.declined[seat].append(declined_text(d))

    def declined_records(self) -> tuple[tuple[Declined, ...], ...]:
        """The passes kept, per seat, as records."""
        return tuple(tuple(parse_declined(x) for x in ds) for ds in self.declined)

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
            t.played = [list(cards_or_empty(h)) for h in d["played"]]
            t.plain, t.padded = list(d["plain"]), list(d["padded"])
            t.declined = [
                [x if isinstance(x, str) else _legacy_declined(x) for x in ds] for ds in d.get("declined", [])
            ] or [[] for _ in range(6)]
        return t


def _legacy_declined(fields: list[Any]) -> str:
    """States saved before the passes were kept as text hold them as lists of fields."""
    x = fields
    return declined_text(Declined(cards_or_empty(x[0]), x[1], x[2], x[3], x[4], cards_or_empty(x[5])))
