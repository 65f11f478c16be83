"""What a player reads in his private chat: his hand at the deal, his turn message (what happened since his
last move, why it is his turn, his hand, until when), that message once his turn is over, the end of a round
and of the match for him, a move's name, and why a move was refused.

Pure functions of the table (:class:`table.Table`) and the seat's own view (``Match.view``): a hand appears
only here, and only the seat's own. The time is passed in; the keyboards are in :mod:`bot.keyboards`.
"""

from __future__ import annotations

from datetime import datetime

from engine import Action, Event
from engine.actions import BURN, PASS, YIELD
from engine.cards import ACE, RANKS, SMALL, TWO, Counts, format_cards
from engine.cards import BIG as BIG_JOKER
from engine.match import (
    DECLARE,
    NO_DECLARE,
    NO_REVOLT,
    P_DECLARE,
    P_HEAD,
    P_PLAY,
    P_RETURN,
    P_REVOLT,
    RETURN,
    REVOLT,
    WUTOU,
    YAOTOU,
    PublicView,
)
from engine.refusals import Refusal
from engine.round import GOUJI, GOUSI, opposite
from table import Entry, Table
from table.model import last_decision

from ..i18n import t, tn
from .words import (
    SeatInfo,
    cards_text,
    debt_waived_text,
    debt_word,
    entry_text,
    place_name,
    reader_zone,
    seat_infos,
    sentences,
    story_line,
    top_line,
    turn_line,
    waived_text,
    when_text,
)

# Entries of "since your last move" shown before the older ones are folded into a count: a whole cycle of
# six seats with its tricks and moments fits many times over, within Telegram's 4096 characters.
SINCE_MAX = 60


# ----------------------------------------------------------------------------- the private hand


def card_memory_line(lang: str, view: PublicView, hand: Counts) -> str:
    """记牌: what every player could know from the public plays — the As, 2s and jokers not yet played and not
    in your hand."""

    def out(r: int) -> int:
        return max(0, view.deck[r] - view.pile[r] - view.laid_down[r] - hand[r])

    # The jokers as the hand writes them (B, R); Chinese says 小王 and 大王.
    return t(
        lang,
        "记牌 still out: A {a} · 2 {two} · B {b} · R {r}",
        a=out(ACE),
        two=out(TWO),
        b=out(SMALL),
        r=out(BIG_JOKER),
    )


def hand_lines(lang: str, table: Table, seat: int) -> list[str]:
    assert table.match is not None
    own = table.match.view(seat)
    lines = [t(lang, "Your cards ({n}):", n=sum(own.hand)), cards_text(own.hand)]
    if table.group.card_memory and table.match.phase in (P_PLAY, P_DECLARE, P_REVOLT, P_HEAD, P_RETURN):
        lines.append(card_memory_line(lang, table.match.public_view(), own.hand))
    return lines


def turn_text(lang: str, table: Table, seat: int, now: datetime, selection: Counts | None = None) -> str:
    """His turn message: what happened since he last moved, why it is his turn, his hand, until when."""
    match = table.match
    assert match is not None
    view = match.public_view()
    seats = seat_infos(table, lang)
    lines = [f"[{table.title}] " + t(lang, "round {n} · your turn", n=view.round_no)]
    since = table.marks.since_last_move(seat)
    if since:
        story = story_line(lang, since, seats, seat, SINCE_MAX)
        if last_decision(table.marks.recent, seat) is None and since[0].kind != "dealt":
            story = t(lang, "… (earlier moves are not kept)") + " · " + story
        lines.append(t(lang, "Since your last move: {story}", story=story))
    lines.append("")
    lines += hand_lines(lang, table, seat)
    if view.top is not None:
        lines.append(top_line(lang, view, seats))
    lines.append("")
    lines.append(why_text(lang, table, view, seat, seats))
    if table.due is not None:
        lines.append("⏳ " + when_text(lang, table.due, now, reader_zone(table, seat)))
    if selection is not None and sum(selection) > 0:
        lines.append(t(lang, "Selected: {cards}", cards=format_cards(selection)))
    return "\n".join(lines)


