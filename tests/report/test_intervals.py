"""Intervals respect the metric's range: Wilson for 0/1 outcomes, a seeded bootstrap otherwise."""

import numpy as np
import pytest
from scipy import stats

from playbench.stats import summarize, wilson
from playbench.stats.intervals import BOOTSTRAP_LIMIT


def test_success_rates_get_wilson_intervals_inside_0_1():
    five_failures = summarize([0.0] * 5, proportion=True)  # a 5-episode BabyAI run that never succeeds
    assert five_failures["ci_method"] == "wilson"
    lo, hi = five_failures["ci95"]
    expected = stats.binomtest(0, 5).proportion_ci(method="wilson")
    assert lo == pytest.approx(0.0) and hi == pytest.approx(expected.high) and 0.4 < hi < 0.5
    mixed = summarize([1.0, 0.0, 1.0, 1.0], proportion=True)
    ref = stats.binomtest(3, 4).proportion_ci(method="wilson")
    assert mixed["ci95"] == pytest.approx([ref.low, ref.high])
    assert 0.0 <= mixed["ci95"][0] and mixed["ci95"][1] <= 1.0
    one = summarize([1.0], proportion=True)["ci95"]
    assert one[1] == pytest.approx(1.0) and one[0] > 0.2
    # a score that is no rate (Hanoi 0..3) gets no Wilson interval even when its values are 0 and 1
    assert summarize([1.0, 0.0, 1.0, 1.0])["ci_method"] == "bootstrap"
    assert wilson(0, 0) is None


def test_bounded_scores_never_get_an_interval_outside_their_values():
    hanoi_random = [0.0, 0.0, 0.0, 1.0, 0.0, 2.0]  # Hanoi scores 0..3: a t interval would dip below 0
    t_lo = np.mean(hanoi_random) - stats.t.ppf(0.975, 5) * stats.sem(hanoi_random)
    assert t_lo < 0
    s = summarize(hanoi_random)
    assert s["ci_method"] == "bootstrap" and 0.0 <= s["ci95"][0] < s["mean"] < s["ci95"][1] <= 2.0
    assert summarize(hanoi_random) == s  # seeded: a report is a pure function of its records
    assert summarize([3.0, 3.0, 3.0])["ci95"] == [3.0, 3.0]
    assert summarize([2.5])["ci95"] == [None, None]


def test_large_samples_use_the_clipped_t_interval():
    rng = np.random.default_rng(3)
    values = list(rng.random(BOOTSTRAP_LIMIT + 1) * 3)
    s = summarize(values)
    lo, hi = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert s["ci_method"] == "t (clipped)" and s["ci95"] == pytest.approx([lo, hi])
