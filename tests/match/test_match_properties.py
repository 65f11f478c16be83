"""Properties of whole matches under every preset (hypothesis): cards are conserved through 买三, tribute, 还贡
and play (R1.2, R8.2, R10), every debt is paid or waived as R10 says, two revolutions redeal (R9.2), totals add
up (R11.2), and the state survives JSON and rebuilding from seed + log."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from match_helpers import answer_stage, computer, deck, revolt_seats

from engine.actions import Action
from engine.cards import BIG, NRANKS, SMALL, TWO, format_cards, parse_cards
from engine.match import P_OVER, P_PLAY, Match
from engine.round import Debt
from engine.rules import Rules

pytestmark = pytest.mark.unit

PRESETS = ("qingdao", "classic", "zhangqiu")
FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def expected_tribute(rules: Rules, m: Match, debts: list[Debt]) -> list[tuple[str, int, int, str]]:
    """R10 worked out from the dealt hands and the 买三 payments shown to the table, independently of
    engine.tribute: order by tribute_order, teammates waived, 抗贡, natural R/B/2 highest first, short pays less."""
    natural = [list(h) for h in m.dealt]
    for e in m.shown:
        if e["kind"] in ("bought_three", "bought_four") and "cards" in e:
            for r, n in enumerate(parse_cards(e["cards"])):
                natural[e["seat"]][r] -= n
    exempt: set[int] = set()
    if rules.kang_gong:
        for s in range(6):
            if m.dealt[s][BIG] >= 4:
                exempt |= {s, (s + 2) % 6, (s + 4) % 6}
            elif m.dealt[s][SMALL] >= 4:
                exempt.add(s)
    out = []
    for kind in rules.tribute_order:
        for d in debts:
            if d.kind != kind or d.payer % 2 == d.receiver % 2:
                continue
            paid = [0] * NRANKS
            if d.payer not in exempt:
                for _ in range(d.n):
                    r = next((r for r in (BIG, SMALL, TWO) if natural[d.payer][r]), None)
                    if r is None:
                        break
                    natural[d.payer][r] -= 1
                    paid[r] += 1
            out.append((f"tribute_{kind}", d.payer, d.receiver, format_cards(paid)))
    return out


def shown_tribute(m: Match) -> list[tuple[str, int, int, str]]:
    return [
        (e["kind"], e["seat"], e["other"], e.get("cards", "-"))
        for e in m.shown
        if e["kind"].startswith("tribute_") and e["kind"] not in ("tribute_short", "tribute_exempt")
    ]


def mixed_chooser(levels: tuple[str, str], wild: float):
    """Computer players, with a share of uniformly random legal choices to reach burns, yields and revolts."""
    comp = computer(levels)

    def choose(m: Match, rng: random.Random) -> Action:
        if rng.random() < wild:
            return rng.choice(m.legal_actions())
        return comp(m, rng)

    return choose


@FAST
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(0, 10**9),
    wild=st.sampled_from((0.0, 0.3, 1.0)),
    levels=st.sampled_from(
        (("heuristic", "baseline"), ("baseline", "heuristic"), ("heuristic", "heuristic"))
    ),
)
def test_whole_matches_conserve_cards_pay_debts_as_r10_and_add_up(
    preset: str, seed: int, wild: float, levels: tuple[str, str]
) -> None:
    rules = Rules.preset(preset)
    full = deck(rules)
    m = Match(rules, seed)
    rng = random.Random(seed)
    choose = mixed_chooser(levels, wild)
    debts: list[Debt] = []
    checked_tribute = False
    log: list[str] = []
    results = []
    for i in range(3):
        if i:
            debts = m.round.debts()
            m.next_round()
            log.append("next")
            checked_tribute = False
            assert m.debts == debts
        while m.current_player is not None:
            assert m.cards_in_play() == full
            if m.phase == P_PLAY and not checked_tribute:
                assert shown_tribute(m) == expected_tribute(rules, m, debts)
                checked_tribute = True
            if rng.random() < 0.05:
                copy = Match.from_json(json.loads(json.dumps(m.to_json())))
                assert copy == m and copy.legal_actions() == m.legal_actions()
            action = choose(m, rng)
            m.apply(action)
            log.append(str(action))
        assert m.phase == P_OVER and m.cards_in_play() == full
        res = m.last_result
        results.append(res)
        assert sum(res["scores"]) == 0 and sorted(res["places"]) == list(range(6))
    assert m.totals == [sum(r["scores"][s] for r in results) for s in range(6)]
    assert m.team_totals == (sum(m.totals[0::2]), sum(m.totals[1::2]))
    assert Match.replay(rules, seed, log) == m


@settings(max_examples=10, deadline=None)
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 10**6))
@example(preset="qingdao", seed=135)
@example(preset="zhangqiu", seed=14)
@example(preset="classic", seed=2252)
def test_r9_2_two_or_more_revolutions_always_redeal(preset: str, seed: int) -> None:
    rules = Rules.preset(preset)
    m = Match(rules, seed)
    deals = 0
    while m.phase != P_PLAY:
        eligible = revolt_seats(m)
        deal_no = m.deal_no
        for s in eligible:
            m.apply(Action("revolt"), s)
        answer_stage(m, lambda m, s: m.legal_actions(s)[0])  # the others' 宣点: revealed when all are in
        if m.deal_no != deal_no:
            assert len(eligible) >= 2 and m.deal_no == deal_no + 1 and m.revolted is None
            deals += 1
            continue
        assert (m.revolted is not None) == bool(eligible)
        while m.phase != P_PLAY and m.deal_no == deal_no:
            m.apply(m.legal_actions()[0])
    assert m.round.revolted == m.revolted
    assert m.cards_in_play() == deck(rules)
    if (preset, seed) in (("qingdao", 135), ("zhangqiu", 14), ("classic", 2252)) and deals == 0:
        raise AssertionError("the example seeds have two eligible revolutionaries")