def why_text(lang: str, table: Table, view: PublicView, seat: int, seats: dict[int, SeatInfo]) -> str:
    """Why it is his turn and what is asked of him."""

    def name(s: int) -> str:
        info = seats.get(s)
        return info.name if info else "?"

    assert table.match is not None
    question = table.match.question(seat)
    if question is not None:
        # Asked of every seat concerned at once, answered in any order (engine/RULES-DECISIONS.md).
        sealed = t(lang, "Everyone answers at once; the answers are shown when all are in.")
        if question.kind == P_RETURN:
            return tn(
                lang,
                "还贡: choose {n} card to give back to {name}, then tap Give back.",
                "还贡: choose {n} cards to give back to {name}, then tap Give back.",
                question.n,
                name=name(question.to if question.to is not None else -1),
            )
        if question.kind == P_REVOLT:
            return sentences(
                lang,
                t(lang, "You hold no jokers and no 2s: declare 革命? (you lay your hand down and rank 四科)"),
                sealed,
            )
        if question.kind == P_HEAD:
            return t(lang, "Your 对头 revolted: 要头 (your first three gouji are 够死级) or 无头?")
        return sentences(lang, t(lang, "宣点 against your 对头? (higher 点贡 either way)"), sealed)
    top = view.top
    compose = t(lang, "Tap ranks, then Play, or type it (TTTT2, pass).")
    if top is None:
        if view.burner == seat:
            return sentences(
                lang,
                t(lang, "Your burn goes on: lead again; every lead but your last must carry a joker."),
                compose,
            )
        last = next((e for e in reversed(table.marks.recent) if e.kind in ("trick_won", "dealt")), None)
        if last is not None and last.kind == "trick_won" and last.seat == seat:
            return sentences(lang, t(lang, "You took the trick: your lead."), compose)
        if last is not None and last.kind == "trick_won" and last.seat is not None and last.seat in view.out:
            return sentences(
                lang,
                t(lang, "{name} went out with the last play: you lead (接风).", name=name(last.seat)),
                compose,
            )
        if last is None or last.kind == "dealt":
            return sentences(lang, t(lang, "You lead the first trick."), compose)
        return sentences(lang, t(lang, "Your lead."), compose)
    owner = top.owner
    size = sum(top.cards)
    beat = tn(
        lang,
        "Beat {cards} ({n} card) or pass.",
        "Beat {cards} ({n} cards) or pass.",
        size,
        cards=format_cards(top.cards),
    )
    if view.free:
        return sentences(lang, t(lang, "四户乱缠: anyone may answer."), beat)
    if view.yielder == seat and view.yield_back:
        return sentences(lang, t(lang, "Your 让 came back: both after you passed."), beat)
    if view.burner is not None and owner == view.burner:
        if owner == opposite(seat):
            return t(lang, "Your 对头 is burning: beat his play to break the burn (解烧), or pass.")
        return t(
            lang, "{name} is burning: burn his play (反烧, the stake doubles), or pass.", name=name(owner)
        )
    if top.kind == GOUSI:
        return t(lang, "够死级: only a burn can answer it. Burn (烧) or pass.")
    if top.kind == GOUJI:
        if owner == opposite(seat):
            return sentences(
                lang, t(lang, "Only you, as 对头, may answer this gouji; the others may only burn it."), beat
            )
        if owner % 2 == seat % 2:
            return t(lang, "Your teammate's gouji: you may burn it too (烧), or pass.")
        return t(
            lang, "{name}'s gouji: only his 对头 may answer; you may burn it (烧), or pass.", name=name(owner)
        )
    if view.passed[seat] and owner == opposite(seat):
        return sentences(lang, t(lang, "Your 对头 played: you are asked again, though you passed."), beat)
    return sentences(lang, beat, compose)


def hand_text(lang: str, table: Table, seat: int, now: datetime) -> str:
    """His cards when he asks (/hand, the 🃏 button): the hand, the play on the table and whose turn it is. It
    never acts (no keyboard): when it is his turn, his turn message is where he answers."""
    match = table.match
    assert match is not None
    view = match.public_view()
    seats = seat_infos(table, lang)
    lines = [f"[{table.title}] " + t(lang, "round {n}", n=view.round_no), *hand_lines(lang, table, seat)]
    if view.top is not None:
        lines.append(top_line(lang, view, seats))
    if seat in match.asked:
        lines.append(t(lang, "It is your turn: answer in your turn message."))
    elif view.current is not None:
        lines.append(turn_line(lang, table, view, seats, now, seat))
    return "\n".join(lines)


