"""The text forms of a match: its actions as players and transcripts write them (``play TTTT2``, ``pass``, or
cards alone, and the decisions before the first lead: ``return 34``, ``revolt``, ``yaotou`` …, or 还贡 34, 革命,
要头 …), a debt (``0>3:2:luo``, as ``str(Debt)`` writes it) and a pass the Tally records (``77 - 21 01 JJJ3``).
Cards are in the notation of R2.2 (engine/cards.py); ``-`` is no cards."""

from __future__ import annotations

from .actions import (
    BURN,
    BURN_WORDS,
    DECLARE,
    NO_DECLARE,
    NO_REVOLT,
    PLAY,
    RETURN,
    REVOLT,
    WUTOU,
    YAOTOU,
    Action,
    ActionKind,
)
from .cards import EMPTY, Counts, format_cards, parse_cards
from .tribute import Debt
from .views import Declined

_WORDS: dict[str, ActionKind] = {
    REVOLT: REVOLT,
    "革命": REVOLT,
    NO_REVOLT: NO_REVOLT,
    "不革命": NO_REVOLT,
    YAOTOU: YAOTOU,
    "要头": YAOTOU,
    WUTOU: WUTOU,
    "无头": WUTOU,
    DECLARE: DECLARE,
    "宣点": DECLARE,
    NO_DECLARE: NO_DECLARE,
    "不宣": NO_DECLARE,
    "不宣点": NO_DECLARE,
}


def parse_action(text: str) -> Action:
    """Any match action in notation: the round's (``play TTTT2``, ``pass`` …) and the decisions before the
    first lead (``return 34``, ``revolt``, ``yaotou`` …, or 还贡 34, 革命, 要头 …). Raises ValueError."""
    words = text.strip().split(None, 1)
    if words and words[0].lower() in _WORDS and len(words) == 1:
        return Action(_WORDS[words[0].lower()])
    if words and words[0].lower() in (RETURN, "还", "还贡") and len(words) == 2:
        return Action(RETURN, parse_cards(words[1]))
    return Action.parse(text)


def parse_typed(text: str) -> Action:
    """What a player types (R2.2): any action of :func:`parse_action`, or cards alone for a play (``TTTT2``,
    ``888 B``), and ``烧KKK`` without a space. Raises ValueError (a CardError is one)."""
    text = text.strip()
    low = text.lower()
    for word in BURN_WORDS:
        if low.startswith(word) and len(text) > len(word) and not text[len(word)].isspace():
            return Action(BURN, parse_cards(text[len(word) :]))
    try:
        return parse_action(text)
    except ValueError:
        cards = parse_cards(text)
        if not sum(cards):
            raise ValueError("no cards") from None
        return Action(PLAY, cards)


def cards_or_empty(text: str) -> Counts:
    """Cards in notation, ``-`` for none."""
    return EMPTY if text == "-" else parse_cards(text)


def parse_debt(text: str) -> Debt:
    """A debt as ``str(Debt)`` writes it: ``payer>receiver:n:kind``."""
    head, n, kind = text.split(":")
    payer, receiver = head.split(">")
    return Debt(int(payer), int(receiver), int(n), kind)


def declined_text(d: Declined) -> str:
    """One word per field, as the Tally keeps a pass: ``"77 - 21 01 JJJ3"`` (the play passed on, its owner's
    count or ``-``, the seat's count, the flags free and opened, what the seat had played)."""
    owner = "-" if d.owner_count is None else str(d.owner_count)
    flags = f"{int(d.free)}{int(d.opened)}"
    return f"{format_cards(d.top)} {owner} {d.count} {flags} {format_cards(d.played)}"


def parse_declined(text: str) -> Declined:
    """:func:`declined_text` read back."""
    top, owner, count, flags, played = text.split(" ")
    return Declined(
        cards_or_empty(top),
        None if owner == "-" else int(owner),
        int(count),
        flags[0] == "1",
        flags[1] == "1",
        cards_or_empty(played),
    )
