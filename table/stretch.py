"""The stretch: a move and every move after it that nobody has to tap for (computer seats, 托管, R4.3's
automatic passes), played on the table's match and written in one unit of work with the deadline of the
decision the table then waits on.

The computers decide before the write, outside any transaction: a strong computer thinks for a fifth of a
second, and a transaction held open that long would hold SQLite's one connection from every other table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from engine import Action, Event, IllegalAction, Match
from engine.phases import P_HEAD as S_HEAD
from engine.phases import S_STAGE
from storage.records import TableChanges

from . import policy
from .context import Context
from .errors import AlreadyProcessed, IllegalMove
from .model import Actor, Seat, Table
from .outcome import Move, Notice, Outcome
from .policy import DeadlineKind
from .ports import UnitOfWork
from .story import marks_after

MAX_AUTOMATIC = 2000  # a whole round of computer moves stays far below this


async def computer_move(
    ctx: Context, table: Table, match: Match, seat: int, salt: int, *, quick: bool = False, spent: float = 0.0
) -> Action:
    """The computer's move for ``seat`` (the seat to act, or before the first lead any asked seat), decided
    from that seat's view alone; ``quick``: without a search (the normal level at most); ``spent``: seconds
    the computers already thought in this stretch."""
    legal = match.legal_actions(seat)
    if len(legal) == 1:
        return legal[0]
    level = policy.level_of(table, table.seat(seat))
    if quick:
        level = min(level, policy.DEFAULT_LEVEL)
    action = await ctx.decide(level, match.view(seat), legal, policy.seed_of(table, salt), spent=spent)
    return action if action in legal or match.is_legal(action, seat) else legal[0]


async def advance(
    ctx: Context,
    table: Table,
    first: tuple[int, Action, Actor] | None,
    *,
    seats: Sequence[Seat] = (),
    new_seats: Sequence[Seat] = (),
    notices: Sequence[Notice] = (),
    dealt: Sequence[Event] = (),
    logged: Sequence[str] = (),
    new_round: tuple[int, int] | None = None,
    changes: TableChanges | None = None,
    update_id: int | None = None,
    all_hands: bool = False,
    armed: frozenset[DeadlineKind] | None = None,
    late: Sequence[int] = (),
    alone: bool = False,
    follows: int | None = None,
) -> Outcome:
    """Play ``first`` (if any) and every automatic move after it on the table's match, then write it all in
    one unit of work: the new version, the log, the seats changed, the round's result, the next deadlines.

    ``table`` already holds the seats as they are to be (``seats``: those to write, ``new_seats``: those to
    add); its match is changed in place. ``armed``: the kinds of deadline the table had, when the caller
    knows them. ``late``: players whose time ran out: the computer makes their move (or answers their question
    before the first lead) once, as a time-out. ``alone``: a player's own move, written without the computer
    moves after it (R4.3's passes are made: they take no thought); those follow as a deadline due at once, so
    that his tap is answered as soon as his move is stored. ``follows``: the seat whose move this stretch of
    computer moves follows."""
    match = table.match
    assert match is not None
    moves: list[Move] = []
    asked_before = frozenset() if dealt else _questions(match)
    waiting = set(late)
    began = ctx.clock()
    nxt: tuple[int, Action, Actor] | None = first
    if nxt is None:
        nxt = await _automatic(ctx, table, match, 0, waiting)
    while nxt is not None and len(moves) <= MAX_AUTOMATIC:
        mover, action, actor = nxt
        try:
            events = tuple(match.apply(action, mover))
        except IllegalAction as e:  # the player's move was judged legal before; a computer's always is
            raise IllegalMove(e.reason) from None
        moves.append(Move(mover, action, actor, events))
        if alone and (found := policy.automatic(table, match, waiting)) is not None and found[1] != "pass":
            break  # a computer's decision: the clock's follow-on makes it
        spent = (ctx.clock() - began).total_seconds()
        nxt = await _automatic(ctx, table, match, len(moves), waiting, spent)

    entries = [*((None, word) for word in logged), *((m.seat, str(m.action)) for m in moves)]
    seq = table.last_seq + len(entries)
    now = ctx.clock()
    untold = table.marks.untold
    marks, told = marks_after(table, moves, notices, dealt, table.last_seq + len(logged))
    if untold is not None and not dealt:
        # The player's move stored alone before this stretch: the group hears of it with these moves.
        told = tuple(e for e in table.marks.recent if e.seq >= untold) + told
    # The questions before the first lead share one deadline, counted from when they were asked.
    asked_anew = _asked_anew(asked_before, match)
    stage = _stage_of(match)
    if stage is None:
        marks = replace(marks, asked_since=None, asked_stage=None, asked_at=())
    else:
        if marks.asked_since is None or marks.asked_stage != stage:
            marks = replace(marks, asked_since=now, asked_stage=stage)
        put = table.version + 1  # the version this write makes (tables.save bumps it by one)
        asked = {n: marks.asked_since_version(n) for n in match.asked}
        marks = replace(
            marks,
            asked_at=tuple((n, put if n in asked_anew or v is None else v) for n, v in sorted(asked.items())),
        )
    pending = policy.automatic(replace(table, marks=marks), match) is not None
    held = min((e.seq for e in told), default=None) if pending and told else None
    # With the computers' moves to follow, the questions put now are asked with them (in their outcome).
    unprompted = table.marks.unprompted | asked_anew
    if pending:
        marks, asked_anew = replace(marks, untold=held, unprompted=unprompted), frozenset()
    else:
        marks, asked_anew = replace(marks, untold=None, unprompted=frozenset()), unprompted & set(match.asked)
    write: TableChanges = {**(changes or {}), "match": match, "last_seq": seq}
    if marks != table.marks:
        write["marks"] = marks.to_json()
    after = replace(table, last_seq=seq, marks=marks, match=match)
    planned = policy.deadlines(after, match, now, since=marks.asked_since)
    kinds = {d.kind for d in planned}

    # The writes come last, with nothing slow between them: on SQLite they hold the database's one write
    # lock from the first to the commit.
    async with ctx.uow() as uow:
        if update_id is not None and not await uow.updates.record(update_id, ctx.bot_id):
            raise AlreadyProcessed(update_id)
        version = await ctx.save(uow, table, **write)
        if new_round is not None:
            await uow.rounds.add(table.id, new_round[0], new_round[1], table.rules)
        for seat in new_seats:
            await uow.seats.put(table.id, seat.n, computer_level=seat.computer_level)
        if entries:
            await uow.actions.append_many(
                table.id,
                table.round_no,
                [(table.last_seq + 1 + i, s, a) for i, (s, a) in enumerate(entries)],
            )
        for seat in seats:
            await uow.seats.update(
                table.id,
                seat.n,
                autoplay=seat.autoplay,
                consecutive_timeouts=seat.timeouts,
                hand_message_id=seat.hand_message_id,
                leaving=seat.leaving,
                user_id=seat.user_id,
                computer_level=seat.computer_level,
            )
        if match.round_over and any(e.kind == "scored" for m in moves for e in m.events):
            await _count_finished_round(uow, table, match)
        # The kinds the version before had armed are moved in place; any other is dropped (unless the
        # caller knows there is none: a player's own move, the hot path, then costs one statement here).
        await uow.deadlines.rearm(
            table.id,
            version,
            [(d.kind, d.due_at) for d in planned],
            others=armed is None or not armed <= kinds,
        )
        await uow.commit()
    ctx.matches.put(table.id, version, match)
    moved = {m.seat for m in moves if m.seat is not None}
    hands = frozenset(s.n for s in after.humans if all_hands or s.n in moved)
    return Outcome(
        table=replace(
            after,
            version=version,
            due=next((d.due_at for d in planned if d.kind == policy.TIMEOUT), None),
        ),
        moves=tuple(moves),
        dealt=tuple(dealt),
        deadlines=planned,
        notices=tuple(notices),
        prompt=True,
        hands=hands,
        told=told,
        asked_anew=asked_anew,
        follows=follows,
    )


async def _automatic(
    ctx: Context, table: Table, match: Match, salt: int, late: set[int], spent: float = 0.0
) -> tuple[int, Action, Actor] | None:
    found = policy.automatic(table, match, late)
    if found is None:
        return None
    seat, how = found
    if how == "pass":
        return seat, policy.PASS_ACTION, "computer"
    actor: Actor = "computer"
    if seat in late:
        # Every question he let run out (革命 and then 宣点) is answered; in the play only the turn that ran
        # out: his next waits for him again.
        if match.step == "play":
            late.discard(seat)
        actor = "timeout"
    return seat, await computer_move(ctx, table, match, seat, salt, spent=spent), actor


def _questions(match: Match) -> frozenset[tuple[int, int, int, str]]:
    """What each seat is asked before the first lead: (round, deal, seat, question)."""
    if match.step not in (S_STAGE, S_HEAD):
        return frozenset()
    found = ((n, match.question(n)) for n in match.asked)
    return frozenset((match.round_no, match.deal_no, n, q.kind) for n, q in found if q is not None)


def _asked_anew(before: frozenset[tuple[int, int, int, str]], match: Match) -> frozenset[int]:
    """The seats asked a question they were not asked before this stretch: each gets a message that asks it."""
    return frozenset(n for (_r, _d, n, _k) in _questions(match) - before)


def _stage_of(match: Match) -> str | None:
    """Which set of questions the table waits on (one deadline for them all), or None during the play."""
    if match.step not in (S_STAGE, S_HEAD):
        return None
    return f"{match.round_no}:{match.deal_no}:{match.step}"


async def _count_finished_round(uow: UnitOfWork, table: Table, match: Match) -> None:
    """The round's result and each player's statistics, in the unit of work of its last move (R11.1)."""
    places, scores = list(match.places), match.scores()
    if not await uow.rounds.finish(table.id, table.round_no, places, scores):
        return
    await uow.groups.count_finished_round(table.group_id)
    place_of = {seat: place for place, seat in enumerate(places, start=1) if seat is not None}
    team_score = [sum(scores[t::2]) for t in (0, 1)] if scores is not None else [0, 0]
    # Users in id order: two tables ending at once then lock shared players' rows in the same order
    # (PostgreSQL would otherwise abort one of them as a deadlock).
    for seat in sorted(table.humans, key=lambda s: s.user_id or 0):
        assert seat.user_id is not None
        points = scores[seat.n] if scores is not None else 0
        await uow.users.record_result(
            seat.user_id, table.group_id, place_of.get(seat.n), points, team_score[seat.n % 2] > 0
        )
