"""95% confidence intervals that stay inside a metric's range.

- Success rates and other 0/1 outcomes: the Wilson score interval (``scipy.stats.binomtest``), which
  never leaves [0, 1] and is sensible even at 0 of 5 or 5 of 5.
- Every other score: a seeded percentile bootstrap of the mean (``scipy.stats.bootstrap``). A resampled
  mean lies between the smallest and the largest observed value, so the interval does too, and so it
  stays inside whatever range the metric has (a Hanoi score never gets an interval below 0). Beyond
  ``BOOTSTRAP_LIMIT`` values the t interval, clipped to the observed range, is used instead: at that size
  the two agree and resampling would only cost time.

Bootstrap intervals are seeded, so a report is a pure function of its records.
"""

import math
import warnings
from collections.abc import Sequence

import numpy as np

#: Resamples of the percentile bootstrap.
RESAMPLES = 2000
#: Above this many values the clipped t interval replaces the bootstrap.
BOOTSTRAP_LIMIT = 2000


def is_binary(values: Sequence[float]) -> bool:
    """Whether every value is 0 or 1 (a success rate)."""
    return bool(values) and all(v in (0.0, 1.0) for v in values)


def wilson(successes: float, n: int) -> tuple[float, float] | None:
    """The 95% Wilson score interval of ``successes`` out of ``n`` (None when ``n`` is 0)."""
    if n <= 0:
        return None
    from scipy import stats as _st  # here, not at import: scipy.stats costs more than a short run

    ci = _st.binomtest(round(successes), n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def bootstrap_mean(values: Sequence[float], seed: int = 0) -> tuple[float, float] | None:
    """A 95% percentile-bootstrap interval of the mean (None for fewer than two values)."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n < 2:
        return None
    lo_obs, hi_obs = float(x.min()), float(x.max())
    if lo_obs == hi_obs:
        return lo_obs, hi_obs
    from scipy import stats as _st  # here, not at import: scipy.stats costs more than a short run

    if n > BOOTSTRAP_LIMIT:
        mean = float(x.mean())
        half = float(_st.t.ppf(0.975, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
        return max(lo_obs, mean - half), min(hi_obs, mean + half)
    with warnings.catch_warnings():  # scipy's degenerate-data notices: the result is still defined
        warnings.simplefilter("ignore")
        res = _st.bootstrap((x,), np.mean, n_resamples=RESAMPLES, method="percentile", vectorized=True,
                            random_state=np.random.default_rng(seed), batch=max(1, 400_000 // n))
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def interval(values: Sequence[float], proportion: bool = False) -> tuple[tuple[float, float] | None, str | None]:
    """The interval suited to ``values`` and the name of its method (``wilson`` or ``bootstrap``).

    ``proportion``: the metric is a success rate in [0, 1], so 0/1 values get the Wilson interval. Other
    metrics never do, even when their values happen to be 0 and 1 (a Hanoi score of 0..3 is no rate).
    """
    if not values:
        return None, None
    if proportion and is_binary(values):
        return wilson(sum(values), len(values)), "wilson"
    ci = bootstrap_mean(values)
    if ci is None:
        return None, None
    return ci, "bootstrap" if len(values) <= BOOTSTRAP_LIMIT else "t (clipped)"
