"""``gouji-replay FILE``: run a rules transcript (../shared/CONFORMANCE.md) and print one line per action or query."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable

from .actions import BURN, PLAY, Action
from .cards import EMPTY, CardError, format_cards, parse_cards
from .refusals import IllegalAction
from .round import Round
from .rules import Rules


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
        else:
            raise TranscriptError(lineno, f"cannot read {' '.join(words)!r}")

    def build(self, lineno: int) -> Round:
        rules = Rules.preset(self.preset)
        for name, value in self.changes:
            rules = rules.set_key(name, value)
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


def _action(words: list[str], lineno: int) -> tuple[int, Action]:
    seat = _seat(words[0], lineno)
    verb = words[1] if len(words) > 1 else ""
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
        if rnd is None:
            assert setup is not None
            rnd = setup.build(lineno)
            setup = None
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
    if rnd is None and setup is not None:
        setup.build(lineno + 1)


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
