"""Determinizations (engine/ai/sampler.py): every world agrees with what the seat has seen and with nothing
else — the seat's own hand, the pile, every seat's count as counting tells it, 闷 seats holding only 3s, the
tribute cards a seat received and kept, no more of a rank a seat led alone — and the deck adds up."""

from __future__ import annotations

import random

import pytest

from engine.ai import HeuristicPlayer, computer_action
from engine.ai.sampler import Sampler, deck_of, declined_caps, round_from_view
from engine.cards import NRANKS, THREE, parse_cards
from engine.match import P_PLAY, Match
from engine.round import Round
from engine.rules import Rules

pytestmark = pytest.mark.unit

QINGDAO = Rules.preset("qingdao")


def midgame(seed: int, actions: int) -> Match:
    m = Match(QINGDAO, seed)
    player, rng = HeuristicPlayer(), random.Random(seed)
    done = 0
    while m.current_player is not None and (m.phase != P_PLAY or done < actions):
        done += m.phase == P_PLAY
        m.apply(computer_action(m, player, rng))
    return m


def test_worlds_keep_the_seats_hand_the_shown_counts_and_the_whole_deck() -> None:
    for seed, actions in ((1, 0), (2, 60), (3, 150), (4, 220)):
        m = midgame(seed, actions)
        seat = m.current_player
        if seat is None:
            continue
        view = m.view(seat)
        sampler = Sampler(view)
        rng = random.Random(seed)
        for _ in range(20):
            hands = sampler.hands(rng)
            assert tuple(hands[seat]) == view.hand
            for t in range(6):
                # Counting the deal, the transfers and the plays tells every count, not only the 报户 ones.
                assert sum(hands[t]) == sum(m.round.hands[t]) == view.sizes[t]
            total = [sum(h[r] for h in hands) + view.pile[r] for r in range(NRANKS)]
            assert total == deck_of(QINGDAO)


def test_a_world_is_the_views_round_with_other_hands() -> None:
    m = midgame(5, 90)
    seat = m.current_player
    assert seat is not None and m.round is not None
    view, legal = m.view(seat), m.legal_actions()
    world = round_from_view(view, Sampler(view).hands(random.Random(0)), legal)
    rnd = m.round
    for name in ("pile", "opened", "out", "bound", "queue", "free", "burner", "yielder", "current"):
        assert getattr(world, name) == getattr(rnd, name), name
    assert world.top == rnd.top or (world.top and rnd.top and world.top.cards == rnd.top.cards)
    assert world.legal_actions() == legal  # the seat's choices are the same in every world


def test_r8_3_a_men_seat_is_dealt_only_threes() -> None:
    hands = ["5566", "33", "789", "TT", "JJ", "QQ"]
    rnd = Round.from_position(QINGDAO, [parse_cards(h) for h in hands], 0, opened=list(range(6)))
    rnd.dead.append((1, "men"))
    m = Match.from_round(rnd)
    view = m.view(0)
    for _ in range(10):
        world = Sampler(view).hands(random.Random(_))
        assert world[1][THREE] == sum(world[1]) == 2


def test_a_world_does_not_depend_on_where_the_hidden_cards_really_are() -> None:
    m = midgame(6, 40)
    seat = m.current_player
    assert seat is not None and m.round is not None
    m2 = m.copy()
    assert m2.round is not None
    others = [t for t in range(6) if t != seat]
    pool = [r for t in others for r in range(NRANKS) for _ in range(m.round.hands[t][r])]
    random.Random(1).shuffle(pool)
    pos = 0
    for t in others:
        k = sum(m.round.hands[t])
        m2.round.hands[t] = [0] * NRANKS
        for r in pool[pos : pos + k]:
            m2.round.hands[t][r] += 1
        pos += k
    assert m2.round.hands != m.round.hands and m2.view(seat) == m.view(seat)
    a = Sampler(m.view(seat)).hands(random.Random(9))
    b = Sampler(m2.view(seat)).hands(random.Random(9))
    assert a == b


def test_tribute_a_seat_received_and_kept_is_in_his_hand_in_every_world() -> None:
    """R10.3: all tribute is shown to the table; the 2s and jokers a seat received are his until he plays them."""
    checked = 0
    for seed in range(1, 12):
        m = midgame(seed, 10**6)  # round 1 to its end
        m.next_round()
        player, rng = HeuristicPlayer(), random.Random(seed)
        while m.current_player is not None and m.phase != P_PLAY:
            m.apply(computer_action(m, player, rng))
        for _ in range(40):  # some way into round 2
            if m.current_player is None:
                break
            m.apply(computer_action(m, player, rng))
        seat = m.current_player
        if seat is None:
            continue
        view = m.view(seat)
        kept = {
            (t, r): view.received[t][r] - view.played[t][r]
            for t in range(6)
            if t != seat
            for r in range(NRANKS)
            if view.received[t][r] > view.played[t][r]
        }
        for i in range(10):
            hands = Sampler(view).hands(random.Random(i))
            for (t, r), k in kept.items():
                assert hands[t][r] >= k, (seed, t, r)
        checked += len(kept)
    assert checked >= 5  # enough tribute went round to show it


def test_a_rank_a_seat_led_alone_is_not_dealt_to_him_again() -> None:
    """Players lead a rank's cards together: after a seat led its 7s alone, no world gives it another 7 while
    other seats have room for them."""
    m = midgame(3, 150)
    seat = m.current_player
    assert seat is not None
    view = m.view(seat)
    led = [(t, r) for t in range(6) if t != seat for r in range(12) if view.plain[t] >> r & 1]
    assert led, "someone has led a rank alone by now"
    pool = Sampler(view).pool
    assert any(pool[r] for _, r in led), "some of those ranks are still out"
    for i in range(20):
        hands = Sampler(view).hands(random.Random(i))
        for t, r in led:
            assert hands[t][r] == 0, (t, r)


def test_a_seat_that_passed_on_a_cheap_answer_is_dealt_too_few_to_have_made_it() -> None:
    """A pass tells something: with nobody near the end, a player who could answer an opponent's small play
    cheaply (the heuristic's budget) does, so a seat that passed holds fewer cards of those ranks than the
    play had, in every world; the real hands of heuristic players always agree."""
    found = 0
    for seed in range(1, 12):
        for actions in (60, 100, 150):
            m = midgame(seed, actions)
            seat = m.current_player
            if seat is None or m.round is None:
                continue
            view = m.view(seat)
            for t in range(6):
                if t == seat:
                    continue
                caps: dict[int, int] = {}
                for d in view.declined[t]:
                    for r, k in declined_caps(d, QINGDAO, view.played[t]):
                        caps[r] = min(k, caps.get(r, k))
                if not caps:
                    continue
                found += 1
                assert all(m.round.hands[t][r] <= k for r, k in caps.items())
                for i in range(5):
                    world = Sampler(view).hands(random.Random(i))
                    assert all(world[t][r] <= k for r, k in caps.items()), (seed, t, caps, world[t])
    assert found >= 10
