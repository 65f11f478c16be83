"""The strong player (engine/ai/search.py), in deterministic mode (a fixed number of worlds, no clock): what a
player at the table would notice — it takes a burn that wins, stops its 对头 opening, keeps a gouji whole
against a small pair — and what the bot relies on: the same move for the same view and seed, whatever the
hidden cards are, and the same move from a process pool."""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor

import pytest

from engine.actions import Action
from engine.ai import HeuristicPlayer, computer_action, make_player
from engine.ai.search import SearchOptions, SearchStats, StrongPlayer, decide
from engine.cards import JACK, NRANKS, parse_cards
from engine.match import P_PLAY, Match, parse_action
from engine.round import Round
from engine.rules import Rules

pytestmark = pytest.mark.unit

QINGDAO = Rules.preset("qingdao")
OPTIONS = SearchOptions(worlds=12)


def position(hands: list[str], leader: int, opened: list[int] | None = None) -> Match:
    rnd = Round.from_position(QINGDAO, [parse_cards(h) for h in hands], leader, opened=opened or [])
    return Match.from_round(rnd)


def strong(
    m: Match, seed: int = 1, options: SearchOptions = OPTIONS, stats: SearchStats | None = None
) -> Action:
    seat = m.current_player
    assert seat is not None
    return decide(m.view(seat), m.legal_actions(), options, seed, stats)


def midgame(seed: int, plays: int) -> Match:
    """A dealt match after ``plays`` heuristic moves, at a lead or an answer with a real choice."""
    m = Match(QINGDAO, seed)
    player, rng = HeuristicPlayer(), random.Random(seed)
    done = 0
    while m.current_player is not None:
        if m.phase == P_PLAY and done >= plays and len(m.legal_actions()) > 2:
            view = m.view(m.current_player)  # type: ignore[arg-type]
            if view.top is None or view.top.owner % 2 != view.seat % 2:
                return m
        done += m.phase == P_PLAY
        m.apply(computer_action(m, player, rng))
    raise AssertionError("the round ended")


def test_make_player_levels_and_options() -> None:
    p = make_player("strong", budget_ms=50, seed=3, deterministic=True, worlds=4)
    assert isinstance(p, StrongPlayer) and p.options.worlds == 4 and p.options.budget_ms == 50
    assert make_player("normal").level == "heuristic"
    assert make_player("easy", budget_ms=50).level == "easy"  # options a level has no use for are ignored
    assert make_player("baseline").level == "baseline"


def test_deterministic_mode_gives_the_same_move_for_the_same_view_and_seed() -> None:
    m = midgame(2, 30)
    stats = SearchStats()
    first = strong(m, 7, stats=stats)
    assert stats.searched and 0 < stats.worlds <= OPTIONS.worlds
    assert all(strong(m, 7) == first for _ in range(2))
    assert m.is_legal(first)


def test_the_move_does_not_depend_on_the_hidden_cards() -> None:
    """Two matches that look the same from the seat (the other hands dealt differently among the others) give
    the same move: the search sees the view, never the hands."""
    for seed in (3, 4):
        m = midgame(seed, 20)
        seat = m.current_player
        assert seat is not None and m.round is not None
        m2 = m.copy()
        assert m2.round is not None
        others = [t for t in range(6) if t != seat]
        pool = [r for t in others for r in range(NRANKS) for _ in range(m.round.hands[t][r])]
        random.Random(seed).shuffle(pool)
        pos = 0
        for t in others:
            k = sum(m.round.hands[t])
            m2.round.hands[t] = [0] * NRANKS
            for r in pool[pos : pos + k]:
                m2.round.hands[t][r] += 1
            pos += k
        assert m2.round.hands != m.round.hands
        assert m2.view(seat) == m.view(seat) and m2.legal_actions() == m.legal_actions()
        player = make_player("strong", seed=5, deterministic=True, worlds=8)
        rng = random.Random(0)
        assert computer_action(m, player, rng) == computer_action(m2, player, rng)


