"""95% confidence intervals whose method is the metric's, declared with it (``metric.Metric``).

The method follows the metric's declared kind, never the values one run happens to hold, so two runs of
the same metric are always measured alike (``report``, ``compare``, the viewer and plots all read these):

- ``rate`` (0/1 outcomes): the **Wilson** score interval of ``sum / n``. It never leaves [0, 1] and means
  something at 0 of 5 or 5 of 5.
- ``bounded-mean`` (values in a declared ``[low, high]``): a seeded **percentile bootstrap** of the mean
  (``scipy.stats.bootstrap``). A resampled mean lies between the smallest and largest observed value, so
  the interval stays inside the range. A sample with **no spread** (every value equal, or one value) has
  a zero-width bootstrap interval, which would read as certainty that ten zeros do not give. There the
  data cannot tell "every episode scores v" from "episodes score ``low`` or ``high`` in proportions whose
  mean is v", and the second has the largest variance the range allows at that mean (Bhatia–Davis:
  ``var <= (mean - low)(high - mean)``). So the interval is the Wilson interval of the mean rescaled to
  [0, 1] by the range, mapped back: the interval the widest distribution consistent with the sample and
  the declaration would get. Ten zeros of a [0, 1] progression give [0, 0.278] (a rate of 0 of 10 gets
  the same), and the upper end shrinks as ``1.96² / (n + 1.96²)``.
- ``mean`` (no declared range): the percentile bootstrap; with no spread there is no honest interval
  without a range, so there is none (``None``), never a zero-width one.

Values outside a metric's declared range mean the declaration does not fit the records (a run folder
may come from anyone): such a sample gets no interval rather than one computed under a false premise.
Beyond ``BOOTSTRAP_LIMIT`` values the t interval, clipped to the observed range, replaces the bootstrap:
at that size the two agree and resampling would only cost time. Bootstrap intervals are seeded, so a
report is a pure function of its records.
"""

import math
import warnings
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

from playbench.stats.metric import SCORE, Metric

#: Resamples of the percentile bootstrap.
RESAMPLES = 2000
#: Above this many values the clipped t interval replaces the bootstrap.
BOOTSTRAP_LIMIT = 2000
#: The normal quantile of a two-sided 95% interval.
Z95 = NormalDist().inv_cdf(0.975)


def wilson(successes: float, n: int) -> tuple[float, float] | None:
    """The 95% Wilson score interval of ``successes`` out of ``n`` (None when ``n`` is 0).

    ``successes`` may be fractional (a rescaled mean times ``n``); for whole counts this is
    ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``.
    """
    if n <= 0:
        return None
    p = min(1.0, max(0.0, successes / n))
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # at 0 of n (n of n) the end is 0 (1) exactly, not 0 give or take a rounding error
    return (0.0 if p == 0 else max(0.0, centre - half)), (1.0 if p == 1 else min(1.0, centre + half))


def bootstrap_mean(values: Sequence[float], seed: int = 0) -> tuple[float, float] | None:
    """A 95% percentile-bootstrap interval of the mean (None for a sample with no spread or one value)."""
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n < 2:
        return None
    lo_obs, hi_obs = float(x.min()), float(x.max())
    if lo_obs == hi_obs:
        return None
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


def range_bound(values: Sequence[float], low: float, high: float) -> tuple[float, float] | None:
    """The no-spread interval of a bounded mean: Wilson on the mean rescaled to [0, 1], mapped back."""
    if not values:
        return None
    span = high - low
    p = (math.fsum(values) / len(values) - low) / span
    ci = wilson(p * len(values), len(values))
    return None if ci is None else (low + ci[0] * span, low + ci[1] * span)


def interval(values: Sequence[float], metric: Metric = SCORE) -> tuple[tuple[float, float] | None, str | None]:
    """The 95% interval of the mean of ``values`` by ``metric``'s declared method, and that method's name.

    The name is the metric's (``wilson`` or ``bootstrap``; ``t (clipped)`` above ``BOOTSTRAP_LIMIT``
    values) whether or not an interval could be given; both are None for no values.
    """
    if not values:
        return None, None
    method = metric.method if len(values) <= BOOTSTRAP_LIMIT or metric.kind == "rate" else "t (clipped)"
    if not all(math.isfinite(v) and metric.holds(v) for v in values):
        return None, method
    if metric.kind == "rate":
        return wilson(math.fsum(values), len(values)), method
    ci = bootstrap_mean(values)
    if ci is None and metric.kind == "bounded-mean" and metric.low is not None and metric.high is not None:
        ci = range_bound(values, metric.low, metric.high)
    return ci, method