def past_text(lang: str, table: Table, seat: int, entry: Entry | None, done: str | None = None) -> str:
    """A turn message once its turn is over: short, without buttons, saying what was done (``entry``, the
    move as the table told it, or ``done``, a decision before the first lead that the table keeps sealed)."""
    assert table.match is not None
    left = sum(table.match.view(seat).hand)
    head = f"[{table.title}] " + t(lang, "round {n}", n=table.match.round_no)
    if entry is not None:
        head += " · " + entry_text(lang, entry, seat_infos(table, lang), seat)
    elif done is not None:
        head += " · " + t(lang, "you: {action}", action=done)
    return head + " · " + tn(lang, "{n} card left", "{n} cards left", left)


def deal_text(lang: str, table: Table, seat: int) -> str:
    """His hand at the deal (the table shows the rest)."""
    assert table.match is not None
    view = table.match.public_view()
    seats = seat_infos(table, lang)
    lines = [f"[{table.title}] " + t(lang, "round {n} is dealt", n=view.round_no)]
    lines += hand_lines(lang, table, seat)
    lines += tribute_lines(lang, table, seat)
    me = table.seat(seat)
    if me is not None and me.autoplay:
        lines.append(t(lang, "The computer plays your seat (托管): send /back to play your own cards."))
    elif table.match.question(seat) is not None:
        lines.append(t(lang, "Your question before the first lead comes in a message of its own."))
    elif view.asked:
        lines.append(t(lang, "The first lead comes once the questions before it are answered."))
    elif view.current is not None and view.current != seat:
        who = seats.get(view.current)
        lines.append(
            t(lang, "{name} is first to act; your turn message will come.", name=who.name if who else "?")
        )
    return "\n".join(lines)


def action_label(lang: str, action: Action) -> str:
    if action.kind == PASS:
        return t(lang, "pass")
    if action.kind == YIELD:
        return t(lang, "让牌")
    if action.kind == RETURN:
        return t(lang, "give back {cards}", cards=format_cards(action.cards or ()))
    if action.cards is not None:
        return ("烧 " if action.kind == BURN else "") + format_cards(action.cards)
    return {
        REVOLT: "革命",
        NO_REVOLT: t(lang, "no 革命"),
        YAOTOU: "要头",
        WUTOU: "无头",
        DECLARE: "宣点",
        NO_DECLARE: t(lang, "no 宣点"),
    }.get(action.kind, action.kind)


def computer_move_text(lang: str, action: Action) -> str:
    """What the computer did for a player whose time ran out, as a clause: a pass is not a play."""
    if action.kind == PASS:
        return t(lang, "the computer passed for you")
    if action.kind == YIELD:
        return t(lang, "the computer yielded (让牌) for you")
    if action.kind == RETURN:
        return t(
            lang, "the computer gave back {cards} for you (还贡)", cards=format_cards(action.cards or ())
        )
    if action.cards is not None and action.kind == BURN:
        return t(lang, "the computer burned with {cards} for you", cards=format_cards(action.cards))
    if action.cards is not None:
        return t(lang, "the computer played {cards} for you", cards=format_cards(action.cards))
    return t(lang, "the computer chose {choice} for you", choice=action_label(lang, action))


def timed_out_text(lang: str, action: Action, *, autoplay: bool) -> str:
    """A player's time ran out: what the computer did for him, and what comes of it (托管 at the second)."""
    if autoplay:
        return t(
            lang,
            "⏰ Time ran out again: {move}. The computer now plays your seat (托管): tap anything or send /back to play again.",
            move=computer_move_text(lang, action),
        )
    return t(
        lang,
        "⏰ Time ran out: {move}. Miss the next turn too and the computer plays your seat (托管).",
        move=computer_move_text(lang, action),
    )


def reminder_text(lang: str, when: str | None) -> str:
    """Half of his time is gone (``when``: his deadline, :func:`when_text`)."""
    if when is None:
        return t(lang, "Reminder: it is your turn; half of your time is gone.")
    return t(lang, "Reminder: it is your turn; half of your time is gone. ⏳ {when}", when=when)


