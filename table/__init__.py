"""The table layer, between the bot and storage: the table as one value (:mod:`table.model`), its policy
(computer and 托管 moves, R4.3's automatic passes, deadlines: :mod:`table.policy`) and one use case per thing
a player or the clock does, grouped by concern in modules of their own and reached through
:class:`table.service.TableService`, each one unit of work returning an :class:`table.outcome.Outcome`. It
knows no Telegram and no SQL: storage is reached through the protocols of :mod:`table.ports`."""

from .errors import (
    AlreadyBegun,
    AlreadyProcessed,
    AlreadySeated,
    IllegalMove,
    NoRoundInPlay,
    NoTableOpen,
    NotAllowed,
    NothingToDo,
    NotInLobby,
    NotSeated,
    NotYourTurn,
    RoundInProgress,
    SeatTaken,
    StaleVersion,
    TableAlreadyOpen,
    TableError,
    TableNotFound,
)
from .model import CLOSED, LOBBY, PLAYING, TIME_ZONES, TURN_TIMES, Entry, Group, Marks, Seat, Table
from .outcome import (
    CameBack,
    Closed,
    Move,
    Notice,
    Nudged,
    Outcome,
    Reminder,
    SeatFreed,
    TimedOut,
    WentAutoplay,
)
from .play import NEXT_ROUND
from .service import TableService
from .settings import SettingChange, SettingKind

__all__ = [
    "CLOSED",
    "LOBBY",
    "NEXT_ROUND",
    "PLAYING",
    "TIME_ZONES",
    "TURN_TIMES",
    "AlreadyBegun",
    "AlreadyProcessed",
    "AlreadySeated",
    "CameBack",
    "Closed",
    "Entry",
    "Group",
    "IllegalMove",
    "Marks",
    "Move",
    "NoRoundInPlay",
    "NoTableOpen",
    "NotAllowed",
    "NotInLobby",
    "NotSeated",
    "NotYourTurn",
    "NothingToDo",
    "Notice",
    "Nudged",
    "Outcome",
    "Reminder",
    "RoundInProgress",
    "SeatTaken",
    "Seat",
    "SeatFreed",
    "SettingChange",
    "SettingKind",
    "StaleVersion",
    "Table",
    "TableAlreadyOpen",
    "TableError",
    "TableNotFound",
    "TableService",
    "TimedOut",
    "WentAutoplay",
]
