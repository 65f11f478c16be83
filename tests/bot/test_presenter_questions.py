"""The questions before the first lead as the players see them (issue 22, defect 2), on the presenter against
the real table layer in memory and a recording bot: at the deal every asked player gets his deal and his
question (which rings) at once; an answer shrinks his message to what he chose and touches nobody else's; the
group sees who is still to answer; the first lead's turn comes once the last answer is in."""

from __future__ import annotations

import pytest
from recording_bot import Call
from unit_support import GROUP, Stage

from table import SettingChange, Table
from table.policy import waits_on

pytestmark = pytest.mark.unit

ANN, BOB, CAI = 101, 102, 103
HUMANS = {0: ANN, 1: BOB, 2: CAI}


@pytest.fixture
def stage() -> Stage:
    return Stage()


def new_messages(calls: list[Call]) -> list[Call]:
    return [c for c in calls if c.method == "sendMessage"]


async def _dealt(stage: Stage) -> Table:
    table_id = await stage.lobby(HUMANS)
    # Qingdao's rules (宣点 on): every seat has a question before the first lead.
    await stage.service.settings.change(GROUP, ANN, SettingChange("preset", "qingdao"), is_admin=True)
    stage.bot.forget()
    await stage.show(await stage.begin(table_id, ANN))
    return await stage.load(table_id)


async def test_every_player_is_asked_at_the_deal_with_one_ring_each(stage: Stage) -> None:
    table = await _dealt(stage)
    assert table.match is not None and table.match.step == "stage"
    assert {s.user_id for s in waits_on(table, table.match)} == set(HUMANS.values())
    for user in HUMANS.values():
        sent = new_messages(stage.bot.to(user))
        assert [c.rings for c in sent] == [False, True], "his deal (silent), then his question (rings)"
        assert "Your cards (36)" in str(sent[0].text)
        assert sent[1].moves, "the question's buttons"
        assert "answers are shown when all are in" in str(sent[1].text)
    shown = stage.bot.shows(GROUP, table.message_id)  # type: ignore[arg-type]
    assert shown is not None
    (waiting,) = [line for line in shown.text.split("\n") if line.startswith("Waiting for: ")]
    assert set(waiting.removeprefix("Waiting for: ").split(" (")[0].split("、")) == {"Ann", "Bob", "Cai"}
    assert "宣点?" in waiting and "until" in waiting, "what they are asked, and until when"
    pointed = [line for line in shown.text.split("\n") if line.startswith("▶")]
    assert len(pointed) == 3, "every seat still to answer is pointed at"


async def test_an_answer_shrinks_his_message_and_touches_nobody_elses(stage: Stage) -> None:
    table = await _dealt(stage)
    assert table.match is not None
    bob = table.seat_of(BOB)
    assert bob is not None
    answer = table.match.legal_actions(bob.n)[0]
    stage.bot.forget()
    outcome = await stage.service.play.act(table.id, BOB, answer, version=table.version)
    await stage.show(outcome, tapped=bob.hand_message_id)
    assert new_messages(stage.bot.to(ANN)) == [] and new_messages(stage.bot.to(CAI)) == []
    assert [c.method for c in stage.bot.to(ANN) + stage.bot.to(CAI)] == [], "their questions stand"
    (edit,) = [c for c in stage.bot.to(BOB) if c.method == "editMessageText"]
    after = outcome.table
    assert after.match is not None
    if after.match.question(bob.n) is None:
        assert "you: " in str(edit.text) and not edit.moves, "what he chose, no buttons left"
    else:
        assert edit.moves, "his next question (宣点 after 革命) in the same message"


async def test_the_first_lead_is_asked_once_the_last_answer_is_in(stage: Stage) -> None:
    table = await _dealt(stage)
    drawn = table.version
    assert table.match is not None
    while table.match is not None and table.match.step == "stage":
        seat = waits_on(table, table.match)[-1]  # the last to be asked answers first
        assert seat.user_id is not None
        outcome = await stage.service.play.act(
            table.id, seat.user_id, table.match.legal_actions(seat.n)[0], version=drawn
        )
        await stage.show(outcome, tapped=seat.hand_message_id)
        table = outcome.table
        drawn = table.version
    assert table.match is not None
    leader = table.to_act
    if table.match.step == "play" and leader is not None and leader.user_id is not None:
        # A new message that rings, or, when his own answer was the last, the message he answered in.
        shown = stage.bot.shows(leader.user_id, leader.hand_message_id)  # type: ignore[arg-type]
        assert shown is not None and "lead the first trick" in shown.text and shown.moves