def refusal_text(lang: str, reason: str) -> str:
    """Why a move was refused (R-rule reasons), and what would be allowed."""
    code = reason.code if isinstance(reason, Refusal) else ""
    facts = reason.facts if isinstance(reason, Refusal) else {}
    if code == "does_not_beat":
        cards, top = facts["cards"], facts["top"]
        if sum(cards) != facts["size"]:
            return tn(
                lang,
                "{cards} does not beat {top}: the play must have {n} card.",
                "{cards} does not beat {top}: the play must have {n} cards.",
                facts["size"],
                cards=format_cards(cards),
                top=format_cards(top),
            )
        return t(
            lang,
            "{cards} does not beat {top}: every card must be higher.",
            cards=format_cards(cards),
            top=format_cards(top),
        )
    if code == "not_held":
        return not_held_text(lang, facts["cards"], facts["missing"])
    words = {
        "over": t(lang, "the round is over"),
        "nobody": t(lang, "nobody is to act"),
        "lead_something": t(lang, "you lead: play something"),
        "nothing_to_yield": t(lang, "there is nothing to yield to"),
        "no_yield_free": t(lang, "no 让牌 in 四户乱缠"),
        "yield_only_duitou": t(lang, "you may only yield (让牌) to your 对头's play"),
        "no_yield_gouji": t(lang, "never 让牌 against a gouji"),
        "yielded_already": t(lang, "you have yielded already"),
        "not_a_play": t(lang, "not a play: one rank, with 2s and jokers attached"),
        "nothing_to_burn": t(lang, "there is nothing to burn"),
        "no_burn_free": t(lang, "no burning in 四户乱缠"),
        "burn_cannot_finish": t(lang, "that burn cannot finish: every lead after it needs a joker"),
        "burn_needs_joker": t(lang, "while burning, every lead but the last must carry a joker"),
        "burn_rest_unfinishable": t(lang, "the rest of your hand could not finish the burn"),
        "gousi_only_burn": t(lang, "够死级: only a burn may answer it"),
        "only_duitou_answers": t(lang, "only the 对头 may answer a gouji; you may only burn it (烧)"),
        "only_gouji_burned": t(lang, "only a gouji can be burned"),
        "duitou_answers": t(lang, "as 对头 you answer it (出牌), you do not burn"),
        "passed_already": t(lang, "you passed in this trick"),
        "wutou_cannot_burn": t(lang, "无头: you cannot burn"),
        "burn_needs_open": t(lang, "only a player who opened the point may burn"),
        "tie_two_off": t(lang, "2s may not be attached (贴钱 is off)"),
        "three_last": t(lang, "3s only as your last play, all together, with nothing attached (憋三)"),
        "four_after_open": t(lang, "open the point (开点) before you play 4s"),
        "give_back": tn(
            lang,
            "give back exactly {n} card (还贡)",
            "give back exactly {n} cards (还贡)",
            int(facts.get("n", 0)),
        ),
        "choose": t(lang, "choose one of the buttons"),
        "not_an_action": t(lang, "that is not a move now"),
    }
    return words.get(code, str(reason))


def not_held_text(lang: str, cards: Counts, missing: Counts) -> str:
    """A play of cards he does not hold: what he holds of the ranks he lacks (``RRRR`` typed, ``RR`` held:
    "you have only RR"; none of them: "you have no R")."""
    lacks: list[str] = []
    for r, short in enumerate(missing):
        if not short:
            continue
        held = cards[r] - short
        if held:
            lacks.append(t(lang, "only {cards}", cards=RANKS[r] * held))
        else:
            lacks.append(t(lang, "no {rank}", rank=RANKS[r]))
    return t(
        lang,
        "you do not hold {cards}: you have {what}.",
        cards=format_cards(cards),
        what=t(lang, ", ").join(lacks),
    )


# ----------------------------------------------------------------------------- the end of a round, of a match


