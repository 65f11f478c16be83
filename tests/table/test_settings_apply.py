"""Settings that do what they say (issue 22, defect 4): each change says from when it holds and holds then —
house rules changed during a round from the next deal (the round in play keeps its own), the computers'
level for the seated computers at once, everything for the next table when none is open."""

from __future__ import annotations

import random

import pytest
from table_fakes import FakeStore
from table_helpers import begin, play_until, seated_table

from engine import Rules
from table import SettingChange, TableService
from table.rebuild import rebuild_round

pytestmark = pytest.mark.unit

GROUP = -501


async def test_rules_changed_mid_round_hold_from_the_next_deal_and_the_log_rebuilds_them(
    service: TableService, store: FakeStore
) -> None:
    seated = await seated_table(service, GROUP, humans=(1, 2, 3, 4, 5, 6))
    await begin(service, seated)
    group, outcome, applies = await service.settings.change(
        GROUP, 1, SettingChange("preset", "classic"), is_admin=True
    )
    assert applies == "next_round"
    assert outcome is not None and Rules.from_dict(outcome.table.rules) == Rules.preset("qingdao")
    assert outcome.table.match is not None and outcome.table.match.rules == Rules.preset("qingdao")

    table = await play_until(service, seated.table_id, random.Random(3), stop_before_end=False)
    assert table.match is not None and table.match.round_over
    table = (await service.play.next_round(table.id, 1, table.version)).table
    assert Rules.from_dict(table.rules) == Rules.preset("classic")
    assert table.match is not None and table.match.rules == Rules.preset("classic")
    async with store.uow() as uow:
        rebuilt = await rebuild_round(uow, table.id, 2)
    assert rebuilt.rules == Rules.preset("classic")
    assert rebuilt.to_json() == table.match.to_json()


async def test_a_lobby_takes_new_rules_at_once_and_no_table_takes_them_for_the_next(
    service: TableService,
) -> None:
    _, none, applies = await service.settings.change(
        GROUP, 1, SettingChange("preset", "classic"), is_admin=True
    )
    assert (none, applies) == (None, "next_table")
    seated = await seated_table(service, GROUP, humans=(1, 2))
    _, outcome, applies = await service.settings.change(
        GROUP, 1, SettingChange("preset", "zhangqiu"), is_admin=True
    )
    assert applies == "now"
    assert outcome is not None and Rules.from_dict(outcome.table.rules) == Rules.preset("zhangqiu")
    table = (await begin(service, seated)).table
    assert table.match is not None and table.match.rules == Rules.preset("zhangqiu")


async def test_the_computers_level_holds_for_the_seated_computers_at_once(service: TableService) -> None:
    seated = await seated_table(service, GROUP, humans=(1, 2))
    await begin(service, seated)
    _, outcome, applies = await service.settings.change(GROUP, 1, SettingChange("level", 3), is_admin=True)
    assert applies == "now"
    assert outcome is not None
    computers = [s for s in outcome.table.seats if not s.human]
    assert computers and all(s.computer_level == 3 for s in computers)


async def test_the_turn_time_holds_from_the_next_turn(service: TableService) -> None:
    seated = await seated_table(service, GROUP, humans=(1, 2, 3, 4, 5, 6))
    await begin(service, seated)
    _, outcome, applies = await service.settings.change(
        GROUP, 1, SettingChange("turn_seconds", 30), is_admin=True
    )
    assert applies == "next_turn"
    assert outcome is not None and outcome.table.group.turn_seconds == 30


async def test_one_settings_panel_is_live(service: TableService) -> None:
    await service.deliveries.see_group(GROUP, "g")
    assert await service.settings.panel_posted(GROUP, 10) is None
    assert await service.settings.panel_posted(GROUP, 11) == 10
    assert await service.settings.panel_posted(GROUP, 11) is None
