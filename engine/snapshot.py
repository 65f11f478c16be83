"""A round's and a match's state as plain JSON values, and back: what storage keeps (the round's inside the
match's). Round.to_json/from_json and Match.to_json/from_json are these functions; a state and the state read
back from its JSON are equal (Round.__eq__ and Match.__eq__ compare the JSON)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from . import stage
from .cards import BIG, NRANKS, SMALL, TWO, format_cards, parse_cards
from .notation import parse_debt
from .phases import P_OVER, P_PLAY, S_STAGE
from .plays import Top
from .rules import Rules
from .tally import Tally
from .tribute import Returned

if TYPE_CHECKING:
    from .match import Match
    from .round import Round

R = TypeVar("R", bound="Round")
M = TypeVar("M", bound="Match")


def round_to_json(rnd: Round) -> dict[str, Any]:
    """:meth:`Round.to_json`."""
    top = rnd.top
    return {
        "rules": rnd.rules.to_dict(),
        "hands": [format_cards(h) for h in rnd.hands],
        "pile": format_cards(rnd.pile),
        "opened": list(rnd.opened),
        "natural": list(rnd.natural),
        "declared": list(rnd.declared),
        "out": list(rnd.out),
        "dead": [[s, how] for s, how in rnd.dead],
        "revolted": rnd.revolted,
        "gousi_left": list(rnd.gousi_left),
        "free": rnd.free,
        "top": None if top is None else [top.owner, format_cards(top.cards), top.kind, top.men],
        "bound": list(rnd.bound),
        "queue": list(rnd.queue),
        "yielder": rnd.yielder,
        "yielder_back": rnd.yielder_back,
        "burn": [rnd.burner, rnd.burn_victim, rnd.burn_stake],
        "arisen": [str(d) for d in rnd.arisen],
        "over": rnd.over,
        "current": rnd.current,
    }


def round_from_json(cls: type[R], d: dict[str, Any]) -> R:
    """:meth:`Round.from_json`: a ``cls`` (Round or a subclass) in the state ``d``."""

    def cards(text: str) -> list[int]:
        return [0] * NRANKS if text == "-" else list(parse_cards(text))

    rnd = cls(Rules.from_dict(d["rules"]), [cards(h) for h in d["hands"]], d["current"])
    rnd.pile = cards(d["pile"])
    rnd.opened = list(d["opened"])
    rnd.natural = list(d["natural"])
    rnd.declared = list(d["declared"])
    rnd.out = list(d["out"])
    rnd.dead = [(s, how) for s, how in d["dead"]]
    rnd.revolted = d["revolted"]
    rnd.gousi_left = list(d["gousi_left"])
    rnd.free = d["free"]
    t = d["top"]
    rnd.top = None if t is None else Top(t[0], tuple(cards(t[1])), t[2], t[3])
    rnd.bound = list(d["bound"])
    rnd.queue = list(d["queue"])
    rnd.yielder = d["yielder"]
    rnd.yielder_back = d["yielder_back"]
    rnd.burner, rnd.burn_victim, rnd.burn_stake = d["burn"]
    rnd.arisen = [parse_debt(x) for x in d["arisen"]]
    rnd.over = d["over"]
    return rnd


def match_to_json(m: Match) -> dict[str, Any]:
    """:meth:`Match.to_json`."""
    return {
        "rules": m.rules.to_dict(),
        "seed": m.seed,
        "round_no": m.round_no,
        "deal_no": m.deal_no,
        "leader": m.leader,
        "debts": [str(d) for d in m.debts],
        "phase": m.phase,  # derived (Match.phase): for a reader of the JSON
        "step": m.step,
        "hands": [format_cards(h) for h in m.hands],
        "dealt": [format_cards(h) for h in m.dealt],
        "natural_cards": [format_cards(h) for h in m.natural_cards],
        "natural": list(m.natural),
        "returns": [[r.receiver, r.payer, r.n] for r in m.returns],
        "revolt_answers": list(m.revolt_answers),
        "declare_answers": list(m.declare_answers),
        "revolted": m.revolted,
        "laid_down": format_cards(m.laid_down),
        "head": m.head,
        "declared": list(m.declared),
        "round": None if m.round is None else m.round.to_json(),
        "tally": m.tally.to_json(),
        "shown": [dict(e) for e in m.shown],
        "totals": list(m.totals),
        "last_result": m.last_result,
    }


def match_from_json(cls: type[M], round_cls: type[Round], d: dict[str, Any]) -> M:
    """:meth:`Match.from_json`: a ``cls`` in the state ``d``, its round a ``round_cls``."""

    def cards(text: str) -> list[int]:
        return [0] * NRANKS if text == "-" else list(parse_cards(text))

    m = cls(Rules.from_dict(d["rules"]), d["seed"], _deal=False)
    m.round_no, m.deal_no, m.leader = d["round_no"], d["deal_no"], d["leader"]
    m.debts = [parse_debt(x) for x in d["debts"]]
    m.hands = [cards(h) for h in d["hands"]]
    m.dealt = [cards(h) for h in d["dealt"]]
    m.natural_cards = [cards(h) for h in d["natural_cards"]]
    m.natural = list(d["natural"])
    m.returns = [Returned(a, b, n) for a, b, n in d["returns"]]
    m.revolted = d["revolted"]
    m.laid_down = cards(d["laid_down"])
    m.head = d["head"]
    m.declared = list(d["declared"])
    if "step" in d:
        m.step = d["step"]
        m.revolt_answers = list(d["revolt_answers"])
        m.declare_answers = list(d["declare_answers"])
    else:
        _asked_in_turn(m, d["phase"], d["pending"], d["revolters"])
    m.round = None if d["round"] is None else round_from_json(round_cls, d["round"])
    m.tally = Tally.from_json(d.get("tally"))  # states saved before it: an empty record
    m.shown = [dict(e) for e in d["shown"]]
    m.totals = list(d["totals"])
    # States saved before the last result replaced the whole list (and the log) still load.
    last = d.get("last_result", (d.get("results") or [None])[-1])
    m.last_result = None if last is None else dict(last)
    return m


def _asked_in_turn(m: Match, phase: str, pending: list[int], revolters: list[int]) -> None:
    """A state saved by the engine that asked the questions before the first lead seat by seat (in turn from
    the leader: 还贡, 革命, 要头/无头, 宣点), read as the stage of engine/stage.py: the answers given kept,
    the questions still open asked. Its answers were shown as they came; they are revealed again at the end."""
    if phase in (P_PLAY, P_OVER):
        m.step = P_PLAY if phase == P_PLAY else P_OVER
        return
    m.step = S_STAGE
    eligible = [not (h[TWO] or h[SMALL] or h[BIG]) for h in m.hands]
    if phase == "revolt":
        for s in range(6):
            if eligible[s] and s not in pending:
                m.revolt_answers[s] = s in revolters
    elif phase in ("head", "declare"):
        # 革命 was answered by every eligible seat; after a revolution (laid down already) the pair is not
        # asked 宣点; in "declare" the seats no longer pending have declared or not.
        for s in range(6):
            if eligible[s] or s == m.revolted:
                m.revolt_answers[s] = s == m.revolted
        void = set() if m.revolted is None else {m.revolted, (m.revolted + 3) % 6}
        for s in range(6):
            if s in void:
                m.declare_answers[s] = False
            elif phase == "declare" and s not in pending:
                m.declare_answers[s] = m.declared[s]
        m.declared = [False] * 6  # revealed (again) with the others at the end of the stage
    stage.settle(m)  # after a revolution without 宣点 nothing is open: on to 要头/无头 (no event to show)
