"""Means, standard errors and t-based 95% confidence intervals."""

import math
from collections.abc import Sequence


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


def summarize(values: Sequence[float]) -> dict:
    """``{"mean", "stderr", "ci95": [lo, hi], "n"}``; undefined parts are ``None`` (JSON null)."""
    values = [float(v) for v in values]
    mean, se = mean_stderr(values)
    if mean is None or se is None:
        ci = [mean, mean] if mean is not None and len(values) == 1 else [None, None]
        return {"mean": mean, "stderr": se, "ci95": ci, "n": len(values)}
    from scipy import stats  # only here: importing scipy.stats costs more than a one-episode run

    half = float(stats.t.ppf(0.975, len(values) - 1)) * se
    return {"mean": mean, "stderr": se, "ci95": [mean - half, mean + half], "n": len(values)}
