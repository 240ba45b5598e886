"""The statistics the board leans on: rank intervals from bootstrap draws, and the Wilcoxon p of ``compare``'s
pairs, whose exact sign-flip test (scipy's for a few pairs with a zero or a tie, 0.1 s each) is computed at once:
the same p as scipy's, so the board can pair leaderboard rows task by task in its time."""

import numpy as np
import pytest
from scipy import stats

from playbench.report.board import _ranks
from playbench.stats.compare import wilcoxon_p


@pytest.mark.parametrize("seed", range(4))
def test_wilcoxon_p_is_scipys_for_zeros_and_ties(seed: int) -> None:
    rng = np.random.default_rng(seed)
    checked = 0
    for n in range(2, 14):
        d = rng.integers(-2, 3, size=n).astype(float) if n % 2 else np.round(rng.uniform(-1, 1, n), 1)
        if not d.any():
            continue
        assert wilcoxon_p(list(d)) == pytest.approx(float(stats.wilcoxon(d).pvalue), abs=1e-12, rel=0), d
        checked += 1
    assert checked >= 10
    # progression differences as floats subtract them (0.3 - 0.1 is not 0.2): ties exactly as scipy sees them
    d = np.array([0.3, 0.5, 0.2, 0.2, 0.0]) - np.array([0.1, 0.3, 0.0, 0.1, 0.0])
    assert wilcoxon_p(list(d)) == pytest.approx(float(stats.wilcoxon(d).pvalue), abs=1e-12, rel=0)


def test_rank_intervals_follow_the_draws() -> None:
    rng = np.random.default_rng(0)
    far = {0: rng.normal(0.9, 0.01, 2000), 1: rng.normal(0.1, 0.01, 2000)}
    assert _ranks({0: 0.9, 1: 0.1}, far) == {0: {"rank": 1, "low": 1, "high": 1}, 1: {"rank": 2, "low": 2, "high": 2}}
    # two rows that cannot be told apart: both may be first or second; a third far below is third
    close = {0: rng.normal(0.5, 0.1, 2000), 1: rng.normal(0.5, 0.1, 2000), 2: rng.normal(0.0, 0.01, 2000)}
    ranks = _ranks({0: 0.51, 1: 0.5, 2: 0.0}, close)
    assert ranks[0] == {"rank": 1, "low": 1, "high": 2} and ranks[1] == {"rank": 2, "low": 1, "high": 2}
    assert ranks[2] == {"rank": 3, "low": 3, "high": 3}
    # equal figures share the better rank
    assert _ranks({0: 0.5, 1: 0.5}, {0: np.full(10, 0.5), 1: np.full(10, 0.5)})[1]["rank"] == 1
