"""``gouji-replay FILE``: run a rules transcript (../shared/CONFORMANCE.md) and print one line per action or query.

The shared format starts mid-round. This command also reads an extension for a position *before the first
lead* (tests/transcripts/NOTES.md), where the questions of engine/stage.py are asked of every seat at once:

Set-up lines: ``stage`` (the transcript starts before the first lead: the ``hand`` lines are the hands after
买三 and tribute), ``natural S …`` (自然点 seats, R5.2), ``returns R>P:N …`` (还贡 owed: seat R gives N cards
back to seat P, R10.6), ``seed N`` (the seed a redeal deals from, R9.2; 0 when absent; a redeal pays no
tribute, the position knowing no debts). ``lead`` is required; ``out`` and ``opened`` are not allowed.

Actions, besides the play's: ``S return CARDS``, ``S revolt``, ``S no_revolt``, ``S declare``,
``S no_declare``, ``S yaotou``, ``S wutou``; any asked seat may answer, in any order (``ok`` / ``illegal``).

Queries, besides the shared ones (which read the round once it is in play): ``? phase`` (``phase stage``,
``head``, ``play`` or ``over``), ``? asked`` (``asked 0 2 3`` or ``asked none``: the seats with an open
question, in seat order from the leader), ``? question S`` (``question S return N to P``, ``question S
revolt``, ``… head``, ``… declare`` or ``question S none``), ``? waiting`` (what the table sees: ``waiting
0:return 1:declare`` or ``waiting none``; a sealed question shows as ``declare``, or ``revolt`` without 宣点),
``? answered`` (seats whose sealed answers are all in), ``? sealed S`` (seat S's own answers not yet
revealed), ``? declared`` (the 宣点 revealed and counting), ``? revolted`` (``revolted S`` or ``revolted
none``) and ``? deal`` (``deal N``: redeals so far).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable

from .actions import BURN, PLAY, Action
from .cards import EMPTY, CardError, format_cards, parse_cards
from .match import Match
from .notation import parse_action
from .refusals import IllegalAction
from .round import Round
from .rules import Rules
from .tribute import Returned

# The verbs of the stage's answers (engine/stage.py), read only after a ``stage`` line.
STAGE_VERBS = ("return", "revolt", "no_revolt", "declare", "no_declare", "yaotou", "wutou")


class TranscriptError(ValueError):
    def __init__(self, lineno: int, message: str) -> None:
        super().__init__(f"line {lineno}: {message}")
        self.lineno = lineno


def _seat(token: str, lineno: int) -> int:
    if token not in ("0", "1", "2", "3", "4", "5"):
        raise TranscriptError(lineno, f"not a seat: {token!r}")
    return int(token)


class _Setup:
    def __init__(self) -> None:
        self.preset = "qingdao"
        self.changes: list[tuple[str, bool]] = []
        self.hands: dict[int, tuple[int, ...] | None] = {}
        self.out: list[int] = []
        self.opened: list[int] = []
        self.lead: int | None = None
        self.stage = False
        self.natural: list[int] = []
        self.returns: list[Returned] = []
        self.seed = 0

    def line(self, words: list[str], lineno: int) -> None:
        key = words[0]
        if key == "rules" and len(words) == 2:
            if words[1] not in ("qingdao", "classic", "zhangqiu"):
                raise TranscriptError(lineno, f"unknown preset {words[1]!r}")
            self.preset = words[1]
        elif key == "set" and len(words) == 2 and "=" in words[1]:
            name, value = words[1].split("=", 1)
            if value not in ("on", "off") or name not in Rules.key_names() or name == "tribute_order":
                raise TranscriptError(lineno, f"bad house rule setting {words[1]!r}")
            self.changes.append((name, value == "on"))
        elif key == "hand" and len(words) >= 3:
            seat = _seat(words[1], lineno)
            text = " ".join(words[2:])
            try:
                self.hands[seat] = None if text == "-" else parse_cards(text)
            except CardError as e:
                raise TranscriptError(lineno, str(e)) from None
        elif key in ("out", "opened"):
            seats = [_seat(w, lineno) for w in words[1:]]
            (self.out if key == "out" else self.opened).extend(seats)
        elif key == "lead" and len(words) == 2:
            self.lead = _seat(words[1], lineno)
        elif key == "stage" and len(words) == 1:
            self.stage = True
        elif key == "natural":
            self.natural.extend(_seat(w, lineno) for w in words[1:])
        elif key == "returns":
            self.returns.extend(_returned(w, lineno) for w in words[1:])
        elif key == "seed" and len(words) == 2 and words[1].isdigit():
            self.seed = int(words[1])
        else:
            raise TranscriptError(lineno, f"cannot read {' '.join(words)!r}")

    def rules(self) -> Rules:
        rules = Rules.preset(self.preset)
        for name, value in self.changes:
            rules = rules.set_key(name, value)
        return rules

    def build_stage(self, lineno: int) -> Match:
        """The match before the first lead (``stage``), its questions open."""
        if self.out or self.opened:
            raise TranscriptError(lineno, "out and opened have no place before the first lead")
        if self.lead is None:
            raise TranscriptError(lineno, "no lead line")
        hands = []
        for s in range(6):
            if s not in self.hands:
                raise TranscriptError(lineno, f"no hand for seat {s}")
            h = self.hands[s]
            if h is None:
                raise TranscriptError(lineno, f"seat {s} has no cards before the first lead")
            hands.append(h)
        for r in self.returns:
            if r.receiver % 2 == r.payer % 2 or not 1 <= r.n <= sum(hands[r.receiver]):
                raise TranscriptError(lineno, f"impossible 还贡 {r.receiver}>{r.payer}:{r.n}")
        m, _ = Match.from_stage(self.rules(), hands, self.lead, self.natural, self.returns, self.seed)
        return m

    def build(self, lineno: int) -> Round:
        if self.natural or self.returns or self.seed:
            raise TranscriptError(lineno, "natural, returns and seed need a stage line")
        rules = self.rules()
        missing = [s for s in range(6) if s not in self.hands]
        if missing:
            raise TranscriptError(lineno, f"no hand for seat {missing[0]}")
        if self.lead is None:
            raise TranscriptError(lineno, "no lead line")
        hands = []
        for s in range(6):
            h = self.hands[s]
            if h is None and s not in self.out:
                raise TranscriptError(lineno, f"seat {s} has no cards but is not out")
            hands.append(h or EMPTY)
        return Round.from_position(rules, hands, self.lead, self.out, self.opened)


def _returned(token: str, lineno: int) -> Returned:
    """``R>P:N``: seat R gives N cards back to seat P."""
    try:
        head, n = token.split(":")
        receiver, payer = head.split(">")
        return Returned(_seat(receiver, lineno), _seat(payer, lineno), int(n))
    except ValueError:
        raise TranscriptError(lineno, f"not a 还贡 {token!r} (R>P:N)") from None


def _seats(word: str, seats: Iterable[int]) -> str:
    return " ".join([word] + [str(s) for s in seats])


def _waiting(m: Match) -> str:
    shown = m.public_view().asked
    tokens = [f"{q.seat}:{q.kind}" + (f":{q.n}>{q.to}" if q.kind == "return" else "") for q in shown]
    return " ".join(["waiting", *tokens]) if tokens else "waiting none"


_STAGE_QUERIES: dict[str, Callable[[Match], str]] = {
    "phase": lambda m: f"phase {m.step}",
    "asked": lambda m: _seats("asked", m.asked) if m.asked else "asked none",
    "waiting": _waiting,
    "answered": lambda m: _seats("answered", m.public_view().answered),
    "declared": lambda m: _seats("declared", [s for s, d in enumerate(m.public_view().declared) if d]),
    "revolted": lambda m: f"revolted {'none' if m.revolted is None else m.revolted}",
    "deal": lambda m: f"deal {m.deal_no}",
}


def _stage_query(m: Match, words: list[str], lineno: int) -> str:
    """A query on a transcript that started before the first lead."""
    what = words[1] if len(words) > 1 else ""
    if len(words) == 3 and what == "sealed":
        s = _seat(words[2], lineno)
        return " ".join([f"sealed {s}", *m.view(s).sealed])
    if len(words) == 3 and what == "question":
        s = _seat(words[2], lineno)
        q = m.question(s)
        if q is None:
            return f"question {s} none"
        return f"question {s} {q.kind}" + (f" {q.n} to {q.to}" if q.kind == "return" else "")
    if len(words) == 2 and what in _STAGE_QUERIES:
        return _STAGE_QUERIES[what](m)
    if m.round is not None:
        return _query(m.round, words, lineno)
    # Before the first lead: the shared queries on the hands as they are, nothing played yet.
    if what == "turn" and len(words) == 2:
        cur = m.current_player
        return f"turn {'none' if cur is None else cur}"
    if what == "top" and len(words) == 2:
        return "top none"
    if what == "hand" and len(words) == 3:
        s = _seat(words[2], lineno)
        return f"hand {s} {format_cards(m.hand(s))}"
    if what == "places" and len(words) == 2:
        return "places " + " ".join(["."] * 6)
    if what == "opened" and len(words) == 2:
        return _seats("opened", [s for s in range(6) if m.natural[s]])
    if what == "free" and len(words) == 2:
        return "free no"
    if what == "scores" and len(words) == 2:
        return "scores none"
    if what == "debts" and len(words) == 2:
        return "debts"
    raise TranscriptError(lineno, f"unknown query {' '.join(words)!r}")


def _query(rnd: Round, words: list[str], lineno: int) -> str:
    what = words[1] if len(words) > 1 else ""
    if what == "turn" and len(words) == 2:
        cur = rnd.current_player
        return f"turn {'none' if cur is None else cur}"
    if what == "top" and len(words) == 2:
        top = rnd.top
        return "top none" if top is None else f"top {top.owner} {format_cards(top.cards)}"
    if what == "hand" and len(words) == 3:
        s = _seat(words[2], lineno)
        return f"hand {s} {format_cards(rnd.hands[s])}"
    if what == "places" and len(words) == 2:
        return "places " + " ".join("." if s is None else str(s) for s in rnd.places)
    if what == "opened" and len(words) == 2:
        return " ".join(["opened"] + [str(s) for s in range(6) if rnd.opened[s]])
    if what == "free" and len(words) == 2:
        return f"free {'yes' if rnd.free else 'no'}"
    if what == "scores" and len(words) == 2:
        scores = rnd.scores()
        return "scores none" if scores is None else "scores " + " ".join(str(x) for x in scores)
    if what == "debts" and len(words) == 2:
        return " ".join(["debts"] + [str(d) for d in rnd.debts()])
    raise TranscriptError(lineno, f"unknown query {' '.join(words)!r}")


def _action(words: list[str], lineno: int, stage: bool = False) -> tuple[int, Action]:
    seat = _seat(words[0], lineno)
    verb = words[1] if len(words) > 1 else ""
    if stage and verb in STAGE_VERBS and (len(words) == 2) == (verb != "return"):
        try:
            return seat, parse_action(" ".join(words[1:]))
        except ValueError as e:
            raise TranscriptError(lineno, str(e)) from None
    if verb in ("pass", "yield") and len(words) == 2:
        return seat, Action.parse(verb)
    if verb in ("play", "burn") and len(words) >= 3:
        try:
            cards = parse_cards(" ".join(words[2:]))
        except CardError as e:
            raise TranscriptError(lineno, str(e)) from None
        return seat, Action(PLAY if verb == "play" else BURN, cards)
    raise TranscriptError(lineno, f"cannot read action {' '.join(words)!r}")


def run(
    lines: Iterable[str], emit: Callable[[str], None], warn: Callable[[str], None] = lambda _: None
) -> None:
    """Run a transcript, calling ``emit`` once per action or query line; raise TranscriptError on a bad line."""
    setup: _Setup | None = _Setup()
    rnd: Round | None = None
    match: Match | None = None
    lineno = 0
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        is_query = words[0] == "?"
        is_action = words[0] in ("0", "1", "2", "3", "4", "5")
        if not (is_query or is_action):
            if setup is None:
                raise TranscriptError(lineno, "set-up line after the first action")
            setup.line(words, lineno)
            continue
        if setup is not None:
            if setup.stage:
                match = setup.build_stage(lineno)
            else:
                rnd = setup.build(lineno)
            setup = None
        if match is not None:
            _stage_line(match, words, lineno, is_query, emit, warn)
            continue
        assert rnd is not None
        if is_query:
            emit(_query(rnd, words, lineno))
            continue
        seat, action = _action(words, lineno)
        if seat != rnd.current_player:
            warn(f"line {lineno}: illegal: it is not seat {seat}'s turn")
            emit("illegal")
            continue
        try:
            rnd.apply(action)
            emit("ok")
        except IllegalAction as e:
            warn(f"line {lineno}: illegal: {e.reason}")
            emit("illegal")
    if setup is not None:
        if setup.stage:
            setup.build_stage(lineno + 1)
        else:
            setup.build(lineno + 1)


def _stage_line(
    m: Match,
    words: list[str],
    lineno: int,
    is_query: bool,
    emit: Callable[[str], None],
    warn: Callable[[str], None],
) -> None:
    """One action or query of a transcript that started before the first lead: any asked seat may answer."""
    if is_query:
        emit(_stage_query(m, words, lineno))
        return
    seat, action = _action(words, lineno, stage=True)
    try:
        m.apply(action, seat)
        emit("ok")
    except IllegalAction as e:
        warn(f"line {lineno}: illegal: {e.reason}")
        emit("illegal")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    verbose = "-v" in args
    args = [a for a in args if a != "-v"]
    if len(args) != 1:
        print("usage: gouji-replay FILE", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        print(f"gouji-replay: {e}", file=sys.stderr)
        return 2
    out = sys.stdout

    def emit(text: str) -> None:
        out.write(text + "\n")

    def warn(text: str) -> None:
        print(text, file=sys.stderr)

    try:
        run(lines, emit, warn if verbose else (lambda _: None))
    except TranscriptError as e:
        out.flush()
        print(f"gouji-replay: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
