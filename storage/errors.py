"""What can go wrong in a unit of work, as the bot needs to tell it apart."""

from __future__ import annotations


class StorageError(Exception):
    pass


class VersionConflict(StorageError):
    """Someone else changed the table first: the button or command was drawn for an older version."""

    def __init__(self, table_id: int, expected: int, actual: int | None = None) -> None:
        self.table_id, self.expected, self.actual = table_id, expected, actual
        found = "" if actual is None else f", found {actual}"
        super().__init__(f"table {table_id}: expected version {expected}{found}")


class TableNotFound(StorageError):
    pass


class TableAlreadyOpen(StorageError):
    """The group already has an open table (one per group at a time)."""


class SeatTaken(StorageError):
    pass


class NoRoundInPlay(StorageError):
    """An action arrived for a table that has no round dealt, or whose round is over."""


class RoundInProgress(StorageError):
    """A new deal was asked for while the current round is still being played."""


class NotYourTurn(StorageError):
    def __init__(self, seat: int, current: int | None) -> None:
        self.seat, self.current = seat, current
        super().__init__(f"seat {seat} acted but it is seat {current}'s turn")


class AlreadyProcessed(StorageError):
    """This Telegram update id was handled before (a redelivery): do nothing."""

    def __init__(self, update_id: int) -> None:
        self.update_id = update_id
        super().__init__(f"update {update_id} was already processed")
