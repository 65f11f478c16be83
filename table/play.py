"""The play: a player's own move, a nudge of the player to act, and the next round dealt."""

from __future__ import annotations

from dataclasses import replace

from engine import Action, Rules
from storage.records import TableChanges

from . import policy
from .context import Context, turn_due
from .errors import (
    AlreadyProcessed,
    IllegalMove,
    NoRoundInPlay,
    NotAllowed,
    NothingToDo,
    NotSeated,
    NotYourTurn,
    RoundInProgress,
    StaleVersion,
    TableHeld,
)
from .load import read_table
from .model import Marks, Table
from .outcome import CameBack, Nudged, Outcome, SeatFreed
from .stretch import advance

NEXT_ROUND = "next"  # the log entry of the next deal (Match.replay reads the same word)


class Play:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def act(
        self,
        table_id: int,
        user_id: int,
        action: Action,
        *,
        version: int | None = None,
        update_id: int | None = None,
        from_message: int | None = None,
    ) -> Outcome:
        """A player's own move, and the moves that follow it without anyone tapping.

        ``version``: the one his button was drawn for (None for a typed play: the turn check suffices).
        ``from_message``: the private message he tapped in, his hand message from now on (its id may not
        have reached the database yet when he tapped).
        """
        ctx = self.ctx
        async with ctx.turn(table_id):
            async with ctx.uow() as uow:
                table = await read_table(uow, table_id, ctx.matches, host=ctx.bot_id)
                seat = table.seat_of(user_id)
                if version is not None and version != table.version and seat is not None:
                    if update_id is not None and await uow.updates.seen(update_id, ctx.bot_id):
                        raise AlreadyProcessed(update_id)
                    if not _still_asked(table, seat.n, action):
                        raise StaleVersion(table_id, version, table.version)
            if seat is None:
                raise NotSeated(table_id)
            match = table.match
            if not table.playing or match is None or match.current_player is None:
                raise NoRoundInPlay(table_id)
            if not table.group.reachable:
                raise TableHeld(table_id)
            if seat.n not in match.asked:
                raise NotYourTurn(seat.n, match.current_player)
            reason = match.illegal_reason(action, seat.n)
            if reason is not None:
                raise IllegalMove(reason)
            armed = frozenset(d.kind for d in policy.deadlines(table, match, ctx.clock()))
            # He acts himself: off 托管, his time-outs forgotten; the message he acted from is his now.
            me = replace(
                seat,
                autoplay=False,
                timeouts=0,
                leaving=False,
                hand_message_id=from_message or seat.hand_message_id,
            )
            changed = [me] if me != seat else []
            left = seat.hand_message_id
            stale = ((user_id, left),) if left is not None and left != me.hand_message_id else ()
            outcome = await advance(
                ctx,
                table.with_seat(me),
                (seat.n, action, "player"),
                alone=True,  # the computers' moves follow, made by the clock: his tap waits for none
                seats=changed,
                update_id=update_id,
                armed=armed,
                notices=[CameBack(me.n)] if seat.autoplay else [],
            )
            return replace(outcome, stale=stale) if stale else outcome

    async def nudge(self, table_id: int, user_id: int) -> Outcome:
        """催一下: a seated player reminds the players the table waits on, at most once per turn."""
        ctx = self.ctx
        async with ctx.turn(table_id):
            table = await ctx.load(table_id)
            nudger = table.seat_of(user_id)
            if nudger is None:
                raise NotSeated(table_id)
            waiting = policy.waits_on(table, table.match)
            if not waiting:
                raise NoRoundInPlay(table_id)
            # The players the table waits on (before the first lead, every one still to answer), but him.
            others = [s for s in waiting if s.user_id != user_id]
            if not others:
                raise NotAllowed(table_id)  # it is his own turn
            if table.marks.nudged == table.version:
                raise NothingToDo("nudged already this turn")
            marks = replace(table.marks, nudged=table.version)
            # Not a new version: his buttons stay good. Written only while the table is at this version.
            async with ctx.uow() as uow:
                if not await uow.tables.set_marks(table_id, table.version, marks.to_json()):
                    raise StaleVersion(table_id, table.version)
                await uow.commit()
                due = await turn_due(uow, table)
            return Outcome(
                table=replace(table, marks=marks, due=due),
                notices=tuple(Nudged(s.n, nudger.n) for s in others),
            )

    async def next_round(
        self, table_id: int, user_id: int | None, version: int | None = None, *, is_admin: bool = False
    ) -> Outcome:
        """Deal the next round: the previous round's debts are paid first (R10), its 大落 leads (R1.4). A seated
        player, the table's creator or a group admin may (one who left the match may still deal on)."""
        ctx = self.ctx
        async with ctx.turn(table_id):
            table = await ctx.load(table_id)
            allowed = is_admin or user_id is None or user_id == table.created_by or table.seat_of(user_id)
            if not allowed:
                raise NotSeated(table_id)
            if version is not None and version != table.version:
                raise StaleVersion(table_id, version, table.version)
            match = table.match
            if not table.playing or match is None:
                raise NoRoundInPlay(table_id)
            if not match.round_over:
                raise RoundInProgress(table_id)
            round_no = table.round_no + 1
            changes: TableChanges = {"round_no": round_no}
            rules = table.group.rules.to_dict()
            if rules != table.rules:
                # /settings changed the house rules during the round: they hold from this deal.
                match.rules = Rules.from_dict(rules)
                changes["rules"] = rules
            # A player who left the match (/leave) and did not come back: his seat is a computer's now.
            left = [s for s in table.seats if s.leaving and s.user_id is not None]
            freed = [
                replace(
                    s,
                    user_id=None,
                    name="",
                    computer_level=table.group.computer_level,
                    autoplay=False,
                    timeouts=0,
                    hand_message_id=None,
                    leaving=False,
                )
                for s in left
            ]
            for seat in freed:
                table = table.with_seat(seat)
            dealt = match.next_round()
            table = replace(table, round_no=round_no, rules=rules, marks=Marks(glossed=table.marks.glossed))
            return await advance(
                ctx,
                table,
                None,
                seats=freed,
                dealt=dealt,
                logged=[NEXT_ROUND],
                new_round=(round_no, match.seed),
                changes=changes,
                all_hands=True,
                notices=[SeatFreed(s.n, s.user_id or 0, s.name, s.language) for s in left],
            )


def _still_asked(table: Table, seat: int, action: Action) -> bool:
    """Before the first lead every seat concerned is asked at once and each answer makes a new version: a
    button drawn before another seat answered still answers the question it shows while that seat is asked it
    (a tap of a question already answered, or of one that changed, is refused as out of date)."""
    match = table.match
    if match is None or not table.playing or match.question(seat) is None:
        return False
    return match.is_legal(action, seat)
