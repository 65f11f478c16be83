"""The heuristic team beats the baseline team clearly, seats swapped halfway, and beats the easy level on
duplicate deals (what gouji-sim measures at scale)."""

from __future__ import annotations

from engine.rules import Rules
from engine.sim import report, simulate


def test_heuristic_team_outscores_baseline_team_with_seats_swapped() -> None:
    result = simulate(Rules.preset("qingdao"), 7, 40, 5, "heuristic", "baseline", swap=True, progress=False)
    h, b = result.levels["heuristic"], result.levels["baseline"]
    assert h.rounds == b.rounds == 40
    assert h.score == -b.score  # every round's scores sum to zero (R11.1)
    assert h.score / h.rounds > 2.0
    assert sum(h.places[p] for p in (0, 1)) > sum(b.places[p] for p in (0, 1))
    text = report(result, "qingdao")
    assert "[heuristic]" in text and "[baseline]" in text and "rounds/s" in text


def test_heuristic_beats_easy_on_duplicate_deals() -> None:
    """Every match seed is played from both sides; the pair is the unit of the interval."""
    result = simulate(
        Rules.preset("qingdao"), 3, 120, 6, "heuristic", "easy", swap=False, progress=False, duplicate=True
    )
    assert result.rounds == 120 and len(result.pair_means) == 10
    assert result.levels["heuristic"].rounds == result.levels["easy"].rounds == 120
    assert sum(result.pair_means) / len(result.pair_means) > 1.0
    text = report(result, "qingdao")
    assert "[heuristic] vs [easy]" in text and "duplicate pairs" in text
