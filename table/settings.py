"""A group's settings (/settings): who may change them, what each change writes, and from when it holds.

Each change says when it applies and applies then: an open lobby takes new house rules at once, a table in
play from its next round (the round in play keeps the rules it was dealt with); the turn time from the next
turn; the time zone, card memory, the language and the computers' level (its seated computers included) at
once. With no open table, everything holds for the next table. One /settings panel per group is live.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from engine import Rules
from engine.rules import PRESETS
from storage.records import GroupSettings

from . import policy, reads
from .context import Context
from .errors import NotAllowed, NothingToDo
from .load import group_of
from .model import LOBBY, TIME_ZONES, TURN_TIMES, Group
from .outcome import Outcome

SettingKind = Literal["preset", "rule", "turn_seconds", "language", "time_zone", "card_memory", "level"]
# From when a change holds: at once, from the next turn, from the next round, for the next table.
Applies = Literal["now", "next_turn", "next_round", "next_table"]


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One change from /settings: ``preset`` (a name of R12), ``rule`` (a house rule to toggle),
    ``turn_seconds``, ``language``, ``time_zone``, ``card_memory`` (on/off) or ``level`` (computers)."""

    what: SettingKind
    value: str | int


class Settings:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def may_change(
        self, group_id: int, user_id: int | None, *, is_admin: bool = False, thread_id: int = 0
    ) -> bool:
        """A group admin, or the creator of the open table of the topic he writes in."""
        if is_admin:
            return True
        table = await reads.table_in_group(self.ctx, group_id, thread_id)
        return table is not None and user_id is not None and table.created_by == user_id

    async def change(
        self,
        group_id: int,
        user_id: int | None,
        change: SettingChange,
        *,
        is_admin: bool = False,
        thread_id: int = 0,
    ) -> tuple[Group, Outcome | None, Applies]:
        """The group's settings changed, and its open table with them as far as it takes them now; the group,
        the open table after, and from when the change holds."""
        ctx = self.ctx
        if not await self.may_change(group_id, user_id, is_admin=is_admin, thread_id=thread_id):
            raise NotAllowed(group_id)
        async with ctx.uow() as uow:
            await uow.groups.ensure(group_id)
            group = group_of(await uow.groups.get(group_id), group_id)
            changes = _setting(group, change, ctx.languages)
            await uow.groups.update_settings(group_id, **changes)
            table = await uow.tables.open_in_group(group_id, thread_id)
            if table is not None and table.bot_id != ctx.bot_id:
                table = None  # another bot's: it takes the group's settings as its own table takes them
            if table is not None and table.status == LOBBY and "house_rules" in changes:
                await uow.tables.save(table.id, table.version, rules=changes["house_rules"])
            if table is not None and "computer_level" in changes:
                # The seated computers play at the new level from their next move, in a lobby or in play.
                for seat in await uow.seats.of_table(table.id):
                    if seat.computer_level is not None:
                        await uow.seats.update(table.id, seat.seat, computer_level=changes["computer_level"])
            await uow.commit()
            group = group_of(await uow.groups.get(group_id), group_id)
        applies = _applies(change.what, None if table is None else table.status)
        if table is None:
            return group, None, applies
        return group, Outcome(table=await ctx.load(table.id, with_due=True)), applies

    async def panel_posted(self, group_id: int, message_id: int) -> int | None:
        """A new /settings panel was posted: the live one from now on; the one it replaces (its buttons go)."""
        async with self.ctx.uow() as uow:
            group = group_of(await uow.groups.get(group_id), group_id)
            await uow.groups.update_settings(group_id, settings_message_id=message_id)
            await uow.commit()
        return group.settings_message_id if group.settings_message_id != message_id else None


def _applies(what: SettingKind, status: str | None) -> Applies:
    if status is None:
        return "next_table"
    if what in ("preset", "rule"):
        return "now" if status == LOBBY else "next_round"
    if what == "turn_seconds" and status != LOBBY:
        return "next_turn"  # the turn under way keeps the deadline its player was told
    return "now"


def _setting(group: Group, change: SettingChange, languages: Sequence[str]) -> GroupSettings:
    """The group's columns one change of /settings writes; NothingToDo for a change the bot never offers."""
    what, value = change.what, change.value
    rules = group.rules
    if what == "preset" and value in PRESETS:
        return {"house_rules": Rules.preset(str(value)).to_dict()}
    if what == "rule" and value in Rules.key_names() and value != "tribute_order":
        return {"house_rules": rules.set_key(str(value), not getattr(rules, str(value))).to_dict()}
    if what == "turn_seconds" and value in TURN_TIMES:
        return {"turn_timeout_seconds": int(value)}
    if what == "language" and value in languages:
        return {"language": str(value)}
    if what == "time_zone" and value in TIME_ZONES:
        return {"time_zone": str(value)}
    if what == "card_memory" and value in ("on", "off"):
        return {"card_memory": value == "on"}
    if what == "level" and str(value).isdigit() and int(value) in policy.COMPUTER_LEVELS:
        return {"computer_level": int(value)}
    raise NothingToDo(f"no such setting {what}={value}")
