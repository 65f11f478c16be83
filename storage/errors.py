"""What persistence itself can refuse. The rules of a table (whose turn, who may sit) are the table layer's
(table/errors.py); storage only knows that somebody else saved first, and that a group has a table open."""

from __future__ import annotations


class StorageError(Exception):
    pass


class VersionConflict(StorageError):
    """Someone else saved the table first: the caller read an older version."""

    def __init__(self, table_id: int, expected: int, actual: int | None = None) -> None:
        self.table_id, self.expected, self.actual = table_id, expected, actual
        found = "" if actual is None else f", found {actual}"
        super().__init__(f"table {table_id}: expected version {expected}{found}")


class TableAlreadyOpen(StorageError):
    """The group already has an open table (the unique index on open tables refused a second)."""
