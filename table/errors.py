"""What a use case refuses, as the table sees it. Each says what the player did wrong, never how it is stored;
the bot turns each into a short answer, and a refused use case has changed nothing."""

from __future__ import annotations


class TableError(Exception):
    """A use case refused: nothing was written."""


class TableNotFound(TableError):
    """No such table, or it is closed."""


class TableAlreadyOpen(TableError):
    """The group's topic has an open table already (one per topic at a time). ``host``: the bot that hosts
    it, when known (in a fleet, maybe another bot than the one asked to open one)."""

    def __init__(self, group_id: int, host: int | None = None) -> None:
        self.group_id, self.host = group_id, host
        super().__init__(f"group {group_id} has an open table" + (f" (bot {host})" if host else ""))


class NoTableOpen(TableError):
    """The group has no open table."""


class NotSeated(TableError):
    """The user does not sit at this table."""


class AlreadySeated(TableError):
    pass


class SeatTaken(TableError):
    pass


class NotInLobby(TableError):
    """Seats change only before the match begins (a seated player who leaves later goes on 托管)."""


class NoRoundInPlay(TableError):
    """An action for a table with no round dealt, or whose round is over."""


class AlreadyBegun(TableError):
    """Begin was asked for a table whose match is under way (``round_over``: between two rounds)."""

    def __init__(self, round_over: bool) -> None:
        self.round_over = round_over
        super().__init__("the match has begun" + (" (a round is over)" if round_over else ""))


class RoundInProgress(TableError):
    """The next round was asked for while this one is still played."""


class NotYourTurn(TableError):
    def __init__(self, seat: int, current: int | None) -> None:
        self.seat, self.current = seat, current
        super().__init__(f"seat {seat} acted but it is seat {current}'s turn")


class StaleVersion(TableError):
    """The button or command was drawn for a version of the table that is past."""

    def __init__(self, table_id: int, expected: int, actual: int | None = None) -> None:
        self.table_id, self.expected, self.actual = table_id, expected, actual
        super().__init__(f"table {table_id}: drawn for version {expected}, now {actual}")


class AlreadyProcessed(TableError):
    """This Telegram update was handled before (a redelivery): nothing to do, nothing to say."""


class IllegalMove(TableError):
    """The engine refused the move (R-rule reason in ``reason``)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class NotAllowed(TableError):
    """Only a seated player, the table's creator or a group admin may do this."""


class NothingToDo(TableError):
    """The request was understood but changes nothing (already on 托管, already back …)."""


class TableHeld(TableError):
    """The bot is out of the table's group, or may not write there: the table holds until it is back."""
