"""Means, standard errors and range-respecting 95% confidence intervals (see ``intervals``)."""

import math
from collections.abc import Sequence
from typing import Any

from playbench.stats.intervals import interval


def mean_stderr(values: Sequence[float], ddof: int = 1) -> tuple[float | None, float | None]:
    """Mean and standard error (sample SD with ``ddof=1``; ``ddof=0`` is the population form)."""
    n = len(values)
    if n == 0:
        return None, None
    mean = math.fsum(values) / n
    if n - ddof <= 0:
        return mean, None
    var = math.fsum((v - mean) ** 2 for v in values) / (n - ddof)
    return mean, math.sqrt(var) / math.sqrt(n)


def summarize(values: Sequence[float], proportion: bool = False) -> dict[str, Any]:
    """``{"mean", "stderr", "ci95": [lo, hi], "ci_method", "n"}``; undefined parts are ``None`` (JSON null).

    ``ci95`` is a Wilson interval for a success rate (``proportion``) whose values are all 0 or 1, else a
    percentile bootstrap of the mean: both stay inside the metric's range. One value alone has no
    bootstrap interval.
    """
    values = [float(v) for v in values]
    mean, se = mean_stderr(values)
    ci, method = interval(values, proportion)
    return {"mean": mean, "stderr": se, "ci95": list(ci) if ci is not None else [None, None],
            "ci_method": method, "n": len(values)}
