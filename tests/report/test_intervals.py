"""Intervals by the metric's declared kind: Wilson for rates, a bootstrap inside the range otherwise."""

import numpy as np
import pytest
from scipy import stats

from playbench.stats import summarize, wilson
from playbench.stats.intervals import BOOTSTRAP_LIMIT
from playbench.stats.metric import Metric

RATE = Metric("success", "rate")
HANOI = Metric("score", "bounded-mean", 0.0, 3.0)


def test_success_rates_get_wilson_intervals_inside_0_1():
    five_failures = summarize([0.0] * 5, RATE)  # a 5-episode BabyAI run that never succeeds
    assert five_failures["ci_method"] == "wilson"
    lo, hi = five_failures["ci95"]
    expected = stats.binomtest(0, 5).proportion_ci(method="wilson")
    assert lo == 0.0 and hi == pytest.approx(expected.high) and 0.4 < hi < 0.5
    mixed = summarize([1.0, 0.0, 1.0, 1.0], RATE)
    ref = stats.binomtest(3, 4).proportion_ci(method="wilson")
    assert mixed["ci95"] == pytest.approx([ref.low, ref.high])
    assert 0.0 <= mixed["ci95"][0] and mixed["ci95"][1] <= 1.0
    one = summarize([1.0], RATE)["ci95"]
    assert one[1] == 1.0 and one[0] > 0.2
    # a score that is no rate (Hanoi 0..3) gets no Wilson interval even when its values are 0 and 1
    assert summarize([1.0, 0.0, 1.0, 1.0], HANOI)["ci_method"] == "bootstrap"
    assert summarize([1.0, 0.0, 1.0, 1.0])["ci_method"] == "bootstrap"
    assert wilson(0, 0) is None
    for k, n in ((0, 1), (3, 7), (12, 40), (40, 40)):  # the hand-written formula is scipy's
        ref = stats.binomtest(k, n).proportion_ci(method="wilson")
        assert wilson(k, n) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_bounded_scores_never_get_an_interval_outside_their_range():
    hanoi_random = [0.0, 0.0, 0.0, 1.0, 0.0, 2.0]  # Hanoi scores 0..3: a t interval would dip below 0
    t_lo = np.mean(hanoi_random) - stats.t.ppf(0.975, 5) * stats.sem(hanoi_random)
    assert t_lo < 0
    s = summarize(hanoi_random, HANOI)
    assert s["ci_method"] == "bootstrap" and 0.0 <= s["ci95"][0] < s["mean"] < s["ci95"][1] <= 2.0
    assert summarize(hanoi_random, HANOI) == s  # seeded: a report is a pure function of its records
    # no spread: the Wilson interval of 3/3 rescaled (1.0 of 1), i.e. [1 - 1.96²/(3 + 1.96²), 1] x 3
    lo, hi = summarize([3.0, 3.0, 3.0], HANOI)["ci95"]
    assert hi == 3.0 and lo == pytest.approx(3 * stats.binomtest(3, 3).proportion_ci(method="wilson").low)
    # a value outside the declared range: the declaration does not fit, so no interval rather than a false one
    outside = summarize([1.0, 4.0], HANOI)
    assert outside["ci95"] == [None, None] and outside["ci_method"] == "bootstrap"
    # a plain mean (no declared range) with no spread has no honest interval: none, never [v, v]
    assert summarize([3.0, 3.0, 3.0])["ci95"] == [None, None]
    assert summarize([2.5])["ci95"] == [None, None]


def test_large_samples_use_the_clipped_t_interval():
    rng = np.random.default_rng(3)
    values = list(rng.random(BOOTSTRAP_LIMIT + 1) * 3)
    s = summarize(values, HANOI)
    lo, hi = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
    assert s["ci_method"] == "t (clipped)" and s["ci95"] == pytest.approx([lo, hi])
    assert summarize([0.0, 1.0] * 1500, RATE)["ci_method"] == "wilson"  # a rate stays Wilson at any size


def test_declarations_are_checked():
    with pytest.raises(ValueError, match="low < high"):
        Metric("x", "bounded-mean", 1.0, 1.0)
    with pytest.raises(ValueError, match="no range"):
        Metric("x", "mean", 0.0, 1.0)
    assert (RATE.low, RATE.high) == (0.0, 1.0)
