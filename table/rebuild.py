"""A table's match rebuilt from its log: the deal of round 1 from its stored seed and rules, then every logged
action in order (``next`` deals the next round). What the table saved must equal what this rebuilds."""

from __future__ import annotations

from engine import Match, Rules
from engine.match import parse_action

from .errors import NoRoundInPlay
from .play import NEXT_ROUND
from .ports import UnitOfWork


async def rebuild_round(uow: UnitOfWork, table_id: int, round_no: int) -> Match:
    """The match as it stood at the end of the log of ``round_no`` (the last action logged in it)."""
    first = await uow.rounds.get(table_id, 1)
    if first is None or await uow.rounds.get(table_id, round_no) is None:
        raise NoRoundInPlay(table_id)
    match = Match(Rules.from_dict(first.rules), first.seed)
    for entry in await uow.actions.of_table(table_id):
        if entry.round_no > round_no:
            break
        if entry.action == NEXT_ROUND:
            dealt = await uow.rounds.get(table_id, entry.round_no)
            if dealt is not None:
                match.rules = Rules.from_dict(dealt.rules)  # house rules changed between rounds (/settings)
            match.next_round()
        else:
            match.apply(parse_action(entry.action), entry.seat)  # before the first lead, any asked seat
    return match
