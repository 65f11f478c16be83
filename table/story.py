"""The table's public story: what each stretch of moves adds to what the table tells ("since your last move",
the trick on the table, the big moments), and the 要不起 marks of R4.3 that the engine does not keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

from engine import Event
from engine.actions import PASS

from .model import RECENT_MAX, Entry, EntryKind, Marks, Table, last_decision, trick_start
from .outcome import CameBack, Move, Notice, WentAutoplay

# The engine's words for what the story tells, as its entries' kinds: the moves, the decisions before the
# play, and the engine events that are a moment of their own.
_MOVES: dict[str, EntryKind] = {k: k for k in ("play", "burn", "pass", "yield")}
_DECISIONS: dict[str, EntryKind] = {
    "answered": "answered",  # a sealed answer given (革命, 宣点): who answered, not what
    "returned": "returned",  # 还贡, shown at once
    "revolt": "revolt",  # the reveal, once every answer is in
    "no_revolt": "no_revolt",
    "declared": "declare",
    "no_declare": "no_declare",
    "yaotou": "yaotou",
    "wutou": "wutou",
}
_MOMENTS: dict[str, EntryKind] = {
    k: k
    for k in (
        "trick_won",
        "opened",
        "out",
        "men",
        "burn_won",
        "burn_failed",
        "free_for_all",
        "discarded_fours",
        "round_over",
    )
}


def marks_after(
    table: Table, moves: Sequence[Move], notices: Sequence[Notice], dealt: Sequence[Event], seq: int
) -> tuple[Marks, tuple[Entry, ...]]:
    """The table's marks after these moves: 要不起 for a pass the table made for a player who plays himself
    (R4.3), until the trick ends; the public story of the table, for "since you last looked" and the trick on
    the table. ``seq``: the log position before the first move."""
    marks = table.marks
    passed = set(marks.auto_passed)
    recent = list(marks.recent)
    start = len(recent)
    if dealt:
        passed.clear()
        recent = [Entry(seq, "dealt", n=table.round_no)]
        start = 0
    for notice in notices:
        if isinstance(notice, WentAutoplay):
            recent.append(Entry(seq, "tuoguan", notice.seat))
        elif isinstance(notice, CameBack):
            recent.append(Entry(seq, "back", notice.seat))
    for i, m in enumerate(moves, start=1):
        seat = table.seat(m.seat) if m.seat is not None else None
        action = m.action
        automatic_pass = (
            action.kind == PASS and m.actor == "computer" and seat is not None and seat.plays_himself
        )
        kind = "auto_pass" if automatic_pass else _MOVES.get(action.kind)
        actor: Literal["timeout", "computer"] | None = None
        if m.actor == "timeout":
            actor = "timeout"
        elif m.actor == "computer" and seat is not None and seat.human and not automatic_pass:
            actor = "computer"  # his seat on 托管: not his own decision
        if kind is not None:
            other = next((e.other for e in m.events if e.kind == "burned"), None)
            recent.append(Entry(seq + i, kind, m.seat, action.cards, other, None, actor))
        for e in m.events:
            if e.kind in _DECISIONS:
                # A sealed answer shows only that the seat answered; the answers come out together (revealed).
                mine = e.kind in ("answered", "yaotou", "wutou", "returned") and e.seat == m.seat
                recent.append(
                    Entry(
                        seq + i, _DECISIONS[e.kind], e.seat, e.cards, e.other, None, actor if mine else None
                    )
                )
            elif e.kind == "burn_broken":
                # R6.5 反烧 when the breaker burns the burn play, else R6.4 解烧.
                again = any(x.kind == "burned" and x.seat == e.other for x in m.events)
                recent.append(Entry(seq + i, "fan_shao" if again else "jie_shao", e.other, other=e.seat))
            elif e.kind in _MOMENTS:
                recent.append(Entry(seq + i, _MOMENTS[e.kind], e.seat, e.cards, e.other, e.n))
            if e.kind in ("trick_won", "dealt"):
                passed.clear()
            elif e.kind == "passed" and automatic_pass and m.seat is not None:
                passed.add(m.seat)
        if m.actor == "timeout" and seat is not None and seat.autoplay:
            recent.append(Entry(seq + i, "tuoguan", m.seat))  # a second time-out: the computer keeps his seat
    told = tuple(recent[start:])
    recent = recent[_kept_from(table, recent) :]
    new = replace(marks, auto_passed=frozenset(passed), recent=tuple(recent))
    return (marks if new == marks else new), told


def _kept_from(table: Table, recent: list[Entry]) -> int:
    """Where the story kept starts: at the oldest last decision of a player who plays himself (so that his
    "since your last move" is whole) or at the trick before the one on the table, whichever is older, but no
    more than RECENT_MAX entries back. The rest is in the table's log; keeping only what a reader still
    needs keeps the state written with every move small (benches.long_match)."""
    start = trick_start(recent, len(recent))
    keep = trick_start(recent, start - 1) if start > 0 else 0
    for seat in table.seats:
        if seat.plays_himself:
            i = last_decision(recent, seat.n)
            keep = min(keep, 0 if i is None else i)
    return max(keep, len(recent) - RECENT_MAX)
