"""The search's rollouts (engine/ai/rollout.py): the fast policy plays exactly the heuristic's moves, every one
of them legal, and a cloned round is independent of its original."""

from __future__ import annotations

import random

import pytest

from engine.ai import HeuristicPlayer, computer_action
from engine.ai.rollout import apply_unchecked, fast_copy, play_out, policy_action, team_score
from engine.match import P_PLAY, Match
from engine.round import Round
from engine.rules import Rules

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("preset", ["qingdao", "classic", "zhangqiu"])
def test_every_rollout_action_is_legal_and_rounds_end(preset: str) -> None:
    rules = Rules.preset(preset)
    for seed in range(40):
        rnd = Round.deal(rules, seed)
        steps = 0
        while not rnd.over:
            action = policy_action(rnd)
            assert rnd.illegal_reason(action) is None, (seed, str(action))
            apply_unchecked(rnd, action)
            steps += 1
        assert rnd.scores() is not None and steps < 1000


def test_r2_5_rollouts_stay_legal_with_two_big_kill_one() -> None:
    rules = Rules.preset("qingdao").with_(two_big_kill_one=True, burn_feasibility=False)
    for seed in range(30):
        rnd = Round.deal(rules, seed)
        while not rnd.over:
            action = policy_action(rnd)
            assert rnd.illegal_reason(action) is None, (seed, str(action))
            apply_unchecked(rnd, action)


def test_the_rollout_policy_plays_the_heuristic_players_moves() -> None:
    """The search's model of every seat is the heuristic itself: on a whole match the player (SeatView and
    legal actions) and the policy (the Round) choose the same action at every step of the play."""
    player = HeuristicPlayer()
    rng = random.Random(0)
    for seed in (3, 4):
        m = Match(Rules.preset("qingdao"), seed)
        compared = 0
        while m.current_player is not None:
            action = computer_action(m, player, rng)
            if m.phase == P_PLAY:
                assert m.round is not None
                assert policy_action(m.round) == action
                compared += 1
            m.apply(action)
        assert compared > 100


def test_a_clone_plays_out_without_touching_the_original() -> None:
    rnd = Round.deal(Rules.preset("qingdao"), 11)
    before = rnd.to_json()
    copy = rnd.clone()
    assert copy == rnd
    play_out(copy)
    assert copy.over and rnd.to_json() == before
    assert team_score(copy, 0) == -team_score(copy, 1)  # R11.1: the scores of a round sum to zero


def test_a_rollout_round_plays_exactly_as_a_round() -> None:
    """RolloutRound only answers Round's seat queries faster: the same policy gives the same round."""
    for preset in ("qingdao", "zhangqiu"):
        for seed in range(30):
            rnd = Round.deal(Rules.preset(preset), seed)
            fast = fast_copy(rnd)
            play_out(rnd)
            play_out(fast)
            assert fast.to_json() == rnd.to_json()
