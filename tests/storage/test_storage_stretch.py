"""A move and the automatic moves after it are one unit of work; a table is read with its people at once."""

from __future__ import annotations

import random

from storage_helpers import Database
from table_helpers import begin, seated_table

from table.rebuild import rebuild_round


async def _log(db: Database, table_id: int) -> list[tuple[int, int | None, str]]:
    async with db.uow() as u:
        return [(e.seq, e.seat, e.action) for e in await u.actions.of_table(table_id)]


async def test_a_stretch_is_one_version_with_every_move_logged_in_order(
    db: Database, rng: random.Random
) -> None:
    service = db.service()
    seated = await seated_table(service, -3001, humans=(101,))
    dealt = await begin(service, seated)
    table = dealt.table
    # The deal was followed by the computers' moves until the player's turn: all in the deal's version.
    assert table.version == (await service.reads.load(table.id)).version
    assert len(dealt.moves) >= 1 or table.to_act is not None
    if table.match is None or table.match.round_over:
        return
    assert table.to_act is not None and table.to_act.n == 0
    expected = table.match.copy()
    before = await _log(db, table.id)
    action = rng.choice(table.match.legal_actions())
    moved = await service.play.act(table.id, 101, action, version=table.version)
    assert moved.table.version == table.version + 1
    logged = (await _log(db, table.id))[len(before) :]
    assert [(seat, a) for _, seat, a in logged] == [(m.seat, str(m.action)) for m in moved.moves]
    assert [seq for seq, _, _ in logged] == list(range(len(before) + 1, moved.table.last_seq + 1))
    for m in moved.moves:
        expected.apply(m.action)
    assert moved.table.match == expected
    async with db.uow() as u:
        assert await rebuild_round(u, table.id, 1) == expected


async def test_a_scene_is_the_table_with_its_group_seats_and_players(db: Database) -> None:
    service = db.service()
    seated = await seated_table(service, -3004, humans=(101, 102))
    async with db.uow() as u:
        scene = await u.tables.scene(seated.table_id)
        table = await u.tables.get(seated.table_id)
        group = await u.groups.get(-3004)
        seats = await u.seats.of_table(seated.table_id)
        players = {uid: await u.users.get(uid) for uid in (101, 102)}
        missing = await u.tables.scene(seated.table_id + 1000)
    assert scene is not None and table is not None
    assert scene.table == table  # a lobby has no match to leave unread
    assert scene.group == group
    assert scene.seats == seats and [s.seat for s in scene.seats] == list(range(6))
    assert {uid: (p.name, p.language) for uid, p in scene.users.items()} == {
        uid: (p.name, p.language) for uid, p in players.items() if p is not None
    }
    assert missing is None


async def test_a_seat_left_becomes_a_computers_and_new_rules_hold_from_the_next_deal(db: Database) -> None:
    """What /leave and /settings write mid-match: the seat handed to a computer at the next deal (the player
    no longer seated), the group's new rules in the round's record, and the match rebuilt with them."""
    from table_helpers import play_until

    from engine import Rules
    from table import SettingChange

    service = db.service()
    seated = await seated_table(service, -3005, humans=(101, 102))
    await begin(service, seated)
    await service.lobby.leave(seated.table_id, 102)
    await service.settings.change(-3005, 101, SettingChange("preset", "classic"), is_admin=True)
    await service.deliveries.see_user(101, "Ann", "en")
    table = await play_until(service, seated.table_id, random.Random(2), stop_before_end=False)
    dealt = await service.play.next_round(table.id, 101, table.version)
    assert dealt.table.seat_of(102) is None and not dealt.table.seat(1).human  # type: ignore[union-attr]
    stored = await service.reads.load(table.id)
    assert stored.seat_of(102) is None and stored.seat(1).computer_level is not None  # type: ignore[union-attr]
    async with db.uow() as u:
        assert (await u.rounds.get(table.id, 2)).rules == Rules.preset("classic").to_dict()  # type: ignore[union-attr]
        assert await rebuild_round(u, table.id, 2) == stored.match
