"""R7.4 串三户 across the match (doubled scores, 圈贡 in place of the circled team's other tribute) and whole
matches under any combination of house rules (R12)."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from match_helpers import computer, deck, drive

from engine.match import P_OVER, Match
from engine.rules import DEFAULT_TRIBUTE_ORDER, Rules

pytestmark = pytest.mark.unit


def test_r7_4_circled_round_doubles_and_the_circled_team_pays_only_quan_gong() -> None:
    for seed in range(50):
        m = Match(Rules.preset("qingdao"), seed)
        drive(m, computer(), random.Random(seed))
        res = m.last_result
        if res["circled"]:
            break
    else:
        raise AssertionError("no 串三户 in 50 rounds")
    places, scores = res["places"], res["scores"]
    assert places[0] % 2 == places[1] % 2 == places[2] % 2
    assert [scores[s] for s in places] == [8, 4, 0, 0, -4, -8]
    loser = places[5] % 2
    m.next_round()
    from_losers = [d for d in m.debts if d.payer % 2 == loser]
    assert sorted((d.payer, d.receiver, d.n, d.kind) for d in from_losers) == [
        (s, (s + 3) % 6, 1, "quan") for s in range(6) if s % 2 == loser
    ]
    quan = [e for e in m.shown if e["kind"] == "tribute_quan"]
    assert [(e["seat"], e["other"]) for e in quan] == [(s, (s + 3) % 6) for s in range(6) if s % 2 == loser]


HOUSE = st.fixed_dictionaries(
    {k: st.booleans() for k in Rules.key_names() if k != "tribute_order"}
    | {"tribute_order": st.permutations(DEFAULT_TRIBUTE_ORDER).map(tuple)}
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(keys=HOUSE, seed=st.integers(0, 10**9))
def test_r12_any_house_rules_play_whole_matches_that_conserve_cards(keys: dict, seed: int) -> None:
    rules = Rules(**keys)
    m = Match(rules, seed)
    rng = random.Random(seed)
    full = deck(rules)
    log: list[str] = []

    def conserved(m: Match) -> None:
        assert m.cards_in_play() == full

    for i in range(2):
        if i:
            m.next_round()
            log.append("next")
        drive(m, computer(("heuristic", "baseline")), rng, check=conserved, log=log)
        assert m.phase == P_OVER and m.cards_in_play() == full
        assert sum(m.last_result["scores"]) == 0
    assert Match.replay(rules, seed, log) == m
