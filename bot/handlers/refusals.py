"""Why a use case said no, in words: the one place that turns a table error (:mod:`table.errors`) into the
short answer a player reads, for every handler. The words depend on what was being done (a refused /begin
is not worded as a refused /leave) and on the error; the handler picks the reader (the group, or the player
in private) and where the answer goes (a reply, the answer to a tap).
"""

from __future__ import annotations

from typing import Literal

from table import (
    AlreadyBegun,
    AlreadySeated,
    IllegalMove,
    NoRoundInPlay,
    NotAllowed,
    NothingToDo,
    NotInLobby,
    NotSeated,
    NotYourTurn,
    SeatTaken,
    StaleVersion,
    TableAlreadyOpen,
    TableError,
    TableNotFound,
)

from ..i18n import t
from ..texts.player import refusal_text

# What the user asked for: a move (tapped or typed), a hint, or another use case of the lobby, the play or
# the settings.
Doing = Literal[
    "play",
    "hint",
    "open",
    "seat",
    "join",
    "leave",
    "add_computers",
    "begin",
    "nudge",
    "next_round",
    "stop",
    "settings",
]


def refusal(lang: str, error: TableError, doing: Doing = "play", *, name: str = "") -> str:
    """The answer to ``doing`` refused with ``error``, in ``lang``; ``name``: the user's first name, for the
    group's answers that address him."""
    match doing, error:
        case "open", TableAlreadyOpen():
            return t(lang, "A table is already open here: /table shows it, /stop ends it.")
        case "seat", AlreadySeated():
            return t(lang, "{name}, you are already seated.", name=name)
        case "seat", SeatTaken():
            return t(lang, "That seat is taken.")
        case "join", SeatTaken() | StaleVersion() | AlreadySeated() | NotInLobby():
            # Between finding the free seat and taking it (his private chat opened meanwhile), it went.
            return t(lang, "That seat was just taken; try again.")
        case "seat" | "add_computers", NotInLobby():
            return t(lang, "The match has begun; wait for the next table.")
        case "leave", NothingToDo():
            return t(lang, "The computer plays your seat already (托管): /back in private to return.")
        case "add_computers", NotSeated():
            return t(lang, "Sit down first: only a seated player may fill the table with computer players.")
        case "begin", AlreadyBegun(round_over=True):
            return t(lang, "This round is over: tap Next round under its summary to deal the next one.")
        case "begin", AlreadyBegun():
            return t(lang, "The round is being played: /table shows it.")
        case "begin", NotSeated():
            return t(lang, "Only a seated player can start the table.")
        case "leave" | "add_computers" | "begin", StaleVersion():
            return t(lang, "The table changed; try again.")
        case "nudge", NotSeated():
            return t(lang, "Only a seated player can nudge.")
        case "nudge", NoRoundInPlay():
            return t(lang, "Nobody is to act just now.")
        case "nudge", NotAllowed():
            return t(lang, "It is your own turn: your turn message is in our private chat.")
        case "nudge", NothingToDo() | StaleVersion():
            return t(lang, "Already nudged this turn; give them a moment.")
        case "stop", NotAllowed():
            return t(lang, "Only a seated player, the table's creator or a group admin can stop the table.")
        case "stop", StaleVersion() | TableNotFound():
            return t(lang, "The table changed since; nothing was stopped.")
        case "settings", NotAllowed():
            return t(lang, "Only the table's creator or a group admin can change the settings.")
        case "hint", _:
            # A hint asked from a keyboard drawn for another turn: the keyboard is old, whatever else changed.
            return t(lang, "That button is out of date.")
        case _, IllegalMove(reason=reason):
            return t(lang, "Not allowed: {reason}", reason=refusal_text(lang, reason))
        case _, NotYourTurn():
            return t(lang, "It is not your turn.")
        case _, NotSeated():
            return t(lang, "You are not seated at this table.")
        case _, TableNotFound():
            return t(lang, "That table is closed.")
    # Whatever else a use case refuses (a version past, no round in play, a round still played, nothing to
    # do) was asked from a button or a command drawn for another state of the table.
    return t(lang, "That button is out of date.")


__all__ = ["Doing", "refusal"]
