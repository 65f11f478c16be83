"""A group's settings for its tables (/settings): who may change them, and what each change writes. An open
lobby takes new house rules; the turn time, the time zone, card memory and the computers' level hold for the
open table at once."""

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


@dataclass(frozen=True, slots=True)
class SettingChange:
    """One change from /settings: ``preset`` (a name of R12), ``rule`` (a house rule to toggle),
    ``turn_seconds``, ``language``, ``time_zone``, ``card_memory`` (on/off) or ``level`` (computers)."""

    what: SettingKind
    value: str | int


class Settings:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    async def may_change(self, group_id: int, user_id: int | None, *, is_admin: bool = False) -> bool:
        """A group admin, or the creator of the group's open table."""
        if is_admin:
            return True
        table = await reads.table_in_group(self.ctx, group_id)
        return table is not None and user_id is not None and table.created_by == user_id

    async def change(
        self, group_id: int, user_id: int | None, change: SettingChange, *, is_admin: bool = False
    ) -> tuple[Group, Outcome | None]:
        """The group's settings changed, and its open lobby with them; the group and the open table after."""
        ctx = self.ctx
        if not await self.may_change(group_id, user_id, is_admin=is_admin):
            raise NotAllowed(group_id)
        async with ctx.uow() as uow:
            await uow.groups.ensure(group_id)
            group = group_of(await uow.groups.get(group_id), group_id)
            changes = _setting(group, change, ctx.languages)
            await uow.groups.update_settings(group_id, **changes)
            lobby = await uow.tables.open_in_group(group_id)
            if lobby is not None and lobby.status == LOBBY and "house_rules" in changes:
                await uow.tables.save(lobby.id, lobby.version, rules=changes["house_rules"])
            if lobby is not None and lobby.status == LOBBY and "computer_level" in changes:
                for seat in await uow.seats.of_table(lobby.id):
                    if seat.computer_level is not None:
                        await uow.seats.update(lobby.id, seat.seat, computer_level=changes["computer_level"])
            await uow.commit()
            group = group_of(await uow.groups.get(group_id), group_id)
        if lobby is None:
            return group, None
        return group, Outcome(table=await ctx.load(lobby.id, with_due=True))


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