def test_a_decision_pickles_and_gives_the_same_move_in_a_process_pool() -> None:
    m = midgame(5, 40)
    seat = m.current_player
    assert seat is not None
    player = StrongPlayer(seed=11, deterministic=True, worlds=6)
    job = player.job(m.view(seat), m.legal_actions(), random.Random(0))
    here = decide(*job)
    with ProcessPoolExecutor(max_workers=1) as pool:
        there = pool.submit(decide, *job).result()
    assert there == here


def test_a_single_legal_action_returns_at_once() -> None:
    m = position(["55", "AA", "66", "77", "88", "99"], 1, opened=list(range(6)))
    m.apply(parse_action("play AA"))
    assert m.current_player == 2 and len(m.legal_actions()) == 1
    stats = SearchStats()
    assert strong(m, stats=stats) == parse_action("pass") and stats.rollouts == 0


def test_r6_takes_the_burn_that_wins_the_round() -> None:
    # Seat 1 leads AA (gouji, R3.1); seat 2 can burn with RR and then lead out its 5 (R6.3).
    m = position(["55", "AA6", "RR5", "77", "99", "KK"], 1, opened=list(range(6)))
    m.apply(parse_action("play AA"))
    assert m.current_player == 2
    assert strong(m) == parse_action("burn RR")


def test_r5_1_stops_its_dui_tou_opening_and_going_out() -> None:
    # Seat 3 (my 对头, unopened) leads KKKK, a pure gouji: if it stands he opens (R5.1), keeps the lead and
    # goes out with his 9. Only I may answer it (R3.3), with AAAA.
    m = position(["AAAA5566", "6789T", "5678", "KKKK9", "5678", "6789T"], 3, opened=[0, 1, 2, 4, 5])
    m.apply(parse_action("play KKKK"))
    for _ in range(2):
        m.apply(parse_action("pass"))  # seats 4, 5 do not burn
    assert m.current_player == 0
    assert strong(m) == parse_action("play AAAA")


def test_does_not_break_a_gouji_to_beat_a_small_pair() -> None:
    m = position(["JJJJJ99456", "77TT", "5", "6", "8", "KQ"], 1, opened=list(range(6)))
    m.apply(parse_action("play 77"))
    seat = m.current_player
    assert seat == 2 or seat == 0
    while m.current_player != 0:
        m.apply(parse_action("pass"))
    action = strong(m)
    assert action.cards is None or action.cards[JACK] == 0, str(action)


def test_with_no_time_left_it_plays_the_heuristics_move_after_at_most_one_rollout() -> None:
    m = midgame(6, 25)
    seat = m.current_player
    assert seat is not None
    stats = SearchStats()
    action = decide(m.view(seat), m.legal_actions(), SearchOptions(budget_ms=0.0), 1, stats)
    assert action == HeuristicPlayer().choose(m.view(seat), m.legal_actions(), random.Random(0))
    assert stats.rollouts <= 1 and stats.worlds == 0


def test_a_fixed_number_of_worlds_bounds_the_work() -> None:
    m = midgame(7, 35)
    seat = m.current_player
    assert seat is not None
    stats = SearchStats()
    decide(m.view(seat), m.legal_actions(), SearchOptions(worlds=5), 2, stats)
    assert stats.searched and stats.worlds <= 5 and stats.rollouts <= 5 * stats.candidates


def test_every_choice_of_a_whole_round_is_legal() -> None:
    for preset in ("qingdao", "zhangqiu"):
        m = Match(Rules.preset(preset), 31)
        player = StrongPlayer(seed=1, deterministic=True, worlds=2)
        rng = random.Random(0)
        while (seat := m.current_player) is not None:
            action = player.choose(m.view(seat), m.legal_actions(), rng)
            assert m.is_legal(action), (str(action), m.phase)
            m.apply(action)