def round_end_text(lang: str, table: Table, seat: int) -> str:
    """The end of a round in a player's private chat: his place and points, what he owes or gets, the totals."""
    assert table.match is not None
    view = table.match.public_view()
    result = view.result
    assert result is not None
    seats = seat_infos(table, lang)
    place = result.places.index(seat)
    lines = [
        f"[{table.title}] " + t(lang, "Round {n} is over", n=result.round_no),
        # A point or points by its size: "-1 point", "+2 points".
        tn(
            lang,
            "You: {place}, {points:+d} point",
            "You: {place}, {points:+d} points",
            abs(result.scores[seat]),
            place=place_name(lang, place),
            points=result.scores[seat],
        ),
    ]
    for d in result.debts:
        if d.payer == seat:
            other = seats.get(d.receiver)
            lines.append(
                tn(
                    lang,
                    "You owe {name} {n} card of {kind} before the next round",
                    "You owe {name} {n} cards of {kind} before the next round",
                    d.n,
                    name=other.name if other else "?",
                    kind=debt_word(lang, d.kind),
                )
            )
        elif d.receiver == seat:
            other = seats.get(d.payer)
            lines.append(
                tn(
                    lang,
                    "{name} owes you {n} card of {kind}",
                    "{name} owes you {n} cards of {kind}",
                    d.n,
                    name=other.name if other else "?",
                    kind=debt_word(lang, d.kind),
                )
            )
    for w in result.waived:
        if seat in (w.debt.payer, w.debt.receiver):
            other = seats.get(w.debt.receiver if w.debt.payer == seat else w.debt.payer)
            lines.append(
                f"{other.name if other else '?'}: "
                + debt_waived_text(lang, w.debt.n, debt_word(lang, w.debt.kind), w.why)
            )
    a, b = view.team_totals
    mine = a if seat % 2 == 0 else b
    lines.append(
        t(
            lang,
            "Your team: {round:+d} this round, {total:+d} in the match; you {me:+d}",
            round=sum(result.scores[seat % 2 :: 2]),
            total=mine,
            me=view.totals[seat],
        )
    )
    return "\n".join(lines)


def closed_text(lang: str, table: Table, seat: int) -> str:
    totals = table.match.public_view().totals if table.match is not None else (0,) * 6
    return f"[{table.title}] " + t(
        lang,
        "The table is closed. Your total: {points:+d}. Final standings are in the group.",
        points=totals[seat],
    )


def tribute_lines(lang: str, table: Table, seat: int) -> list[str]:
    """What he gave and got before this round's first lead, as the table was shown it: tribute paid and
    received (and what was waived, and why), the 3 (or 4) he bought or sold (R8.2, R10)."""
    assert table.match is not None
    seats = seat_infos(table, lang)

    def name(s: object) -> str:
        info = seats.get(s) if isinstance(s, int) else None
        return info.name if info else "?"

    lines: list[str] = []
    for e in table.match.shown:
        kind, payer, other, cards = e["kind"], e.get("seat"), e.get("other"), e.get("cards")
        if seat not in (payer, other):
            continue
        if kind in ("tribute_short", "tribute_exempt"):
            if payer == seat:
                lines.append(
                    waived_text(lang, Event(kind, payer, None, other, e.get("n")), None, name(other))
                )
        elif kind.startswith("tribute_") and cards:
            what = debt_word(lang, kind.removeprefix("tribute_"))
            if payer == seat:
                lines.append(t(lang, "You paid {b} {kind}: {cards}", b=name(other), kind=what, cards=cards))
            else:
                lines.append(t(lang, "{a} paid you {kind}: {cards}", a=name(payer), kind=what, cards=cards))
        elif kind in ("bought_three", "bought_four"):
            rank = "3" if kind == "bought_three" else "4"
            if payer == seat:
                lines.append(
                    t(
                        lang,
                        "You got a {rank} from {b}, paying {cards}",
                        rank=rank,
                        b=name(other),
                        cards=cards,
                    )
                    if cards
                    else t(lang, "You got a {rank} from {b}, free", rank=rank, b=name(other))
                )
            else:
                lines.append(
                    t(
                        lang,
                        "{a} got a {rank} from you, paying {cards}",
                        rank=rank,
                        a=name(payer),
                        cards=cards,
                    )
                    if cards
                    else t(lang, "{a} got a {rank} from you, free", rank=rank, a=name(payer))
                )
    return lines
