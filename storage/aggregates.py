"""What storage needs from a game aggregate (a Round today, a Match later), and which class a record names.

Storage never knows a rule: it only deals, applies, serialises and asks whether the aggregate is over,
through the engine's own API.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Aggregate(Protocol):
    """The shape of engine.Round (and the future Match)."""

    @property
    def current_player(self) -> int | None: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def places(self) -> list[int | None]: ...

    def scores(self) -> list[int] | None: ...

    def apply(self, action: Any) -> Sequence[Any]: ...

    def to_json(self) -> dict[str, Any]: ...


class AggregateClass(Protocol):
    def deal(self, rules: Any, seed: int) -> Aggregate: ...

    def from_json(self, data: dict[str, Any]) -> Aggregate: ...


@dataclass(frozen=True)
class Kind:
    """How to rebuild one kind of aggregate from stored JSON and text."""

    aggregate: AggregateClass
    rules_from_dict: Callable[[dict[str, Any]], Any]
    parse_action: Callable[[str], Any]
    # Rounds of a chained kind (a match) follow from the previous one: the next is dealt by the aggregate
    # itself ("next" in the log), so rebuilding replays the table's log from its first round.
    chained: bool = False

    def deal(self, rules: dict[str, Any], seed: int) -> Aggregate:
        return self.aggregate.deal(self.rules_from_dict(rules), seed)

    def load(self, state: dict[str, Any]) -> Aggregate:
        return self.aggregate.from_json(state)


_KINDS: dict[str, Kind] = {}


def register_kind(name: str, kind: Kind) -> None:
    _KINDS[name] = kind


# The engine class each stored kind names; a kind is registered on first use, so storage imports (and
# migrations run) without the engine.
ENGINE_CLASSES = {"round": "Round", "match": "Match"}


def kind_named(name: str) -> Kind:
    """The Kind a table or round record names."""
    if name not in _KINDS and name in ENGINE_CLASSES:
        import engine

        aggregate = getattr(engine, ENGINE_CLASSES[name], None)
        if aggregate is not None:
            register_kind(
                name,
                Kind(
                    aggregate=aggregate,
                    rules_from_dict=engine.Rules.from_dict,
                    # A match also reads its pre-round decisions (还贡, 革命 …); a round only plays.
                    parse_action=getattr(aggregate, "parse_action", engine.Action.parse),
                    chained=hasattr(aggregate, "next_round"),
                ),
            )
    try:
        return _KINDS[name]
    except KeyError:
        raise LookupError(f"no aggregate kind {name!r} is registered") from None


def default_rules() -> dict[str, Any]:
    """The house rules of a group that never changed them: the engine's default preset."""
    from engine import Rules

    return Rules.preset("qingdao").to_dict()
