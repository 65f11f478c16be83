"""The load bench's scripted humans read a keyboard as a player would, choose in the shares they state, and
play against the real bot; the emulator counts its 429s by the limit that refused. No timed assertions."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from benches.load import _Calls, _seat_table
from benches.players import Crowd, Human, Mix, Turn, cards_of, turn_key
from bot import codec
from bot.app import build_application, start_application, stop_application
from bot.config import Settings
from emulator import ApiError, TelegramEmulator
from emulator.flood import GLOBAL, FloodControl
from emulator.state import StoredMessage
from engine import Action
from engine.actions import BURN, PASS, PLAY
from engine.cards import NRANKS, RANKS, Counts, format_cards
from engine.match import DECLARE, NO_DECLARE

TABLE, VERSION = 7, 41
EMPTY: Counts = (0,) * NRANKS


def counts(text: str) -> Counts:
    found = cards_of(text)
    assert found is not None
    return found


def keyboard(
    hand: str, *, selected: str = "", top: bool = True, one_taps: tuple[str, ...] = ("7777", "KKKK")
) -> StoredMessage:
    """A turn message drawn as bot/keyboards.py draws one: rank buttons, Play, Pass, Hint, one-tap plays."""
    have, sel = counts(hand), counts(selected) if selected else EMPTY
    ranks = []
    for r in range(NRANKS):
        if have[r]:
            more = list(sel)
            more[r] += 1
            left = have[r] - sel[r]
            label = f"{RANKS[r]}×{left}" if left else f"{RANKS[r]}✓"
            ranks.append(
                {
                    "text": label,
                    "callback_data": codec.compose_data(TABLE, VERSION, tuple(more) if left else sel),
                }
            )
    rows = [ranks[i : i + 5] for i in range(0, len(ranks), 5)]
    if sum(sel):
        rows.append(
            [
                {"text": "Clear", "callback_data": codec.compose_data(TABLE, VERSION, EMPTY)},
                {
                    "text": f"Play {format_cards(sel)}",
                    "callback_data": codec.act_data(TABLE, VERSION, Action(PLAY, sel)),
                },
            ]
        )
    moves = [{"text": "Hint", "callback_data": codec.hint_data(TABLE, VERSION)}]
    if top:
        moves.insert(0, {"text": "Pass", "callback_data": codec.act_data(TABLE, VERSION, Action(PASS))})
    rows.append(moves)
    rows.append(
        [
            {"text": f"▶ {p}", "callback_data": codec.act_data(TABLE, VERSION, Action(PLAY, counts(p)))}
            for p in one_taps
        ]
    )
    return StoredMessage(
        chat_id=100,
        message_id=9,
        sender_id=1,
        from_bot=True,
        date=0,
        text="Your turn",
        reply_markup={"inline_keyboard": rows},
    )


def human(seed: int = 1, mix: Mix | None = None) -> Human:
    crowd = SimpleNamespace(emu=None, mix=mix or Mix())
    return Human(crowd, user=None, table=None, rng=random.Random(seed))  # type: ignore[arg-type]


def test_a_turn_message_is_read_as_a_player_reads_it() -> None:
    msg = keyboard("3333 7777 9 KKKKK 2", selected="77")
    turn = Turn(msg)
    assert turn_key(msg) == (9, VERSION)
    assert turn.hand() == counts("3333779KKKKK2")  # what is left to select, as the labels say
    assert turn.selection() == counts("77")
    assert turn.composer_for(counts("777")) is not None
    assert turn.final_for(PLAY, counts("77")) is not None
    assert turn.clear() is not None
    assert turn.pass_data is not None and turn.hint is not None
    assert [a.cards for _, a in turn.one_taps] == [counts("7777"), counts("KKKK")]


def test_following_a_play_the_choices_come_in_the_stated_shares() -> None:
    mix, msg = Mix(), keyboard("3333 7777 9 KKKKK 2")
    player = human(seed=3, mix=mix)
    plans = [p for p in (player.decide(Turn(msg)) for _ in range(4000)) if p is not None]
    kinds = Counter(p.kind for p in plans)
    n = sum(kinds.values())
    composed = (kinds["compose"] + kinds["compose-mistake"]) / n
    assert abs(composed - mix.follow_compose) < 0.03
    assert abs(kinds["one-tap"] / n - mix.follow_one_tap) < 0.03
    assert abs(kinds["typed"] / n - mix.follow_typed) < 0.02
    # No 让牌 on this keyboard: its share goes to Pass.
    assert abs(kinds["pass"] / n - mix.follow_pass - mix.follow_yield) < 0.03
    # A mistake adds a card to the play composed: a fifth K, never a fifth 7 (there is none).
    kings = sum(1 for p in plans if p.kind in ("compose", "compose-mistake") and p.cards[10] >= 4)
    assert abs(kinds["compose-mistake"] / kings - mix.mistake) < 0.03


def test_a_composed_play_is_a_one_tap_play_or_one_card_more() -> None:
    msg = keyboard("3333 7777 9 KKKKK 2")
    player = human(seed=5)
    for _ in range(500):
        plan = player.decide(Turn(msg))
        assert plan is not None
        if plan.kind == "compose":
            assert plan.cards in (counts("7777"), counts("KKKK")) and plan.final == PLAY
        elif plan.kind == "compose-mistake":
            assert plan.cards == counts("KKKKK")  # a fifth K; the 7s have no card to add
        elif plan.kind == "typed":
            assert plan.text in ("7777", "KKKK", "/p 7777", "/p KKKK")
        elif plan.kind == "typed-pass":
            assert plan.text in ("pass", "过")


def test_a_lead_is_never_composed_of_3s() -> None:
    msg = keyboard("3333 7777 9 KKKKK 2", top=False)
    player = human(seed=9)
    plans = [player.decide(Turn(msg)) for _ in range(1000)]
    composed = [p for p in plans if p is not None and p.kind == "compose"]
    assert composed and all(p.cards is not None and p.cards[0] == 0 for p in composed)
    assert not any(p is not None and p.kind == "pass" for p in plans)


def test_a_hint_is_followed_by_its_cards_or_its_pass() -> None:
    turn, player = Turn(keyboard("3333 7777 9 KKKKK 2")), human()
    plan = player.from_hint(turn, "Hint: KKK2")
    assert plan is not None and plan.cards == counts("KKK2") and plan.final == PLAY
    plan = player.from_hint(turn, "Hint: 烧 KKKK")
    assert plan is not None and plan.final == BURN
    plan = player.from_hint(turn, "Hint: pass")
    assert plan is not None and plan.kind == "pass" and plan.data == turn.pass_data
    assert player.from_hint(turn, "Hint: something else") is None


def test_a_decision_is_one_of_its_two_buttons() -> None:
    msg = keyboard("7777", top=False, one_taps=())
    msg.reply_markup = {
        "inline_keyboard": [
            [
                {"text": "宣点", "callback_data": codec.act_data(TABLE, VERSION, Action(DECLARE))},
                {"text": "No 宣点", "callback_data": codec.act_data(TABLE, VERSION, Action(NO_DECLARE))},
            ]
        ]
    }
    player = human(seed=2)
    chosen = Counter(player.decide(Turn(msg)).data for _ in range(400))  # type: ignore[union-attr]
    assert set(chosen) == {b["callback_data"] for b in msg.reply_markup["inline_keyboard"][0]}


def test_the_emulator_counts_its_429s_by_the_limit_that_refused() -> None:
    now = [0.0]
    flood = FloodControl(enabled=True, clock=lambda: now[0])
    for _ in range(3):
        flood.check("sendMessage", 5, "private")
        flood.record(5, "private")
    with pytest.raises(ApiError):
        flood.check("sendMessage", 5, "private")
    for n in range(20):
        flood.check("editMessageText", -9, "group")
        flood.record(-9, "group")
        now[0] += 0.1 * (n % 2)
    with pytest.raises(ApiError):
        flood.check("editMessageText", -9, "group")
    assert flood.refusals_by_limit == Counter({"private chat": 1, "group": 1})
    assert flood.refusals == 2
    flood.reset()
    assert not flood.refusals_by_limit and GLOBAL == "all chats"


async def test_six_humans_play_against_the_real_bot(tmp_path: Path) -> None:
    """Seated through the lobby, the humans compose, tap, type and ask for hints; the bot answers them all."""
    async with TelegramEmulator() as emu:
        app = build_application(
            Settings(
                bot_token=emu.token,
                database_url=f"sqlite+aiosqlite:///{tmp_path / 'bench.db'}",
                api_base_url=emu.api_base_url,
            )
        )
        await start_application(app)
        quick = (0.005, 0.01)
        crowd = Crowd(emu, think=0.01, seed=3, mix=Mix(compose_gap=quick, read_gap=quick, stale_gap=quick))
        crowd.stats.measuring = True
        try:
            group, people, begin = await _seat_table(emu, 0, 6, timeout=30)
            crowd.start(crowd.seat(group.id, people))
            await begin()
            await emu.wait_for(
                lambda: sum(crowd.stats.actions.values()) >= 25, timeout=120, description="25 human actions"
            )
        finally:
            await crowd.close()
            await stop_application(app)
        stats = crowd.stats
        assert stats.actions["compose-tap"] and stats.actions["compose"]
        assert not stats.errors and not emu.internal_errors
        assert stats.turns["follow"] + stats.turns["lead"] + stats.turns["decision"] > 0
        calls = _Calls(emu)
        calls.drain(True)
        assert calls.by["answerCallbackQuery ok"] > 0
