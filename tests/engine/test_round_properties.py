"""Property tests: random legal actions through whole rounds of random deals under each preset."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Action, IllegalAction, Round, Rules
from engine.actions import BURN, PASS, PLAY, YIELD
from engine.cards import FOUR, FULL_DECK, NRANKS, THREE
from engine.round import PLACE_POINTS

pytestmark = pytest.mark.unit

PRESETS = ("qingdao", "classic", "zhangqiu")
HOUSE_RULES = ("two_big_kill_one", "tie_two", "single_two_gouji", "burn_requires_open", "burn_feasibility")


def deck_for(rules: Rules) -> list[int]:
    deck = list(FULL_DECK)
    if rules.zhangqiu:
        deck[THREE] -= 10
        deck[FOUR] -= 10
    return deck


def random_action(rnd: Round, rng: random.Random) -> Action:
    # Leads: usually a plain lead; sometimes any lead, so 2s and jokers get attached too.
    if rnd.top is None and rng.random() < 0.3:
        return rng.choice(list(rnd.all_legal_actions()))
    return rng.choice(rnd.legal_actions())


def random_forged_action(rnd: Round, rng: random.Random) -> Action:
    kind = rng.choice((PLAY, BURN, PASS, YIELD))
    if kind in (PASS, YIELD):
        return Action(kind)
    cards = [0] * NRANKS
    for _ in range(rng.randint(1, 5)):
        cards[rng.randrange(NRANKS)] += 1
    return Action(kind, tuple(cards))


def every_play_of_size(hand: list[int], m: int) -> list[tuple[int, ...]]:
    """Brute force: every multiset of m cards from the hand with at most one base rank."""
    found = []
    for base in [-1, *range(12)]:
        for k in range(0, (hand[base] if base >= 0 else 0) + 1):
            for t in range(hand[12] + 1):
                for nb in range(hand[13] + 1):
                    nr = m - k - t - nb
                    if 0 <= nr <= hand[14] and (base < 0 or k > 0):
                        c = [0] * NRANKS
                        if base >= 0:
                            c[base] = k
                        c[12], c[13], c[14] = t, nb, nr
                        found.append(tuple(c))
    return found


rules_strategy = st.builds(
    lambda preset, flips: Rules.preset(preset).with_(**flips),
    st.sampled_from(PRESETS),
    st.fixed_dictionaries({}, optional={k: st.booleans() for k in HOUSE_RULES}),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1))
def test_random_rounds_keep_every_invariant(rules: Rules, seed: int) -> None:
    rng = random.Random(seed)
    rnd = Round.deal(rules, seed)
    deck = deck_for(rules)
    start = Round.from_json(rnd.to_json())
    log: list[Action] = []
    for _step in range(3000):
        if rnd.is_over:
            break
        # Cards are conserved: hands + played = the deck.
        totals = [sum(h[r] for h in rnd.hands) + rnd.pile[r] for r in range(NRANKS)]
        assert totals == deck
        legal = list(rnd.all_legal_actions())
        assert legal, "the seat to act always has something to do"
        # An action outside the legal set is refused with a reason and changes nothing.
        forged = random_forged_action(rnd, rng)
        if forged not in legal:
            before = rnd.to_json()
            try:
                rnd.apply(forged)
            except IllegalAction as e:
                assert e.reason
            else:
                raise AssertionError(f"{forged} was accepted but is not in the legal set")
            assert rnd.to_json() == before
        action = random_action(rnd, rng)
        rnd.apply(action)
        log.append(action)
        if rng.random() < 0.05:
            assert Round.from_json(json.loads(json.dumps(rnd.to_json()))) == rnd
    assert rnd.is_over, "every round ends"
    places = rnd.final_places()
    assert rnd.places == places, "once the round is over every place is decided"
    assert sorted(places) == list(range(6)), "places are a permutation of the seats"
    scores = rnd.scores()
    assert scores is not None
    factor = 2 if places[0] % 2 == places[1] % 2 == places[2] % 2 else 1
    assert [scores[s] for s in places] == [p * factor for p in PLACE_POINTS]
    assert sum(scores) == 0
    assert Round.from_json(json.loads(json.dumps(rnd.to_json()))) == rnd
    # The deal plus the action log rebuilds the state exactly.
    for action in log:
        start.apply(action)
    assert start == rnd


@settings(max_examples=25, deadline=None)
@given(rules=rules_strategy, seed=st.integers(0, 2**32 - 1))
def test_answer_lists_match_the_judge(rules: Rules, seed: int) -> None:
    """Every listed answer is legal, and every beating play in the hand not listed is refused."""
    rng = random.Random(seed)
    rnd = Round.deal(rules, seed)
    for _ in range(400):
        if rnd.is_over:
            break
        if rnd.top is not None:
            listed = rnd.legal_actions()
            assert len(set(listed)) == len(listed), "each distinct play is listed once"
            assert all(rnd.is_legal(a) for a in listed)
            size = sum(rnd.top.cards)
            for cards in every_play_of_size(rnd.hands[rnd.current_player], size):  # type: ignore[index]
                for kind in (PLAY, BURN):
                    a = Action(kind, cards)
                    assert (a in listed) == rnd.is_legal(a), a
        rnd.apply(random_action(rnd, rng))
