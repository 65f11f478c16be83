"""Determinizations (engine/ai/sampler.py): every world agrees with what the seat has seen and with nothing
else — the seat's own hand, the pile, the 报户 counts, 闷 seats holding only 3s — and the deck adds up."""

from __future__ import annotations

import random

from engine.ai import HeuristicPlayer, computer_action
from engine.ai.sampler import Sampler, deck_of, round_from_view
from engine.cards import NRANKS, THREE, parse_cards
from engine.match import P_PLAY, Match
from engine.round import Round
from engine.rules import Rules

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
                if view.counts[t] is not None:
                    assert sum(hands[t]) == view.counts[t]
                else:
                    assert sum(hands[t]) > 10  # 报户: a hidden count is more than 10
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
