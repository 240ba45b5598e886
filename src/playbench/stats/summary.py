"""Means, standard errors and 95% confidence intervals by each metric's declared method (see ``intervals``)."""

import math
from collections.abc import Sequence
from typing import Any

from playbench.stats.intervals import interval
from playbench.stats.metric import SCORE, Metric


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


def summarize(values: Sequence[float], metric: Metric = SCORE) -> dict[str, Any]:
    """``{"mean", "stderr", "ci95": [lo, hi], "ci_method", "n"}``; undefined parts are ``None`` (JSON null).

    ``ci95`` is the interval ``metric`` declares (Wilson for a rate, a bootstrap inside the range for a
    bounded mean, a bootstrap for a plain mean); ``ci_method`` names it.
    """
    values = [float(v) for v in values]
    mean, se = mean_stderr(values)
    ci, method = interval(values, metric)
    return {"mean": mean, "stderr": se, "ci95": list(ci) if ci is not None else [None, None],
            "ci_method": method, "n": len(values)}
